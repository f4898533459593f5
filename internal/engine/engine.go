// Package engine is the research of one run: the loop of cycles (each a
// wave of research agents, here or through a worker.Runner, merged in
// plan order, then assessed), the sections of a long report written as
// their research completes, the writing and checking of the report, and
// the one meter of what the run spent. The root package settles a
// Request, plans it, and gives the engine Params; the engine owns the
// run's working state (its merged sources, findings, timings) while it
// runs, and returns a Result the root turns into the public Report once.
//
// It imports no package of the module's front ends (cmd, httpapi,
// mcpserver, natsrun) nor the root: only internal packages and the
// public leaves they share (cite, events, search, source, worker,
// domains, clock).
package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
	"github.com/deepresearch/deepresearch/worker"
)

// ErrNoResearch reports a run in which no research agent produced a
// report; the error also wraps the first agent's cause.
var ErrNoResearch = errors.New("no research agent produced a report")

// Params are what a run's research needs: the request's values, settled
// (no zero takes a default here), the plan, and the run's models,
// backend, meter, emitter, log and clock. The root builds them once.
type Params struct {
	RunID    string
	Question string
	// MaxTasks caps an assessment's follow-ups per cycle; Parallelism the
	// agents running at once; SearchLimit the results per search.
	MaxTasks, Parallelism, SearchLimit int
	// MaxCycles caps the cycles (1: one wave, one writer call, as before
	// the loop); a reviewer may change it (ReviewCycle). MaxRunAgents
	// caps the agents over all cycles (0: MaxTasks a cycle).
	MaxCycles, MaxRunAgents int
	Style                   cite.Style
	Budget                  agent.Budget   // each agent's
	Domains                 *domains.Lists // the run's narrowing of the domain policy, for remote agents' jobs
	// Controls are the report's (length, outline, language, audience).
	Controls finalreport.Controls
	// Assumptions are the report's sentences about clarifying questions
	// nobody answered.
	Assumptions []string
	// Plan is the first cycle's tasks.
	Plan []agent.Task
	// Thread, when set, is what a follow-up starts from: its first cycle
	// reads the parent's sources.
	Thread *Thread

	Model   func(role string) llms.Model // the run's model of each role, metered
	Backend search.Backend
	Meter   *Meter
	Emitter *events.Emitter
	Log     zerolog.Logger // the run's
	Clock   clock.Clock
	Agents  Agents

	// Tiers sets the Tier of each web source, in place, and returns
	// sources; Tiered says a tier table rates sources (lowTier looks for
	// claims resting on low-tier ones).
	Tiers  func([]cite.MergedSource) []cite.MergedSource
	Tiered bool
	// ReviewCycle, when not nil, puts a later cycle's follow-up tasks to
	// review: it returns the tasks to research, the cycle budget the
	// reviewer set (0: unchanged), and why the research ends ("" while it
	// goes on).
	ReviewCycle func(ctx context.Context, cycle, maxCycles int, tasks []agent.Task) (accepted []agent.Task, setMaxCycles int, end string, err error)
}

// Agents is where and how a run's research agents run.
type Agents struct {
	// Runner runs them elsewhere (Config.Agents); nil: in this process.
	Runner worker.Runner
	// Settings are the coordinator's, sent with each job to Runner.
	Settings worker.Settings
	// Slots holds a slot per running agent across runs; nil: no cap.
	Slots chan struct{}
	// Channel names the search channel; Judge scores search results (nil:
	// the lexical judge).
	Channel string
	Judge   relevance.Judge
	// StopGrace is how long a canceled run waits for its agents.
	StopGrace time.Duration
	// Log is the Researcher's (agents' failures, panics, abandonments).
	Log zerolog.Logger
}

// Section is one research task's merged findings, as Report.Sections
// keeps it.
type Section struct {
	Task    events.PlanTask
	Text    string
	Failure *worker.Failure
}

// Result is what a run's research leaves: the published report (nil when
// the research failed) and the working state it was written from.
type Result struct {
	Final *finalreport.Report
	// Sources is the merged numbering; Sections the tasks in report
	// order, each with its findings.
	Sources  []cite.MergedSource
	Sections []Section
	// Cycles counts the cycles run; End says why the loop stopped.
	Cycles int
	End    string
	// Timings are the research, merge, assessment and report stages'
	// milliseconds, summed over the cycles.
	Timings map[events.Stage]int64
	// Agents counts the agents started; Failed those that failed.
	Agents, Failed int
	// Dropped counts the citations the published report made of no
	// merged source.
	Dropped int
	// SourceTexts and Relevance are by merged number: the text the agents
	// read of each source, and the relevance judgement of it (set with
	// Final).
	SourceTexts map[int]string
	Relevance   map[int]source.Relevance
}

// Run runs the research of p: the cycles, then the report. On failure it
// returns the stage that failed with the cause, and a Result without
// Final that holds what was found.
func Run(ctx context.Context, p Params) (Result, events.Stage, error) {
	l := newLoop(p)
	final, stage, err := l.research(ctx)
	res := l.result()
	if err != nil {
		return res, stage, err
	}
	res.Final = final
	res.SourceTexts = sourceTexts(l.outcomes, res.Sources)
	res.Relevance = sourceRelevance(l.outcomes, res.Sources)
	return res, "", nil
}

const runLevel = -1 // the Agent of run-level events

// Clip cuts s to at most n bytes, at a word boundary when there is one.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > n/2 {
		cut = sp
	}
	return s[:cut]
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// oneLineText is s on one line, its runs of spaces one space.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
