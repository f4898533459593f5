package events

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/clock"
)

// script is what each agent of a run emits, in its own order (agent -1:
// the run level). Texts are streamed in the chunks given.
type script map[int][]Payload

// deterministicRun is a small run: a plan, three agents that search and
// stream reports, and the final report interleaved with citations.
func deterministicRun(chunk int) script {
	split := func(s string, mk func(string) Payload) []Payload {
		var out []Payload
		for len(s) > 0 {
			n := min(chunk, len(s))
			out = append(out, mk(s[:n]))
			s = s[n:]
		}
		return out
	}
	delta := func(s string) Payload { return DeltaData{Text: s} }
	rdelta := func(s string) Payload { return ReportDeltaData{Text: s} }
	sc := script{-1: {RunStartedData{Question: "q"}, PlanData{}}}
	for a := range 3 {
		var evs []Payload
		evs = append(evs, AgentStartedData{Task: PlanTask{Index: a}}, SearchData{Query: fmt.Sprint("q", a), Results: 2},
			SourceData{Number: 1}, SearchData{Query: "again", Results: 0})
		evs = append(evs, split(fmt.Sprintf("Agent %d found that the pacer [1] starts early.", a), delta)...)
		evs = append(evs, CitedData{}, AgentFinishedData{ToolCalls: 2})
		sc[a] = evs
	}
	report := split("The pacer [1] starts collections early ", rdelta)
	report = append(report, CitationData{Number: 1})
	report = append(report, split("so that marking ends at the goal [2].", rdelta)...)
	report = append(report, CitationData{Number: 2}, ReportFinishedData{}, VerifiedData{}, RunFinishedData{})
	sc[-1] = append(sc[-1], MergedData{})
	sc[-2] = report // emitted at run level once the agents are done: see play
	return sc
}

// play emits sc on em the way a run does: the run's opening, the agents
// interleaved at random (each in its own order), then the final report.
// It stops after stop emissions (stop < 0: never), as a killed process
// would.
func play(em *Emitter, sc script, rng *rand.Rand, stop int) {
	n := 0
	emit := func(agent int, p Payload) bool {
		if stop >= 0 && n >= stop {
			return false
		}
		n++
		em.Emit(agent, "", p)
		return true
	}
	for _, p := range sc[-1] {
		if !emit(-1, p) {
			return
		}
	}
	next := map[int]int{}
	for {
		var live []int
		for a := 0; sc[a] != nil; a++ {
			if next[a] < len(sc[a]) {
				live = append(live, a)
			}
		}
		if len(live) == 0 {
			break
		}
		a := live[rng.IntN(len(live))]
		if !emit(a, sc[a][next[a]]) {
			return
		}
		next[a]++
	}
	for _, p := range sc[-2] {
		if !emit(-1, p) {
			return
		}
	}
}

// view is what a consumer of the log makes of it: per agent, the types of
// the events other than text, and the text after deltas and resets.
type view struct {
	others map[int][]Type
	text   map[int]string
}

func viewOf(t *testing.T, log []Event) view {
	t.Helper()
	v := view{others: map[int][]Type{}, text: map[int]string{}}
	for i, e := range log {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d: the log must have every seq once", i+1, e.Seq)
		}
		switch d := e.Data.(type) {
		case DeltaData:
			v.text[e.Agent] += d.Text
		case ReportDeltaData:
			v.text[e.Agent] += d.Text
		case StreamResetData:
			v.text[e.Agent] = d.Text
		case RunResumedData:
		default:
			v.others[e.Agent] = append(v.others[e.Agent], e.Type)
		}
	}
	return v
}

