package clock

import (
	"context"
	"sync"
	"time"
)

// Fake is a Clock whose time stands still until Advance (or Drive) moves
// it; the timers armed with AfterFunc fire only then, in the goroutine that
// moves it. Tests that exercise a time limit, a backoff or a heartbeat use
// it instead of waiting on a real one. It is safe for concurrent use.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*fakeTimer]struct{}
	armed  chan struct{} // closed and replaced whenever a timer is armed
	// arms counts the timers armed of each duration; waited, those of
	// each that WaitArmed has returned for.
	arms, waited map[time.Duration]int
}

type fakeTimer struct {
	at time.Time
	f  func()
}

var _ Clock = (*Fake)(nil)

// NewFake returns a Fake that reads start.
func NewFake(start time.Time) *Fake {
	return &Fake{now: start, timers: map[*fakeTimer]struct{}{}, armed: make(chan struct{}),
		arms: map[time.Duration]int{}, waited: map[time.Duration]int{}}
}

// Now returns the clock's time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc arms a timer that calls f once the clock has advanced by d.
func (c *Fake) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers[t] = struct{}{}
	c.arms[d]++
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
// so that a test can wait for the code under test to arm one. Call it
// before the code that arms the timer may run.
func (c *Fake) Armed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.armed
}

// WaitArmed waits until a timer of d is armed that no earlier call of
// WaitArmed(d) returned for — armed before the call or after it — or ctx
// is done, when it returns context.Cause(ctx). A test moves the clock
// past a deadline only once the code under test waits on it: a run's
// time limit, a review's deadline.
func (c *Fake) WaitArmed(ctx context.Context, d time.Duration) error {
	for {
		c.mu.Lock()
		if c.arms[d] > c.waited[d] {
			c.waited[d]++
			c.mu.Unlock()
			return nil
		}
		armed := c.armed
		c.mu.Unlock()
		select {
		case <-armed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// Pending returns the number of timers armed and not yet fired or stopped.
func (c *Fake) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Advance moves the clock forward by d and runs, in the calling goroutine,
// every timer that is then due, earliest first. A timer armed by one of
// them fires on a later Advance, even if it is due already.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.fireLocked()
}

// fireLocked takes the due timers off the clock, unlocks it and runs them,
// earliest first.
func (c *Fake) fireLocked() {
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

// Drive calls f in a new goroutine and, until f returns, moves the clock
// to the earliest pending timer as soon as there is one, so that every
// wait of f takes no real time. It returns how far it moved the clock each
// time, in order: the waits f asked for. A panic in f is raised again in
// the caller.
//
// Drive suits code whose timers are all waits that it blocks on, such as
// a retry loop's backoff: a timer that should not fire while f works (a
// time limit, a ticker) fires at once too. Code with such timers wants a
// testing/synctest bubble, which moves time only when every goroutine is
// blocked.
func (c *Fake) Drive(f func()) []time.Duration {
	done := make(chan struct{})
	var (
		panicked bool
		value    any
	)
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				panicked, value = true, r
			}
		}()
		f()
	}()
	var moved []time.Duration
	for {
		select {
		case <-done:
			if panicked {
				panic(value)
			}
			return moved
		default:
		}
		c.mu.Lock()
		var next *fakeTimer
		for t := range c.timers {
			if next == nil || t.at.Before(next.at) {
				next = t
			}
		}
		if next == nil {
			armed := c.armed
			c.mu.Unlock()
			select {
			case <-done:
			case <-armed:
			}
			continue
		}
		d := max(next.at.Sub(c.now), 0)
		moved = append(moved, d)
		c.now = c.now.Add(d)
		c.fireLocked()
	}
}
