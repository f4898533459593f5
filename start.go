package deepresearch

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/runstore"
)

// RunOptions say how Start runs a request. Each is independent of the
// others; the zero RunOptions runs the request in memory, kept nowhere,
// asking nobody (but the request's own Hooks).
type RunOptions struct {
	// Store keeps the run: Start stores the request as a new run,
	// running, before it returns (the request in its JSON form, as the
	// run's Options); then each event is stored before anything else sees
	// it, and at the end the report (its JSON form), the text of every
	// source it cites (as the agents read it, else fetched again) and the
	// run's final status. The status is finished when the run succeeded;
	// when it did not, the cause of the run's context decides:
	// ErrCanceledByClient or context.Canceled (Run.Cancel) give canceled,
	// ErrShutdown interrupted, and anything else (ErrTimeLimit, a
	// failure) failed, with the error kept. Writes go on after the
	// context is done, so a canceled run is still recorded as such. A run
	// stopped by ErrShutdown stores nothing of its stopping — no event
	// after the shutdown began, no partial report — so that it resumes
	// where its work stopped (Resume). The run's journal is kept in Store
	// too (see Journal).
	Store Store
	// StoreErr is what opening Store gave, when it failed: the run then
	// runs unkept, and the Researcher's log warns that it is not, saying
	// why — a store that cannot be opened costs the record, not the
	// research.
	StoreErr error
	// Resume takes up the interrupted run of Store with this ID in a new
	// attempt, instead of starting req: the run's stored request is run
	// again (only req.Hooks are taken from req), every call its journal
	// holds is answered from it, and its events go on after those stored.
	// It fails for a run that is not interrupted, saying why.
	Resume string
	// Origin is what started the run (OriginServer, OriginCLI), stored
	// as runstore.Run.Origin: a server resumes the runs a server started
	// (see Store.Interrupted).
	Origin string
	// Journal keeps the run's journal of every call it pays for (see
	// durable.go), under Request.RunID, when the run has no Store; with a
	// Store, the Store keeps it and Journal is ignored.
	Journal JournalStore
	// Sink, if not nil, is given every event of the run as it happens
	// (after Store has it): synchronously, one event at a time, in Seq
	// order, from the run's goroutines, so a slow Sink slows the run.
	// Run.Events gives them too, without slowing it.
	Sink func(events.Event)

	// Interactive makes the run wait for its people through Run.Answer
	// (its clarifying questions) and Run.Review (its plan), instead of
	// req.Hooks, which must then be nil.
	Interactive bool
	// ReviewTimeout is how long an Interactive run whose plan is put to
	// review waits for Run.Review (0: as long as it takes), counted from
	// when the plan was first put to review, across restarts (the run
	// journals that time); OnReviewTimeout is what the run does then.
	ReviewTimeout   time.Duration
	OnReviewTimeout TimeoutAction
	// Waiting, if not nil, is told as the run starts to wait for a
	// person — runstore.NeedsInput or runstore.AwaitingPlan, as its hook is
	// called, after Store has the status — and runstore.Running as it goes
	// on; called from the run's goroutine, it holds the run while it
	// runs.
	Waiting func(runstore.Status)
	// Timeout is the run's time limit (0: none). It is paused while the
	// run waits for a person through its hooks, and counts afresh after;
	// a run past it ends failed, with ErrTimeLimit.
	Timeout time.Duration
	// Clock arms Timeout and ReviewTimeout; nil means the Researcher's.
	Clock clock.Clock
}

// Run is a run Start started. It owns the goroutine that runs the
// research; its methods are safe for concurrent use.
type Run struct {
	id     string
	cancel context.CancelCauseFunc
	done   chan struct{} // closed once the run has ended and Store has its end
	wait   *waiter       // where an Interactive run waits for a person
	rep    *Report
	err    error

	mu     sync.Mutex // guards what follows
	events []events.Event
	more   chan struct{}   // closed, and replaced, as an event is added
	ended  bool            // no event is added after
	status runstore.Status // running, or what the run waits for

	interactive bool // Answer and Review reach it
}

