// Package retry retries failed model calls and caps how many run at once.
//
// Model decides with Classify whether a failure can succeed on a second try
// (429, 5xx, connection resets, timeouts, a truncated or garbled stream) or
// cannot (a bad key, a bad request), waits with exponential backoff and
// jitter or as long as the server's Retry-After asked, and never retries a
// call that has already streamed text. Its clock is injectable: tests set
// Sleep and Jitter and never wait on a real timer.
package retry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// Defaults used when the matching Model field is zero.
const (
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxRetryAfter = 2 * time.Minute
)

// Model wraps an llms.Model so that a call that fails is tried again up to
// Retries more times. A call is not retried when ctx is done, when Classify
// says the error cannot succeed, or once it has streamed output: text a
// caller has already seen cannot be taken back, so that failure is returned
// as is.
//
// The wait before retry n (from 1) is Backoff·2^(n-1), capped at
// MaxBackoff, of which the upper half is jittered: wait/2 + Jitter()·wait/2.
// When the server said how long to wait (Retry-After) that is the wait,
// unjittered; a Retry-After longer than MaxRetryAfter ends the call at once
// with the error, rather than hold a run for minutes.
//
// The fields are read on every call; set them before the first. Model is
// safe for concurrent use when its funcs are.
type Model struct {
	llms.Model
	// Retries is how many times a failed call is tried again.
	Retries int
	// Backoff is the wait before the first retry; it doubles each time.
	Backoff time.Duration
	// MaxBackoff caps the doubled wait; zero means DefaultMaxBackoff.
	MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; zero means
	// DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	// OnRetry, if set, is called before each retry with the attempt that
	// failed (from 1) and its error.
	OnRetry func(attempt int, err error)

	// Classify decides whether err may succeed on another try and how
	// long the server asked to wait; nil means the package's Classify.
	Classify func(err error) (retry bool, after time.Duration)
	// Sleep waits d or until ctx is done, returning context.Cause(ctx) in
	// that case; nil means a real timer. Tests inject one that returns at
	// once and records d.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1); nil means math/rand/v2.
	Jitter func() float64
	// AttemptTimeout, if positive, bounds each attempt: a provider that
	// stalls is abandoned with ErrAttemptTimeout, which is retried.
	AttemptTimeout time.Duration
	// WithTimeout derives the context of one attempt; nil means
	// context.WithTimeoutCause(ctx, d, ErrAttemptTimeout). Tests inject
	// one that cancels with ErrAttemptTimeout when they choose.
	WithTimeout func(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
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
	classify := m.Classify
	if classify == nil {
		classify = Classify
	}
	for attempt := 1; ; attempt++ {
		resp, err := m.attempt(ctx, msgs, opts)
		if err == nil || attempt > m.Retries || streamed || ctx.Err() != nil {
			return resp, err
		}
		retry, after := classify(err)
		if !retry {
			return resp, err
		}
		wait := m.wait(attempt, after)
		if maxRA := cmpOr(m.MaxRetryAfter, DefaultMaxRetryAfter); after > maxRA {
			return resp, fmt.Errorf("%w (the server asked to wait %s, longer than %s)", err, after, maxRA)
		}
		if m.OnRetry != nil {
			m.OnRetry(attempt, err)
		}
		if err := m.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (m *Model) attempt(ctx context.Context, msgs []llms.MessageContent, opts []llms.CallOption) (*llms.ContentResponse, error) {
	if m.AttemptTimeout <= 0 {
		return m.Model.GenerateContent(ctx, msgs, opts...)
	}
	withTimeout := m.WithTimeout
	if withTimeout == nil {
		withTimeout = func(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
			return context.WithTimeoutCause(ctx, d, ErrAttemptTimeout)
		}
	}
	actx, cancel := withTimeout(ctx, m.AttemptTimeout)
	defer cancel()
	resp, err := m.Model.GenerateContent(actx, msgs, opts...)
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		// The attempt's own deadline, not the caller's: say so, so that
		// Classify retries it.
		return resp, fmt.Errorf("%w after %s: %w", ErrAttemptTimeout, m.AttemptTimeout, err)
	}
	return resp, err
}

// wait returns the pause before retry number attempt.
func (m *Model) wait(attempt int, after time.Duration) time.Duration {
	if after > 0 {
		return after
	}
	limit := cmpOr(m.MaxBackoff, DefaultMaxBackoff)
	d := m.Backoff
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	jitter := m.Jitter
	if jitter == nil {
		jitter = rand.Float64
	}
	return d/2 + time.Duration(jitter()*float64(d/2))
}

func (m *Model) sleep(ctx context.Context, d time.Duration) error {
	if m.Sleep != nil {
		return m.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d on a real timer, or until ctx is done, when it returns
// context.Cause(ctx).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// Call implements llms.Model through GenerateContent.
func (m *Model) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
