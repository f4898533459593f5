package deepresearch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// t0 is the time the fake clocks of these tests start at.
var runsT0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// eachStore runs f against each run store Runs is held to: the in-memory
// one of deepresearchtest and sqlitestore's.
func eachStore(t *testing.T, f func(t *testing.T, st deepresearch.Store)) {
	t.Run("memory", func(t *testing.T) { f(t, deepresearchtest.NewStore(nil)) })
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "runs.db"), sqlitestore.Options{Poll: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st)
	})
}

// armedFor waits until c has a timer of d armed: the code under test
// waits on it.
func armedFor(t *testing.T, c *deepresearchtest.Clock, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a failure bound, not a timing assertion
	defer cancel()
	if err := c.WaitArmed(ctx, d); err != nil {
		t.Fatalf("no timer of %v was armed", d)
	}
}

// gate holds every model call of a script, from the moment it is shut,
// until it is opened or the call's context ends.
type gate struct {
	mu   sync.Mutex
	shut chan struct{} // nil: open
}

func (g *gate) close() {
	g.mu.Lock()
	g.shut = make(chan struct{})
	g.mu.Unlock()
}

func (g *gate) open() {
	g.mu.Lock()
	if g.shut != nil {
		close(g.shut)
		g.shut = nil
	}
	g.mu.Unlock()
}

func (g *gate) onCall(ctx context.Context, _, _ string) error {
	g.mu.Lock()
	shut := g.shut
	g.mu.Unlock()
	if shut == nil {
		return nil
	}
	select {
	case <-shut:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// gatedResearcher returns a scripted Researcher whose model calls are
// held at g, shut; g opens when the test ends, if not before.
func gatedResearcher(t *testing.T) (r *deepresearch.Researcher, g *gate) {
	t.Helper()
	g = &gate{}
	g.close()
	t.Cleanup(g.open)
	return scriptedResearcher(t, &script{plan: onePart, search: thomsonSearch, onCall: g.onCall}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}}), g
}

// twoTasks is a planner's reply of two tasks, for a plan to edit.
const twoTasks = `{"tasks":[{"title":"Signalling theory","question":"Who worked out the signalling theory of the 1858 Atlantic cable?"},{"title":"Harbours","question":"How do harbours shelter ships?"}]}`