// Start starts req in a goroutine the returned Run owns, as opts say,
// and returns once the run has begun (and, with opts.Store, is stored):
// Wait waits for its report. It refuses a request Validate refuses (a
// *RequestError), a RunID opts.Store holds already (runstore.ErrExists), an
// opts.Resume that names no interrupted run, and any run once Close has
// begun (ErrClosed).
//
// ctx bounds the run: when it is done, the run stops as Cancel stops it,
// with ctx's cause. The research runs in cycles (Config.Limits.MaxCycles):
// after each, an assessment of the merged findings decides whether
// follow-up agents research what is missing; Report.Cycles and
// Report.LoopEnd say how many ran and why they stopped. One agent
// failing, panicking or timing out does not fail the run: the report
// covers the other tasks and says which is missing. A run fails with a
// *StageError when the index cannot be built, planning fails, no agent
// produced a report, writing or verifying the final report fails, or its
// context is done (it then fails with the context's cause once every
// agent has stopped, or after Config.StopGrace, naming the agents that
// had not). A failed run has a Report too, which renders whatever
// research it got past (the agents' findings when the writer failed; see
// Report). Sequence numbers of its events have no gaps, and the last
// event is run.finished or error; no event follows it.
func (r *Researcher) Start(ctx context.Context, req Request, opts RunOptions) (*Run, error) {
	if opts.StoreErr != nil {
		r.log.Warn().Err(opts.StoreErr).Msg("the run will not be kept in the run store")
		opts.Store = nil
	}
	switch {
	case opts.Resume != "" && opts.Store == nil:
		return nil, configErrorf("resuming run %s needs the Store that holds it (RunOptions.Store)", opts.Resume)
	case opts.Interactive && req.Hooks != nil:
		return nil, configErrorf("an Interactive run waits for Run.Answer and Run.Review; it takes no Request.Hooks")
	}
	if err := opts.OnReviewTimeout.check(); err != nil {
		return nil, err
	}
	if opts.Resume == "" {
		if err := req.check(); err != nil {
			return nil, err
		}
		if req.RunID == "" {
			req.RunID = NewRunID()
		}
	}
	ctx, end, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	bg := context.WithoutCancel(ctx)
	var d engine.Durability
	switch {
	case opts.Resume != "":
		hooks := req.Hooks
		if req, d, err = reopenRun(bg, opts.Store, opts.Resume); err != nil {
			end()
			return nil, err
		}
		req.Hooks = hooks
	case opts.Store != nil:
		if err = storeRun(bg, opts.Store, req, opts.Origin); err != nil {
			end()
			return nil, err
		}
	default:
		d.Journal = opts.Journal
	}
	ctx, cancel := context.WithCancelCause(ctx)
	run := &Run{id: req.RunID, cancel: cancel, done: make(chan struct{}), more: make(chan struct{}), status: runstore.Running,
		events: d.Prior[:len(d.Prior):len(d.Prior)], interactive: opts.Interactive}
	run.wait = newWaiter(run.id, run.done)
	c := opts.Clock
	if c == nil {
		c = r.cfg.Clock
	}
	pause := func() func() { return func() {} }
	halt := func() {}
	if opts.Timeout > 0 {
		limit := newPausable(c, opts.Timeout, func() { cancel(ErrTimeLimit) })
		pause, halt = limit.pause, limit.halt
	}
	if opts.Interactive {
		req.Hooks = run.hooks(c, opts)
	}
	// While a hook waits, the time limit is paused (first) and the run
	// says that it waits.
	req.Hooks = pausingHooks(waitingHooks(req.Hooks, func(s runstore.Status) {
		run.setStatus(s)
		if opts.Waiting != nil {
			opts.Waiting(s)
		}
	}), pause)
	watch := func(ev events.Event) {
		switch ev.Type {
		case events.ClarificationRequested:
			if req.Hooks != nil && req.Hooks.Ask != nil {
				run.setStatus(runstore.NeedsInput)
			}
		case events.PlanReviewRequested:
			if req.Hooks != nil && req.Hooks.Review != nil {
				run.setStatus(runstore.AwaitingPlan)
			}
		}
	}
	sink := func(ev events.Event) {
		run.add(ev)
		run.wait.sink(ev)
		if opts.Sink != nil {
			opts.Sink(ev)
		}
	}
	go func() {
		defer close(run.done)
		defer end()
		defer cancel(nil)
		defer halt()
		defer run.close()
		if opts.Store != nil {
			run.rep, run.err = r.record(ctx, opts.Store, req, d, watch, sink)
		} else {
			run.rep, run.err = r.researchDurable(ctx, req, d, func(ev events.Event) { watch(ev); sink(ev) })
		}
	}()
	return run, nil
}

