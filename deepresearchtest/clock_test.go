package deepresearchtest

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewClock(t0)
	var fired []string
	c.AfterFunc(2*time.Second, func() { fired = append(fired, "2s") })
	stop := c.AfterFunc(time.Second, func() { fired = append(fired, "1s-stopped") })
	c.AfterFunc(time.Second, func() { fired = append(fired, "1s") })
	if !stop() {
		t.Error("stop of a pending timer reported false")
	}
	c.Advance(1500 * time.Millisecond)
	if len(fired) != 1 || fired[0] != "1s" || !c.Now().Equal(t0.Add(1500*time.Millisecond)) {
		t.Fatalf("after 1.5s fired %v, now %v", fired, c.Now())
	}
	c.Advance(time.Second)
	if len(fired) != 2 || fired[1] != "2s" || c.Pending() != 0 {
		t.Fatalf("after 2.5s fired %v, %d pending", fired, c.Pending())
	}
}
