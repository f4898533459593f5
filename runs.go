package deepresearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/memstore"
	"github.com/deepresearch/deepresearch/recheck"
	"github.com/deepresearch/deepresearch/relay"
	"github.com/deepresearch/deepresearch/runstore"
)

// Runs owns the life of the stored runs a program serves, so that every
// front end — the HTTP API (httpapi), the MCP server (mcpserver), the
// CLI's serve, and its run and resume (Begin) — is a codec over the same
// decisions: which runs start
// (RunsOptions.MaxRuns), how long one may run (RunTimeout, paused while it
// waits for a person), how long a plan waits for its review and what the
// run does then (ReviewTimeout, OnReviewTimeout), which interrupted runs
// are taken up again (Resume), and what a person's answers and reviews do
// (Answer, Review). Its runs are kept in one Store, where any process
// that shares it reads them (Get, Follow, Report).
//
// Runs owns the goroutine of each run it starts: Close cancels them (they
// end interrupted, to be resumed) and waits for them. Its methods are
// safe for concurrent use.
type Runs struct {
	rec  RunRecorder
	st   Store
	opts RunsOptions // defaults filled in
	log  zerolog.Logger

	mu     sync.Mutex // guards live and closed
	live   map[string]*liveRun
	closed bool
	wg     sync.WaitGroup // a run's goroutine, counted from its slot

	recheck *rechecker // the scheduled re-checks (RecheckEvery); nil without

	// What other processes relay to this one's runs (a store that is a
	// relay.Store): startRelay's goroutine, stopped by relayStop.
	relayStop context.CancelFunc
	relayDone chan struct{}
}

// RunRecorder is what Runs needs of a Researcher; *Researcher is one. A
// decorator wraps one to do more around each run (publish its events
// elsewhere, say: it adds to RunOptions.Sink), keeping Start's contract.
type RunRecorder interface {
	// Start starts req as opts say, as Researcher.Start documents.
	Start(ctx context.Context, req Request, opts RunOptions) (*Run, error)
	// Clarify returns the clarifying questions a run of req would ask,
	// as Researcher.Clarify does.
	Clarify(ctx context.Context, req Request) ([]events.Clarification, error)
}

var _ RunRecorder = (*Researcher)(nil)

// TimeoutAction is what a run does when a person it waits for does not
// answer in time (RunsOptions.OnReviewTimeout). Its words are "proceed"
// and "cancel"; the zero TimeoutAction is TimeoutProceed.
type TimeoutAction string

// The timeout actions.
const (
	// TimeoutProceed: the run goes on without the person's word — a plan
	// is researched as proposed.
	TimeoutProceed TimeoutAction = "proceed"
	// TimeoutCancel: the run ends failed, with ErrReviewTimeout.
	TimeoutCancel TimeoutAction = "cancel"
)

// MarshalText is the action's word.
func (a TimeoutAction) MarshalText() ([]byte, error) { return []byte(a), nil }

// UnmarshalText sets a to the action named text: "proceed", "cancel", or
// "" (TimeoutProceed).
func (a *TimeoutAction) UnmarshalText(text []byte) error {
	v := TimeoutAction(text)
	if err := v.check(); err != nil {
		return err
	}
	*a = v
	return nil
}

// check reports an action that is none of the TimeoutAction constants
// (nor "").
func (a TimeoutAction) check() error {
	switch a {
	case "", TimeoutProceed, TimeoutCancel:
		return nil
	}
	return fmt.Errorf("deepresearch: %w: timeout action %q: want proceed or cancel", ErrConfig, string(a))
}

