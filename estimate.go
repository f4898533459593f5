package deepresearch

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/mdtext"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// Estimate is what a run of a request is expected to spend, and at most,
// worked out before it starts (Researcher.Estimate): from its plan, its
// settings (cycles, tasks, tool calls, token budgets, the writer's
// sections) and the models' prices. Its JSON form is what `deepresearch
// run --estimate`, the HTTP API's "estimate": true and the MCP research
// tool's estimate argument return.
type Estimate struct {
	Question string `json:"question"`
	// Plan is the first cycle's tasks: the request's plan, its outline's
	// sections, or the planner's (one planning call; offline, the offline
	// plan).
	Plan []events.PlanTask `json:"plan"`
	// MaxCycles and MaxAgents are the run's cycle and agent caps; the
	// maximum assumes both are reached.
	MaxCycles int `json:"max_cycles"`
	MaxAgents int `json:"max_agents"`
	// Expected is a typical run of this plan (see Researcher.Estimate for
	// the assumptions); Maximum is what the settings allow at most.
	Expected Spend `json:"expected"`
	Maximum  Spend `json:"maximum"`
	// Priced says whether the models' prices are known (Config.Price):
	// without, the dollars are zero.
	Priced bool `json:"priced"`
	// Spent is what the estimate itself cost: its planning call.
	Spent events.Usage `json:"spent"`
}

// Spend is model work: calls, tokens and dollars, in all and by role
// (planner, researcher, writer).
type Spend struct {
	events.Usage
	CostUSD float64                 `json:"cost_usd"`
	ByRole  map[string]events.Usage `json:"by_role"`
}

// The figures an estimate assumes of a call, in tokens.
const (
	// estBase bounds a call's fixed part: its system prompt and
	// instructions (each template is under 1,000 tokens).
	estBase = 1000
	// estSmall is the completion of a call that answers in a few lines:
	// a plan, clarifying questions, an assessment.
	estSmall = 500
	// estResult bounds one tool result: an opened document is cut at
	// 6,000 characters, a search's results at their excerpts.
	estResult = 2000
)

// Estimate works out what a run of req would spend, expected and at
// most, before it starts; it researches nothing. It makes the planning
// call a run makes first (none for a request with a plan or an outline;
// offline, the offline plan), and no other. With a plan, a run of the
// same request and settings spends at most Maximum (the maximum of each
// role's calls and tokens, and their price), on these bounds:
//
//   - cycles and agents: MaxCycles cycles and the run's agent cap
//     (MaxRunAgents, else MaxTasks × MaxCycles; with one cycle, the plan's
//     tasks);
//   - the planner: clarifying questions (when the run may ask), the plan,
//     and two assessments between cycles (one after the cycle, one when
//     the written report leaves a part unanswered), each reading every
//     agent's findings;
//   - each agent: MaxToolCalls + 2 calls; its research stops at three
//     quarters of its token budget B, so its tokens are at most 3.25 B
//     (its research, one turn past the check, a report turn reading the
//     whole conversation and writing at most what the budget leaves) plus
//     one turn's tool results;
//   - the writer: one report per cycle, each section once a cycle, the
//     frame, each completion capped at B and each reading every finding;
//   - MaxRunTokens (and MaxCost) cap it further: the budget, plus what the
//     agents running when it is reached and the writer may still spend.
//
// Expected assumes a typical run: the plan's tasks, with MaxCycles > 1 one
// follow-up cycle of half as many and two assessments; each agent using
// half its tool calls and three quarters of its token budget (at least
// its calls' fixed parts: small budgets are overshot); one writer
// call (with MaxCycles > 1, a section each and the frame) reading reports
// of a fifth of B each. It is a planning figure, not a bound.
//
// The judges' calls (relevance, verification) are not counted, as the
// run's Usage does not count them.
func (r *Researcher) Estimate(ctx context.Context, req Request) (*Estimate, error) {
	req, err := r.settle(req)
	if err != nil {
		return nil, err
	}
	m := &engine.Meter{Price: r.cfg.Price, Start: r.cfg.Clock.Now(), Now: r.cfg.Clock.Now}
	tasks, err := r.planTasks(ctx, m.Model(events.RolePlanner, r.models[events.RolePlanner]), req, req.Answers)
	if err != nil {
		return nil, &StageError{Stage: events.StagePlan, Err: err}
	}
	e := &Estimate{Question: req.Question, Plan: planTasksOf(tasks), MaxCycles: req.MaxCycles, Priced: r.cfg.Price != nil, Spent: m.Usage()}
	n1, c := len(tasks), req.MaxCycles
	limit := req.MaxRunAgents
	if limit <= 0 {
		limit = req.MaxTasks * c
	}
	agents := max(n1, limit)
	if c <= 1 {
		agents = n1
	}
	e.MaxAgents = agents
	b, k := req.Budget.MaxTokens, req.Budget.MaxToolCalls
	q := usage.Count(req.Question)
	asks := !r.offline && req.Clarify != ClarifyNever && req.Plan == nil && len(req.Outline) == 0 && len(req.Answers) == 0
	plans := req.Plan == nil && len(req.Outline) == 0

	// The maximum.
	var most [3]events.Usage // planner, researcher, writer
	small := events.Usage{Calls: 1, PromptTokens: estBase + q, CompletionTokens: b}
	if asks {
		most[0] = most[0].Add(small)
	}
	if plans {
		most[0] = most[0].Add(small)
	}
	findings := agents * b // every agent's report, at most
	if c > 1 {
		assess := events.Usage{Calls: 1, PromptTokens: estBase + q + findings, CompletionTokens: b}
		most[0] = most[0].Add(times(assess, 2*(c-1)))
	}
	agentMost := events.Usage{Calls: k + 2, PromptTokens: b*9/4 + k*estResult, CompletionTokens: b}
	most[1] = times(agentMost, agents)
	write := events.Usage{Calls: 1, PromptTokens: estBase + q + findings, CompletionTokens: b}
	if c <= 1 {
		most[2] = write
	} else {
		// A report per cycle, each section once a cycle (their findings
		// add up to every finding), the frame.
		most[2] = times(write, c).Add(events.Usage{Calls: agents * c, PromptTokens: agents*c*(estBase+q) + c*findings, CompletionTokens: agents * c * b}).Add(write)
	}
	e.Maximum = r.spend(most)
	r.capByBudget(&e.Maximum, req, agentMost, write)

	// The expected run.
	var typ [3]events.Usage
	if asks {
		typ[0] = typ[0].Add(events.Usage{Calls: 1, PromptTokens: estBase + q, CompletionTokens: estSmall})
	}
	if plans {
		typ[0] = typ[0].Add(events.Usage{Calls: 1, PromptTokens: estBase + q, CompletionTokens: estSmall})
	}
	expAgents := n1
	if c > 1 {
		expAgents = min(agents, n1+(n1+1)/2)
	}
	report := b / 5
	if c > 1 {
		assess := events.Usage{Calls: 1, PromptTokens: estBase + q + expAgents*report, CompletionTokens: estSmall}
		typ[0] = typ[0].Add(times(assess, min(2, c-1)))
	}
	calls := (k+1)/2 + 2
	typ[1] = times(events.Usage{Calls: calls, PromptTokens: max(b*3/4-report, calls*estBase), CompletionTokens: report}, expAgents)
	if c <= 1 {
		typ[2] = events.Usage{Calls: 1, PromptTokens: estBase + q + expAgents*report, CompletionTokens: report * max(1, n1)}
	} else {
		typ[2] = events.Usage{Calls: n1 + 1, PromptTokens: (n1+1)*(estBase+q) + 2*expAgents*report, CompletionTokens: 2 * report * max(1, n1)}
	}
	e.Expected = r.spend(typ)
	return e, nil
}

