package deepresearchtest

import (
	"time"

	"github.com/deepresearch/deepresearch/clock"
)

// Clock is a fake clock.Clock: its time stands still until Advance
// moves it, and the timers armed with AfterFunc (agent time limits, the
// stop grace after cancellation, retry backoffs) fire only then, in the
// goroutine that calls Advance. Tests that exercise a timeout use it
// instead of waiting on a real one. It is safe for concurrent use.
//
// Code run inside a testing/synctest bubble needs no fake: there the real
// clock (a nil Config.Clock) is the bubble's, which moves only when every
// goroutine of the bubble is blocked.
type Clock = clock.Fake

var _ clock.Clock = (*Clock)(nil)

// NewClock returns a Clock that reads start.
func NewClock(start time.Time) *Clock { return clock.NewFake(start) }
