// Package worker is the protocol between a run and the runner of its
// research agents: a Runner gets each agent task of a run as a Job and
// answers with the agent's Result. The default runner (a nil
// deepresearch.Config.Agents) runs every agent in the run's own process;
// natsrun.Agents publishes each Job to a NATS JetStream work queue, where
// a worker process (natsrun.Cluster.Serve, `deepresearch worker`) runs it
// with deepresearch.Researcher.ServeAgent — the same code as the default
// — and answers with its Result. A Job and a Result cross the wire as
// JSON; coordinators and workers of one version interoperate.
//
// A run plans, then hands each agent task of a cycle to its Runner and
// merges what comes back in plan order.
//
// Events: an agent's events reach the run twice over. While a worker's
// attempt runs, the runner may report them as they happen (Progress),
// and the run emits them at once, so a live page sees an agent's
// searches and its report's text as they come; the result then carries
// them all (Result.Events), and the run emits those not yet emitted.
// When an attempt is lost (a worker killed mid-task) and another runs
// the task again, the new attempt retraces what the lost one reported,
// by the rules a resumed run follows: an event is identified by its
// place among the agent's events, streamed text by its span, so what the
// new attempt does again is not emitted twice, what goes past it is
// emitted, and where the new attempt's report departs from the text
// streamed so far (or stops short of it) a stream.reset gives the text
// that stands. A subscriber thus sees every event of an agent once, and
// a report's text as the run kept it — unless the attempts differ in
// events other than text (an attempt that failed where the next goes
// on), when the lost attempt's events from there on stand beside the new
// one's, as in a resumed run.
//
// Budgets: each agent's budget travels with its Job. The run's budgets
// (deepresearch.Limits: MaxRunTokens, MaxCost, MaxRunTime) are counted
// as each agent's result arrives; an agent already running elsewhere is
// not stopped early by them, as an in-process one is.
//
// This package imports no other package of the module but events (and
// the internal packages its aliases name): a program that runs agents
// elsewhere speaks it without the root's engine.
package worker

import (
	"context"
	"errors"

	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
)

// Runner runs one research agent of a run. RunAgent returns the agent's
// result, or an error when it could not get one (ctx done, the task
// failed on every delivery); the run then counts the agent as failed. It
// is called from the run's goroutines, up to the run's parallelism at
// once, and must be safe for concurrent use. progress, when not nil, is
// told of the agent's events as they happen (Progress); a runner that
// cannot report them live ignores it.
type Runner interface {
	RunAgent(ctx context.Context, job Job, progress Progress) (*Result, error)
}

// Journal is implemented by a Runner whose workers journal the calls of
// the agents they run in a journal of their own (natsrun's journal
// stream): Journal returns run's entries there. When a cycle's agents
// have ended, the run copies their entries it does not hold yet into its
// own journal, so that the run's journal holds every call of the run, as
// an in-process run's does: an export packs them, and a replay answers
// the agents' calls from them.
type Journal interface {
	Journal(ctx context.Context, run string) ([][]byte, error)
}

// Progress is told of an agent's events while a runner's attempt at it
// runs, before its result: attempt numbers the attempt (from 1; a higher
// one has superseded the lower ones), and n is the event's place among
// that attempt's events (from 0), as in Result.Events. A runner calls it
// from one goroutine at a time, and may skip events or stop calling it:
// the result's Events are what counts, and an attempt whose reports have
// a gap is not relayed further. With attempt 0 the runner speaks for
// itself, not for an attempt: a WorkersMissing event (the task waits with
// no worker to take it) is emitted at run level, and any other event it
// so reports is dropped.
type Progress func(attempt, n int, e events.Event)