// RunsOptions configure a Runs. Zero values take the defaults.
type RunsOptions struct {
	// MaxRuns caps the runs in progress at once, resumed ones included
	// (default 8); Start beyond it fails with ErrTooManyRuns.
	MaxRuns int
	// RunTimeout is a run's time limit (default 10m). It is
	// paused while the run waits for a person, and counts afresh after; a
	// run past it ends failed, with ErrTimeLimit.
	RunTimeout time.Duration
	// ReviewTimeout is how long a run whose plan is put to review waits
	// for its review (0: as long as it takes), counted from when the plan
	// was first put to review, across restarts (the run journals that
	// time). OnReviewTimeout is what the run does then.
	ReviewTimeout   time.Duration
	OnReviewTimeout TimeoutAction
	// MaxResumes is how many times Resume takes up one run, at most
	// (default 3); a run interrupted more often ends
	// failed.
	MaxResumes int
	// Origin is what Start stores as a run's origin (runstore.Run.Origin),
	// and the origin of the interrupted runs Resume takes up; default
	// OriginServer.
	Origin string
	// RecheckEvery, when positive, re-checks the report of every stored
	// finished run that cites a web page (Researcher.RecheckRun) in a
	// pass RecheckEvery of Clock after NewRuns and RecheckEvery after
	// each pass ends, in a goroutine the Runs owns (Close stops it), the
	// least recently checked first, RecheckParallel
	// runs at a time, and keeps each result with its run
	// (Store.PutRecheck; LastRecheck reads it). A report that no longer
	// holds is logged as a warning. It needs a recorder that is a
	// Rechecker (a *Researcher is). 0: no scheduled re-checks (serve's
	// recheck.every).
	RecheckEvery time.Duration
	// RecheckParallel caps the runs a re-check pass re-checks at once
	// (default 2); each reads at most four pages at
	// once.
	RecheckParallel int
	// OnRecheck, if not nil, is told each re-check kept with its run (a
	// scheduled one, or Recheck's) once it is stored: the event of a
	// stored report re-checked, which no longer holds when res.Holds is
	// false. It is called from the goroutine that re-checked, several at
	// once in a pass, and must not block.
	OnRecheck func(id string, res *recheck.Result)
	// Clock arms the time limits; nil means the real clock.
	Clock clock.Clock
	// Logger receives diagnostics; nil disables logging.
	Logger *zerolog.Logger
	// StoreErr is what opening the run store gave, when it failed: NewRuns
	// then takes a nil Store and keeps its runs in memory, for as long as
	// the process lives, its log warning once that they will not be kept
	// past it, saying why: a store that cannot be opened costs the record,
	// not the research, and every front end works the same (Get, Follow,
	// Report, Answer and Review by ID, of this process's runs). Resume
	// finds nothing to resume, and no re-check is scheduled.
	StoreErr error
}

// liveRun is a run of this Runs in progress.
type liveRun struct {
	cancel context.CancelCauseFunc
	done   chan struct{} // closed once the run's end is stored and its slot given back
	run    *Run          // nil until Start has returned it
}

// NewRuns returns a Runs whose runs rec runs and st keeps. It refuses a
// nil rec, a nil st (unless opts.StoreErr says why there is none) and an
// unknown OnReviewTimeout.
func NewRuns(rec RunRecorder, st Store, opts RunsOptions) (*Runs, error) {
	if rec == nil || st == nil && opts.StoreErr == nil {
		return nil, fmt.Errorf("deepresearch: %w: NewRuns needs a RunRecorder and a Store (or RunsOptions.StoreErr)", ErrConfig)
	}
	var warn error
	if st == nil {
		st, warn = memstore.New(opts.Clock), opts.StoreErr
		opts.RecheckEvery = 0 // nothing kept to re-check
	}
	opts.StoreErr = nil
	if err := opts.OnReviewTimeout.check(); err != nil {
		return nil, err
	}
	opts.MaxRuns = defaults.PositiveOr(opts.MaxRuns, defaults.ServeMaxRuns)
	opts.RunTimeout = defaults.PositiveOr(opts.RunTimeout, defaults.ServeRunTimeout)
	opts.MaxResumes = defaults.PositiveOr(opts.MaxResumes, defaults.ServeMaxResumes)
	opts.RecheckParallel = defaults.PositiveOr(opts.RecheckParallel, defaults.RecheckParallel)
	opts.ReviewTimeout = max(opts.ReviewTimeout, 0)
	if opts.OnReviewTimeout == "" {
		opts.OnReviewTimeout = TimeoutProceed
	}
	if opts.Origin == "" {
		opts.Origin = runstore.OriginServer
	}
	opts.Clock = clock.Or(opts.Clock)
	rs := &Runs{rec: rec, st: st, opts: opts, log: zerolog.Nop(), live: map[string]*liveRun{}}
	if opts.Logger != nil {
		rs.log = *opts.Logger
	}
	if warn != nil {
		rs.log.Warn().Err(warn).Msg("the run store could not be opened: runs are held in memory and will not be kept past this process")
	}
	rs.startRechecks()
	rs.startRelay()
	return rs, nil
}

