package deepresearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/search"
)

// askDocs are the documents of the follow-up tests: the run reads the
// repair pages; the latency page, which the run's question does not
// reach, only a follow-up's own research finds.
var askDocs = []search.Document{
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
	search.Backend
	searches atomic.Int64
}

func (b *countingBackend) Search(ctx context.Context, q string, limit int) ([]search.Result, error) {
	b.searches.Add(1)
	return b.Backend.Search(ctx, q, limit)
}

// askResearcher is an offline Researcher (the extractive model) over
// askDocs, counting its searches.
func askResearcher(t *testing.T) (*deepresearch.Researcher, *countingBackend) {
	t.Helper()
	b, err := deepresearchtest.NewBackend(askDocs...)
	if err != nil {
		t.Fatal(err)
	}
	cb := &countingBackend{Backend: b}
	r, err := deepresearch.New(deepresearch.Config{Search: cb, Channel: "web", Limits: deepresearch.Limits{MaxCycles: 1, MaxTasks: 2}})
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
		parent, err := recordOrResearch(ctx, r, st, nil, deepresearch.Request{Question: askQuestion}, runstore.OriginCLI, nil)
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
		rep, err := ask(ctx, r, st, parent.RunID, "What does a repair ship use to lift a broken undersea cable from the seabed?", runstore.OriginCLI, rec.sink)
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
		if err != nil || answered.Parent != parent.RunID || answered.Status != runstore.Finished {
			t.Errorf("the stored follow-up: %+v, %v", answered, err)
		}

		// Not in the run's sources: new research, new numbers after the run's.
		before = backend.searches.Load()
		rec = &recorder{}
		rep2, err := ask(ctx, r, st, rep.RunID, "What is the transatlantic latency of light in glass fibre between London and New York?", runstore.OriginCLI, rec.sink)
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
		if err != nil || again.Text != rep2.Text || !slices.EqualFunc(again.References, rep2.References, func(a, b render.Reference) bool { return a.Number == b.Number && a.ID == b.ID }) {
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
	cited := map[int]bool{}
	for _, c := range resolved(t, rep.Body, refs) {
		cited[c.Number] = true
	}
	for _, ref := range rep.References {
		if !cited[ref.Number] {
			t.Errorf("reference [%d] is not cited", ref.Number)
		}
	}
}

// TestRunsAsk: Runs.Ask starts a follow-up the Runs owns, and Thread
// lists it with its answer; a run the store does not hold, or one without
// a report, is refused; a follow-up interrupted before it ran is resumed
// as a follow-up (its parent is the store's to keep).
func TestRunsAsk(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r, _ := askResearcher(t)
		ctx := t.Context()
		parent, err := recordOrResearch(ctx, r, st, nil, deepresearch.Request{Question: askQuestion}, runstore.OriginServer, nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := newRuns(t, r, st, deepresearch.RunsOptions{})
		const q = "What does a repair ship use to lift a broken undersea cable from the seabed?"
		id, err := rs.Ask(ctx, parent.RunID, q)
		if err != nil {
			t.Fatal(err)
		}
		if run := ended(t, rs, id); run.Status != runstore.Finished || run.Parent != parent.RunID || run.Question != q {
			t.Fatalf("the follow-up: %+v", run)
		}
		thread, err := rs.Thread(ctx, id) // asked of the follow-up: the same thread
		if err != nil || len(thread) != 1 || thread[0].ID != id {
			t.Fatalf("Thread = %+v, %v", thread, err)
		}
		if !strings.Contains(thread[0].Answer, "grapnel") || len(thread[0].References) == 0 {
			t.Errorf("the thread's answer: %q, %v", thread[0].Answer, thread[0].References)
		}
		if got, err := rs.Answered(ctx, q, "\n"+thread[0].Answer+"\n"); err != nil || got.ID != id {
			t.Errorf("Answered(the follow-up's answer) = %s, %v; want %s", got.ID, err, id)
		}
		if _, err := rs.Answered(ctx, "another question", thread[0].Answer); !errors.Is(err, runstore.ErrNotFound) {
			t.Errorf("Answered(another question) = %v", err)
		}
		if none, err := rs.Thread(ctx, "nope"); !errors.Is(err, runstore.ErrNotFound) {
			t.Errorf("Thread of an unknown run = %v, %v", none, err)
		}

		_, err = rs.Ask(ctx, "nope", q)
		refused(t, "a follow-up of an unknown run", err, runstore.ErrNotFound, "no run")
		st.Create(ctx, runstore.Run{ID: "failed", Question: "q"})
		st.Start(ctx, "failed")
		st.Finish(ctx, "failed", runstore.Failed, events.Usage{}, "the planner failed")
		_, err = rs.Ask(ctx, "failed", q)
		refused(t, "a follow-up of a run without a report", err, deepresearch.ErrNoReport, "the planner failed")
		if _, err := rs.Ask(ctx, parent.RunID, " "); !errors.Is(err, deepresearch.ErrConfig) {
			t.Errorf("an empty follow-up question: %v", err)
		}

		req, err := deepresearch.FollowUpRequest(ctx, st, parent.RunID, q)
		if err != nil {
			t.Fatal(err)
		}
		// Stored as a server stores a run it starts, and its process
		// killed before it ran.
		req.RunID = "follow-up-1"
		opts, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Create(ctx, runstore.Run{ID: req.RunID, Question: req.Question, Options: opts, Origin: runstore.OriginServer, Parent: req.Parent}); err != nil {
			t.Fatal(err)
		}
		st.Start(ctx, req.RunID)
		st.Finish(ctx, req.RunID, runstore.Interrupted, events.Usage{}, "killed")
		ids, err := rs.Resume(ctx)
		if err != nil || !slices.Equal(ids, []string{req.RunID}) {
			t.Fatalf("Resume = %v, %v", ids, err)
		}
		if run := ended(t, rs, req.RunID); run.Status != runstore.Finished || run.Parent != parent.RunID {
			t.Fatalf("the resumed follow-up: %+v", run)
		}
		rep, err := rs.Report(ctx, req.RunID)
		if err != nil || !strings.Contains(rep.Text, "grapnel") {
			t.Errorf("the resumed follow-up's answer (%v): %v", err, rep)
		}
	})
}

