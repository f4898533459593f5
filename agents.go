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
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/telemetry"
)

// The runner seam: where a run's research agents run.
//
// A run plans, then hands each agent task of a cycle to Config.Agents and
// merges what comes back in plan order. The default (nil) runs every
// agent in this process; natsrun.Agents publishes each task to a NATS
// JetStream work queue, where a worker process (natsrun.Cluster.Serve, `deepresearch
// worker`) runs it with ServeAgent — the same code as the default — and
// answers with an AgentResult.
//
// Events: an agent's events reach the run twice over. While a worker's
// attempt runs, the runner may report them as they happen
// (AgentProgress), and the run emits them at once, so a live page sees an
// agent's searches and its report's text as they come; the result then
// carries them all (AgentResult.Events), and the run emits those not yet
// emitted. When an attempt is lost (a worker killed mid-task) and another
// runs the task again, the new attempt retraces what the lost one
// reported, by the rules a resumed run follows: an event is identified by
// its place among the agent's events, streamed text by its span, so what
// the new attempt does again is not emitted twice, what goes past it is
// emitted, and where the new attempt's report departs from the text
// streamed so far (or stops short of it) a stream.reset gives the text
// that stands. A subscriber thus sees every event of an agent once, and a
// report's text as the run kept it — unless the attempts differ in
// events other than text (an attempt that failed where the next goes
// on), when the lost attempt's events from there on stand beside the
// new one's, as in a resumed run.
//
// Budgets: each agent's Budget travels with its task. The run's budgets
// (Config.Limits.MaxRunTokens, MaxCost, MaxRunTime) are counted as each agent's
// result arrives; an agent already running elsewhere is not stopped
// early by them, as an in-process one is.

// AgentRunner runs one research agent of a run. RunAgent returns the
// agent's result, or an error when it could not get one (ctx done, the
// task failed on every delivery); the run then counts the agent as
// failed. It is called from the run's goroutines, up to the run's
// Parallelism at once, and must be safe for concurrent use.
// progress, when not nil, is told of the agent's events as they happen
// (AgentProgress); a runner that cannot report them live ignores it.
type AgentRunner interface {
	RunAgent(ctx context.Context, job AgentJob, progress AgentProgress) (*AgentResult, error)
}

// WorkerJournal is implemented by an AgentRunner whose workers journal
// the calls of the agents they run in a journal of their own (natsrun's
// journal stream): Journal returns run's entries there. When a cycle's
// agents have ended, the run copies their entries it does not hold yet
// into its own journal, so that the run's journal holds every call of
// the run, as an in-process run's does: an export packs them, and a
// replay answers the agents' calls from them.
type WorkerJournal interface {
	Journal(ctx context.Context, run string) ([][]byte, error)
}

// AgentProgress is told of an agent's events while a runner's attempt at
// it runs, before its result: attempt numbers the attempt (from 1; a
// higher one has superseded the lower ones), and n is the event's place
// among that attempt's events (from 0), as in AgentResult.Events. A
// runner calls it from one goroutine at a time, and may skip events or
// stop calling it: the result's Events are what counts, and an attempt
// whose reports have a gap is not relayed further. With attempt 0 the
// runner speaks for itself, not for an attempt: a WorkersMissing event
// (the task waits with no worker to take it) is emitted at run level,
// and any other event it so reports is dropped.
type AgentProgress func(attempt, n int, e events.Event)

// AgentTask is one research task of a plan, as an agent gets it.
type AgentTask = agent.Task

// AgentOutput is what a research agent produced: its report with its own
// [n] markers, the sources it retrieved and the texts it read, by its own
// numbers, what it cited, its usage and tool calls.
type AgentOutput = agent.Result