func count(log []Event, typ Type) int {
	n := 0
	for _, e := range log {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// TestResumeEveryCut kills a run after every possible number of events
// and resumes it with the agents interleaved anew and the text chunked
// differently: the log always reads as the uninterrupted run's, with
// every event once and no reset.
func TestResumeEveryCut(t *testing.T) {
	var full recorder
	play(NewEmitter("r", clock.NewFake(t0), &full), deterministicRun(4), rand.New(rand.NewPCG(1, 1)), -1)
	want := viewOf(t, full.events)
	total := len(full.events)
	for cut := 0; cut <= total; cut++ {
		for _, chunk := range []int{4, 1, 7} {
			var first recorder
			play(NewEmitter("r", clock.NewFake(t0), &first), deterministicRun(4), rand.New(rand.NewPCG(uint64(cut), 2)), cut)
			var second recorder
			em := NewEmitter("r", clock.NewFake(t0), &second)
			if err := em.Resume(first.events, 2, func(agent int, committed, got Type) {
				t.Errorf("cut %d: agent %d diverged: %s became %s", cut, agent, committed, got)
			}); err != nil {
				t.Fatal(err)
			}
			play(em, deterministicRun(chunk), rand.New(rand.NewPCG(uint64(cut), 3)), -1)
			log := append(append([]Event(nil), first.events...), second.events...)
			got := viewOf(t, log)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("cut %d, chunk %d: the resumed log reads\n%+v\nwant\n%+v", cut, chunk, got, want)
			}
			if n := count(log, StreamReset); n != 0 {
				t.Errorf("cut %d, chunk %d: %d resets for the same text", cut, chunk, n)
			}
			if r := second.events[0]; r.Type != RunResumed || r.Seq != uint64(cut+1) || r.Data != (RunResumedData{Attempt: 2, After: uint64(cut)}) {
				t.Errorf("cut %d: first event of the new attempt %+v", cut, r)
			}
		}
	}
}

// TestResumeTwice: a resumed attempt that is itself killed resumes again
// from the whole log.
func TestResumeTwice(t *testing.T) {
	var full recorder
	play(NewEmitter("r", nil, &full), deterministicRun(5), rand.New(rand.NewPCG(9, 9)), -1)
	want := viewOf(t, full.events)
	var log []Event
	for attempt, stop := range []int{11, 17, -1} {
		var rec recorder
		em := NewEmitter("r", nil, &rec)
		if attempt > 0 {
			if err := em.Resume(log, attempt+1, nil); err != nil {
				t.Fatal(err)
			}
		}
		play(em, deterministicRun(3+attempt), rand.New(rand.NewPCG(uint64(attempt), 0)), stop)
		log = append(log, rec.events...)
	}
	if got := viewOf(t, log); !reflect.DeepEqual(got, want) {
		t.Errorf("after two resumptions the log reads\n%+v\nwant\n%+v", got, want)
	}
	if count(log, RunResumed) != 2 {
		t.Errorf("%d run.resumed events, want 2", count(log, RunResumed))
	}
}

// TestResumeNewText: a stream cut off mid-way and written anew differently
// (a live model that does not answer twice alike) is reset once, with the
// new text so far; a consumer ends with the new text.
func TestResumeNewText(t *testing.T) {
	tests := []struct {
		name       string
		old, new   string
		wantResets int
	}{
		{"departs mid-way", "The pacer starts early", "The pacer begins at the goal, then", 1},
		{"departs at once", "Alpha beta", "Gamma delta epsilon", 1},
		{"shorter", "The pacer starts early and ends", "The pacer", 1},
		{"longer", "The pacer", "The pacer starts early", 0},
		{"same", "The pacer", "The pacer", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var first recorder
			em := NewEmitter("r", nil, &first)
			em.Emit(-1, "", RunStartedData{})
			for _, w := range strings.SplitAfter(tc.old, " ") {
				em.Emit(-1, "", ReportDeltaData{Text: w})
			}
			var second recorder
			em = NewEmitter("r", nil, &second)
			if err := em.Resume(first.events, 2, nil); err != nil {
				t.Fatal(err)
			}
			em.Emit(-1, "", RunStartedData{})
			for _, w := range strings.SplitAfter(tc.new, "e") {
				em.Emit(-1, "", ReportDeltaData{Text: w})
			}
			em.Emit(-1, "", ReportFinishedData{})
			log := append(first.events, second.events...)
			v := viewOf(t, log)
			if v.text[-1] != tc.new {
				t.Errorf("a consumer reads %q, want %q", v.text[-1], tc.new)
			}
			if n := count(log, StreamReset); n != tc.wantResets {
				t.Errorf("%d resets, want %d", n, tc.wantResets)
			}
			if !reflect.DeepEqual(v.others[-1], []Type{RunStarted, ReportFinished}) {
				t.Errorf("other events %v", v.others[-1])
			}
		})
	}
}

