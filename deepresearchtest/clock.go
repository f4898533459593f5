package deepresearchtest

import (
	"sync"
	"time"

	"github.com/deepresearch/deepresearch"
)

// Clock is a fake deepresearch.Clock: its time stands still until Advance
// moves it, and the timers armed with AfterFunc (agent time limits, the
// stop grace after cancellation) fire only then. Tests that exercise a
// timeout use it instead of waiting on a real one. It is safe for
// concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*fakeTimer]struct{}
	armed  chan struct{} // closed and replaced whenever a timer is armed
}

type fakeTimer struct {
	at time.Time
	f  func()
}

var _ deepresearch.Clock = (*Clock)(nil)

// NewClock returns a Clock that reads start.
func NewClock(start time.Time) *Clock {
	return &Clock{now: start, timers: map[*fakeTimer]struct{}{}, armed: make(chan struct{})}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc arms a timer that calls f once the clock has advanced by d.
func (c *Clock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers[t] = struct{}{}
	close(c.armed)
	c.armed = make(chan struct{})
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, pending := c.timers[t]
		delete(c.timers, t)
		return pending
	}
}

// Armed returns a channel that is closed the next time a timer is armed,
// so that a test can wait for the code under test to arm one.
func (c *Clock) Armed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.armed
}

// Pending returns the number of timers armed and not yet fired or stopped.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Advance moves the clock forward by d and runs, in the calling goroutine,
// every timer that is then due, earliest first.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	for t := range c.timers {
		if !t.at.After(c.now) {
			due = append(due, t)
			delete(c.timers, t)
		}
	}
	c.mu.Unlock()
	for len(due) > 0 {
		first := 0
		for i, t := range due {
			if t.at.Before(due[first].at) {
				first = i
			}
		}
		due[first].f()
		due = append(due[:first], due[first+1:]...)
	}
}
