package natsrun

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/clock"
)

// reader reads the messages of one subject of a stream in stream order,
// one request a message (the stream's "next message for a subject" get),
// through no consumer: a server lost meanwhile costs a request asked
// again, where a consumer's recreation can stall for as long as the
// cluster still counts the lost server among the stream's peers.
type reader struct {
	js      jetstream.JetStream
	name    string // the stream
	subject string
	next    uint64 // the stream sequence to read from (0: the first)
	stream  jetstream.Stream
	clock   clock.Clock // times the pause before a request asked again, and last's try
}

// readTry bounds one request of a reader, in real time like publishTry:
// a request lost with a server (sent to it, or answered through it, as it
// went) has no answer, and the client waits for one as long as the
// request's context lasts, which under a caller's deadline is the
// caller's whole wait.
const readTry = 5 * time.Second

// retry waits before a request that failed for a passing reason is asked
// again; it fails with err when that reason does not pass, or with the
// context's cause when ctx is done first.
func (r *reader) retry(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if !transient(err) {
		return err
	}
	return clock.Sleep(ctx, r.clock, publishPause)
}

// open gets the stream's handle, asking again while the reason it cannot
// passes.
func (r *reader) open(ctx context.Context) error {
	for r.stream == nil {
		tctx, cancel := context.WithTimeout(ctx, readTry)
		s, err := r.js.Stream(tctx, r.name)
		err = timeout(tctx, err)
		cancel()
		if err == nil {
			r.stream = s
			break
		}
		if err := r.retry(ctx, err); err != nil {
			return err
		}
	}
	return nil
}

// at returns the subject's first message at stream sequence pos or later,
// or nil when there is none; it leaves r.next as it is.
func (r *reader) at(ctx context.Context, pos uint64) (*jetstream.RawStreamMsg, error) {
	if err := r.open(ctx); err != nil {
		return nil, err
	}
	for {
		tctx, cancel := context.WithTimeout(ctx, readTry)
		m, err := r.stream.GetMsg(tctx, max(pos, 1), jetstream.WithGetMsgSubject(r.subject))
		err = timeout(tctx, err)
		cancel()
		switch {
		case err == nil:
			return m, nil
		case errors.Is(err, jetstream.ErrMsgNotFound):
			return nil, nil
		}
		if err := r.retry(ctx, err); err != nil {
			return nil, err
		}
	}
}

// read returns the next message, or nil when no later one is stored.
func (r *reader) read(ctx context.Context) (*jetstream.RawStreamMsg, error) {
	m, err := r.at(ctx, r.next)
	if m != nil {
		r.next = m.Sequence + 1
	}
	return m, err
}

// last returns the subject's last message, or nil when there is none or
// it could not be read now (asked once: a caller that polls asks again).
func (r *reader) last(ctx context.Context) *jetstream.RawStreamMsg {
	if r.stream == nil {
		return nil
	}
	ctx, cancel := clock.WithTimeout(ctx, r.clock, pollEvery*4)
	defer cancel()
	m, err := r.stream.GetLastMsgForSubject(ctx, r.subject)
	if err != nil {
		return nil
	}
	return m
}

// pollEvery is how often a tail reads its subject again though no
// message announced itself (one published while the connection was being
// re-established, or that reached the subscriber before the stream's
// leader stored it).
const pollEvery = 250 * time.Millisecond

// tail reads subject's messages as they are stored, calling fn with each
// in order, from stream sequence from on (0: the first), until fn returns
// false or ctx is done. A plain subscription to the subject says when to
// read again; a read every pollEvery on c catches what it missed.
func tail(ctx context.Context, c clock.Clock, js jetstream.JetStream, stream, subject string, from uint64, fn func(*jetstream.RawStreamMsg) bool) error {
	wake := make(chan struct{}, 1)
	sub, err := js.Conn().Subscribe(subject, func(*nats.Msg) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return err
	}
	defer sub.Unsubscribe() //nolint:errcheck // the connection may be closing
	poll := clock.NewTicker(c, pollEvery)
	defer poll.Stop()
	r := reader{js: js, name: stream, subject: subject, next: from, clock: c}
	for {
		m, err := r.read(ctx)
		if err != nil {
			return err
		}
		if m != nil {
			if !fn(m) {
				return nil
			}
			continue
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-wake:
		case <-poll.C:
		}
	}
}

// readAll reads every message of subject in stream stored at the time of
// the call, in order.
func readAll(ctx context.Context, c clock.Clock, js jetstream.JetStream, stream, subject string) ([]*jetstream.RawStreamMsg, error) {
	r := reader{js: js, name: stream, subject: subject, clock: c}
	var out []*jetstream.RawStreamMsg
	for {
		m, err := r.read(ctx)
		if err != nil || m == nil {
			return out, err
		}
		out = append(out, m)
	}
}