func newRuns(t *testing.T, rec deepresearch.RunRecorder, st deepresearch.Store, opts deepresearch.RunsOptions) *deepresearch.Runs {
	t.Helper()
	rs, err := deepresearch.NewRuns(rec, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	return rs
}

// start starts req in rs and returns its run's ID.
func start(t *testing.T, rs *deepresearch.Runs, req deepresearch.Request) string {
	t.Helper()
	id, err := rs.Start(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// until follows run id until an event of type typ, and returns it; it
// fails the test when the run ends first.
func until(t *testing.T, rs *deepresearch.Runs, id string, typ events.Type) runstore.Event {
	t.Helper()
	for e, err := range rs.Follow(t.Context(), id, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if events.Type(e.Type) == typ {
			return e
		}
	}
	t.Fatalf("run %s ended without %s", id, typ)
	return runstore.Event{}
}

// ended waits for run id to end and returns it as stored.
func ended(t *testing.T, rs *deepresearch.Runs, id string) runstore.Run {
	t.Helper()
	if err := rs.Wait(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	run, err := rs.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// refused asserts err is a *RunsError wrapping want whose message has has.
func refused(t *testing.T, what string, err, want error, has string) {
	t.Helper()
	var re *deepresearch.RunsError
	if !errors.Is(err, want) || !errors.As(err, &re) || !strings.Contains(re.Message(), has) {
		t.Errorf("%s: %v; want %v saying %q", what, err, want, has)
	}
}

// TestRunsStartFollowReport: a run started is stored, followed from its
// first event to its last, and its report is kept; its slot is free after.
func TestRunsStartFollowReport(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r := scriptedResearcher(t, &script{plan: onePart, search: thomsonSearch}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
		rs := newRuns(t, r, st, deepresearch.RunsOptions{MaxRuns: 1})
		id := start(t, rs, deepresearch.Request{Question: loopQuestion})
		var seqs []uint64
		var last string
		for e, err := range rs.Follow(t.Context(), id, 0) {
			if err != nil {
				t.Fatal(err)
			}
			seqs = append(seqs, e.Seq)
			last = e.Type
		}
		run := ended(t, rs, id)
		if run.Status != runstore.Finished || run.Origin != runstore.OriginServer || run.Events != uint64(len(seqs)) || last != string(events.RunFinished) {
			t.Fatalf("run %+v after %d events, the last %s", run, len(seqs), last)
		}
		for i, s := range seqs {
			if s != uint64(i+1) {
				t.Fatalf("event %d has seq %d", i+1, s)
			}
		}
		rep, err := rs.Report(t.Context(), id)
		if err != nil || !strings.Contains(rep.Markdown(), "## References") {
			t.Fatalf("report: %v", err)
		}
		if rs.Owns(id) {
			t.Error("an ended run is still owned")
		}
		if _, err := rs.Start(t.Context(), deepresearch.Request{Question: " "}); !errors.Is(err, deepresearch.ErrConfig) {
			t.Errorf("an empty question: %v", err)
		}
		if _, err := rs.Get(t.Context(), "nope"); !errors.Is(err, runstore.ErrNotFound) {
			t.Errorf("an unknown run: %v", err)
		}
	})
}

// TestRunsMaxRuns: beyond MaxRuns a run is refused with ErrTooManyRuns,
// saying how many run; once one ends, its slot takes the next.
func TestRunsMaxRuns(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r, g := gatedResearcher(t)
		rs := newRuns(t, r, st, deepresearch.RunsOptions{MaxRuns: 2})
		a, err := rs.Start(t.Context(), deepresearch.Request{Question: loopQuestion})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rs.Start(t.Context(), deepresearch.Request{Question: loopQuestion}); err != nil {
			t.Fatal(err)
		}
		_, err = rs.Start(t.Context(), deepresearch.Request{Question: loopQuestion})
		refused(t, "a third run", err, deepresearch.ErrTooManyRuns, "2 runs are in progress")
		g.open()
		if run := ended(t, rs, a); run.Status != runstore.Finished {
			t.Fatalf("the first run is %s: %s", run.Status, run.Error)
		}
		if _, err := rs.Start(t.Context(), deepresearch.Request{Question: loopQuestion}); err != nil {
			t.Errorf("a run after one ended: %v", err)
		}
	})
}

// TestRunsTimeLimit: a run past RunTimeout on the Runs' clock ends
// failed, saying so.
func TestRunsTimeLimit(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r, _ := gatedResearcher(t)
		c := deepresearchtest.NewClock(runsT0)
		rs := newRuns(t, r, st, deepresearch.RunsOptions{RunTimeout: 10 * time.Minute, Clock: c})
		id := start(t, rs, deepresearch.Request{Question: loopQuestion})
		armedFor(t, c, 10*time.Minute)
		c.Advance(10 * time.Minute)
		if run := ended(t, rs, id); run.Status != runstore.Failed || !strings.Contains(run.Error, "time limit") {
			t.Errorf("a run past its time limit is %s: %s", run.Status, run.Error)
		}
	})
}

// TestRunsReviewTimeout: a plan put to review waits ReviewTimeout with the
// run's time limit paused (an hour of waiting outlasts a ten-minute
// limit), then the run researches the plan as proposed or ends failed,
// as OnReviewTimeout says.
func TestRunsReviewTimeout(t *testing.T) {
	for _, action := range []deepresearch.TimeoutAction{deepresearch.TimeoutProceed, deepresearch.TimeoutCancel} {
		t.Run(string(action), func(t *testing.T) {
			eachStore(t, func(t *testing.T, st deepresearch.Store) {
				c := deepresearchtest.NewClock(runsT0)
				r := scriptedResearcher(t, &script{plan: onePart, search: thomsonSearch}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Clock: c})
				rs := newRuns(t, r, st, deepresearch.RunsOptions{RunTimeout: 10 * time.Minute, ReviewTimeout: time.Hour, OnReviewTimeout: action, Clock: c})
				id := start(t, rs, deepresearch.Request{Question: loopQuestion, Review: deepresearch.ReviewFirstPlan})
				armedFor(t, c, time.Hour) // the review's deadline: the run waits
				c.Advance(30 * time.Minute)
				if run, _ := rs.Get(t.Context(), id); run.Status != runstore.AwaitingPlan {
					t.Fatalf("half way through the review's hour the run is %s: %s", run.Status, run.Error)
				}
				c.Advance(30 * time.Minute)
				run := ended(t, rs, id)
				switch action {
				case deepresearch.TimeoutProceed:
					if run.Status != runstore.Finished {
						t.Errorf("the run is %s: %s", run.Status, run.Error)
					}
				case deepresearch.TimeoutCancel:
					if run.Status != runstore.Failed || !strings.Contains(run.Error, deepresearch.ErrReviewTimeout.Error()) {
						t.Errorf("the run is %s: %s", run.Status, run.Error)
					}
				}
			})
		})
	}
}

