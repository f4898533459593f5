package deepresearch_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/events"
)

// askDocs are the documents of the follow-up tests: the run reads the
// repair pages; the latency page, which the run's question does not
// reach, only a follow-up's own research finds.
var askDocs = []deepresearch.Document{
	{DocID: "repair.md", URL: "https://cables.example/repair", Title: "How undersea cables are repaired",
		Text: "A cable ship repairs an undersea cable. The crew finds the fault by sending light pulses down the fibre and timing the echo.\n\n" +
			"To lift a broken undersea cable from the seabed, the repair ship drags a grapnel, a hooked anchor, across the seabed until it snags the cable.\n\n" +
			"The repair crew splices a new length of cable between the two ends in a clean room on deck, then lowers the repaired cable back to the seabed."},
	{DocID: "ships.md", URL: "https://cables.example/ships", Title: "Cable repair ships",
		Text: "About sixty cable repair ships serve the world's undersea cables. A repair ship waits in port until a cable fault is reported.\n\n" +
			"Most undersea cable repairs take one to two weeks, weather permitting."},
	{DocID: "latency.md", URL: "https://fibre.example/latency", Title: "Latency of transatlantic fibre",
		Text: "Transatlantic latency between London and New York is about 60 milliseconds round trip over fibre.\n\n" +
			"Light travels through glass fibre at about two thirds of its speed in vacuum, which sets the latency floor of transatlantic links."},
}

// countingBackend counts the searches made of its backend.
type countingBackend struct {
	deepresearch.SearchBackend
	searches atomic.Int64
}

func (b *countingBackend) Search(ctx context.Context, q string, limit int) ([]deepresearch.SearchResult, error) {
	b.searches.Add(1)
	return b.SearchBackend.Search(ctx, q, limit)
}

