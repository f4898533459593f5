// Package clock is the program's one source of time. Production code tells
// the time, arms timers, sleeps and ticks only through a Clock, so that a
// test controls all of it in one of two ways:
//
//   - Inside a testing/synctest bubble, Real is the bubble's fake time: it
//     stands still while any goroutine of the bubble runs and jumps to the
//     next timer once every one is durably blocked. Tests whose goroutines
//     block only on channels, mutex-free waits and timers (no real network
//     I/O) use Real in a bubble and inject nothing.
//   - Elsewhere (code that talks to an httptest server over real sockets,
//     which a bubble cannot wait for) the test injects a Fake and moves it
//     with Advance, or lets Drive move it from wait to wait.
//
// Deadlines on real I/O that the operating system or net/http enforce (a
// page fetch's timeout, an HTTP client's) are context deadlines on real
// time: they bound outside work, not the program's own waits.
package clock

import (
	"context"
	"errors"
	"time"
)

// Clock tells the time and arms timers. Implementations are safe for
// concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc arms a timer that calls f once d has passed and returns a
	// func that stops the timer, reporting whether it stopped it before f
	// ran. f must not block for long: Real runs it in its own goroutine, a
	// Fake in the goroutine that advances it.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// Real returns the system clock: time.Now and time.AfterFunc.
func Real() Clock { return system{} }

type system struct{}

func (system) Now() time.Time { return time.Now() }

func (system) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Or returns c, or Real when c is nil: what a nil Clock field means.
func Or(c Clock) Clock {
	if c == nil {
		return Real()
	}
	return c
}

// After returns a channel that is closed once d has passed on c, and a func
// that stops the timer, reporting whether it stopped it before it fired.
func After(c Clock, d time.Duration) (<-chan struct{}, func() bool) {
	ch := make(chan struct{})
	stop := c.AfterFunc(d, func() { close(ch) })
	return ch, stop
}

// Sleep waits d on c, or until ctx is done, when it returns
// context.Cause(ctx). A d of zero or less does not wait.
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	if d <= 0 {
		return nil
	}
	ch, stop := After(c, d)
	defer stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-ch:
		return nil
	}
}

// WithTimeout returns a copy of parent that ends once d has passed on c,
// with the cause context.DeadlineExceeded: context.WithTimeout on c's
// time. On Real it is context.WithTimeout itself, so that a client library
// below (one that sizes a server-side wait by the deadline) sees the
// deadline and Err is context.DeadlineExceeded. On any other clock the
// context has no Deadline and its Err is context.Canceled when the time
// is up: tell a timeout by TimedOut, not by Err. Call the CancelFunc to
// release the timer.
func WithTimeout(parent context.Context, c Clock, d time.Duration) (context.Context, context.CancelFunc) {
	c = Or(c)
	if _, ok := c.(system); ok {
		return context.WithTimeout(parent, d)
	}
	ctx, cancel := context.WithCancelCause(parent)
	stop := c.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
	return ctx, func() {
		stop()
		cancel(context.Canceled)
	}
}

// TimedOut reports whether ctx ended because its time was up: a deadline
// of WithTimeout, on any clock, or of context.WithTimeout or WithDeadline
// (its own or a parent's).
func TimedOut(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded)
}