// TestRunsAnswerAndReview: a person answers the run's clarifying
// questions and edits its plan through Runs; each word is taken once,
// only while the run waits for it, and only by the Runs that runs it.
func TestRunsAnswerAndReview(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		s := &script{plan: twoTasks, search: thomsonSearch, clarify: twoQuestions}
		r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
		rs := newRuns(t, r, st, deepresearch.RunsOptions{})
		other := newRuns(t, r, st, deepresearch.RunsOptions{}) // another process on the same store
		id := start(t, rs, deepresearch.Request{Question: loopQuestion, Review: deepresearch.ReviewFirstPlan})
		until(t, rs, id, events.ClarificationRequested)
		refused(t, "a review before the plan", rs.Review(t.Context(), id, deepresearch.PlanReview{}), deepresearch.ErrNotWaiting, "not awaiting_plan")
		refused(t, "answers through another process", other.Answer(t.Context(), id, []string{"x"}), deepresearch.ErrRunElsewhere, "another process")
		refused(t, "a cancellation through another process", other.Cancel(t.Context(), id, nil), deepresearch.ErrRunElsewhere, "another process")
		var bad *deepresearch.RequestError
		if err := rs.Answer(t.Context(), id, nil); !errors.As(err, &bad) || bad.Field != "answers" {
			t.Errorf("no answers: %v", err)
		}
		if err := rs.Answer(t.Context(), id, []string{strings.Repeat("a", deepresearch.MaxTextBytes+1)}); !errors.As(err, &bad) || bad.Field != "answers[0]" {
			t.Errorf("an answer over the limit: %v", err)
		}
		if err := rs.Answer(t.Context(), id, []string{"the 1858 cable", "only the galvanometer"}); err != nil {
			t.Fatal(err)
		}
		refused(t, "answers again", rs.Answer(t.Context(), id, []string{"again"}), deepresearch.ErrNotWaiting, "not needs_input")

		until(t, rs, id, events.PlanReviewRequested)
		plan, err := rs.Plan(t.Context(), id)
		if err != nil || !slices.Equal(taskTitles(plan.Tasks), []string{"Signalling theory", "Harbours"}) || plan.Question != loopQuestion {
			t.Fatalf("the plan to review: %+v, %v", plan, err)
		}
		plan.Tasks = []events.PlanTask{plan.Tasks[0], {Title: "Thomson's inventions", Question: "What did William Thomson invent?"}}
		if err := rs.Review(t.Context(), id, deepresearch.PlanReview{Plan: plan}); err != nil {
			t.Fatal(err)
		}
		refused(t, "a second review", rs.Review(t.Context(), id, deepresearch.PlanReview{Reject: true}), deepresearch.ErrNotWaiting, "not awaiting_plan")
		if run := ended(t, rs, id); run.Status != runstore.Finished {
			t.Fatalf("the run is %s: %s", run.Status, run.Error)
		}
		rep, err := rs.Report(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, sec := range rep.Sections {
			titles = append(titles, sec.Task.Title)
		}
		if want := []string{"Signalling theory", "Thomson's inventions"}; !slices.Equal(titles, want) {
			t.Errorf("sections %q, want %q", titles, want)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.planned) != 1 || !strings.Contains(s.planned[0], "→ only the galvanometer") {
			t.Errorf("the planner's messages: %q", s.planned)
		}
	})
}

