package retry

import (
	"context"
	"sync/atomic"
)

// Counter counts the retries made under a context (see WithCounter): how
// many failed calls were tried again, whichever Policy tried them. It is
// safe for concurrent use.
type Counter struct{ n atomic.Int64 }

// Load returns the retries counted so far; 0 for a nil Counter.
func (c *Counter) Load() int {
	if c == nil {
		return 0
	}
	return int(c.n.Load())
}

type counterKey struct{}

// WithCounter returns a context under which every retry Policy.Do makes
// (before its wait) is counted by the returned Counter: a run counts the
// retries of all its model calls by making them under it.
func WithCounter(ctx context.Context) (context.Context, *Counter) {
	c := &Counter{}
	return context.WithValue(ctx, counterKey{}, c), c
}

// count adds a retry to ctx's Counter, if it has one.
func count(ctx context.Context) {
	if c, ok := ctx.Value(counterKey{}).(*Counter); ok {
		c.n.Add(1)
	}
}