// ID is the run's ID (Request.RunID, or the fresh one Start gave it).
func (run *Run) ID() string { return run.id }

// Events yields every event of the run, from its first (a resumed run's
// earlier attempts' included), in Seq order, each as soon as the run has
// emitted it, and ends after the run's last. It is lossless whenever it is
// called, and any number of callers may range over it at once: the run
// keeps its events in memory until it is dropped. Ranging does not slow
// the run; stopping early does not stop it (Cancel does). A stored run
// stopped by ErrShutdown yields what Store keeps: nothing of its
// stopping.
func (run *Run) Events() iter.Seq[events.Event] {
	return func(yield func(events.Event) bool) {
		for i := 0; ; {
			run.mu.Lock()
			evs, more, ended := run.events, run.more, run.ended
			run.mu.Unlock()
			for ; i < len(evs); i++ {
				if !yield(evs[i]) {
					return
				}
			}
			if ended {
				return
			}
			<-more
		}
	}
}

// Wait waits for the run to end — with a Store, until its end is stored
// — and returns its report and error, as Start documents.
func (run *Run) Wait() (*Report, error) {
	<-run.done
	return run.rep, run.err
}

// Cancel stops the run, as canceling Start's context does (the run ends
// canceled); it does not wait (Wait does). Canceling a run that has ended
// does nothing.
func (run *Run) Cancel() { run.cancel(context.Canceled) }

// Answer gives an Interactive run that waits for answers to its
// clarifying questions (runstore.NeedsInput) one answer a question, in
// order ("" keeps a question's assumption), and returns once the run has
// kept them. It refuses a run that waits for nothing of the kind
// (ErrNotWaiting), answers out of bounds (a *RequestError) and questions
// answered already (ErrAnswered); it fails with ErrRunStopped when the
// run stops before it kept them (it asks again when it is resumed), and
// with context.Cause(ctx) when ctx is done first.
func (run *Run) Answer(ctx context.Context, answers []string) error {
	if err := run.waitingFor(runstore.NeedsInput); err != nil {
		return err
	}
	if len(answers) == 0 || len(answers) > MaxClarifyingQuestions {
		return &RequestError{Field: "answers", Problem: fmt.Sprintf("must hold 1 to %d answers, one a question", MaxClarifyingQuestions)}
	}
	for i, a := range answers {
		// Checked here as well as by the run: the run reads them after
		// the caller was answered.
		if n := len(strings.TrimSpace(a)); n > MaxTextBytes {
			return &RequestError{Field: fmt.Sprintf("answers[%d]", i), Problem: fmt.Sprintf("is %d bytes long; the limit is %d", n, MaxTextBytes)}
		}
	}
	posted := answersPost{answers: answers, ack: ack()}
	select {
	case run.wait.answers <- posted:
	default:
		return &RunsError{Run: run.id, Err: ErrAnswered, Problem: "the questions were answered already"}
	}
	return run.wait.await(ctx, posted.ack, "answers")
}

// PlanReview is a person's word on the plan a run waits to have reviewed
// (Run.Review, Runs.Review).
type PlanReview struct {
	// Reject rejects the plan: the first plan rejected ends the run,
	// failed with ErrPlanRejected; a later cycle's ends its research, and
	// the report is written from what was found.
	Reject bool
	// Plan is the plan to research instead of the one proposed (tasks
	// added, removed, reworded); without tasks, the plan proposed is
	// accepted.
	Plan Plan
}