// Start stores req as a new run and starts it with the Runs' recorder
// (Researcher.Start, Interactive, under the Runs' limits), a goroutine
// the Runs owns waiting for it; it returns the run's ID (req.RunID, or a
// fresh one when empty) once the run is stored, while the run goes on. The run outlives ctx (it
// keeps ctx's values, not its cancellation): Cancel stops it. It refuses
// a request Validate refuses (a *RequestError), a run beyond MaxRuns
// (ErrTooManyRuns), a RunID the store holds (runstore.ErrExists) and any run
// once Close has begun (ErrRunsClosed).
//
// A person answers the run's clarifying questions with Answer and
// reviews its plan with Review, not req.Hooks.
func (rs *Runs) Start(ctx context.Context, req Request) (string, error) {
	req.Hooks = nil
	if req.RunID == "" {
		req.RunID = NewRunID()
	}
	if _, err := rs.launch(ctx, req.RunID, req, BeginOptions{}); err != nil {
		return "", err
	}
	return req.RunID, nil
}

// launch holds a run slot for id and starts it with the Runs' recorder
// (req, a new run, or the interrupted run bo.Resume), stored, under the
// run time limit, with a goroutine the Runs owns waiting for it; the run
// asks its people through Run.Answer and Run.Review unless
// bo.Unattended. It fails when the Runs is closed or full, or when the
// recorder cannot start it.
func (rs *Runs) launch(ctx context.Context, id string, req Request, bo BeginOptions) (*Run, error) {
	rs.mu.Lock()
	switch {
	case rs.closed:
		rs.mu.Unlock()
		return nil, &RunsError{Run: id, Err: ErrRunsClosed, Problem: "runs are shutting down; no run starts now"}
	case len(rs.live) >= rs.opts.MaxRuns:
		rs.mu.Unlock()
		return nil, &RunsError{Run: id, Err: ErrTooManyRuns,
			Problem: fmt.Sprintf("%d runs are in progress, the most that run at once; retry later", rs.opts.MaxRuns)}
	case rs.live[id] != nil:
		rs.mu.Unlock()
		return nil, &RunsError{Run: id, Err: runstore.ErrExists, Problem: fmt.Sprintf("run %s is in progress already", id)}
	}
	// The run outlives ctx: it keeps ctx's values, not its cancellation.
	rctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	lr := &liveRun{cancel: cancel, done: make(chan struct{})}
	rs.live[id] = lr // holds the slot
	rs.wg.Add(1)     // under mu, before Close can wait
	rs.mu.Unlock()

	release := func() {
		rs.mu.Lock()
		delete(rs.live, id)
		rs.mu.Unlock()
		cancel(nil)
	}
	run, err := rs.rec.Start(rctx, req, RunOptions{
		Store: rs.st, Resume: bo.Resume, Origin: rs.opts.Origin, Interactive: !bo.Unattended,
		Timeout: rs.opts.RunTimeout, ReviewTimeout: rs.opts.ReviewTimeout, OnReviewTimeout: rs.opts.OnReviewTimeout, Clock: rs.opts.Clock,
		Sink: bo.Sink, Waiting: bo.Waiting,
	})
	if err != nil {
		release()
		close(lr.done)
		rs.wg.Done()
		return nil, err
	}
	rs.mu.Lock()
	lr.run = run
	rs.mu.Unlock()
	go func() {
		defer rs.wg.Done()
		defer close(lr.done)
		defer release()
		if _, err := run.Wait(); err != nil {
			rs.settle(rctx, id, err)
		}
	}()
	return run, nil
}

// settle ends run id, whose recorder returned err, when the recorder did
// not (one that failed before it ran, a library that could not be
// opened, say), so that no run of a Runs stays live in the store after
// its goroutine.
func (rs *Runs) settle(ctx context.Context, id string, err error) {
	bg := context.WithoutCancel(ctx)
	run, gerr := rs.st.Get(bg, id)
	if gerr != nil || run.Status.Ended() {
		return
	}
	status, msg := runEnd(ctx, err)
	if ferr := rs.st.Finish(bg, id, status, events.Usage{}, msg); ferr != nil {
		rs.log.Error().Err(ferr).Str("run", id).Msg("storing the end of a run its recorder did not end")
	}
}

// Owns reports whether run id is in progress in this Runs (started or
// resumed by it and not yet ended): only then do Answer, Review and
// Cancel reach it here.
func (rs *Runs) Owns(id string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.live[id] != nil
}

