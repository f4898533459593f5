package clock_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/clock"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// sleep waits d on the real clock: in a synctest bubble, on the bubble's.
func sleep(d time.Duration) { _ = clock.Sleep(context.Background(), clock.Real(), d) }

// TestSleep runs on the real clock inside a synctest bubble, where time is
// fake and moves only when every goroutine waits.
func TestSleep(t *testing.T) {
	stop := errors.New("caller gave up")
	tests := []struct {
		name    string
		d       time.Duration
		cancel  time.Duration // >0: cancel with stop after this long; <0: before the call
		want    error
		elapsed time.Duration
	}{
		{"waits d", 3 * time.Second, 0, nil, 3 * time.Second},
		{"zero does not wait", 0, 0, nil, 0},
		{"negative does not wait", -time.Second, 0, nil, 0},
		{"canceled while waiting", time.Hour, time.Second, stop, time.Second},
		{"canceled before", time.Hour, -1, stop, 0},
		{"canceled before, zero wait", 0, -1, stop, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				switch {
				case tt.cancel < 0:
					cancel(stop)
				case tt.cancel > 0:
					time.AfterFunc(tt.cancel, func() { cancel(stop) })
				}
				start := time.Now()
				err := clock.Sleep(ctx, clock.Real(), tt.d)
				if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
					t.Errorf("Sleep = %v, want %v", err, tt.want)
				}
				if got := time.Since(start); got != tt.elapsed {
					t.Errorf("slept %v, want %v", got, tt.elapsed)
				}
			})
		})
	}
}

func TestAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch, stop := clock.After(clock.Real(), time.Minute)
		synctest.Wait()
		select {
		case <-ch:
			t.Fatal("fired before its time")
		default:
		}
		sleep(time.Minute)
		synctest.Wait() // the timer's goroutine has run
		select {
		case <-ch:
		default:
			t.Fatal("not fired after its time")
		}
		if stop() {
			t.Error("stop after firing reported true")
		}
		_, stop = clock.After(clock.Real(), time.Minute)
		if !stop() {
			t.Error("stop before firing reported false")
		}
	})
}

func TestOr(t *testing.T) {
	f := clock.NewFake(t0)
	if clock.Or(f) != clock.Clock(f) {
		t.Error("Or replaced a clock")
	}
	if clock.Or(nil) != clock.Real() {
		t.Error("Or(nil) is not Real")
	}
}

func TestTickerReal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tk := clock.NewTicker(clock.Real(), time.Second)
		for i := 1; i <= 3; i++ {
			at := <-tk.C
			if got := at.Sub(start); got != time.Duration(i)*time.Second {
				t.Errorf("tick %d at %v, want %ds", i, got, i)
			}
		}
		// A receiver that falls behind misses ticks: one is kept.
		sleep(5 * time.Second)
		synctest.Wait() // the tick due now has been delivered
		if n := len(tk.C); n != 1 {
			t.Errorf("%d ticks queued, want 1", n)
		}
		<-tk.C
		tk.Stop()
		sleep(5 * time.Second)
		synctest.Wait()
		if n := len(tk.C); n != 0 {
			t.Errorf("%d ticks after Stop", n)
		}
	})
}

func TestTickerFake(t *testing.T) {
	c := clock.NewFake(t0)
	tk := clock.NewTicker(c, time.Second)
	for i := 1; i <= 3; i++ {
		c.Advance(time.Second)
		if at := <-tk.C; !at.Equal(t0.Add(time.Duration(i) * time.Second)) {
			t.Errorf("tick %d at %v", i, at)
		}
	}
	tk.Stop()
	if c.Pending() != 0 {
		t.Errorf("%d timers pending after Stop", c.Pending())
	}
	c.Advance(time.Hour)
	if len(tk.C) != 0 {
		t.Error("a tick after Stop")
	}
	defer func() {
		if recover() == nil {
			t.Error("NewTicker(0) did not panic")
		}
	}()
	clock.NewTicker(c, 0)
}

func TestFake(t *testing.T) {
	c := clock.NewFake(t0)
	var fired []string
	armed := c.Armed()
	c.AfterFunc(2*time.Second, func() { fired = append(fired, "2s") })
	select {
	case <-armed:
	default:
		t.Error("Armed not closed by AfterFunc")
	}
	stop := c.AfterFunc(time.Second, func() { fired = append(fired, "1s-stopped") })
	c.AfterFunc(time.Second, func() { fired = append(fired, "1s") })
	c.AfterFunc(1200*time.Millisecond, func() { fired = append(fired, "1.2s") })
	if !stop() {
		t.Error("stop of a pending timer reported false")
	}
	if stop() {
		t.Error("a second stop reported true")
	}
	c.Advance(1500 * time.Millisecond)
	if fmt.Sprint(fired) != "[1s 1.2s]" || !c.Now().Equal(t0.Add(1500*time.Millisecond)) {
		t.Fatalf("after 1.5s fired %v, now %v", fired, c.Now())
	}
	c.Advance(time.Second)
	if fmt.Sprint(fired) != "[1s 1.2s 2s]" || c.Pending() != 0 {
		t.Fatalf("after 2.5s fired %v, %d pending", fired, c.Pending())
	}
}