// TestRunsRejectFirstPlan: the first plan rejected ends the run failed,
// with ErrPlanRejected.
func TestRunsRejectFirstPlan(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r := scriptedResearcher(t, &script{plan: onePart, search: thomsonSearch}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
		rs := newRuns(t, r, st, deepresearch.RunsOptions{})
		id := start(t, rs, deepresearch.Request{Question: loopQuestion, Review: deepresearch.ReviewFirstPlan})
		until(t, rs, id, events.PlanReviewRequested)
		if err := rs.Review(t.Context(), id, deepresearch.PlanReview{Reject: true}); err != nil {
			t.Fatal(err)
		}
		if run := ended(t, rs, id); run.Status != runstore.Failed || !strings.Contains(run.Error, deepresearch.ErrPlanRejected.Error()) {
			t.Errorf("the run is %s: %s", run.Status, run.Error)
		}
	})
}

// TestRunsCancel: a run canceled ends canceled with the cause kept; a run
// that has ended, or none, cannot be canceled.
func TestRunsCancel(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r, _ := gatedResearcher(t)
		rs := newRuns(t, r, st, deepresearch.RunsOptions{})
		id := start(t, rs, deepresearch.Request{Question: loopQuestion})
		if err := rs.Cancel(t.Context(), id, errors.New("the client went away")); err != nil {
			t.Fatal(err)
		}
		run, _ := rs.Get(t.Context(), id)
		if run.Status != runstore.Canceled || !strings.Contains(run.Error, "the client went away") || rs.Owns(id) {
			t.Errorf("a canceled run is %s: %s", run.Status, run.Error)
		}
		refused(t, "canceled again", rs.Cancel(t.Context(), id, nil), runstore.ErrFinished, "already ended (canceled)")
		refused(t, "an unknown run", rs.Cancel(t.Context(), "nope", nil), runstore.ErrNotFound, `no run "nope"`)
	})
}

// TestRunsCloseAndResume: Close leaves a run in progress interrupted, with
// nothing of its stopping stored; another Runs on the store resumes it
// and it finishes in a second attempt. A run interrupted more often than
// MaxResumes ends failed instead, and runs of another origin are left.
func TestRunsCloseAndResume(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		r, g := gatedResearcher(t)
		first, err := deepresearch.NewRuns(r, st, deepresearch.RunsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		id := start(t, first, deepresearch.Request{Question: loopQuestion})
		first.Close()
		if run, _ := st.Get(t.Context(), id); run.Status != runstore.Interrupted {
			t.Fatalf("after Close the run is %s: %s", run.Status, run.Error)
		}
		if _, err := first.Start(t.Context(), deepresearch.Request{Question: loopQuestion}); !errors.Is(err, deepresearch.ErrRunsClosed) {
			t.Errorf("a run started after Close: %v", err)
		}

		ctx := t.Context()
		crashy := runstore.Run{ID: "crashy", Question: "q", Options: json.RawMessage(`{"question":"q"}`), Origin: runstore.OriginServer}
		st.Create(ctx, crashy)
		st.Start(ctx, "crashy")
		st.Finish(ctx, "crashy", runstore.Interrupted, events.Usage{}, "killed")
		st.Reopen(ctx, "crashy")
		st.Finish(ctx, "crashy", runstore.Interrupted, events.Usage{}, "killed")
		cli := crashy
		cli.ID, cli.Origin = "cli-run", runstore.OriginCLI
		st.Create(ctx, cli)
		st.Start(ctx, "cli-run")
		st.Finish(ctx, "cli-run", runstore.Interrupted, events.Usage{}, "killed")

		g.open()
		rs := newRuns(t, r, st, deepresearch.RunsOptions{MaxResumes: 1})
		ids, err := rs.Resume(ctx)
		if err != nil || !slices.Equal(ids, []string{id}) {
			t.Fatalf("Resume = %v, %v", ids, err)
		}
		if run := ended(t, rs, id); run.Status != runstore.Finished || run.Attempts != 2 {
			t.Errorf("the resumed run is %s after %d attempts: %s", run.Status, run.Attempts, run.Error)
		}
		if run, _ := rs.Get(ctx, "crashy"); run.Status != runstore.Failed || !strings.Contains(run.Error, "interrupted 2 times") {
			t.Errorf("a run interrupted too often is %s: %s", run.Status, run.Error)
		}
		if run, _ := rs.Get(ctx, "cli-run"); run.Status != runstore.Interrupted {
			t.Errorf("a run of another origin is %s", run.Status)
		}
	})
}

