package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/conc/panics"
	"github.com/sourcegraph/conc/pool"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
	"github.com/deepresearch/deepresearch/worker"
)

// agentOutcome is one plan position's result: the agent's result, or why
// it failed.
type agentOutcome struct {
	res     *agent.Result
	failure *worker.Failure
	err     error
	spent   events.Usage // a failed agent's usage

	durationMS int64
}

// research runs one agent per task, at most req.Parallelism at once, and
// returns their outcomes in plan order. Normally every agent has stopped
// when it returns. When ctx is done it waits at most Agents.StopGrace for
// the agents to stop; those that have not are reported as canceled (their
// titles are returned in stuck) and left to finish on their own: their
// outcomes and events are dropped.
//
// onOutcome, if not nil, is given each agent's outcome (by position in
// tasks) as it finishes, one call at a time, before its last event.
func research(ctx context.Context, req *Params, tasks []agent.Task, backend search.Backend, model llms.Model, meter *Meter, em *events.Emitter, onOutcome func(int, agentOutcome)) (outcomes []agentOutcome, stuck []string) {
	var mu sync.Mutex // guards outcomes, done and abandoned
	outcomes = make([]agentOutcome, len(tasks))
	done := make([]bool, len(tasks))
	abandoned := false

	p := pool.New().WithMaxGoroutines(req.Parallelism)
	for i, task := range tasks {
		p.Go(func() {
			if req.Agents.Slots != nil {
				select {
				case req.Agents.Slots <- struct{}{}:
					defer func() { <-req.Agents.Slots }()
				case <-ctx.Done():
				}
			}
			var o agentOutcome
			actx, span := agentSpan(ctx, task, req.Agents.Runner != nil)
			if req.Agents.Runner != nil {
				o = remoteAgent(actx, req, task, meter, em)
			} else {
				o = runAgent(actx, req, task, backend, model, meter, em)
			}
			telemetry.End(span, o.err)
			observeAgent(actx, o)
			mu.Lock()
			defer mu.Unlock()
			if abandoned {
				return
			}
			outcomes[i], done[i] = o, true
			if onOutcome != nil {
				onOutcome(i, o)
			}
			reportOutcome(req.Agents.Log, task, o, em)
		})
	}
	finished := make(chan struct{})
	go func() { p.Wait(); close(finished) }()
	select {
	case <-finished:
		importJournal(ctx, req.Agents, req.RunID, tasks)
		return outcomes, nil
	case <-ctx.Done():
	}
	grace := make(chan struct{})
	stop := req.Clock.AfterFunc(req.Agents.StopGrace, func() { close(grace) })
	select {
	case <-finished:
		stop()
		importJournal(ctx, req.Agents, req.RunID, tasks)
		return outcomes, nil
	case <-grace:
	}
	mu.Lock()
	defer mu.Unlock()
	abandoned = true
	for i, task := range tasks {
		if done[i] {
			continue
		}
		stuck = append(stuck, fmt.Sprintf("%q", task.Title))
		f := &worker.Failure{Kind: events.FailCanceled, Error: fmt.Sprintf("did not stop within %v of cancellation", req.Agents.StopGrace)}
		outcomes[i] = agentOutcome{failure: f, err: context.Cause(ctx)}
		em.Emit(task.Index, task.Title, events.AgentFailedData{Error: f.Error, Kind: f.Kind})
	}
	req.Agents.Log.Error().Strs("agents", stuck).Msg("research agents did not stop after cancellation; abandoned")
	return outcomes, stuck
}

// runAgent runs one agent and classifies how it ended.
func runAgent(ctx context.Context, req *Params, task agent.Task, backend search.Backend, model llms.Model, meter *Meter, em *events.Emitter) agentOutcome {
	idx, sec := task.Index, task.Title
	pt := events.PlanTask{Index: task.Index, ID: task.ID, Title: task.Title, Question: task.Question}
	em.Emit(idx, sec, events.AgentStartedData{Task: pt})
	start := req.Clock.Now()
	cfg := agent.Config{
		Model:       model,
		Search:      backend,
		Stop:        func() bool { return meter.Spent() != "" },
		Budget:      req.Budget,
		SearchLimit: req.SearchLimit,
		Canonical:   canon.Key,
		Channel:     req.Agents.Channel,
		Clock:       req.Clock,
		Relevance:   req.Agents.Judge,
		Hooks: agent.Hooks{
			Search: func(q string, n int) { em.Emit(idx, sec, events.SearchData{Query: q, Results: n}) },
			Source: func(n int, src source.Source) { em.Emit(idx, sec, events.SourceData{Number: n, Source: src}) },
			Delta:  func(text string) { em.Emit(idx, sec, events.DeltaData{Text: text}) },
			Filtered: func(rep relevance.Report) {
				em.Emit(idx, sec, events.FilteredData{Query: rep.Query, Judge: rep.Judge, Kept: rep.Kept, Dropped: rep.Dropped})
			},
			Cited: func(cited []citeproc.Citation) {
				cs := make([]events.CitedSource, len(cited))
				for i, c := range cited {
					cs[i] = events.CitedSource{Number: c.Number, Source: c.Source}
				}
				em.Emit(idx, sec, events.CitedData{Sources: cs})
			},
		},
	}
	var res *agent.Result
	var err error
	var pc panics.Catcher
	pc.Try(func() { res, err = agent.Run(journal.WithScope(ctx, scopeAgent(task.ID)), cfg, task) })
	var f *worker.Failure
	switch rec := pc.Recovered(); {
	case rec != nil:
		f = &worker.Failure{Kind: events.FailPanic, Error: fmt.Sprint(rec.Value)}
		err = rec.AsError()
		req.Agents.Log.Error().Str("task", task.Title).Str("stack", string(rec.Stack)).Msg("research agent panicked")
	case err != nil && ctx.Err() != nil:
		f = &worker.Failure{Kind: events.FailCanceled, Error: err.Error()}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, agent.ErrTimeout):
		f = &worker.Failure{Kind: events.FailTimeout, Error: err.Error()}
	case err != nil:
		f = &worker.Failure{Kind: events.FailError, Error: err.Error()}
	case res == nil || res.Report == "":
		err = errors.New("the agent wrote an empty report")
		f = &worker.Failure{Kind: events.FailError, Error: err.Error()}
	}
	if f != nil {
		out := agentOutcome{failure: f, err: err}
		if res != nil {
			out.spent = res.Usage
		}
		return out
	}
	return agentOutcome{res: res, durationMS: req.Clock.Now().Sub(start).Milliseconds()}
}

