package deepresearch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
)

// TestRunsBeginAttended: a run Begin returns asks its person through the
// *Run: Waiting is told when it waits for its plan's review and when it
// goes on, the Sink sees the plan first, and the review given through
// Run.Review is researched.
func TestRunsBeginAttended(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r := scriptedResearcher(t, &script{plan: twoTasks, search: thomsonSearch}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
		rs := newRuns(t, r, st, deepresearch.RunsOptions{})
		var mu sync.Mutex
		var told []runstore.Status
		var plan *events.PlanReviewData
		waits := make(chan struct{}, 1)
		run, err := rs.Begin(t.Context(), deepresearch.Request{Question: loopQuestion, Review: deepresearch.ReviewFirstPlan}, deepresearch.BeginOptions{
			Sink: func(e events.Event) {
				if d, ok := e.Data.(events.PlanReviewData); ok {
					mu.Lock()
					plan = &d
					mu.Unlock()
				}
			},
			Waiting: func(s runstore.Status) {
				mu.Lock()
				told = append(told, s)
				mu.Unlock()
				if s == runstore.AwaitingPlan {
					waits <- struct{}{}
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		<-waits
		mu.Lock()
		if plan == nil || len(plan.Tasks) != 2 {
			t.Fatalf("the sink saw no plan of two tasks before the run waited: %+v", plan)
		}
		keep := deepresearch.Plan{Question: loopQuestion, Tasks: plan.Tasks[:1]}
		mu.Unlock()
		if err := run.Review(t.Context(), deepresearch.PlanReview{Plan: keep}); err != nil {
			t.Fatal(err)
		}
		rep, err := run.Wait()
		if err != nil || !rep.Complete() {
			t.Fatalf("the run: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []runstore.Status{runstore.AwaitingPlan, runstore.Running}; !slices.Equal(told, want) {
			t.Errorf("Waiting was told %v, want %v", told, want)
		}
		if stored := ended(t, rs, run.ID()); stored.Status != runstore.Finished || stored.Origin != runstore.OriginServer {
			t.Errorf("the stored run is %s from %q: %s", stored.Status, stored.Origin, stored.Error)
		}
		var researched int
		for ev := range run.Events() {
			if ev.Type == events.AgentStarted {
				researched++
			}
		}
		if researched != 1 {
			t.Errorf("%d agents researched the reviewed plan of one task", researched)
		}
	})
}

// TestRunsBeginUnattended: an unattended run asks nobody — a plan the
// request would have reviewed is researched as proposed — and refuses a
// review.
func TestRunsBeginUnattended(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r := scriptedResearcher(t, &script{plan: onePart, search: thomsonSearch}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
		rs := newRuns(t, r, st, deepresearch.RunsOptions{})
		req := deepresearch.Request{RunID: "unattended", Question: loopQuestion, Review: deepresearch.ReviewFirstPlan}
		run, err := rs.Begin(t.Context(), req, deepresearch.BeginOptions{Unattended: true, Waiting: func(s runstore.Status) {
			t.Errorf("the unattended run waits: %s", s)
			go rs.Cancel(context.WithoutCancel(t.Context()), req.RunID, nil) // it would wait for ever
		}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run.Wait(); err != nil {
			t.Fatal(err)
		}
		for ev := range run.Events() {
			if ev.Type == events.PlanReviewRequested {
				t.Errorf("the unattended run put its plan to review")
			}
		}
		if err := run.Review(t.Context(), deepresearch.PlanReview{}); !errors.Is(err, deepresearch.ErrNotWaiting) {
			t.Errorf("a review of the unattended run: %v", err)
		}
	})
}

// TestRunsBeginResume: Begin takes up one interrupted run by its ID,
// whatever its origin, as Resume takes up each, and ends failed one
// interrupted more often than MaxResumes allows.
func TestRunsBeginResume(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r, g := gatedResearcher(t)
		first := newRuns(t, r, st, deepresearch.RunsOptions{Origin: runstore.OriginCLI})
		id := start(t, first, deepresearch.Request{Question: loopQuestion})
		first.Close()
		g.open()

		ctx := t.Context()
		crashy := runstore.Run{ID: "crashy", Question: "q", Options: json.RawMessage(`{"question":"q"}`), Origin: runstore.OriginCLI}
		st.Create(ctx, crashy)
		st.Start(ctx, "crashy")
		st.Finish(ctx, "crashy", runstore.Interrupted, events.Usage{}, "killed")
		st.Reopen(ctx, "crashy")
		st.Finish(ctx, "crashy", runstore.Interrupted, events.Usage{}, "killed")

		rs := newRuns(t, r, st, deepresearch.RunsOptions{MaxResumes: 1})
		run, err := rs.Begin(ctx, deepresearch.Request{}, deepresearch.BeginOptions{Resume: id, Unattended: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run.Wait(); err != nil {
			t.Fatal(err)
		}
		if stored := ended(t, rs, id); stored.Status != runstore.Finished || stored.Attempts != 2 || stored.Origin != runstore.OriginCLI {
			t.Errorf("the resumed run is %s after %d attempts, from %q: %s", stored.Status, stored.Attempts, stored.Origin, stored.Error)
		}
		_, err = rs.Begin(ctx, deepresearch.Request{}, deepresearch.BeginOptions{Resume: "crashy"})
		refused(t, "resuming a run interrupted twice", err, deepresearch.ErrResumedTooOften, "interrupted 2 times")
		if stored, _ := rs.Get(ctx, "crashy"); stored.Status != runstore.Failed || !strings.Contains(stored.Error, "interrupted 2 times") {
			t.Errorf("a run interrupted too often is %s: %s", stored.Status, stored.Error)
		}
		_, err = rs.Begin(ctx, deepresearch.Request{}, deepresearch.BeginOptions{Resume: "nosuch"})
		refused(t, "resuming a run the store lacks", err, runstore.ErrNotFound, "nosuch")
		if _, err := rs.Begin(ctx, deepresearch.Request{}, deepresearch.BeginOptions{Resume: id}); err == nil {
			t.Errorf("a finished run was resumed")
		}
	})
}

// TestRunsStoreErr: a Runs whose store could not be opened keeps its runs
// in memory, its log saying once why they will not be kept past the
// process, and what a front end asks by ID works as with a store: Get,
// Follow and Report of this process's runs; Resume finds nothing.
func TestRunsStoreErr(t *testing.T) {
	var log bytes.Buffer
	logger := zerolog.New(&log)
	r := scriptedResearcher(t, &script{plan: onePart, search: thomsonSearch}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Logger: &logger})
	if _, err := deepresearch.NewRuns(r, nil, deepresearch.RunsOptions{}); !errors.Is(err, deepresearch.ErrConfig) {
		t.Errorf("NewRuns without a store nor StoreErr: %v", err)
	}
	disk := errors.New("the disk is full")
	rs := newRuns(t, r, nil, deepresearch.RunsOptions{StoreErr: disk, Logger: &logger})
	if n := strings.Count(log.String(), "will not be kept"); n != 1 || !strings.Contains(log.String(), "the disk is full") {
		t.Errorf("the log says %q; want one warning, with why", log.String())
	}
	run, err := rs.Begin(t.Context(), deepresearch.Request{Question: loopQuestion}, deepresearch.BeginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := run.Wait(); err != nil || !rep.Complete() {
		t.Fatalf("the run held in memory: %v", err)
	}
	got, err := rs.Get(t.Context(), run.ID())
	if err != nil || got.Status != runstore.Finished || got.Question != loopQuestion {
		t.Fatalf("Get: %+v, %v; want the finished run", got, err)
	}
	var last events.Type
	n := 0
	for e, err := range rs.Follow(t.Context(), run.ID(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		last, n = events.Type(e.Type), n+1
	}
	if n == 0 || last != events.RunFinished {
		t.Errorf("Follow: %d events, the last %s; want the run's, ending run.finished", n, last)
	}
	if rep, err := rs.Report(t.Context(), run.ID()); err != nil || !rep.Complete() {
		t.Errorf("Report: %v", err)
	}
	if ids, err := rs.Resume(t.Context()); err != nil || len(ids) != 0 {
		t.Errorf("Resume: %v, %v; want nothing to resume", ids, err)
	}
	id, err := rs.Start(context.WithoutCancel(t.Context()), deepresearch.Request{Question: loopQuestion})
	if err != nil {
		t.Fatalf("Start without a store: %v", err)
	}
	for _, err := range rs.Follow(t.Context(), id, 0) {
		if err != nil {
			t.Fatalf("Follow of a started run: %v", err)
		}
	}
}
