package deepresearch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/worker"
)

// ServeAgent and the run's side of a worker.Runner: where a run's
// research agents run (see package worker).

// agentSettings are r's worker.Settings.
func (r *Researcher) agentSettings() worker.Settings {
	m := r.manifest(Request{})
	return worker.Settings{Model: m.Models[events.RoleResearcher], Judge: m.Judge, Channel: m.Channel, Pages: m.Pages}
}

// settingsDiffer names the first setting in which here differs from the
// coordinator's s ("" when none does, or s is zero).
func settingsDiffer(s, here worker.Settings) string {
	if s == (worker.Settings{}) {
		return ""
	}
	for _, f := range []struct{ name, run, here string }{{"the researcher model", s.Model, here.Model}, {"the relevance judge", s.Judge, here.Judge}} {
		if !sameModel(f.run, f.here) {
			return fmt.Sprintf("%s is %s for the run and %s here", f.name, f.run, f.here)
		}
	}
	for _, f := range []struct {
		name      string
		run, here any
	}{{"the search channel", s.Channel, here.Channel}, {"reading web pages", s.Pages, here.Pages}} {
		if f.run != f.here {
			return fmt.Sprintf("%s is %v for the run and %v here", f.name, f.run, f.here)
		}
	}
	return ""
}

// checkJob says why job cannot be run (worker.ErrJob), or nil.
func checkJob(job worker.Job) error {
	switch {
	case job.RunID == "":
		return fmt.Errorf("%w: no run ID", worker.ErrJob)
	case job.Task.ID == "":
		return fmt.Errorf("%w: task %d of run %s has no ID", worker.ErrJob, job.Task.Index, job.RunID)
	case job.Task.Question == "":
		return fmt.Errorf("%w: task %s of run %s has no question", worker.ErrJob, job.Task.ID, job.RunID)
	case job.SearchLimit < 0 || job.SearchLimit > MaxRequestSearchLimit:
		return fmt.Errorf("%w: search limit %d; want 1 to %d", worker.ErrJob, job.SearchLimit, MaxRequestSearchLimit)
	}
	return nil
}