// askResearcher is an offline Researcher (the extractive model) over
// askDocs, counting its searches.
func askResearcher(t *testing.T) (*deepresearch.Researcher, *countingBackend) {
	t.Helper()
	b, err := deepresearchtest.NewBackend(askDocs...)
	if err != nil {
		t.Fatal(err)
	}
	cb := &countingBackend{SearchBackend: b}
	r, err := deepresearch.New(deepresearch.Config{Search: cb, Channel: "web", MaxCycles: 1, MaxTasks: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, cb
}

const askQuestion = "How are undersea cables repaired by cable repair ships?"

// TestAsk (issue 33): a follow-up that the run's sources answer is
// written from them, without a search, citing the run's numbers; one
// they do not answer is researched in one more cycle, and the sources it
// finds are numbered after the run's. Both are stored as the run's
// thread.
func TestAsk(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r, backend := askResearcher(t)
		ctx := t.Context()
		parent, err := r.RecordOrResearch(ctx, st, nil, deepresearch.Request{Question: askQuestion}, deepresearch.OriginCLI, nil)
		if err != nil {
			t.Fatal(err)
		}
		numbers := map[string]int{} // the run's reference numbers, by document
		for _, ref := range parent.References {
			numbers[ref.ID] = ref.Number
		}
		if numbers["repair.md"] == 0 || numbers["latency.md"] != 0 {
			t.Fatalf("the run cites %v; want the repair page and not the latency page", numbers)
		}

		// Answered by the run's sources: no search.
		before := backend.searches.Load()
		rec := &recorder{}
		rep, err := r.Ask(ctx, st, parent.RunID, "What does a repair ship use to lift a broken undersea cable from the seabed?", deepresearch.OriginCLI, rec.sink)
		if err != nil {
			t.Fatal(err)
		}
		checkAnswer(t, rep, rec)
		if n := backend.searches.Load() - before; n != 0 {
			t.Errorf("a follow-up the run's sources answer made %d searches", n)
		}
		if !strings.Contains(rep.Text, "grapnel") {
			t.Errorf("the answer does not say grapnel:\n%s", rep.Text)
		}
		if len(rep.References) == 0 {
			t.Fatal("the answer cites nothing")
		}
		for _, ref := range rep.References {
			if want := numbers[ref.ID]; ref.Number != want {
				t.Errorf("the answer cites %s as [%d]; the run numbers it [%d]", ref.ID, ref.Number, want)
			}
		}
		if rep.Cycles != 1 {
			t.Errorf("the answered follow-up ran %d cycles; want 1 (the run's sources)", rep.Cycles)
		}
		answered, err := st.Get(ctx, rep.RunID)
		if err != nil || answered.Parent != parent.RunID || answered.Status != deepresearch.StatusFinished {
			t.Errorf("the stored follow-up: %+v, %v", answered, err)
		}

		// Not in the run's sources: new research, new numbers after the run's.
		before = backend.searches.Load()
		rec = &recorder{}
		rep2, err := r.Ask(ctx, st, rep.RunID, "What is the transatlantic latency of light in glass fibre between London and New York?", deepresearch.OriginCLI, rec.sink)
		if err != nil {
			t.Fatal(err)
		}
		checkAnswer(t, rep2, rec)
		if backend.searches.Load() == before {
			t.Error("a follow-up the run's sources do not answer made no search")
		}
		var latency int
		for _, ref := range rep2.References {
			if want, ok := numbers[ref.ID]; ok && ref.Number != want {
				t.Errorf("the answer cites the run's %s as [%d]; the run numbers it [%d]", ref.ID, ref.Number, want)
			}
			if ref.ID == "latency.md" {
				latency = ref.Number
			}
		}
		if latency <= len(parent.References) {
			t.Errorf("the new source is [%d]; want a number after the run's %d:\n%s", latency, len(parent.References), rep2.Text)
		}
		if rep2.Cycles != 2 {
			t.Errorf("the researched follow-up ran %d cycles; want 2", rep2.Cycles)
		}
		// Asked of a follow-up, it joins the run's thread.
		thread, err := st.FollowUps(ctx, parent.RunID)
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, f := range thread {
			ids = append(ids, f.ID)
		}
		if !slices.Equal(ids, []string{rep.RunID, rep2.RunID}) {
			t.Errorf("the thread holds %v; want %v", ids, []string{rep.RunID, rep2.RunID})
		}
		// The stored answer renders as it was written.
		b, err := st.Report(ctx, rep2.RunID)
		if err != nil {
			t.Fatal(err)
		}
		again, err := deepresearch.LoadReport(b)
		if err != nil || again.Text != rep2.Text || !slices.EqualFunc(again.References, rep2.References, func(a, b deepresearch.Reference) bool { return a.Number == b.Number && a.ID == b.ID }) {
			t.Errorf("the stored follow-up renders differently (%v):\n%s\nwant\n%s", err, again.Text, rep2.Text)
		}
	})
}

// checkAnswer holds a follow-up's answer to the citation promise, in its
// thread's numbering: its references are distinct, in number order, each
// a source the follow-up read (the run's, or its own research's); every
// marker of its text resolves to one; every reference is cited.
func checkAnswer(t *testing.T, rep *deepresearch.Report, rec *recorder) {
	t.Helper()
	if len(rep.References) == 0 {
		t.Fatal("the answer cites nothing")
	}
	retrieved := map[string]bool{}
	for _, e := range rec.of(events.SourceFound) {
		retrieved[e.Data.(events.SourceData).Source.ID] = true
	}
	refs := citeproc.NewMapping(nil)
	for i, ref := range rep.References {
		if i > 0 && ref.Number <= rep.References[i-1].Number {
			t.Errorf("reference [%d] follows [%d]: not in number order", ref.Number, rep.References[i-1].Number)
		}
		if !retrieved[ref.ID] {
			t.Errorf("reference [%d] %s was never read", ref.Number, ref.ID)
		}
		if err := refs.Add(ref.Number, ref.Source); err != nil {
			t.Error(err)
		}
	}
	p := citeproc.New(&strings.Builder{}, citeproc.Config{Mode: citeproc.Keep, Mapping: refs})
	p.WriteString(rep.Body)
	p.Close()
	if u := p.Unknowns(); len(u) > 0 {
		t.Errorf("markers that resolve to nothing: %v", u)
	}
	cited := map[int]bool{}
	for _, c := range p.Cited() {
		cited[c.Number] = true
	}
	for _, ref := range rep.References {
		if !cited[ref.Number] {
			t.Errorf("reference [%d] is not cited", ref.Number)
		}
	}
}