// AgentJob is one agent task of a run, with the settled settings of the
// run an agent needs. Its JSON form is what crosses the wire.
type AgentJob struct {
	// RunID is the run's ID: its journal's name.
	RunID string `json:"run_id"`
	// Question is the run's question (for logs; the task carries its
	// objective).
	Question string `json:"question"`
	// SearchLimit is the results per search call; Budget bounds the
	// agent. Both are the run's settled values.
	SearchLimit int    `json:"search_limit"`
	Budget      Budget `json:"budget"`
	// Task is the agent's task; Task.Cycle and Task.Index name it within
	// the run.
	Task AgentTask `json:"task"`
	// Settings are the coordinator's settings that shape an agent's work;
	// a worker whose own differ refuses the job (ErrAgentSettings), as its
	// agent would not do what the run's would. Zero: not checked.
	Settings AgentSettings `json:"settings,omitzero"`
	// Domains are the run's request's domain lists, which narrow the
	// worker's own policy (Config.Domains) as they narrowed the
	// coordinator's; nil: none.
	Domains *RequestDomains `json:"domains,omitempty"`
}

// AgentSettings are the settings that shape what an agent finds and
// writes: its model ("provider:name", or "extractive"), what judges
// relevance (a model, or "lexical"), its search channel, and whether it
// reads web pages.
type AgentSettings struct {
	Model   string `json:"model"`
	Judge   string `json:"judge"`
	Channel string `json:"channel"`
	Pages   bool   `json:"pages,omitempty"`
}

// ErrAgentSettings reports an AgentJob whose coordinator's settings
// differ from those of the Researcher asked to serve it.
var ErrAgentSettings = errors.New("deepresearch: this worker's settings differ from the coordinator's")

// agentSettings are r's AgentSettings.
func (r *Researcher) agentSettings() AgentSettings {
	m := r.manifest(Request{})
	return AgentSettings{Model: m.Models[events.RoleResearcher], Judge: m.Judge, Channel: m.Channel, Pages: m.Pages}
}