// reportOutcome emits an agent's last event: finished, or failed and why.
func reportOutcome(log zerolog.Logger, task agent.Task, o agentOutcome, em *events.Emitter) {
	if f := o.failure; f != nil {
		em.Emit(task.Index, task.Title, events.AgentFailedData{Error: f.Error, Kind: f.Kind})
		log.Warn().Str("task", task.Title).Str("kind", f.Kind).Str("error", f.Error).Msg("research agent failed")
		return
	}
	em.Emit(task.Index, task.Title, events.AgentFinishedData{
		ToolCalls: o.res.ToolCalls, Cited: len(o.res.Cited), Usage: o.res.Usage, DurationMS: o.durationMS,
	})
}

func mergedData(sources []collapse.Source, unknown int) events.MergedData {
	ms := make([]events.MergedSource, len(sources))
	for i, s := range sources {
		ms[i] = events.MergedSource{Number: s.Number, Source: s.Source, CanonicalURL: s.CanonicalURL,
			FirstSeenSection: s.FirstSeenSection, UsedInSections: s.UsedInSections}
	}
	return events.MergedData{Sources: ms, Unknown: unknown}
}

// remoteAgent runs task through req.Agents.Runner, emitting the agent's
// events as the runner reports them (relay) and then those of its result
// not yet emitted, in order, before it returns.
func remoteAgent(ctx context.Context, req *Params, task agent.Task, meter *Meter, em *events.Emitter) agentOutcome {
	job := worker.Job{RunID: req.RunID, Question: req.Question, SearchLimit: req.SearchLimit, Budget: req.Budget, Task: task,
		Settings: req.Agents.Settings, Domains: req.Domains}
	rl := &relay{emit: func(p events.Payload) { em.Emit(task.Index, task.Title, p) },
		notice: func(p events.Payload) { em.Emit(runLevel, "", p) }}
	res, err := req.Agents.Runner.RunAgent(ctx, job, rl.progress)
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
func importJournal(ctx context.Context, a Agents, run string, tasks []agent.Task) {
	wj, ok := a.Runner.(worker.Journal)
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
		a.Log.Warn().Err(err).Str("run", run).Msg("the agents' calls could not be copied from the workers' journal into the run's; a replay of the run makes them again")
	}
}

// observeAgent counts an agent of a run that failed, by its failure's
// kind.
func observeAgent(ctx context.Context, o agentOutcome) {
	if o.err == nil {
		return
	}
	kind := events.FailError
	if o.failure != nil && o.failure.Kind != "" {
		kind = o.failure.Kind
	}
	telemetry.MetricsFrom(ctx).RecordAgentFailed(ctx, kind)
}

// agentSpan opens the span of one agent task of a cycle.
func agentSpan(ctx context.Context, task agent.Task, remote bool) (context.Context, trace.Span) {
	return telemetry.Start(ctx, telemetry.SpanAgent, trace.SpanKindInternal,
		telemetry.Cycle.Int(task.Cycle), telemetry.TaskID.String(task.ID), telemetry.TaskTitle.String(telemetry.Text(task.Title)),
		telemetry.Remote.Bool(remote))
}

// The scopes of a run's calls in its journal (Stage.Scope), then for an
// agent its task; a section of a sectioned report belongs to the
// writer's (the root's durable.go names the others).
func scopeAgent(taskID string) string { return events.StageResearch.Scope() + "/" + taskID }

var scopeSection = events.StageReport.Scope() + "/section"

// RunAgent runs one agent of task in this process for a worker
// (ServeAgent), as a run runs its own, and returns how it ended as the
// worker's result (without its events, which em is given).
func RunAgent(ctx context.Context, p *Params, task agent.Task, backend search.Backend, model llms.Model, meter *Meter, em *events.Emitter) *worker.Result {
	o := runAgent(ctx, p, task, backend, model, meter, em)
	return &worker.Result{Output: o.res, Failure: o.failure, Spent: o.spent, DurationMS: o.durationMS}
}
