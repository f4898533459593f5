package store

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"time"
)

// hub wakes the followers of a run in this process when it changes. It
// holds no events: the log in the database is the only truth, and the hub
// only shortens the wait before a follower re-reads it.
type hub struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

// watch returns a channel closed at the run's next change.
func (h *hub) watch(run string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.ch[run]
	if !ok {
		c = make(chan struct{})
		h.ch[run] = c
	}
	return c
}

// notify wakes the run's current watchers.
func (h *hub) notify(run string) {
	h.mu.Lock()
	c, ok := h.ch[run]
	delete(h.ch, run)
	h.mu.Unlock()
	if ok {
		close(c)
	}
}

// batch is how many events a follower reads per query.
const batch = 512

// Events follows run id's log from after the event numbered afterSeq (0:
// from the start). It yields every stored event with a greater sequence
// number in order, then each event appended later as it is appended, and
// ends after yielding the last event of a run that has ended. It never
// yields an event twice or skips one.
//
// It ends early, yielding a non-nil error last, when the run does not
// exist (ErrNotFound), when the database fails, or when ctx is done
// (context.Cause(ctx)). A follower costs no goroutine; while it waits it
// holds no database connection.
func (s *Store) Events(ctx context.Context, id string, afterSeq uint64) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		var timer *time.Timer
		defer func() {
			if timer != nil {
				timer.Stop()
			}
		}()
		last := afterSeq
		for {
			// Watch before reading: an append after the read wakes us.
			wake := s.hub.watch(id)
			// Read the status before the events: if the run had ended
			// then, the read below sees its every event.
			var st Status
			err := s.rdb.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, id).Scan(&st)
			if err != nil {
				if ctx.Err() != nil {
					err = context.Cause(ctx)
				} else if isNoRows(err) {
					err = ErrNotFound
				}
				yield(Event{}, opErr("follow", id, err))
				return
			}
			evs, err := s.after(ctx, id, last)
			if err != nil {
				if ctx.Err() != nil {
					err = context.Cause(ctx)
				}
				yield(Event{}, opErr("follow", id, err))
				return
			}
			for _, e := range evs {
				if !yield(e, nil) {
					return
				}
				last = e.Seq
			}
			if len(evs) == batch {
				continue
			}
			if st.Ended() {
				return
			}
			if timer == nil {
				timer = time.NewTimer(s.opts.Poll)
			} else {
				timer.Reset(s.opts.Poll)
			}
			select {
			case <-wake:
			case <-timer.C:
			case <-ctx.Done():
				yield(Event{}, opErr("follow", id, context.Cause(ctx)))
				return
			}
		}
	}
}

func (s *Store) after(ctx context.Context, id string, seq uint64) ([]Event, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT seq, type, json FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		id, int64(seq), batch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		e := Event{RunID: id}
		var seq int64
		var b string
		if err := rows.Scan(&seq, &e.Type, &b); err != nil {
			return nil, err
		}
		e.Seq, e.JSON = uint64(seq), json.RawMessage(b)
		out = append(out, e)
	}
	return out, rows.Err()
}