// ServeAgent runs job's agent in this process, with r's models, search
// backend and relevance judge, as a run runs its agents, and returns how
// it ended with its events, for the run that sent job (worker.Runner).
// With st not nil the run's journal is read from st and every call the
// agent completes is appended to it, so that a second attempt at the task
// (its worker died) answers the calls the first completed from st
// instead of making them again. The run's budgets are not known here
// (see package worker); the job's Budget bounds the agent. progress, when
// not nil, is given each of the agent's events as it is emitted, in the
// order of worker.Result.Events, one call at a time (under the agent's
// emitter's lock, from whichever of its goroutines emits); it must not
// block long.
//
// A failed agent is a result, not an error. ServeAgent returns an error
// for a job it cannot run (worker.ErrJob; worker.ErrSettings when the
// job's coordinator has another model, judge or search channel; a journal or
// search backend that cannot be opened) and, with context.Cause(ctx),
// when ctx is done before the agent finished: that attempt did not
// complete.
func (r *Researcher) ServeAgent(ctx context.Context, job worker.Job, st JournalStore, progress func(events.Event)) (_ *worker.Result, err error) {
	if err := checkJob(job); err != nil {
		return nil, err
	}
	if diff := settingsDiffer(job.Settings, r.agentSettings()); diff != "" {
		err := fmt.Errorf("%w: %s", worker.ErrSettings, diff)
		r.log.Error().Err(err).Str("run", job.RunID).Str("task", job.Task.ID).Msg("refusing an agent task: give workers the coordinator's model, judge and search settings")
		return nil, err
	}
	ctx, end, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	ctx, span := telemetry.Begin(ctx, r.cfg.Telemetry.TracerProvider, telemetry.SpanServe, job.RunID, trace.SpanKindConsumer,
		telemetry.Cycle.Int(job.Task.Cycle), telemetry.TaskID.String(job.Task.ID), telemetry.TaskTitle.String(telemetry.Text(job.Task.Title)))
	defer func() { telemetry.End(span, err) }()
	ctx = telemetry.WithMetrics(ctx, r.metrics) // the worker's model calls, searches and reads
	if st != nil {
		failed := func(err error) {
			r.log.Error().Err(err).Str("run", job.RunID).Msg("a completed call could not be journaled; another attempt would make it again")
		}
		jl := journalLog{st: st, failed: failed}
		j, err := journal.Open(ctx, jl, job.RunID, journal.Options{Log: jl, Clock: r.cfg.Clock.Now, Hooks: journal.Hooks{AppendFailed: failed}})
		if err != nil {
			if cerr := context.Cause(ctx); cerr != nil {
				return nil, cerr
			}
			return nil, err
		}
		ctx = journal.NewContext(ctx, j)
	}
	if ctx, err = r.withDomains(ctx, job.Domains); err != nil {
		return nil, fmt.Errorf("%w: %w", worker.ErrJob, err)
	}
	if r.pages {
		pages, err := fetch.New(r.cfg.Fetch)
		if err != nil {
			return nil, err
		}
		defer pages.Close()
		ctx = fetch.NewContext(ctx, pages)
	}
	backend, err := r.backend(ctx)
	if err != nil {
		return nil, err
	}
	var evs []events.Event
	em := events.NewEmitter(job.RunID, r.cfg.Clock, events.SinkFunc(func(e events.Event) {
		evs = append(evs, e)
		if progress != nil {
			progress(e)
		}
	})).InCycle(job.Task.Cycle)
	m := &engine.Meter{Price: r.cfg.Price, Names: r.cfg.Telemetry.ModelNames, Start: r.cfg.Clock.Now(), Now: r.cfg.Clock.Now}
	req := Request{RunID: job.RunID, Question: job.Question, SearchLimit: job.SearchLimit, Budget: job.Budget}
	o := r.runAgent(ctx, req, job.Task, backend, m.Model(events.RoleResearcher, r.models[events.RoleResearcher]), m, em)
	em.Close()
	if o.failure != nil && o.failure.Kind == events.FailCanceled {
		if cerr := context.Cause(ctx); cerr != nil {
			return nil, cerr
		}
	}
	return &worker.Result{Output: o.res, Failure: o.failure, Spent: o.spent, DurationMS: o.durationMS, Events: evs}, nil
}

// remoteAgent runs task through r.cfg.Agents, emitting the agent's
// events as the runner reports them (relay) and then those of its result
// not yet emitted, in order, before it returns.
func (r *Researcher) remoteAgent(ctx context.Context, req Request, task agent.Task, meter *engine.Meter, em *events.Emitter) agentOutcome {
	job := worker.Job{RunID: req.RunID, Question: req.Question, SearchLimit: req.SearchLimit, Budget: req.Budget, Task: task,
		Settings: r.agentSettings(), Domains: req.Domains}
	rl := &relay{emit: func(p events.Payload) { em.Emit(task.Index, task.Title, p) },
		notice: func(p events.Payload) { em.Emit(runLevel, "", p) }}
	res, err := r.cfg.Agents.RunAgent(ctx, job, rl.progress)
	if err == nil && res == nil {
		err = errors.New("the agent runner returned no result")
	}
	if err == nil && res.Output == nil && res.Failure == nil {
		err = errors.New("the agent runner returned a result with neither output nor failure")
	}
	if err != nil {
		rl.final([]events.Event{{Data: events.AgentStartedData{Task: events.PlanTask{Index: task.Index, ID: task.ID, Title: task.Title, Question: task.Question}}}})
		kind := events.FailError
		if ctx.Err() != nil {
			kind = events.FailCanceled
		}
		return agentOutcome{failure: &worker.Failure{Kind: kind, Error: err.Error()}, err: err}
	}
	rl.final(res.Events)
	if res.Failure != nil {
		meter.Add(events.RoleResearcher, res.Spent)
		return agentOutcome{failure: res.Failure, err: errors.New(res.Failure.Error), spent: res.Spent}
	}
	if res.Output == nil {
		err := errors.New("the agent's result has neither an output nor a failure")
		return agentOutcome{failure: &worker.Failure{Kind: events.FailError, Error: err.Error()}, err: err}
	}
	if res.Output.Report == "" {
		meter.Add(events.RoleResearcher, res.Output.Usage)
		err := errors.New("the agent wrote an empty report")
		return agentOutcome{failure: &worker.Failure{Kind: events.FailError, Error: err.Error()}, err: err, spent: res.Output.Usage}
	}
	meter.Add(events.RoleResearcher, res.Output.Usage)
	res.Output.Task = task
	return agentOutcome{res: res.Output, durationMS: res.DurationMS}
}