func TestDrive(t *testing.T) {
	c := clock.NewFake(t0)
	ctx := context.Background()
	moved := c.Drive(func() {
		for _, d := range []time.Duration{time.Second, 0, 3 * time.Second} {
			if err := clock.Sleep(ctx, c, d); err != nil {
				t.Error(err)
			}
		}
		ch, _ := clock.After(c, time.Minute)
		<-ch
	})
	if fmt.Sprint(moved) != "[1s 3s 1m0s]" || !c.Now().Equal(t0.Add(time.Minute+4*time.Second)) {
		t.Errorf("moved %v to %v", moved, c.Now())
	}
	if moved := c.Drive(func() {}); moved != nil {
		t.Errorf("moved %v without a timer", moved)
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want f's panic", r)
		}
	}()
	c.Drive(func() { panic("boom") })
}

// TestWithTimeout: a Fake's timeout ends the context only once the clock
// has moved past it, with the cause context.DeadlineExceeded; canceling
// first is no timeout and releases the timer; on Real (in a bubble) it is
// context.WithTimeout, deadline and all.
func TestWithTimeout(t *testing.T) {
	t.Run("fake", func(t *testing.T) {
		f := clock.NewFake(t0)
		ctx, cancel := clock.WithTimeout(context.Background(), f, time.Minute)
		defer cancel()
		if _, ok := ctx.Deadline(); ok {
			t.Error("a Fake's timeout has a deadline on real time")
		}
		f.Advance(time.Minute - time.Nanosecond)
		if ctx.Err() != nil || clock.TimedOut(ctx) {
			t.Fatalf("ended before its time: %v", ctx.Err())
		}
		f.Advance(time.Nanosecond)
		if !clock.TimedOut(ctx) || !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			t.Errorf("after its time: err %v, cause %v, TimedOut %v", ctx.Err(), context.Cause(ctx), clock.TimedOut(ctx))
		}
	})
	t.Run("fake, canceled first", func(t *testing.T) {
		f := clock.NewFake(t0)
		ctx, cancel := clock.WithTimeout(context.Background(), f, time.Minute)
		cancel()
		if ctx.Err() == nil || clock.TimedOut(ctx) {
			t.Errorf("canceled: err %v, TimedOut %v", ctx.Err(), clock.TimedOut(ctx))
		}
		if n := f.Pending(); n != 0 {
			t.Errorf("%d timers left armed after cancel", n)
		}
	})
	t.Run("fake, parent canceled", func(t *testing.T) {
		f := clock.NewFake(t0)
		stop := errors.New("caller gave up")
		parent, cancelParent := context.WithCancelCause(context.Background())
		ctx, cancel := clock.WithTimeout(parent, f, time.Minute)
		defer cancel()
		cancelParent(stop)
		if !errors.Is(context.Cause(ctx), stop) || clock.TimedOut(ctx) {
			t.Errorf("cause %v, TimedOut %v; want the parent's cause", context.Cause(ctx), clock.TimedOut(ctx))
		}
	})
	t.Run("real", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := clock.WithTimeout(context.Background(), nil, time.Minute)
			defer cancel()
			if d, ok := ctx.Deadline(); !ok || d.Sub(time.Now()) != time.Minute {
				t.Errorf("deadline %v (%v); want a minute from now", d, ok)
			}
			if clock.TimedOut(ctx) {
				t.Fatal("timed out at once")
			}
			sleep(time.Minute)
			synctest.Wait() // the deadline's timer and the sleep end at one instant, in either order
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) || !clock.TimedOut(ctx) {
				t.Errorf("after a minute: err %v, TimedOut %v", ctx.Err(), clock.TimedOut(ctx))
			}
		})
	})
	t.Run("a parent's deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			parent, cancelParent := context.WithTimeout(context.Background(), time.Second)
			defer cancelParent()
			ctx, cancel := clock.WithTimeout(parent, clock.NewFake(t0), time.Hour)
			defer cancel()
			sleep(time.Second)
			synctest.Wait()
			if !clock.TimedOut(ctx) {
				t.Errorf("a child of a timed-out parent: err %v, cause %v", ctx.Err(), context.Cause(ctx))
			}
		})
	})
}

// TestWaitArmed: WaitArmed returns once for each timer of its duration,
// armed before the call or while it waits, and never for a timer of
// another duration; it gives up with its context.
func TestWaitArmed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := clock.NewFake(t0)
		c.AfterFunc(time.Hour, func() {})
		if err := c.WaitArmed(t.Context(), time.Hour); err != nil {
			t.Fatalf("a timer armed before the call: %v", err)
		}
		got := make(chan error, 1)
		go func() { got <- c.WaitArmed(t.Context(), time.Hour) }()
		c.AfterFunc(time.Minute, func() {})
		synctest.Wait()
		select {
		case err := <-got:
			t.Fatalf("returned for a timer of another duration, or one already waited for: %v", err)
		default:
		}
		c.AfterFunc(time.Hour, func() {})
		if err := <-got; err != nil {
			t.Fatalf("a timer armed while it waits: %v", err)
		}
		stop := errors.New("gave up")
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(stop)
		if err := c.WaitArmed(ctx, time.Hour); !errors.Is(err, stop) {
			t.Errorf("with its context done: %v", err)
		}
	})
}