// TestTimeoutActionWords: the action's words parse once, and NewRuns
// refuses one that is none of them.
func TestTimeoutActionWords(t *testing.T) {
	for word, want := range map[string]deepresearch.TimeoutAction{"": "", "proceed": deepresearch.TimeoutProceed, "cancel": deepresearch.TimeoutCancel} {
		var a deepresearch.TimeoutAction
		if err := a.UnmarshalText([]byte(word)); err != nil || a != want {
			t.Errorf("%q: %q, %v", word, a, err)
		}
	}
	var a deepresearch.TimeoutAction
	if err := a.UnmarshalText([]byte("wait")); err == nil || !strings.Contains(err.Error(), "want proceed or cancel") {
		t.Errorf(`"wait": %v`, err)
	}
	if _, err := deepresearch.NewRuns((*deepresearch.Researcher)(nil), deepresearchtest.NewStore(nil), deepresearch.RunsOptions{OnReviewTimeout: "wait"}); !errors.Is(err, deepresearch.ErrConfig) {
		t.Errorf("NewRuns with an unknown action: %v", err)
	}
	if _, err := deepresearch.NewRuns(nil, deepresearchtest.NewStore(nil), deepresearch.RunsOptions{}); !errors.Is(err, deepresearch.ErrConfig) {
		t.Errorf("NewRuns without a recorder: %v", err)
	}
}

// TestStartStoreErr: with a store the run is kept, from its origin; with
// a store that could not be opened (RunOptions.StoreErr) it runs
// unrecorded, and the log says why.
func TestStartStoreErr(t *testing.T) {
	var log bytes.Buffer
	logger := zerolog.New(&log)
	r := scriptedResearcher(t, &script{plan: onePart, search: thomsonSearch}, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Logger: &logger})
	st := deepresearchtest.NewStore(nil)
	rep, err := recordOrResearch(t.Context(), r, st, nil, deepresearch.Request{Question: loopQuestion}, runstore.OriginCLI, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run, err := st.Get(t.Context(), rep.RunID); err != nil || run.Status != runstore.Finished || run.Origin != runstore.OriginCLI {
		t.Errorf("the kept run: %+v, %v", run, err)
	}
	rep, err = recordOrResearch(t.Context(), r, nil, errors.New("the disk is full"), deepresearch.Request{Question: loopQuestion}, runstore.OriginCLI, nil)
	if err != nil || !rep.Complete() {
		t.Fatalf("the unkept run: %v", err)
	}
	if _, err := st.Get(t.Context(), rep.RunID); !errors.Is(err, runstore.ErrNotFound) {
		t.Errorf("the unkept run was stored: %v", err)
	}
	if !strings.Contains(log.String(), "will not be kept") || !strings.Contains(log.String(), "the disk is full") {
		t.Errorf("the log says %q", log.String())
	}
	if _, err := recordOrResearch(t.Context(), r, st, nil, deepresearch.Request{Question: " "}, runstore.OriginCLI, nil); !errors.Is(err, deepresearch.ErrConfig) {
		t.Errorf("an empty question: %v", err)
	}
}

// failingRecorder fails every run before it stores anything of it (a
// library that cannot be opened).
type failingRecorder struct{ *deepresearch.Researcher }

func (failingRecorder) Start(context.Context, deepresearch.Request, deepresearch.RunOptions) (*deepresearch.Run, error) {
	return nil, errors.New("the library could not be opened")
}

// TestRunsRecorderFails: a run whose recorder cannot start it is refused
// with the recorder's error, is not stored, and frees its slot.
func TestRunsRecorderFails(t *testing.T) {
	eachStore(t, func(t *testing.T, st deepresearch.Store) {
		rs := newRuns(t, failingRecorder{}, st, deepresearch.RunsOptions{MaxRuns: 1})
		for range 2 { // the first frees its slot
			_, err := rs.Start(t.Context(), deepresearch.Request{Question: loopQuestion, RunID: "r1"})
			if err == nil || err.Error() != "the library could not be opened" {
				t.Fatalf("Start: %v", err)
			}
		}
		if _, err := st.Get(t.Context(), "r1"); !errors.Is(err, runstore.ErrNotFound) {
			t.Errorf("the refused run was stored: %v", err)
		}
	})
}
