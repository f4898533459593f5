package sqlitestore

import (
	"context"
	"encoding/json"
	"iter"
	"sync"

	"github.com/deepresearch/deepresearch/clock"
)

// hub wakes the followers of a run in this process when it changes, and
// keeps the last events this process committed for each live run, so that
// a follower that is keeping up takes them from memory instead of reading
// the database. The log in the database stays the only truth: an event is
// in a tail only after it was committed, a follower takes from a tail only
// events that continue exactly where it is, and anything else is read from
// the database.
type hub struct {
	mu   sync.Mutex
	runs map[string]*tail
}

// tail is one run's wake-up channel and its most recent committed events.
type tail struct {
	wake chan struct{}
	evs  []Event // consecutive seqs, at most tailLen
}

// tailLen bounds the events kept in memory per live run.
const tailLen = 256

func (h *hub) get(run string) *tail {
	t, ok := h.runs[run]
	if !ok {
		t = &tail{wake: make(chan struct{})}
		h.runs[run] = t
	}
	return t
}

// watch returns a channel closed at the run's next change.
func (h *hub) watch(run string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.get(run).wake
}

// since returns the kept events of run after seq, and whether they
// continue exactly from seq (when not, read the database).
func (h *hub) since(run string, seq uint64) ([]Event, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.runs[run]
	if !ok || len(t.evs) == 0 || t.evs[0].Seq > seq+1 {
		return nil, false
	}
	last := t.evs[len(t.evs)-1].Seq
	if last <= seq {
		return nil, true
	}
	return append([]Event(nil), t.evs[len(t.evs)-int(last-seq):]...), true
}

// publish keeps a committed event and wakes its run's followers.
func (h *hub) publish(e Event) {
	h.mu.Lock()
	t := h.get(e.RunID)
	if n := len(t.evs); n > 0 && t.evs[n-1].Seq+1 != e.Seq {
		t.evs = t.evs[:0] // not consecutive (another process appends too): keep none
	}
	if len(t.evs) == tailLen {
		copy(t.evs, t.evs[1:])
		t.evs = t.evs[:tailLen-1]
	}
	t.evs = append(t.evs, e)
	c := t.wake
	t.wake = make(chan struct{})
	h.mu.Unlock()
	close(c)
}

// notify wakes the run's current followers.
func (h *hub) notify(run string) {
	h.mu.Lock()
	t, ok := h.runs[run]
	var c chan struct{}
	if ok {
		c = t.wake
		t.wake = make(chan struct{})
	}
	h.mu.Unlock()
	if ok {
		close(c)
	}
}

// forget wakes the run's followers and drops what is kept of it: the run
// has ended, and its followers finish from the database.
func (h *hub) forget(run string) {
	h.mu.Lock()
	t, ok := h.runs[run]
	delete(h.runs, run)
	h.mu.Unlock()
	if ok {
		close(t.wake)
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
		last := afterSeq
		wait := func(wake <-chan struct{}) bool {
			poll, stop := clock.After(s.opts.Clock, s.opts.Poll)
			defer stop()
			select {
			case <-wake:
			case <-poll:
			case <-ctx.Done():
				yield(Event{}, opErr("follow", id, context.Cause(ctx)))
				return false
			}
			return true
		}
		for {
			// Watch before reading: an append after the read wakes us.
			wake := s.hub.watch(id)
			// Keeping up with a run this process writes: from memory.
			if evs, ok := s.hub.since(id, last); ok && len(evs) > 0 {
				for _, e := range evs {
					if !yield(e, nil) {
						return
					}
					last = e.Seq
				}
				if !wait(wake) {
					return
				}
				continue
			}
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
			if !wait(wake) {
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
