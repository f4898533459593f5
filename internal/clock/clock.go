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
