package events

import "testing"

func init() {
	samples = append(samples, WorkersMissingData{Task: PlanTask{Index: 1, ID: "t2", Title: "Repairs", Question: "How were cables repaired?", Cycle: 1}, WaitedMS: 120000})
}

// TestWorkersMissingUncounted: a workers.missing event, which a runner
// says when it says it, is delivered as it comes and counted in no
// attempt — by a Retrace and by a resumed run's earlier events — so the
// run-level events around it are recognised when an attempt retraces
// them without it.
func TestWorkersMissingUncounted(t *testing.T) {
	missing := WorkersMissingData{Task: PlanTask{Index: 0, Title: "Laying"}, WaitedMS: 120000}
	first := []Payload{RunStartedData{Question: "q"}, missing, PlanData{Tasks: []PlanTask{{Title: "Laying"}}}}
	var r Retrace
	for _, p := range first {
		if got := r.Pass(p); len(got) != 1 {
			t.Fatalf("the first attempt's %s delivered %v", p.EventType(), got)
		}
	}
	r.Restart()
	for _, p := range []Payload{first[0], first[2]} {
		if got := r.Pass(p); len(got) != 0 {
			t.Errorf("the second attempt's %s, retraced, delivered %v", p.EventType(), got)
		}
	}
	if got := r.Pass(missing); len(got) != 1 {
		t.Errorf("a workers.missing of the second attempt delivered %v; want it", got)
	}

	var prior []Event
	for i, p := range first {
		prior = append(prior, Event{RunID: "r", Seq: uint64(i + 1), Type: p.EventType(), Agent: -1, Data: p})
	}
	res, err := newResumer(prior)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Payload{first[0], first[2]} {
		if got := res.pass(-1, p); len(got) != 0 {
			t.Errorf("the resumed run's %s delivered %v; the earlier attempt had", p.EventType(), got)
		}
	}
}