// The agent's side of a Job and a Result, defined by the research agent
// itself. Their JSON forms are those of Go's encoding/json for their
// fields, which carry no tags.
type (
	// Task is one research task of a plan, as an agent gets it. Its
	// fields: Index int, the task's place in the plan from 0; ID string
	// ("t1", "t2", … Index+1); Title and Question string; Objective
	// string, the run's question the task is part of ("": Question);
	// Cycle int, the research cycle it runs in (from 1); Part string,
	// for a follow-up task the ID of the plan task whose part of the
	// question it serves, and Gap string, what it closes; Known *Known,
	// what earlier cycles found (findings and sources, shown to the
	// agent; nil in the first); Read []string, documents of the search
	// backend the agent reads before its first turn.
	Task = agent.Task

	// Output is what a research agent produced. Its fields: Task Task;
	// Report string, its report with its own [n] markers, as the model
	// wrote it; Sources map[int]source.Source, every source it
	// retrieved, by its own numbers; Texts map[int]string, the text of
	// each source the model was shown, what its citations are checked
	// against; Relevance map[int]source.Relevance, what the
	// relevance filter said of each source it kept; Cited, the sources the report cited in order of
	// first citation; Unknown, numbers it cited that it never retrieved;
	// Usage events.Usage, its model calls; ToolCalls int, the tool calls
	// it executed.
	Output = agent.Result
)

// Job is one agent task of a run, with the settled settings of the run an
// agent needs. Its JSON form is what crosses the wire.
type Job struct {
	// RunID is the run's ID: its journal's name.
	RunID string `json:"run_id"`
	// Question is the run's question (for logs; the task carries its
	// objective).
	Question string `json:"question"`
	// SearchLimit is the results per search call; Budget (a
	// deepresearch.Budget: MaxToolCalls, MaxTokens, Timeout) bounds the
	// agent. Both are the run's settled values.
	SearchLimit int          `json:"search_limit"`
	Budget      agent.Budget `json:"budget"`
	// Task is the agent's task; Task.Cycle and Task.Index name it within
	// the run.
	Task Task `json:"task"`
	// Settings are the coordinator's settings that shape an agent's work;
	// a worker whose own differ refuses the job (ErrSettings), as its
	// agent would not do what the run's would. Zero: not checked.
	Settings Settings `json:"settings,omitzero"`
	// Domains are the run's request's domain lists
	// (deepresearch.Request.Domains), which narrow the worker's own
	// policy as they narrowed the coordinator's; nil: none.
	Domains *domains.Lists `json:"domains,omitempty"`
}

// Settings are the settings that shape what an agent finds and writes.
type Settings struct {
	// Model is the researcher model ("provider:name", or "extractive").
	Model string `json:"model"`
	// Judge is what judges relevance: a model, or "lexical".
	Judge string `json:"judge"`
	// Channel is the search channel.
	Channel string `json:"channel"`
	// Pages is whether the agent reads web pages.
	Pages bool `json:"pages,omitempty"`
}

// Result is how one agent ended: Output when it wrote a report, Failure
// when it did not, and the events it emitted, for the run to emit
// (Runner). Its JSON form is what crosses the wire.
type Result struct {
	// Output is the agent's result; nil when it failed.
	Output *Output `json:"output,omitempty"`
	// Failure says why it failed; nil when it did not.
	Failure *Failure `json:"failure,omitempty"`
	// Spent is a failed agent's usage.
	Spent events.Usage `json:"spent,omitzero"`
	// DurationMS is how long the agent ran.
	DurationMS int64 `json:"duration_ms"`
	// Events are the agent's events from agent.started on, in order, but
	// for the last (agent.finished or agent.failed), which the run emits
	// itself. Their Seq and Time are the worker's; the run numbers them
	// anew.
	Events []events.Event `json:"events"`
}

// Failure is why a research agent produced no report: in a Result, and
// in a report's section (deepresearch.Section.Failure).
type Failure struct {
	// Kind is events.FailError, FailPanic, FailTimeout or FailCanceled.
	Kind string `json:"kind"`
	// Error is the failure, as text.
	Error string `json:"error"`
}

// Errors of a worker asked to run a Job.
var (
	// ErrJob reports a Job that cannot be run.
	ErrJob = errors.New("worker: bad agent job")
	// ErrSettings reports a Job whose coordinator's settings differ from
	// those of the worker asked to serve it.
	ErrSettings = errors.New("worker: this worker's settings differ from the coordinator's")
)
