// Package retry retries failed calls and caps how many run at once.
//
// Policy.Do is the program's one retry loop: it decides with a classifier
// whether a failure can succeed on a second try (for model calls Classify:
// 429, 5xx, connection resets, timeouts, a truncated or garbled stream;
// not a bad key or a bad request), waits with exponential backoff and
// jitter or as long as the server's Retry-After asked, and gives up on a
// Retry-After too long to honour. Model wraps an llms.Model in it and never
// retries a call that has already streamed text; internal/websearch runs
// its API calls through it. The waits are on the Policy's clock: tests run
// on a fake one, or on the real one inside a testing/synctest bubble, and
// never wait on a real timer.
package retry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/defaults"
)

// Defaults used when the matching Policy field is zero.
const (
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxRetryAfter = 2 * time.Minute
)

// Policy says how a failed call is tried again: how many times, which
// failures, how long to wait and on which clock. The zero Policy tries
// once. Its fields are read on every Do; a Policy is safe for concurrent
// use when its funcs are.
//
// The wait before retry n (from 1) is Backoff·2^(n-1), capped at
// MaxBackoff, of which the upper half is jittered: wait/2 + Jitter()·wait/2.
// When the server said how long to wait (Retry-After) that is the wait,
// unjittered; a Retry-After longer than MaxRetryAfter ends the call at once
// with the error, rather than hold a run for minutes.
type Policy struct {
	// Retries is how many times a failed call is tried again.
	Retries int
	// Backoff is the wait before the first retry; it doubles each time.
	Backoff time.Duration
	// MaxBackoff caps the doubled wait; zero means DefaultMaxBackoff.
	MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; zero means
	// DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	// Classify decides whether err may succeed on another try and how
	// long the server asked to wait; nil means the package's Classify.
	Classify func(err error) (retry bool, after time.Duration)
	// OnRetry, if set, is called before each retry's wait with the
	// attempt that failed (from 1) and its error.
	OnRetry func(attempt int, err error)
	// Jitter returns a number in [0, 1); nil means math/rand/v2.
	Jitter func() float64
	// Clock times the waits; nil means the real clock.
	Clock clock.Clock
}

// Do calls op with attempt 1, and again with 2, 3, … after each failure
// that may succeed on another try, up to Retries more times. It returns
// nil once op succeeds; else op's last error, as is when it may not be
// retried, when the retries are spent or when ctx is done, and wrapped
// with the wait it asked for when its Retry-After is too long. When ctx
// ends a wait, Do returns context.Cause(ctx). Each retry is counted by
// ctx's Counter (WithCounter), if it has one.
func (p Policy) Do(ctx context.Context, op func(attempt int) error) error {
	classify := p.Classify
	if classify == nil {
		classify = Classify
	}
	for attempt := 1; ; attempt++ {
		err := op(attempt)
		if err == nil || attempt > p.Retries || ctx.Err() != nil {
			return err
		}
		retry, after := classify(err)
		if !retry {
			return err
		}
		if maxRA := defaults.PositiveOr(p.MaxRetryAfter, DefaultMaxRetryAfter); after > maxRA {
			return fmt.Errorf("%w (the server asked to wait %s, longer than %s)", err, after, maxRA)
		}
		if p.OnRetry != nil {
			p.OnRetry(attempt, err)
		}
		count(ctx)
		if err := clock.Sleep(ctx, clock.Or(p.Clock), p.wait(attempt, after)); err != nil {
			return err
		}
	}
}

// wait returns the pause before retry number attempt.
func (p Policy) wait(attempt int, after time.Duration) time.Duration {
	if after > 0 {
		return after
	}
	limit := defaults.PositiveOr(p.MaxBackoff, DefaultMaxBackoff)
	d := p.Backoff
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	jitter := p.Jitter
	if jitter == nil {
		jitter = rand.Float64
	}
	return d/2 + time.Duration(jitter()*float64(d/2))
}

// Model wraps an llms.Model so that a call that fails is tried again as
// its Policy says. A call is not retried once it has streamed output: text
// a caller has already seen cannot be taken back, so that failure is
// returned as is.
//
// The fields are read on every call; set them before the first. Model is
// safe for concurrent use when its funcs are.
type Model struct {
	llms.Model
	Policy
	// AttemptTimeout, if positive, bounds each attempt on the Policy's
	// clock: a provider that stalls is abandoned with ErrAttemptTimeout,
	// which is retried.
	AttemptTimeout time.Duration
}

// GenerateContent calls the wrapped model, retrying as documented on Model.
func (m *Model) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	streamed := false
	if o.StreamingFunc != nil {
		inner := o.StreamingFunc
		opts = append(opts, llms.WithStreamingFunc(func(ctx context.Context, chunk []byte) error {
			if len(chunk) > 0 {
				streamed = true
			}
			return inner(ctx, chunk)
		}))
	}
	p := m.Policy
	classify := p.Classify
	if classify == nil {
		classify = Classify
	}
	p.Classify = func(err error) (bool, time.Duration) {
		if streamed {
			return false, 0
		}
		return classify(err)
	}
	var resp *llms.ContentResponse
	err := p.Do(ctx, func(int) error {
		var err error
		resp, err = m.attempt(ctx, msgs, opts)
		return err
	})
	return resp, err
}

func (m *Model) attempt(ctx context.Context, msgs []llms.MessageContent, opts []llms.CallOption) (*llms.ContentResponse, error) {
	if m.AttemptTimeout <= 0 {
		return m.Model.GenerateContent(ctx, msgs, opts...)
	}
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := clock.Or(m.Clock).AfterFunc(m.AttemptTimeout, func() { cancel(ErrAttemptTimeout) })
	defer stop()
	resp, err := m.Model.GenerateContent(actx, msgs, opts...)
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		// The attempt's own deadline, not the caller's: say so, so that
		// Classify retries it.
		return resp, fmt.Errorf("%w after %s: %w", ErrAttemptTimeout, m.AttemptTimeout, err)
	}
	return resp, err
}

// Call implements llms.Model through GenerateContent.
func (m *Model) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}