// TestResumeDiverged: an agent whose committed events the new attempt does
// not retrace is told to the hook, and its events from there on are all
// emitted.
func TestResumeDiverged(t *testing.T) {
	var first recorder
	em := NewEmitter("r", nil, &first)
	em.Emit(0, "A", AgentStartedData{})
	em.Emit(0, "A", AgentFailedData{Kind: FailTimeout})
	var second recorder
	em = NewEmitter("r", nil, &second)
	type div struct {
		agent         int
		committed, to Type
	}
	var got []div
	if err := em.Resume(first.events, 2, func(agent int, committed, to Type) { got = append(got, div{agent, committed, to}) }); err != nil {
		t.Fatal(err)
	}
	em.Emit(0, "A", AgentStartedData{})
	em.Emit(0, "A", SearchData{Query: "q"})
	em.Emit(0, "A", AgentFinishedData{})
	if want := []div{{0, AgentFailed, SearchIssued}}; !reflect.DeepEqual(got, want) {
		t.Errorf("diverged %v, want %v", got, want)
	}
	var types []Type
	for _, e := range second.events {
		types = append(types, e.Type)
	}
	if want := []Type{RunResumed, SearchIssued, AgentFinished}; !reflect.DeepEqual(types, want) {
		t.Errorf("the new attempt emitted %v, want %v", types, want)
	}
}

func TestResumeRefuses(t *testing.T) {
	em := NewEmitter("r", nil)
	if err := em.Resume([]Event{{Seq: 1, Type: RunStarted, Data: RunStartedData{}}, {Seq: 3, Type: PlanReady, Data: PlanData{}}}, 2, nil); err == nil || !strings.Contains(err.Error(), "seq 3") {
		t.Errorf("a log with a gap: %v", err)
	}
	em.Emit(-1, "", RunStartedData{})
	if err := em.Resume(nil, 2, nil); err == nil {
		t.Error("Resume after Emit succeeded")
	}
	var nilEm *Emitter
	if err := nilEm.Resume(nil, 2, nil); err != nil {
		t.Error(err)
	}
}

// TestResumedEventsDecode: the new event types survive the wire.
func TestResumedEventsDecode(t *testing.T) {
	for _, p := range []Payload{RunResumedData{Attempt: 3, After: 41}, StreamResetData{Text: "new <b>text</b>"}} {
		b, err := Event{RunID: "r", Seq: 42, Type: p.EventType(), Agent: -1, Data: p}.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var e Event
		if err := e.UnmarshalJSON(b); err != nil || e.Data != p {
			t.Errorf("%s decodes to %#v (%v)", b, e.Data, err)
		}
	}
}

func init() {
	// The payloads of resuming join the samples every type is tested with.
	samples = append(samples, RunResumedData{Attempt: 2, After: 17}, StreamResetData{Text: "The cable [1] <failed>.\n"})
}