// times is u made n times.
func times(u events.Usage, n int) events.Usage {
	return events.Usage{Calls: u.Calls * n, PromptTokens: u.PromptTokens * n, CompletionTokens: u.CompletionTokens * n}
}

// spend is the Spend of each role's usage (planner, researcher, writer),
// priced by Config.Price.
func (r *Researcher) spend(by [3]events.Usage) Spend {
	s := Spend{ByRole: map[string]events.Usage{}}
	for i, role := range []string{events.RolePlanner, events.RoleResearcher, events.RoleWriter} {
		s.ByRole[role] = by[i]
		s.Usage = s.Usage.Add(by[i])
		if r.cfg.Price != nil {
			s.CostUSD += r.cfg.Price(role, by[i])
		}
	}
	return s
}

// capByBudget lowers a maximum to what the run's budgets allow: the
// tokens (or dollars) of MaxRunTokens (MaxCost), plus what may be spent
// past it — the current turn and the report of each agent running
// (Parallelism of them), and the writer's report. Calls are not capped.
func (r *Researcher) capByBudget(s *Spend, req Request, agentMost, write events.Usage) {
	past := times(agentMost, req.Parallelism).Add(write)
	if t := r.cfg.Limits.MaxRunTokens; t > 0 {
		if limit := t + past.Total(); s.Total() > limit {
			scale(s, float64(limit)/float64(s.Total()))
		}
	}
	if c := r.cfg.Limits.MaxCost; c > 0 && r.cfg.Price != nil {
		if limit := c + r.cfg.Price(events.RoleResearcher, times(agentMost, req.Parallelism)) + r.cfg.Price(events.RoleWriter, write); s.CostUSD > limit {
			scale(s, limit/s.CostUSD)
		}
	}
}

// scale multiplies s's tokens and dollars by f (< 1), rounding tokens up.
func scale(s *Spend, f float64) {
	up := func(n int) int { return int(math.Ceil(float64(n) * f)) }
	s.PromptTokens, s.CompletionTokens, s.CostUSD = up(s.PromptTokens), up(s.CompletionTokens), s.CostUSD*f
	for role, u := range s.ByRole {
		s.ByRole[role] = events.Usage{Calls: u.Calls, PromptTokens: up(u.PromptTokens), CompletionTokens: up(u.CompletionTokens)}
	}
}

// Markdown renders the estimate as a short markdown table: the plan's
// size, then the expected and maximum calls, tokens and dollars (dollars
// only when priced). The plan's titles are the model's words, escaped.
func (e *Estimate) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Estimate for: %s\n\n", mdtext.Escape(e.Question))
	fmt.Fprintf(&b, "Plan: %d task(s), up to %d cycle(s) and %d agent(s) in all.\n\n", len(e.Plan), e.MaxCycles, e.MaxAgents)
	for i, t := range e.Plan {
		fmt.Fprintf(&b, "%d. %s\n", i+1, mdtext.Escape(t.Title))
	}
	if len(e.Plan) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString("| | model calls | input tokens | output tokens | dollars |\n|---|---:|---:|---:|---:|\n")
	cost := func(s Spend) string {
		if !e.Priced {
			return "unpriced"
		}
		return fmt.Sprintf("$%.2f", s.CostUSD)
	}
	for _, row := range []struct {
		name string
		s    Spend
	}{{"expected", e.Expected}, {"at most", e.Maximum}} {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", row.name, row.s.Calls, row.s.PromptTokens, row.s.CompletionTokens, cost(row.s))
	}
	if e.Spent.Calls > 0 {
		fmt.Fprintf(&b, "\nThe estimate's planning call spent %d tokens.\n", e.Spent.Total())
	}
	return b.String()
}
