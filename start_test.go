package deepresearch_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
)

// TestStartInteractive: an Interactive run, kept nowhere, waits for its
// people through the Run itself: Answer gives its clarifying questions
// their answers, which reach the planner; Review replaces its plan, which
// is what it researches. A word the run does not wait for is refused.
func TestStartInteractive(t *testing.T) {
	s := &script{plan: onePart, search: thomsonSearch, clarify: twoQuestions}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	var waited []runstore.Status
	run, err := r.Start(t.Context(), deepresearch.Request{Question: loopQuestion, Review: deepresearch.ReviewFirstPlan},
		deepresearch.RunOptions{Interactive: true, Waiting: func(s runstore.Status) { waited = append(waited, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Review(t.Context(), deepresearch.PlanReview{}); !errors.Is(err, deepresearch.ErrNotWaiting) && !errors.Is(err, deepresearch.ErrRunStopped) {
		t.Errorf("a review before the plan: %v", err)
	}
	edited := deepresearch.Plan{Tasks: []events.PlanTask{{Title: "Thomson's inventions", Question: "What did William Thomson invent?"}}}
	for e := range run.Events() {
		switch e.Type {
		case events.ClarificationRequested:
			if err := run.Answer(t.Context(), []string{"the 1858 cable", strings.Repeat("x", deepresearch.MaxTextBytes+1)}); !errors.Is(err, deepresearch.ErrConfig) {
				t.Errorf("an answer beyond the limit: %v", err)
			}
			if err := run.Answer(t.Context(), []string{"the 1858 cable", "only the galvanometer"}); err != nil {
				t.Errorf("Answer: %v", err)
			}
		case events.PlanReviewRequested:
			if err := run.Answer(t.Context(), []string{"again"}); !errors.Is(err, deepresearch.ErrNotWaiting) {
				t.Errorf("answers to a run that waits for its review: %v", err)
			}
			if err := run.Review(t.Context(), deepresearch.PlanReview{Plan: edited}); err != nil {
				t.Errorf("Review: %v", err)
			}
		}
	}
	rep, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sections) != 1 || rep.Sections[0].Task.Title != "Thomson's inventions" {
		t.Errorf("researched %+v, want the reviewed plan", rep.Sections)
	}
	if len(rep.Clarifications) != 2 || rep.Clarifications[1].Answer != "only the galvanometer" {
		t.Errorf("the report's clarifications: %+v", rep.Clarifications)
	}
	if want := []runstore.Status{runstore.NeedsInput, runstore.Running, runstore.AwaitingPlan, runstore.Running}; !slices.Equal(waited, want) {
		t.Errorf("Waiting was told %v, want %v", waited, want)
	}
	if err := run.Answer(t.Context(), []string{"late"}); !errors.Is(err, deepresearch.ErrNotWaiting) {
		t.Errorf("answers to a run that ended: %v", err)
	}

	// A run that is not Interactive takes no word through the Run.
	plain, err := r.Start(t.Context(), deepresearch.Request{Question: loopQuestion, Clarify: deepresearch.ClarifyNever}, deepresearch.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Review(t.Context(), deepresearch.PlanReview{Reject: true}); !errors.Is(err, deepresearch.ErrNotWaiting) {
		t.Errorf("a review of a run that asks nobody: %v", err)
	}
	if _, err := plain.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestStartRefuses: what Start refuses, it refuses before anything runs
// or is stored.
func TestStartRefuses(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{})
	st := deepresearchtest.NewStore(nil)
	hooks := &deepresearch.Hooks{}
	for name, tc := range map[string]struct {
		req  deepresearch.Request
		opts deepresearch.RunOptions
		want error
	}{
		"an empty question":         {deepresearch.Request{Question: " ", RunID: "a"}, deepresearch.RunOptions{Store: st}, deepresearch.ErrConfig},
		"a negative agent cap":      {deepresearch.Request{Question: "q", RunID: "b", MaxRunAgents: -1}, deepresearch.RunOptions{Store: st}, deepresearch.ErrConfig},
		"resuming without a store":  {deepresearch.Request{}, deepresearch.RunOptions{Resume: "c"}, deepresearch.ErrConfig},
		"resuming an unknown run":   {deepresearch.Request{}, deepresearch.RunOptions{Store: st, Resume: "d"}, runstore.ErrNotFound},
		"hooks and Interactive":     {deepresearch.Request{Question: "q", RunID: "e", Hooks: hooks}, deepresearch.RunOptions{Store: st, Interactive: true}, deepresearch.ErrConfig},
		"an unknown timeout action": {deepresearch.Request{Question: "q", RunID: "f"}, deepresearch.RunOptions{Store: st, OnReviewTimeout: "wait"}, deepresearch.ErrConfig},
	} {
		if _, err := r.Start(t.Context(), tc.req, tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	if runs, err := st.List(t.Context(), 0); err != nil || len(runs) != 0 {
		t.Errorf("refused runs were stored: %+v, %v", runs, err)
	}
	r.Close()
	if _, err := r.Start(t.Context(), deepresearch.Request{Question: "q"}, deepresearch.RunOptions{}); !errors.Is(err, deepresearch.ErrClosed) {
		t.Errorf("Start after Close: %v", err)
	}
}

// TestStartResume: a stored run stopped by a shutdown is taken up with
// RunOptions.Resume; the new attempt's Events yield the earlier attempt's
// events first, then its own, with no gap, and the run ends finished.
func TestStartResume(t *testing.T) {
	r := scriptedResearcher(t, &script{plan: onePart, search: thomsonSearch}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	st := deepresearchtest.NewStore(nil)
	ctx, stop := context.WithCancelCause(t.Context())
	first, err := r.Start(ctx, deepresearch.Request{Question: loopQuestion, RunID: "r1"}, deepresearch.RunOptions{Store: st, Sink: func(e events.Event) {
		if e.Type == events.AgentStarted {
			stop(deepresearch.ErrShutdown)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Wait(); !errors.Is(err, deepresearch.ErrShutdown) {
		t.Fatalf("the stopped run: %v", err)
	}
	stored, err := st.Get(t.Context(), "r1")
	if err != nil || stored.Status != runstore.Interrupted {
		t.Fatalf("the stopped run is stored %+v, %v", stored, err)
	}

	run, err := r.Start(t.Context(), deepresearch.Request{}, deepresearch.RunOptions{Store: st, Resume: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Wait()
	if err != nil || run.ID() != "r1" || rep.RunID != "r1" {
		t.Fatalf("the resumed run %s: %v", run.ID(), err)
	}
	var all []events.Event
	for e := range run.Events() {
		all = append(all, e)
	}
	for i, e := range all {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i+1, e.Seq)
		}
	}
	if all[0].Type != events.RunStarted || uint64(len(all)) <= stored.Events || all[stored.Events].Type != events.RunResumed {
		t.Errorf("the events do not go on after the %d stored: %d events", stored.Events, len(all))
	}
	if end, _ := st.Get(t.Context(), "r1"); end.Status != runstore.Finished || end.Events != uint64(len(all)) {
		t.Errorf("the resumed run is stored %s with %d events; it has %d", end.Status, end.Events, len(all))
	}
}

// TestStartTimeout: a run past RunOptions.Timeout ends failed with
// ErrTimeLimit, kept so; the limit does not run while the run waits for
// a person.
func TestStartTimeout(t *testing.T) {
	c := deepresearchtest.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	r := scriptedResearcher(t, &script{plan: onePart, search: thomsonSearch}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Clock: c})
	st := deepresearchtest.NewStore(c)
	run, err := r.Start(t.Context(), deepresearch.Request{Question: loopQuestion, Review: deepresearch.ReviewFirstPlan, Clarify: deepresearch.ClarifyNever},
		deepresearch.RunOptions{Store: st, Interactive: true, Timeout: time.Minute, Waiting: func(s runstore.Status) {
			if s == runstore.AwaitingPlan {
				c.Advance(time.Hour) // paused: the run waits for its review
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	for e := range run.Events() {
		if e.Type == events.PlanReviewRequested {
			if err := run.Review(t.Context(), deepresearch.PlanReview{}); err != nil {
				t.Fatalf("Review after an hour's wait: %v", err)
			}
		}
		if e.Type == events.AgentStarted {
			break
		}
	}
	c.Advance(2 * time.Minute)
	if _, err := run.Wait(); !errors.Is(err, deepresearch.ErrTimeLimit) {
		t.Errorf("a run past its time limit: %v", err)
	}
	if end, _ := st.Get(t.Context(), run.ID()); end.Status != runstore.Failed {
		t.Errorf("the run is stored %s", end.Status)
	}
}
