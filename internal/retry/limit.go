package retry

import (
	"context"

	"github.com/tmc/langchaingo/llms"
)

// Limiter caps how many calls run at once: a counting semaphore whose
// Acquire gives up when its context is done. One Limiter is shared by every
// model that talks to one provider, so that three roles on one account do
// not triple its concurrency.
type Limiter struct{ slots chan struct{} }

// NewLimiter returns a Limiter that lets n calls run at once; n < 1 returns
// nil, which Limited treats as no cap.
func NewLimiter(n int) *Limiter {
	if n < 1 {
		return nil
	}
	return &Limiter{slots: make(chan struct{}, n)}
}

// Acquire takes a slot, waiting while all are held; it returns
// context.Cause(ctx) if ctx is done first. Each successful Acquire must be
// matched by one Release.
func (l *Limiter) Acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Release frees a slot taken by Acquire.
func (l *Limiter) Release() { <-l.slots }

// Cap returns how many calls may run at once.
func (l *Limiter) Cap() int { return cap(l.slots) }

// Limited wraps an llms.Model so that at most Limiter.Cap() calls run at
// once; a nil Limiter means no cap. Wrap Limited inside Model, so that a
// call waiting out its backoff does not hold a slot.
type Limited struct {
	llms.Model
	Limiter *Limiter
}

// Unwrap returns the wrapped model, so that what names it can be found
// through the wrapper.
func (m *Limited) Unwrap() llms.Model { return m.Model }

// GenerateContent waits for a slot, then calls the wrapped model.
func (m *Limited) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	if m.Limiter == nil {
		return m.Model.GenerateContent(ctx, msgs, opts...)
	}
	if err := m.Limiter.Acquire(ctx); err != nil {
		return nil, err
	}
	defer m.Limiter.Release()
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

// Call implements llms.Model through GenerateContent.
func (m *Limited) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}