// TestAskPrompt: with a language model, a follow-up's writer is given
// the report it follows and the passages of its sources that bear on the
// question — not the run's findings, nor its sources' other passages —
// and the assessment of those passages decides: answered, no agent runs.
func TestAskPrompt(t *testing.T) {
	s := &script{plan: onePart, search: thomsonSearch,
		assess: func(int, string) string {
			return `{"done": true, "reason": "the passages answer it", "covered": ["t1"], "gaps": [], "tasks": []}`
		}}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	st := deepresearchtest.NewStore(nil)
	ctx := t.Context()
	parent, err := recordOrResearch(ctx, r, st, nil, deepresearch.Request{Question: loopQuestion}, runstore.OriginCLI, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, ref := range parent.References {
		if ref.ID == "atlantic.md" {
			n = ref.Number
		}
	}
	if n == 0 {
		t.Fatalf("the run cites %v; want the Atlantic page", parent.References)
	}
	var prompt string
	s.write = func(human string) string {
		prompt = human
		return fmt.Sprintf("Thomson showed why long submarine lines slow the signals down [%d].", n)
	}
	rep, err := ask(ctx, r, st, parent.RunID, "What did William Thomson show about long submarine lines?", runstore.OriginCLI, nil)
	if err != nil {
		t.Fatal(err)
	}
	earlier, findings, ok := strings.Cut(prompt, "## Findings")
	if !ok || !strings.Contains(earlier, "## Earlier report") {
		t.Fatalf("the writer's message has no earlier report before its findings:\n%s", prompt)
	}
	if !strings.Contains(parent.Body, "carried the first telegraph messages") ||
		!strings.Contains(earlier, fmt.Sprintf("carried the first telegraph messages between Ireland and Newfoundland. [%d]", n)) ||
		strings.Contains(earlier, "[unsupported") {
		t.Errorf("the earlier report is not the run's, numbered as it is, without its flags:\n%s", earlier)
	}
	if !strings.Contains(findings, fmt.Sprintf("long submarine lines slow the signals down. [%d]", n)) {
		t.Errorf("the findings lack the passage that answers, cited [%d]:\n%s", n, findings)
	}
	if strings.Contains(findings, "insulation") {
		t.Errorf("the findings carry a passage that does not bear on the question:\n%s", findings)
	}
	if rep.Cycles != 1 || len(rep.References) != 1 || rep.References[0].Number != n || rep.References[0].ID != "atlantic.md" {
		t.Errorf("the answer (%d cycles) cites %v; want [%d] the Atlantic page", rep.Cycles, rep.References, n)
	}
}

// TestAskReplay: a follow-up's journal holds what it started from — the
// run's sources and report — so that it replays offline, without the
// store, byte for byte, whether it researched or not.
func TestAskReplay(t *testing.T) {
	r, _ := askResearcher(t)
	st := deepresearchtest.NewStore(nil)
	ctx := t.Context()
	parent, err := recordOrResearch(ctx, r, st, nil, deepresearch.Request{Question: askQuestion}, runstore.OriginCLI, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"What does a repair ship use to lift a broken undersea cable from the seabed?",
		"What is the transatlantic latency of light in glass fibre between London and New York?",
	} {
		rep, err := ask(ctx, r, st, parent.RunID, q, runstore.OriginCLI, nil)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := st.Journal(ctx, rep.RunID)
		if err != nil {
			t.Fatal(err)
		}
		again, stats, err := deepresearch.Replay(ctx, entries, deepresearch.ReplayOptions{}, nil)
		if err != nil || stats.Missed+stats.Unused > 0 {
			t.Fatalf("%q replays with %+v: %v", q, stats, err)
		}
		want, _ := rep.Render(render.Markdown)
		got, _ := again.Render(render.Markdown)
		if string(got) != string(want) {
			t.Errorf("%q replays otherwise:\n%s\nwant\n%s", q, got, want)
		}
	}
	// Without the store, nothing journaled: the follow-up says what it lacks.
	req, err := deepresearch.FollowUpRequest(ctx, st, parent.RunID, "why?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := research(ctx, r, req, nil); !errors.Is(err, deepresearch.ErrConfig) || !strings.Contains(err.Error(), "Store that holds that run") {
		t.Errorf("a follow-up researched without its store: %v", err)
	}
}

// TestRunsAskResume: a follow-up interrupted after it read its run's
// sources (its thread journaled, its assessment waiting on the model) is
// resumed by the next Runs as a follow-up: it goes on after its stored
// events and answers with the run's numbers.
func TestRunsAskResume(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r, g := gatedResearcher(t)
		g.open()
		ctx := t.Context()
		parent, err := recordOrResearch(ctx, r, st, nil, deepresearch.Request{Question: loopQuestion}, runstore.OriginServer, nil)
		if err != nil {
			t.Fatal(err)
		}
		g.close()
		first, err := deepresearch.NewRuns(r, st, deepresearch.RunsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		id, err := first.Ask(ctx, parent.RunID, "What did William Thomson show about long submarine lines?")
		if err != nil {
			t.Fatal(err)
		}
		merged := until(t, first, id, events.SourcesMerged) // the run's sources read; the assessment waits
		first.Close()
		if run, _ := st.Get(ctx, id); run.Status != runstore.Interrupted || run.Parent != parent.RunID {
			t.Fatalf("after Close the follow-up is %s (parent %q): %s", run.Status, run.Parent, run.Error)
		}

		g.open()
		rs := newRuns(t, r, st, deepresearch.RunsOptions{})
		if ids, err := rs.Resume(ctx); err != nil || !slices.Equal(ids, []string{id}) {
			t.Fatalf("Resume = %v, %v", ids, err)
		}
		if run := ended(t, rs, id); run.Status != runstore.Finished || run.Attempts != 2 || run.Parent != parent.RunID {
			t.Fatalf("the resumed follow-up: %+v", run)
		}
		var seqs []uint64
		resumed := 0
		for e, err := range rs.Follow(ctx, id, 0) {
			if err != nil {
				t.Fatal(err)
			}
			seqs = append(seqs, e.Seq)
			if events.Type(e.Type) == events.RunResumed {
				resumed++
				if e.Seq <= merged.Seq {
					t.Errorf("the resumption starts at event %d, before the stored %d", e.Seq, merged.Seq)
				}
			}
		}
		for i, s := range seqs {
			if s != uint64(i+1) {
				t.Fatalf("event %d has seq %d", i+1, s)
			}
		}
		if resumed != 1 {
			t.Errorf("%d run.resumed events", resumed)
		}
		rep, err := rs.Report(ctx, id)
		if err != nil || len(rep.References) == 0 {
			t.Fatalf("the resumed follow-up's answer: %v", err)
		}
		numbers := map[string]int{}
		for _, ref := range parent.References {
			numbers[ref.ID] = ref.Number
		}
		for _, ref := range rep.References {
			if n, ok := numbers[ref.ID]; ok && ref.Number != n {
				t.Errorf("the resumed answer cites %s as [%d]; the run numbers it [%d]", ref.ID, ref.Number, n)
			}
		}
	})
}
