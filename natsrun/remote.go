package natsrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch"
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
	ctx, cancel := context.WithTimeout(ctx, lastEventTry)
	defer cancel()
	n := NamesOf(rm.Config)
	r := reader{js: rm.JS, name: n.EventsStream, subject: n.Events(id)}
	if err := r.open(ctx); err != nil {
		return deepresearch.StoredEvent{}, err
	}
	end, err := r.stream.GetLastMsgForSubject(ctx, n.Events(id))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return deepresearch.StoredEvent{}, fmt.Errorf("%w: %s in the events stream", deepresearch.ErrRunNotFound, id)
	case err != nil:
		return deepresearch.StoredEvent{}, err
	}
	m, seq, err := r.lastEvent(ctx, end)
	switch {
	case err != nil:
		return deepresearch.StoredEvent{}, err
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