// Review gives an Interactive run that waits for its plan's review
// (runstore.AwaitingPlan) a person's review, and returns once the run has
// taken it. It refuses as Answer does, a plan Plan.Validate refuses, and
// a review that lost to another one or came after the review time ran
// out (ErrAnswered).
func (run *Run) Review(ctx context.Context, rv PlanReview) error {
	if err := run.waitingFor(runstore.AwaitingPlan); err != nil {
		return err
	}
	r := review{rejected: rv.Reject, ack: ack()}
	if !rv.Reject && len(rv.Plan.Tasks) > 0 {
		if err := rv.Plan.Validate(); err != nil {
			return err
		}
		r.plan = rv.Plan
	}
	if err := run.wait.offerReview(r); err != nil {
		return err
	}
	return run.wait.await(ctx, r.ack, "review")
}

// waitingFor refuses a run that does not wait with status want.
func (run *Run) waitingFor(want runstore.Status) error {
	run.mu.Lock()
	status, ended := run.status, run.ended
	run.mu.Unlock()
	if !run.interactive {
		return &RunsError{Run: run.id, Err: ErrNotWaiting, Problem: fmt.Sprintf("run %s asks nobody through Answer or Review (RunOptions.Interactive)", run.id)}
	}
	if ended {
		return &RunsError{Run: run.id, Err: ErrNotWaiting, Problem: fmt.Sprintf("run %s has ended, it waits for nothing", run.id)}
	}
	if status != want {
		return &RunsError{Run: run.id, Err: ErrNotWaiting, Problem: fmt.Sprintf("run %s is %s, not %s", run.id, status, want)}
	}
	return nil
}

// setStatus records what the run waits for.
func (run *Run) setStatus(s runstore.Status) {
	run.mu.Lock()
	run.status = s
	run.mu.Unlock()
}

// add keeps ev and wakes the callers of Events.
func (run *Run) add(ev events.Event) {
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.ended {
		return // an abandoned agent's, after the run's end
	}
	run.events = append(run.events, ev)
	close(run.more)
	run.more = make(chan struct{})
}

// close ends the run's events.
func (run *Run) close() {
	run.mu.Lock()
	defer run.mu.Unlock()
	run.ended = true
	close(run.more)
}

// hooks are an Interactive run's Hooks: each waits for the matching
// Answer or Review.
func (run *Run) hooks(c clock.Clock, opts RunOptions) *Hooks {
	w := run.wait
	return &Hooks{
		Ask: func(ctx context.Context, qs []events.Clarification) ([]string, error) {
			select {
			case a := <-w.answers:
				w.took(a.ack)
				return a.answers, nil
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		},
		Review: func(ctx context.Context, p Plan) (Plan, error) {
			var timeout <-chan struct{}
			if opts.ReviewTimeout > 0 {
				// The deadline runs from when the plan was first put to
				// review, across restarts (the run journals that time).
				wait := opts.ReviewTimeout
				if !p.Asked.IsZero() {
					wait -= c.Now().Sub(p.Asked)
				}
				ch := make(chan struct{})
				if wait <= 0 {
					close(ch)
				} else {
					stop := c.AfterFunc(wait, func() { close(ch) })
					defer stop()
				}
				timeout = ch
			}
			select {
			case r := <-w.reviews:
				w.reviewedBy(r.ack)
				switch {
				case r.rejected:
					w.took(nil)
					r.ack <- nil // taken: a rejection keeps nothing more
					return p, ErrPlanRejected
				case len(r.plan.Tasks) == 0:
					return p, nil
				}
				return r.plan, nil
			case <-timeout:
				w.refuseQueued()
				if opts.OnReviewTimeout == TimeoutCancel {
					return p, fmt.Errorf("%w (%v)", ErrReviewTimeout, opts.ReviewTimeout)
				}
				return p, nil
			case <-ctx.Done():
				return p, context.Cause(ctx)
			}
		},
	}
}

// pausingHooks wraps h so that the run's time limit is paused while a
// hook waits for a person (pause returns the function that re-arms it).
func pausingHooks(h *Hooks, pause func() func()) *Hooks {
	if h == nil {
		return nil
	}
	w := *h
	if ask := h.Ask; ask != nil {
		w.Ask = func(ctx context.Context, qs []events.Clarification) ([]string, error) {
			defer pause()()
			return ask(ctx, qs)
		}
	}
	if review := h.Review; review != nil {
		w.Review = func(ctx context.Context, p Plan) (Plan, error) {
			defer pause()()
			return review(ctx, p)
		}
	}
	return &w
}
