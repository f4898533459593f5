package clock

import (
	"sync"
	"time"
)

// Ticker sends the time on C every period of its Clock, like time.Ticker:
// a receiver that falls behind misses ticks rather than queue them. Each
// tick arms the next one period after it fired, so ticks drift by the time
// a tick takes to deliver. Stop it to release its timer.
type Ticker struct {
	C <-chan time.Time

	c      chan time.Time
	clock  Clock
	period time.Duration

	mu      sync.Mutex // guards stop and stopped
	stop    func() bool
	stopped bool
}

// NewTicker returns a Ticker on c whose first tick comes one period from
// now. It panics if period is not positive, as time.NewTicker does.
func NewTicker(c Clock, period time.Duration) *Ticker {
	if period <= 0 {
		panic("clock: non-positive period for NewTicker")
	}
	ch := make(chan time.Time, 1)
	t := &Ticker{C: ch, c: ch, clock: c, period: period}
	t.mu.Lock()
	t.stop = c.AfterFunc(period, t.tick)
	t.mu.Unlock()
	return t
}

func (t *Ticker) tick() {
	select {
	case t.c <- t.clock.Now():
	default: // the receiver has not taken the last tick: drop this one
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stop = t.clock.AfterFunc(t.period, t.tick)
	}
}

// Stop turns the ticker off: no tick is sent after it returns, except one
// already being delivered. It does not close C.
func (t *Ticker) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	t.stop()
}