// TestRetraceAttempts: one agent's events from successive attempts, each
// cut anywhere, streamed in other chunks, or with other text, are
// delivered once: the delivered non-text events are the agent's, in
// order, and the text a subscriber rebuilds from the deltas and resets is
// the last attempt's; an attempt that retraces what was delivered
// delivers nothing.
func TestRetraceAttempts(t *testing.T) {
	last := deterministicRun(7)[0]
	others := func(ps []Payload) []Type {
		var out []Type
		for _, p := range ps {
			if _, ok := textOf(p); !ok && p.EventType() != StreamReset {
				out = append(out, p.EventType())
			}
		}
		return out
	}
	rebuilt := func(ps []Payload) string {
		var b strings.Builder
		for _, p := range ps {
			switch d := p.(type) {
			case DeltaData:
				b.WriteString(d.Text)
			case StreamResetData:
				b.Reset()
				b.WriteString(d.Text)
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		name  string
		first []Payload
		reset bool // the first attempt's text was other
	}{
		{"same chunks", deterministicRun(7)[0], false},
		{"other chunks", deterministicRun(3)[0], false},
		{"other text", func() []Payload {
			var out []Payload
			for _, p := range deterministicRun(5)[0] {
				if d, ok := p.(DeltaData); ok {
					p = DeltaData{Text: strings.ToUpper(d.Text)}
				}
				out = append(out, p)
			}
			return out
		}(), true},
	} {
		for cut := range len(tc.first) + 1 {
			var r Retrace
			var got []Payload
			for _, p := range tc.first[:cut] {
				got = append(got, r.Pass(p)...)
			}
			for range 2 { // the last attempt, then one that retraces it
				r.Restart()
				for _, p := range last {
					got = append(got, r.Pass(p)...)
				}
			}
			if g, w := others(got), others(last); !reflect.DeepEqual(g, w) {
				t.Errorf("%s, cut %d: delivered %v; want %v", tc.name, cut, g, w)
			}
			if g, w := rebuilt(got), rebuilt(last); g != w {
				t.Errorf("%s, cut %d: text %q; want %q", tc.name, cut, g, w)
			}
			resets := 0
			for _, p := range got {
				if p.EventType() == StreamReset {
					resets++
				}
			}
			if resets > 0 && !tc.reset || resets > 1 {
				t.Errorf("%s, cut %d: %d stream resets", tc.name, cut, resets)
			}
		}
	}
}

// TestRetraceEnds: an attempt whose text stops short of what an earlier
// one delivered, and gives no later event, ends with a reset to its own
// text (End); a reset that comes from upstream into a resumed run
// replaces the text the resumer retraces, so what follows continues it.
func TestRetraceEnds(t *testing.T) {
	var r Retrace
	r.Pass(AgentStartedData{})
	r.Pass(DeltaData{Text: "ABCDEF"})
	r.Restart()
	r.Pass(AgentStartedData{})
	if got := r.Pass(DeltaData{Text: "ABC"}); len(got) != 0 {
		t.Fatalf("a delta delivered before: %v", got)
	}
	if got := r.End(); !reflect.DeepEqual(got, []Payload{StreamResetData{Text: "ABC"}}) {
		t.Errorf("End = %v; want a reset to ABC", got)
	}
	if got := r.End(); len(got) != 0 {
		t.Errorf("End again = %v", got)
	}

	var first recorder
	em := NewEmitter("r", nil, &first)
	em.Emit(0, "", AgentStartedData{})
	em.Emit(0, "", DeltaData{Text: "Hello world"})
	var second recorder
	em = NewEmitter("r", nil, &second)
	if err := em.Resume(first.events, 2, nil); err != nil {
		t.Fatal(err)
	}
	em.Emit(0, "", AgentStartedData{})
	em.Emit(0, "", DeltaData{Text: "Hello"})
	em.Emit(0, "", StreamResetData{Text: "Help"})
	em.Emit(0, "", DeltaData{Text: " me"})
	var text string
	for _, e := range append(first.events, second.events...) {
		switch d := e.Data.(type) {
		case DeltaData:
			text += d.Text
		case StreamResetData:
			text = d.Text
		}
	}
	if text != "Help me" {
		t.Errorf("a subscriber rebuilds %q; want %q", text, "Help me")
	}
}
