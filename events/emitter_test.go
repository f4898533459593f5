package events

import (
	"fmt"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/clock"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type recorder struct{ events []Event }

func (r *recorder) Event(e Event) { r.events = append(r.events, e) }

func TestEmitStamps(t *testing.T) {
	var r recorder
	c := clock.NewFake(t0)
	em := NewEmitter("run1", c, &r)
	em.Emit(-1, "", RunStartedData{Question: "q"})
	c.Advance(time.Millisecond)
	em.Emit(2, "History", SearchData{Query: "x", Results: 1})
	want := []Event{
		{RunID: "run1", Seq: 1, Time: t0, Type: RunStarted, Agent: -1, Data: RunStartedData{Question: "q"}},
		{RunID: "run1", Seq: 2, Time: t0.Add(time.Millisecond), Type: SearchIssued, Agent: 2, Section: "History", Data: SearchData{Query: "x", Results: 1}},
	}
	if !reflect.DeepEqual(r.events, want) {
		t.Errorf("events:\n got %+v\nwant %+v", r.events, want)
	}
	if em.RunID() != "run1" {
		t.Errorf("RunID() = %q", em.RunID())
	}
}

// TestInCycle: the emitter of a cycle stamps its cycle on every event and
// shares the run's numbering and Close.
func TestInCycle(t *testing.T) {
	var r recorder
	em := NewEmitter("run1", clock.NewFake(t0), &r)
	c2 := em.InCycle(2)
	em.Emit(-1, "", RunStartedData{Question: "q"})
	c2.Emit(-1, "", CycleStartedData{Cycle: 2, Tasks: []PlanTask{}})
	c2.Emit(4, "Field", SearchData{Query: "x"})
	em.Emit(-1, "", ReportDeltaData{Text: "t"})
	em.Close()
	c2.Emit(4, "Field", SearchData{Query: "late"})
	var got []string
	for _, e := range r.events {
		got = append(got, fmt.Sprintf("%d %s cycle=%d", e.Seq, e.Type, e.Cycle))
	}
	want := []string{"1 run.started cycle=0", "2 cycle.started cycle=2", "3 agent.search cycle=2", "4 report.delta cycle=0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	if (*Emitter)(nil).InCycle(2) != nil {
		t.Error("a nil emitter's cycle emitter is not nil")
	}
}

// TestEmitConcurrentOrder emits from many goroutines and checks that every
// sink sees every event once, in Seq order, with times that never go back.
func TestEmitConcurrentOrder(t *testing.T) {
	const agents, each = 8, 200
	c := clock.NewFake(t0) // moved on by every agent before it emits
	var a, b []Event
	inSink := 0
	check := SinkFunc(func(e Event) {
		inSink++ // the race detector flags concurrent delivery
		if inSink != 1 {
			t.Errorf("sinks called concurrently")
		}
		inSink--
	})
	em := NewEmitter("r", c, check, SinkFunc(func(e Event) { a = append(a, e) }), SinkFunc(func(e Event) { b = append(b, e) }))
	var wg sync.WaitGroup
	for i := range agents {
		wg.Go(func() {
			for range each {
				c.Advance(time.Microsecond)
				em.Emit(i, "S", DeltaData{Text: "x"})
			}
		})
	}
	wg.Wait()
	for _, got := range [][]Event{a, b} {
		if len(got) != agents*each {
			t.Fatalf("sink saw %d events, want %d", len(got), agents*each)
		}
		for i, e := range got {
			if e.Seq != uint64(i+1) {
				t.Fatalf("event %d has Seq %d", i, e.Seq)
			}
			if i > 0 && e.Time.Before(got[i-1].Time) {
				t.Fatalf("event %d goes back in time", i)
			}
		}
	}
}

func TestNilEmitter(t *testing.T) {
	var em *Emitter
	em.Emit(0, "x", DeltaData{}) // must not panic
	if em.RunID() != "" {
		t.Error("nil emitter has a run ID")
	}
}

func TestEmitNilPayloadPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	NewEmitter("r", nil).Emit(0, "", nil)
}

func TestNewRunID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{16}$`)
	seen := map[string]bool{}
	for range 100 {
		id := NewRunID()
		if !re.MatchString(id) {
			t.Fatalf("run ID %q is not 16 hex digits", id)
		}
		if seen[id] {
			t.Fatalf("run ID %q repeated", id)
		}
		seen[id] = true
	}
}

func TestEmitterClose(t *testing.T) {
	var got []uint64
	em := NewEmitter("run", nil, SinkFunc(func(e Event) { got = append(got, e.Seq) }))
	em.Emit(-1, "", RunStartedData{Question: "q"})
	em.Emit(-1, "", RunFinishedData{})
	em.Close()
	em.Emit(0, "late", DeltaData{Text: "straggler"})
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("delivered seqs %v, want [1 2] and nothing after Close", got)
	}
}
