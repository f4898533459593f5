package natsrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/clock"
)

// Remote gives an HTTP server the events of runs that other server
// processes run and publish to the events stream (EventLog): give it as
// httpapi.Config.Remote, and a client's reconnect may reach any server
// process. Events come as the run's store keeps them (json.Marshal of the
// event), so a run's stream reads the same from every server.
//
// Remote owns no goroutine; it is safe for concurrent use.
type Remote struct {
	JS     jetstream.JetStream
	Config Config
}

// LastEvent returns the last event of run id in the events stream, or an
// error wrapping deepresearch.ErrRunNotFound when it has none. When the
// run's last message is a notice, the event returned has only the run's
// ID (its number is not known without reading the run).
func (rm *Remote) LastEvent(ctx context.Context, id string) (deepresearch.StoredEvent, error) {
	if checkRun(id) != nil {
		return deepresearch.StoredEvent{}, fmt.Errorf("%w: %q names no run's subject", deepresearch.ErrRunNotFound, id)
	}
	// A cluster that does not answer is an error soon, not a request
	// that waits for it.
	ctx, cancel := clock.WithTimeout(ctx, rm.Config.clock(), lastEventTry)
	defer cancel()
	n := NamesOf(rm.Config)
	r := reader{js: rm.JS, name: n.EventsStream, subject: n.Events(id), clock: rm.Config.clock()}
	if err := r.open(ctx); err != nil {
		return deepresearch.StoredEvent{}, timeout(ctx, err)
	}
	end, err := r.stream.GetLastMsgForSubject(ctx, n.Events(id))
	err = timeout(ctx, err)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return deepresearch.StoredEvent{}, fmt.Errorf("%w: %s in the events stream", deepresearch.ErrRunNotFound, id)
	case err != nil:
		return deepresearch.StoredEvent{}, err
	}
	m, seq, err := r.lastEvent(ctx, end)
	switch {
	case err != nil:
		return deepresearch.StoredEvent{}, timeout(ctx, err)
	case m == nil:
		return deepresearch.StoredEvent{}, fmt.Errorf("%w: %s has only notices in the events stream", deepresearch.ErrRunNotFound, id)
	}
	return stored(id, seq, m.Data), nil
}

// lastEventTry bounds LastEvent.
const lastEventTry = 5 * time.Second

// Follow calls fn with each event of run id numbered after after, in
// order, each number once (see natsrun.Follow), leaving out notices.
func (rm *Remote) Follow(ctx context.Context, id string, after uint64, fn func(deepresearch.StoredEvent) bool) error {
	return Follow(ctx, rm.JS, rm.Config, id, int64(after), func(seq int64, data []byte) bool {
		if seq == 0 {
			return true // a notice, not one of the run's events
		}
		return fn(stored(id, seq, data))
	})
}

// stored is an event as a run store keeps it: json.Marshal compacts what
// Event.MarshalJSON gives (which the events stream holds) and escapes <, >
// and & (and U+2028, U+2029) in it.
func stored(run string, seq int64, data []byte) deepresearch.StoredEvent {
	b, err := json.Marshal(json.RawMessage(data))
	if err != nil {
		b = data // not JSON: passed on as it came
	}
	var head struct {
		Type string `json:"type"`
	}
	json.Unmarshal(data, &head) //nolint:errcheck // an event without a type is sent without one
	return deepresearch.StoredEvent{RunID: run, Seq: uint64(seq), Type: head.Type, JSON: b}
}

// Ask sends req to the server process that answers for run id
// (AnswerRuns) and returns the first answer accept takes: Remote is an
// httpapi.Forwarder, so a run's report, its cancellation and a person's
// answers work through any server process. Any client of the cluster can
// answer on the subject, so accept is how the asker tells the owner's
// answer from another's (httpapi checks a MAC with serve.token); the
// answers it does not take are dropped, and Ask waits on for the next.
// It fails when no process answers, or none with an answer accept takes,
// before ctx ends.
func (rm *Remote) Ask(ctx context.Context, id string, req []byte, accept func([]byte) bool) ([]byte, error) {
	if err := checkRun(id); err != nil {
		return nil, err
	}
	nc := rm.JS.Conn()
	inbox := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return nil, fmt.Errorf("natsrun: asking for run %s: %w", id, err)
	}
	defer sub.Unsubscribe() //nolint:errcheck // the connection's end ends it too
	if err := nc.PublishMsg(&nats.Msg{Subject: NamesOf(rm.Config).Control(id), Reply: inbox, Data: req}); err != nil {
		return nil, fmt.Errorf("natsrun: asking for run %s: %w", id, err)
	}
	refused := 0
	for {
		m, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			if refused > 0 {
				return nil, fmt.Errorf("natsrun: asking for run %s: %w (%d answers were not taken)", id, err, refused)
			}
			return nil, fmt.Errorf("natsrun: asking for run %s: %w", id, err)
		}
		if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
			return nil, fmt.Errorf("natsrun: asking for run %s: %w", id, nats.ErrNoResponders)
		}
		if accept == nil || accept(m.Data) {
			return m.Data, nil
		}
		refused++
	}
}

// answerTry bounds the answer to one forwarded request: less than the
// asker waits (httpapi.AnswerTry).
const answerTry = 15 * time.Second

// AnswerRuns answers the requests other server processes forward (Ask)
// with answer, until ctx is done: answer says false for a run this
// process does not hold, and the request is left to the one that does
// (limit is the most an answer may hold). Each request is answered on a
// goroutine of its own, within 15s; AnswerRuns waits for those in
// progress before it returns context.Cause(ctx), or fails at once when
// it cannot subscribe.
func (rm *Remote) AnswerRuns(ctx context.Context, answer func(ctx context.Context, run string, req []byte, limit int) ([]byte, bool)) error {
	nc := rm.JS.Conn()
	n := NamesOf(rm.Config)
	prefix := n.Control("")
	limit := int(nc.MaxPayload()) - 1024 // room for the reply's headers
	var (
		mu     sync.Mutex
		closed bool
		wg     sync.WaitGroup
	)
	sub, err := nc.Subscribe(n.Control("*"), func(m *nats.Msg) {
		run := strings.TrimPrefix(m.Subject, prefix)
		if m.Reply == "" || checkRun(run) != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		wg.Go(func() {
			actx, cancel := clock.WithTimeout(ctx, rm.Config.clock(), answerTry)
			defer cancel()
			if ans, ok := answer(actx, run, m.Data, limit); ok {
				m.Respond(ans) //nolint:errcheck // the asker times out
			}
		})
	})
	if err != nil {
		return fmt.Errorf("natsrun: answering for runs: %w", err)
	}
	<-ctx.Done()
	sub.Unsubscribe() //nolint:errcheck // the connection's end ends it too
	mu.Lock()
	closed = true
	mu.Unlock()
	wg.Wait()
	return context.Cause(ctx)
}
