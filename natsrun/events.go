package natsrun

import (
	"context"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Event headers: the run's sequence number of an event, and the attempt
// of the task (or of the coordinator) that produced it.
const (
	HeaderSeq     = "Deepresearch-Seq"
	HeaderAttempt = "Deepresearch-Attempt"
)

// PublishEvent stores the event numbered seq of run on the run's events
// subject. Its message id is run/seq, so publishing the same number again
// (a coordinator resumed after it published, before it recorded so) is
// dropped by the stream.
func PublishEvent(ctx context.Context, js jetstream.JetStream, c Config, run string, seq int64, attempt int, data []byte) error {
	if err := checkRun(run); err != nil {
		return err
	}
	n := NamesOf(c)
	m := nats.NewMsg(n.Events(run))
	m.Data = data
	m.Header.Set(HeaderSeq, strconv.FormatInt(seq, 10))
	m.Header.Set(HeaderAttempt, strconv.Itoa(attempt))
	if err := publishIdempotent(ctx, js, m, run+"/"+strconv.FormatInt(seq, 10)); err != nil {
		return fmt.Errorf("natsrun: event %d of %s: %w", seq, run, err)
	}
	return nil
}

// Follow calls fn with every numbered event of run after sequence after
// (a reconnecting subscriber's Last-Event-ID; 0 for all), in order, each
// number once, as they are stored, until fn returns false or ctx is done.
// Any process connected to the cluster may follow any run. A run's events
// are numbered by its one coordinator and published in that order; an
// event numbered at or below one already given (a repeat that came after
// the stream's de-duplication window) is skipped. Messages without a
// sequence number (a task.dead notice) are given with seq 0. Follow uses
// no consumer: it gets the run's events from the stream one by one and
// reads again when a plain subscription to the subject says another was
// published (or every 250ms), so a server lost meanwhile costs a retry,
// not a stalled consumer.
func Follow(ctx context.Context, js jetstream.JetStream, c Config, run string, after int64, fn func(seq int64, data []byte) bool) error {
	if err := checkRun(run); err != nil {
		return err
	}
	n := NamesOf(c)
	last := after
	return tail(ctx, js, n.EventsStream, n.Events(run), 0, func(m *jetstream.RawStreamMsg) bool {
		h := m.Header.Get(HeaderSeq)
		if h == "" {
			return fn(0, m.Data)
		}
		seq, err := strconv.ParseInt(h, 10, 64)
		if err != nil || seq <= last {
			return true // a repeat outside the de-duplication window, or before after
		}
		last = seq
		return fn(seq, m.Data)
	})
}