// Wait waits until run id, in progress in this Runs, has ended — its end
// stored and its slot free for another run — or ctx is done, when it
// returns context.Cause(ctx). For a run that is not in progress here it
// returns nil at once.
func (rs *Runs) Wait(ctx context.Context, id string) error {
	rs.mu.Lock()
	lr := rs.live[id]
	rs.mu.Unlock()
	if lr == nil {
		return nil
	}
	select {
	case <-lr.done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Get returns the stored run id, in progress here or not (a *RunsError
// wrapping runstore.ErrNotFound when the store has none).
func (rs *Runs) Get(ctx context.Context, id string) (runstore.Run, error) {
	run, err := rs.st.Get(ctx, id)
	if errors.Is(err, runstore.ErrNotFound) {
		return run, noRun(id)
	}
	return run, err
}

// noRun is the error of a run the store does not hold.
func noRun(id string) error {
	return &RunsError{Run: id, Err: runstore.ErrNotFound, Problem: fmt.Sprintf("no run %q", id)}
}

// Follow yields the events of run id after the one numbered after (0:
// from the start), as Store.Events does: every stored event in order,
// then each new one as it is stored, ending after the last event of a run
// that has ended, or with an error when ctx is done or the store fails.
// Events are stored before anything else sees them, so a follower never
// slows a run nor loses an event of it.
func (rs *Runs) Follow(ctx context.Context, id string, after uint64) iter.Seq2[runstore.Event, error] {
	return rs.st.Events(ctx, id, after)
}

// Report returns the report stored for run id (the agents' findings when
// its writer failed), or an error wrapping runstore.ErrNotFound when it has
// none (yet).
func (rs *Runs) Report(ctx context.Context, id string) (*Report, error) {
	b, err := rs.st.Report(ctx, id)
	if err != nil {
		return nil, err
	}
	return LoadReport(b)
}

// Clarify returns the clarifying questions a run of req would ask, without
// running it: a front end whose clients answer in a next turn (a chat, an
// MCP tool call) asks them itself and starts the run with the answers.
func (rs *Runs) Clarify(ctx context.Context, req Request) ([]events.Clarification, error) {
	return rs.rec.Clarify(ctx, req)
}

// Estimate returns what a run of req would spend, expected and at most,
// without running it (Researcher.Estimate), when the Runs' recorder can
// estimate (a *Researcher, or a decorator that has an Estimate method);
// else it fails with ErrNoEstimate.
func (rs *Runs) Estimate(ctx context.Context, req Request) (*Estimate, error) {
	e, ok := rs.rec.(interface {
		Estimate(context.Context, Request) (*Estimate, error)
	})
	if !ok {
		return nil, ErrNoEstimate
	}
	return e.Estimate(ctx, req)
}

// Cancel stops run id, in progress in this Runs, with cause (nil:
// ErrCanceledByClient; a cause that does not wrap ErrCanceledByClient is
// wrapped in it, so that the run ends canceled), and waits until its end
// is stored or ctx is done. A run that has ended is refused with
// runstore.ErrFinished. One in progress in another process is canceled there
// when the store relays (a relay.Store: Cancel returns that process's answer),
// else refused with ErrRunElsewhere.
func (rs *Runs) Cancel(ctx context.Context, id string, cause error) error {
	err := rs.cancelHere(ctx, id, cause)
	if _, ok := rs.relays(); ok && errors.Is(err, ErrRunElsewhere) {
		return rs.relay(ctx, id, relay.Request{Kind: relay.Cancel})
	}
	return err
}

// cancelHere is Cancel of a run in progress in this Runs.
func (rs *Runs) cancelHere(ctx context.Context, id string, cause error) error {
	rs.mu.Lock()
	lr := rs.live[id]
	rs.mu.Unlock()
	if lr == nil {
		run, err := rs.Get(ctx, id)
		switch {
		case err != nil:
			return err
		case run.Status.Ended():
			return &RunsError{Run: id, Err: runstore.ErrFinished, Problem: fmt.Sprintf("run %s has already ended (%s)", id, run.Status)}
		}
		return &RunsError{Run: id, Err: ErrRunElsewhere, Problem: fmt.Sprintf("run %s is %s in another process; cancel it there", id, run.Status)}
	}
	switch {
	case cause == nil:
		cause = ErrCanceledByClient
	case !errors.Is(cause, ErrCanceledByClient):
		cause = fmt.Errorf("%w: %w", ErrCanceledByClient, cause)
	}
	lr.cancel(cause)
	select {
	case <-lr.done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Answer gives run id, which waits for answers to its clarifying
// questions (runstore.NeedsInput) in this Runs, one answer a question, in
// order ("" keeps a question's assumption), and returns once the run has
// kept them. It refuses a run that waits for nothing of the kind
// (ErrNotWaiting) or waits in another process (ErrRunElsewhere, when the
// store does not relay), answers
// out of bounds (a *RequestError), and questions answered already
// (ErrAnswered); it fails with ErrRunStopped when the run stops before
// it kept them (it asks again when it is resumed), and with
// context.Cause(ctx) when ctx is done first.
//
// A run that waits in another process gets the answers there when the
// store relays (a relay.Store), and Answer returns that process's answer.
func (rs *Runs) Answer(ctx context.Context, id string, answers []string) error {
	run, _, err := rs.waiting(ctx, id, runstore.NeedsInput)
	if err != nil {
		return err
	}
	if run == nil {
		return rs.relay(ctx, id, relay.Request{Kind: relay.Answer, Answers: answers})
	}
	return run.Answer(ctx, answers)
}

// Review gives run id, which waits in this Runs for its plan's review
// (runstore.AwaitingPlan), a person's review, and returns once the run has
// taken it. It refuses as Answer does, a plan Plan.Validate refuses, and
// a review that lost to another one or came after the review time ran out
// (ErrAnswered). A run that waits in another process gets the review
// there when the store relays (a relay.Store), as Answer's answers do.
func (rs *Runs) Review(ctx context.Context, id string, rv PlanReview) error {
	run, _, err := rs.waiting(ctx, id, runstore.AwaitingPlan)
	if err != nil {
		return err
	}
	if run == nil {
		if !rv.Reject && len(rv.Plan.Tasks) > 0 {
			if err := rv.Plan.Validate(); err != nil {
				return err
			}
		}
		req, err := reviewRequest(rv)
		if err != nil {
			return err
		}
		return rs.relay(ctx, id, req)
	}
	return run.Review(ctx, rv)
}

// Plan returns the plan run id waits in this Runs (or, when the store
// relays, in another process) to have reviewed, as its
// plan.review_requested event proposed it (Cycle says which research
// cycle's it is). It refuses as Answer does.
func (rs *Runs) Plan(ctx context.Context, id string) (Plan, error) {
	_, run, err := rs.waiting(ctx, id, runstore.AwaitingPlan)
	if err != nil {
		return Plan{}, err
	}
	d, err := rs.lastPlan(ctx, run)
	if err != nil {
		return Plan{}, err
	}
	return Plan{Question: run.Question, Tasks: d.Tasks, MaxCycles: d.MaxCycles, Cycle: d.Cycle}, nil
}

// waiting returns run id, in progress here, when the store has it
// waiting with status want, and the stored run; a nil *Run for a run
// that waits in another process, when the store relays to it.
func (rs *Runs) waiting(ctx context.Context, id string, want runstore.Status) (*Run, runstore.Run, error) {
	run, stored, err := rs.waitingHere(ctx, id, want)
	if _, ok := rs.relays(); ok && errors.Is(err, ErrRunElsewhere) {
		return nil, stored, nil
	}
	return run, stored, err
}

// waitingHere is waiting of a run in progress in this Runs.
func (rs *Runs) waitingHere(ctx context.Context, id string, want runstore.Status) (*Run, runstore.Run, error) {
	run, err := rs.Get(ctx, id)
	if err != nil {
		return nil, run, err
	}
	rs.mu.Lock()
	var live *Run
	if lr := rs.live[id]; lr != nil {
		live = lr.run
	}
	rs.mu.Unlock()
	switch {
	case run.Status != want:
		return nil, run, &RunsError{Run: id, Err: ErrNotWaiting, Problem: fmt.Sprintf("run %s is %s, not %s", id, run.Status, want)}
	case live == nil:
		return nil, run, &RunsError{Run: id, Err: ErrRunElsewhere, Problem: fmt.Sprintf("run %s waits in another process; answer it there", id)}
	}
	return live, run, nil
}

// lastPlan returns the data of the last plan.review_requested event the
// store holds of run.
func (rs *Runs) lastPlan(ctx context.Context, run runstore.Run) (events.PlanReviewData, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var found *events.PlanReviewData
	for e, err := range rs.st.Events(ctx, run.ID, 0) {
		if err != nil {
			return events.PlanReviewData{}, err
		}
		if events.Type(e.Type) == events.PlanReviewRequested {
			var ev events.Event
			if err := json.Unmarshal(e.JSON, &ev); err != nil {
				return events.PlanReviewData{}, fmt.Errorf("deepresearch: run %s, event %d: %w", run.ID, e.Seq, err)
			}
			if d, ok := ev.Data.(events.PlanReviewData); ok {
				found = &d
			}
		}
		if e.Seq >= run.Events {
			break // the last stored: the log of a live run goes on
		}
	}
	if found == nil {
		return events.PlanReviewData{}, &RunsError{Run: run.ID, Err: ErrNotWaiting, Problem: fmt.Sprintf("run %s has no %s event", run.ID, events.PlanReviewRequested)}
	}
	return *found, nil
}

// Resume takes up the runs the store holds as interrupted whose origin is
// RunsOptions.Origin — their process died, or a Runs was closed — each in
// a new attempt that answers from the run's journal every call it had
// completed (see RunOptions.Resume): nothing completed is paid for twice,
// and the run's events go on after the last one stored, so a client that
// follows it from where it stopped sees one stream. Call it before
// serving, so that no client finds such a run still interrupted. A run
// already taken up MaxResumes times is not taken up again but ends
// failed, saying so: a run that crashes its process must not crash it
// forever. Runs beyond MaxRuns stay interrupted for a later call. It
// returns the IDs of the runs it resumed.
func (rs *Runs) Resume(ctx context.Context) ([]string, error) {
	runs, err := rs.st.Interrupted(ctx, rs.opts.Origin)
	if err != nil {
		return nil, err
	}
	var resumed []string
	for _, run := range runs {
		log := rs.log.With().Str("run", run.ID).Int("attempts", run.Attempts).Logger()
		if rs.giveUp(ctx, run) != nil {
			continue
		}
		_, err := rs.launch(ctx, run.ID, Request{}, BeginOptions{Resume: run.ID})
		if err != nil {
			log.Warn().Err(err).Msg("an interrupted run is not resumed now")
			continue
		}
		log.Info().Msg("resuming an interrupted run")
		resumed = append(resumed, run.ID)
	}
	return resumed, nil
}

// KeepResuming calls Resume every period (0: 10s, a third of sqlitestore's lease) of the
// Runs' clock until ctx is done or the Runs is closed, and returns then.
// A run whose process died while its lease still held — a process started
// within the lease of one that was killed, which cannot see it gone — is
// marked interrupted by the store once the lease has passed; KeepResuming
// takes it up then, not at the next start. So it does a run interrupted
// by another process's shutdown, or left interrupted beyond MaxRuns once
// a slot is free. Call Resume first, before serving; KeepResuming's
// goroutine is the caller's.
func (rs *Runs) KeepResuming(ctx context.Context, period time.Duration) {
	if period <= 0 {
		period = defaults.ResumeEvery
	}
	t := clock.NewTicker(rs.opts.Clock, period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rs.mu.Lock()
		closed := rs.closed
		rs.mu.Unlock()
		if closed {
			return
		}
		ids, err := rs.Resume(ctx)
		if err != nil {
			rs.log.Error().Err(err).Msg("resuming interrupted runs")
		} else if len(ids) > 0 {
			rs.log.Info().Strs("runs", ids).Msg("resumed interrupted runs")
		}
	}
}

// Close stops starting runs, cancels the runs in progress with
// ErrShutdown (they end interrupted, with nothing of their stopping
// stored, to be resumed) and waits until each one's end is stored.
func (rs *Runs) Close() error {
	rs.mu.Lock()
	rs.closed = true
	for _, lr := range rs.live {
		lr.cancel(ErrShutdown)
	}
	rs.mu.Unlock()
	rs.stopRechecks()
	rs.stopRelay()
	rs.wg.Wait()
	return nil
}

// pausable is a run's time limit that stops while the run waits for a
// person: pause stops it and returns the function that arms it afresh.
type pausable struct {
	mu   sync.Mutex
	stop func() bool
	arm  func() func() bool
}

// newPausable arms a limit of d on c that calls expire.
func newPausable(c clock.Clock, d time.Duration, expire func()) *pausable {
	arm := func() func() bool { return c.AfterFunc(d, expire) }
	return &pausable{stop: arm(), arm: arm}
}

func (p *pausable) pause() func() {
	p.mu.Lock()
	p.stop()
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.stop = p.arm()
		p.mu.Unlock()
	}
}

// halt stops the limit for good.
func (p *pausable) halt() {
	p.mu.Lock()
	p.stop()
	p.mu.Unlock()
}
