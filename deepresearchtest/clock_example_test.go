package deepresearchtest_test

import (
	"fmt"
	"time"

	"github.com/deepresearch/deepresearch/deepresearchtest"
)

// A fake clock fires its timers only when the test moves it, in the
// goroutine that moves it: set it as Config.Clock and a run's agent time
// limits, stop grace and retry backoffs wait for Advance, not for real
// time.
func ExampleClock() {
	c := deepresearchtest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	c.AfterFunc(2*time.Second, func() { fmt.Println("2s timer fired") })
	stop := c.AfterFunc(time.Second, func() { fmt.Println("never printed") })
	c.AfterFunc(time.Second, func() { fmt.Println("1s timer fired") })
	fmt.Println("stopped before it fired:", stop())
	c.Advance(1500 * time.Millisecond)
	fmt.Println("pending:", c.Pending(), "at", c.Now().Format(time.TimeOnly))
	c.Advance(time.Second)
	fmt.Println("pending:", c.Pending(), "at", c.Now().Format(time.TimeOnly))
	// Output:
	// stopped before it fired: true
	// 1s timer fired
	// pending: 1 at 03:04:06
	// 2s timer fired
	// pending: 0 at 03:04:07
}
