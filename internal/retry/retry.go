// Package retry retries failed model calls.
package retry

import (
	"context"
	"errors"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// Model wraps an llms.Model so that a call that fails is tried again, with
// exponential backoff, up to Retries more times. A call is not retried
// when ctx is done, or once it has streamed output: text a caller has
// already seen cannot be taken back, so that failure is returned as is.
type Model struct {
	llms.Model
	// Retries is how many times a failed call is tried again.
	Retries int
	// Backoff is the wait before the first retry; it doubles each time.
	Backoff time.Duration
	// OnRetry, if set, is called before each retry with the attempt that
	// failed (from 1) and its error.
	OnRetry func(attempt int, err error)
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
			streamed = true
			return inner(ctx, chunk)
		}))
	}
	wait := m.Backoff
	for attempt := 1; ; attempt++ {
		resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
		if err == nil || attempt > m.Retries || streamed || ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return resp, err
		}
		if m.OnRetry != nil {
			m.OnRetry(attempt, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, context.Cause(ctx)
		case <-t.C:
		}
		wait *= 2
	}
}

// Call implements llms.Model through GenerateContent.
func (m *Model) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}