// differs names the first setting in which here differs from the
// coordinator's s ("" when none does, or s is zero).
func (s AgentSettings) differs(here AgentSettings) string {
	if s == (AgentSettings{}) {
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

// AgentResult is how one agent ended: Output when it wrote a report,
// Failure when it did not, and the events it emitted, for the run to emit
// (AgentRunner). Its JSON form is what crosses the wire.
type AgentResult struct {
	// Output is the agent's result; nil when it failed.
	Output *AgentOutput `json:"output,omitempty"`
	// Failure says why it failed; nil when it did not.
	Failure *Failure `json:"failure,omitempty"`
	// Spent is a failed agent's usage.
	Spent Usage `json:"spent,omitzero"`
	// DurationMS is how long the agent ran.
	DurationMS int64 `json:"duration_ms"`
	// Events are the agent's events from agent.started on, in order, but
	// for the last (agent.finished or agent.failed), which the run emits
	// itself. Their Seq and Time are the worker's; the run numbers them
	// anew.
	Events []events.Event `json:"events"`
}

// ErrAgentJob reports an AgentJob that cannot be run.
var ErrAgentJob = errors.New("deepresearch: bad agent job")

func (job AgentJob) check() error {
	switch {
	case job.RunID == "":
		return fmt.Errorf("%w: no run ID", ErrAgentJob)
	case job.Task.ID == "":
		return fmt.Errorf("%w: task %d of run %s has no ID", ErrAgentJob, job.Task.Index, job.RunID)
	case job.Task.Question == "":
		return fmt.Errorf("%w: task %s of run %s has no question", ErrAgentJob, job.Task.ID, job.RunID)
	case job.SearchLimit < 0 || job.SearchLimit > MaxRequestSearchLimit:
		return fmt.Errorf("%w: search limit %d; want 1 to %d", ErrAgentJob, job.SearchLimit, MaxRequestSearchLimit)
	}
	return nil
}

// ServeAgent runs job's agent in this process, with r's models, search
// backend and relevance judge, as a run runs its agents, and returns how
// it ended with its events, for the run that sent job (AgentRunner). With
// st not nil the run's journal is read from st and every call the agent
// completes is appended to it, so that a second attempt at the task (its
// worker died) answers the calls the first completed from st instead of
// making them again. The run's budgets are not known here (see
// AgentRunner); the job's Budget bounds the agent. progress, when not
// nil, is given each of the agent's events as it is emitted, in the
// order of AgentResult.Events, one call at a time (under the agent's
// emitter's lock, from whichever of its goroutines emits); it must not
// block long.
//
// A failed agent is a result, not an error. ServeAgent returns an error
// for a job it cannot run (ErrAgentJob; ErrAgentSettings when the job's
// coordinator has another model, judge or search channel; a journal or
// search backend that cannot be opened) and, with context.Cause(ctx),
// when ctx is done before the agent finished: that attempt did not
// complete.
func (r *Researcher) ServeAgent(ctx context.Context, job AgentJob, st JournalStore, progress func(events.Event)) (_ *AgentResult, err error) {
	if err := job.check(); err != nil {
		return nil, err
	}
	if diff := job.Settings.differs(r.agentSettings()); diff != "" {
		err := fmt.Errorf("%w: %s", ErrAgentSettings, diff)
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
		return nil, fmt.Errorf("%w: %w", ErrAgentJob, err)
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
	m := &meter{price: r.cfg.Price, names: r.cfg.Telemetry.ModelNames, start: r.cfg.Clock.Now(), now: r.cfg.Clock.Now}
	req := Request{RunID: job.RunID, Question: job.Question, SearchLimit: job.SearchLimit, Budget: job.Budget}
	o := r.runAgent(ctx, req, job.Task, backend, metered{r.models[events.RoleResearcher], events.RoleResearcher, m}, m, em)
	em.Close()
	if o.failure != nil && o.failure.Kind == events.FailCanceled {
		if cerr := context.Cause(ctx); cerr != nil {
			return nil, cerr
		}
	}
	return &AgentResult{Output: o.res, Failure: o.failure, Spent: o.spent, DurationMS: o.durationMS, Events: evs}, nil
}

// remoteAgent runs task through r.cfg.Agents, emitting the agent's
// events as the runner reports them (relay) and then those of its result
// not yet emitted, in order, before it returns.
func (r *Researcher) remoteAgent(ctx context.Context, req Request, task agent.Task, meter *meter, em *events.Emitter) agentOutcome {
	job := AgentJob{RunID: req.RunID, Question: req.Question, SearchLimit: req.SearchLimit, Budget: req.Budget, Task: task,
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
		return agentOutcome{failure: &Failure{Kind: kind, Error: err.Error()}, err: err}
	}
	rl.final(res.Events)
	if res.Failure != nil {
		meter.add(events.RoleResearcher, res.Spent)
		return agentOutcome{failure: res.Failure, err: errors.New(res.Failure.Error), spent: res.Spent}
	}
	if res.Output == nil {
		err := errors.New("the agent's result has neither an output nor a failure")
		return agentOutcome{failure: &Failure{Kind: events.FailError, Error: err.Error()}, err: err}
	}
	if res.Output.Report == "" {
		meter.add(events.RoleResearcher, res.Output.Usage)
		err := errors.New("the agent wrote an empty report")
		return agentOutcome{failure: &Failure{Kind: events.FailError, Error: err.Error()}, err: err, spent: res.Output.Usage}
	}
	meter.add(events.RoleResearcher, res.Output.Usage)
	res.Output.Task = task
	return agentOutcome{res: res.Output, durationMS: res.DurationMS}
}

// relay emits one remote agent's events: those its runner's attempts
// report live (progress), then its result's (final), each once, through
// an events.Retrace (see "Events" under AgentRunner). It takes only the
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

// progress is the AgentProgress given to the runner.
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
// journal (WorkerJournal) into the run's own, when the runner has one and
// the run keeps a journal: once a cycle, after its agents (research), as
// one read of each journal. An import that fails is logged: the run goes
// on, and its journal lacks those calls (a replay makes them again).
func (r *Researcher) importJournal(ctx context.Context, run string, tasks []agent.Task) {
	wj, ok := r.cfg.Agents.(WorkerJournal)
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
