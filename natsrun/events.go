package natsrun

import (
	"context"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/clock"
)

// Event headers: the run's sequence number of an event, and the attempt
// of the task (or of the coordinator) that produced it.
const (
	HeaderSeq     = "Deepresearch-Seq"
	HeaderAttempt = "Deepresearch-Attempt"
)

// publishEvent stores the event numbered seq of run on the run's events
// subject. Its message id is run/seq, so publishing the same number again
// (a coordinator resumed after it published, before it recorded so) is
// dropped by the stream.
func publishEvent(ctx context.Context, js jetstream.JetStream, c Config, run string, seq int64, attempt int, data []byte) error {
	if err := checkRun(run); err != nil {
		return err
	}
	n := NamesOf(c)
	m := nats.NewMsg(n.Events(run))
	m.Data = data
	m.Header.Set(HeaderSeq, strconv.FormatInt(seq, 10))
	m.Header.Set(HeaderAttempt, strconv.Itoa(attempt))
	if err := publishIdempotent(ctx, c.clock(), js, m, run+"/"+strconv.FormatInt(seq, 10)); err != nil {
		return fmt.Errorf("natsrun: event %d of %s: %w", seq, run, err)
	}
	return nil
}

// follow calls fn with every numbered event of run after sequence after
// (a reconnecting subscriber's Last-Event-ID; 0 for all), in order, each
// number once, as they are stored, until fn returns false or ctx is done.
// Any process connected to the cluster may follow any run. A run's events
// are numbered by its one coordinator and published in that order; an
// event numbered at or below one already given (a repeat that came after
// the stream's de-duplication window) is skipped. Messages without a
// sequence number (a task.dead notice) are given with seq 0.
//
// Follow uses no consumer. It reads the run's stored events from the
// stream one by one, then takes new ones from a plain subscription to the
// run's subject as they are published; a number it skips (a message the
// subscription missed while the connection was re-established, or
// dropped for a slow reader) sends it back to the stream, as does the
// stream's last event, looked at every 250ms, when it is one Follow has
// not given. A server lost meanwhile costs a retry, not a stalled
// consumer. A number the stream never stored (an EventLog that gave up on
// it) is skipped: the event after it is given when it comes.
func follow(ctx context.Context, js jetstream.JetStream, c Config, run string, after int64, fn func(seq int64, data []byte) bool) error {
	if err := checkRun(run); err != nil {
		return err
	}
	n := NamesOf(c)
	live := make(chan *nats.Msg, followBuffer)
	sub, err := js.Conn().ChanSubscribe(n.Events(run), live)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe() //nolint:errcheck // the connection may be closing
	f := follower{last: after, fn: fn, passed: after == 0, notices: map[string]bool{}}
	r := reader{js: js, name: n.EventsStream, subject: n.Events(run), clock: c.clock()}
	// catchUp gives what the stream holds after r.next, first moving r.next
	// to the event after the last given when jump is set (a gap: what lies
	// before was given from the subscription); false: fn is done.
	catchUp := func(jump bool) (bool, error) {
		if jump {
			if ok, err := seek(ctx, &r, f.last); err != nil {
				return false, err
			} else if ok {
				f.passed = true
			}
		}
		for {
			m, err := r.read(ctx)
			if err != nil || m == nil {
				return err == nil, err
			}
			if !f.give(m.Header, m.Data, m.Sequence) {
				return false, nil
			}
		}
	}
	if more, err := catchUp(after > 0); !more || err != nil {
		return err
	}
	poll := clock.NewTicker(c.clock(), pollEvery)
	defer poll.Stop()
	var behind int64 // the stream's last number at the last poll, when not given yet
	for {
		var more = true
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case m := <-live:
			seq, ok := seqOf(m.Header)
			switch {
			case !ok && m.Header.Get(nats.MsgIdHdr) == "":
				more, err = catchUp(false) // a notice without an id is given from the stream, by its place there
			case ok && seq > f.last+1: // the subscription missed some: the stream has them
				if more, err = catchUp(true); more && err == nil {
					more = f.give(m.Header, m.Data, 0)
				}
			default:
				more = f.give(m.Header, m.Data, 0)
			}
		case <-poll.C:
			m := r.last(ctx)
			if m == nil {
				continue
			}
			seq, ok := seqOf(m.Header)
			switch {
			case ok && seq <= f.last:
				r.next, behind = m.Sequence+1, 0 // all given: later reads start here
			case ok && behind != 0 && f.last < behind: // still missing a poll later
				behind = 0
				more, err = catchUp(true)
			case ok: // published, not received yet: the subscription has a poll to bring it
				behind = seq
			default: // a notice last
				behind = 0
				more, err = catchUp(false)
			}
		}
		if !more || err != nil {
			return err
		}
	}
}