// relay emits one remote agent's events: those its runner's attempts
// report live (progress), then its result's (final), each once, through
// an events.Retrace (see "Events" in package worker's doc). It takes only the
// events an agent emits while it runs (events.WhileAgentRuns): a worker
// cannot finish the run, write its report or end its own agent.
type relay struct {
	emit func(events.Payload)
	// notice emits what the runner says for itself (attempt 0) at run
	// level.
	notice func(events.Payload)

	mu      sync.Mutex
	retrace events.Retrace
	attempt int  // the attempt being relayed
	next    int  // the place of its next event; -1 after a gap
	done    bool // final was called: reports are late
}

// progress is the worker.Progress given to the runner.
func (rl *relay) progress(attempt, n int, e events.Event) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if attempt == 0 {
		if d, ok := e.Data.(events.WorkersMissingData); ok && !rl.done && rl.notice != nil {
			rl.notice(d)
		}
		return
	}
	if rl.done || attempt < rl.attempt {
		return
	}
	if attempt > rl.attempt {
		rl.attempt, rl.next = attempt, 0
		rl.retrace.Restart()
	}
	if n != rl.next {
		rl.next = -1 // a report was lost: the result brings the rest
		return
	}
	rl.next++
	if e.Data == nil || !events.WhileAgentRuns(e.Data.EventType()) {
		return // not the agent's to say: the run says the rest
	}
	for _, p := range rl.retrace.Pass(e.Data) {
		rl.emit(p)
	}
}

// final emits the events of the attempt whose result the run took that
// progress did not, and ends progress.
func (rl *relay) final(evs []events.Event) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	rl.done = true
	rl.retrace.Restart()
	for _, e := range evs {
		if e.Data == nil || !events.WhileAgentRuns(e.Data.EventType()) {
			continue
		}
		for _, p := range rl.retrace.Pass(e.Data) {
			rl.emit(p)
		}
	}
	for _, p := range rl.retrace.End() {
		rl.emit(p)
	}
}

// importTry bounds importJournal.
const importTry = 30 * time.Second

// importJournal copies the entries of tasks' agents from the workers'
// journal (worker.Journal) into the run's own, when the runner has one and
// the run keeps a journal: once a cycle, after its agents (research), as
// one read of each journal. An import that fails is logged: the run goes
// on, and its journal lacks those calls (a replay makes them again).
func (r *Researcher) importJournal(ctx context.Context, run string, tasks []agent.Task) {
	wj, ok := r.cfg.Agents.(worker.Journal)
	j := journal.FromContext(ctx)
	if !ok || j == nil || len(tasks) == 0 {
		return
	}
	// The results are taken: their calls are kept even when the run ends
	// now, within a bound, as a cluster that stopped answering would hold
	// the run for ever.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), importTry)
	defer cancel()
	scopes := map[string]bool{}
	for _, t := range tasks {
		scopes[scopeAgent(t.ID)] = true
	}
	entries, err := wj.Journal(ctx, run)
	if err == nil {
		_, err = j.Import(ctx, entries, func(s string) bool {
			stage, rest, _ := strings.Cut(s, "/")
			id, _, _ := strings.Cut(rest, "/")
			return scopes[stage+"/"+id]
		})
	}
	if err != nil {
		r.log.Warn().Err(err).Str("run", run).Msg("the agents' calls could not be copied from the workers' journal into the run's; a replay of the run makes them again")
	}
}