// seek moves r.next forward to the stream place of the run's first event
// numbered after after, when it can tell where that is, and says whether
// it did. A run's events are stored in the order of their numbers, so a
// binary search over the stream's sequence finds the place in a few
// requests where reading from r.next would take one a message. It
// accepts the place only when the event there is numbered after+1 (or
// there is none yet): a repeat stored out of order, or a number never
// stored, leaves r.next where it was, for reading on from there.
func seek(ctx context.Context, r *reader, after int64) (bool, error) {
	if err := r.open(ctx); err != nil {
		return false, err
	}
	end := r.last(ctx)
	if end == nil {
		return false, nil
	}
	lo, hi := max(r.next, 1), end.Sequence+1
	before := int64(-1) // the number of the last event the search stepped over
	for lo < hi {
		mid := lo + (hi-lo)/2
		m, seq, err := r.nextEvent(ctx, mid)
		switch {
		case err != nil:
			return false, err
		case m == nil || seq > after:
			hi = mid
		default:
			lo, before = m.Sequence+1, seq
		}
	}
	// Accepted: the event there is the one after after, or there is none
	// yet and the last stepped over is after itself.
	m, seq, err := r.nextEvent(ctx, lo)
	if err != nil || (m != nil && seq != after+1) || (m == nil && before != after) {
		return false, err
	}
	r.next = lo
	return true, nil
}

// nextEvent returns the subject's first event (a message with a number)
// at stream sequence pos or later, with its number, or nil.
func (r *reader) nextEvent(ctx context.Context, pos uint64) (*jetstream.RawStreamMsg, int64, error) {
	for {
		m, err := r.at(ctx, pos)
		if err != nil || m == nil {
			return nil, 0, err
		}
		if seq, ok := seqOf(m.Header); ok {
			return m, seq, nil
		}
		pos = m.Sequence + 1 // a notice
	}
}

// lastEvent returns the subject's last event, or nil: the last message
// when it is one, else (a notice came after it) the event a binary
// search over the stream's sequence finds last.
func (r *reader) lastEvent(ctx context.Context, end *jetstream.RawStreamMsg) (*jetstream.RawStreamMsg, int64, error) {
	if seq, ok := seqOf(end.Header); ok {
		return end, seq, nil
	}
	var last *jetstream.RawStreamMsg
	var lastSeq int64
	lo, hi := uint64(1), end.Sequence // an event at lo or later, if any
	for lo <= hi {
		mid := lo + (hi-lo)/2
		m, seq, err := r.nextEvent(ctx, mid)
		if err != nil {
			return nil, 0, err
		}
		if m == nil {
			hi = mid - 1
			continue
		}
		last, lastSeq, lo = m, seq, m.Sequence+1
	}
	return last, lastSeq, nil
}

// followBuffer is how many published events a follower's subscription
// holds while it gives others; beyond, they are dropped and read from
// the stream instead.
const followBuffer = 1024

// seqOf returns the event sequence number a message's headers carry, and
// false for a message without one (a notice).
func seqOf(h nats.Header) (int64, bool) {
	v := h.Get(HeaderSeq)
	if v == "" {
		return 0, false
	}
	seq, err := strconv.ParseInt(v, 10, 64)
	return seq, err == nil && seq > 0
}

// follower gives a run's events to fn, each number once and in order, and
// each notice once: by its message id, or by its place in the stream.
type follower struct {
	last int64
	fn   func(seq int64, data []byte) bool
	// passed says the events numbered up to the first last are behind:
	// notices are given from there on.
	passed  bool
	notice  uint64 // the stream sequence of the last notice without an id given
	notices map[string]bool
}

// give passes one message on, unless it was given before; at is its
// stream sequence (0 for one from the subscription). false: fn is done.
func (f *follower) give(h nats.Header, data []byte, at uint64) bool {
	seq, ok := seqOf(h)
	if !ok {
		if h.Get(HeaderSeq) != "" || !f.passed {
			return true // a number that is not one, or a notice from before the start
		}
		if id := h.Get(nats.MsgIdHdr); id != "" {
			if f.notices[id] {
				return true
			}
			f.notices[id] = true
		} else {
			if at == 0 || at <= f.notice {
				return true
			}
			f.notice = at
		}
		return f.fn(0, data)
	}
	if seq >= f.last {
		f.passed = true
	}
	if seq <= f.last {
		return true // a repeat outside the de-duplication window, or before after
	}
	f.last = seq
	return f.fn(seq, data)
}
