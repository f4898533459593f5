package deepresearch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/retry"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/search"
)

// Request is one research run. Zero fields take the Researcher's Config,
// so a server can vary limits, style and the run ID per request without a
// new Researcher (which would reopen the index).
//
// Its JSON form — the members with a JSON name below, from question to
// estimate — is what every front end decodes from its callers (the HTTP
// API's POST body, the MCP research tool's arguments) and what a Store
// keeps as a run's Options; Validate holds it to the same limits
// everywhere. RunID, Budget, MaxRunAgents, Hooks and Parent are not part
// of it: a front end names its runs and their follow-ups itself, and
// agent budgets and hooks are the operator's, not the caller's.
type Request struct {
	Question string `json:"question" jsonschema:"the research question"`
	// RunID names the run in its events and Report; empty means a fresh
	// random ID (NewRunID). A front end that keeps runs supplies its own.
	RunID string `json:"-"`
	// MaxTasks caps the research tasks of the plan (1 to MaxRequestTasks;
	// 0: Config.Limits.MaxTasks).
	MaxTasks int `json:"max_tasks,omitempty" jsonschema:"most research tasks the question is split into (1-16; default: the server's)"`
	// Parallelism caps the agents running at once (1 to MaxRequestTasks;
	// 0: Config.Limits.Parallelism).
	Parallelism int `json:"parallelism,omitempty" jsonschema:"most research agents at once (1-16; default: the server's)"`
	// SearchLimit is the results per search call (1 to
	// MaxRequestSearchLimit; 0: Config.Limits.SearchLimit).
	SearchLimit int `json:"search_limit,omitempty" jsonschema:"results per search (1-50; default: the server's)"`
	// Style is the citation style of Report.Text: Markdown, Plain,
	// Footnote or HTML ("markdown", "plain", "footnote" or "html" in the
	// JSON form, where another name is refused as it is decoded); empty
	// means Config.Style.
	Style cite.Style `json:"style,omitempty" jsonschema:"citation style: markdown, plain, footnote or html"`
	// Budget bounds each agent; zero fields take Config.Budget's.
	Budget Budget `json:"-"`
	// MaxCycles caps the research cycles (1 to MaxRequestCycles; 0:
	// Config.Limits.MaxCycles); 1 is a single pass: plan, one wave of agents,
	// merge, report.
	MaxCycles int `json:"max_cycles,omitempty" jsonschema:"most research cycles (1-8; 1 is a single pass; default: the server's)"`
	// MaxRunAgents caps the agents of the run over all its cycles (0:
	// Config.Limits.MaxRunAgents). Like Budget it is the operator's cost cap, not
	// part of the JSON form.
	MaxRunAgents int `json:"-"`
	// Domains narrows Config.Domains' policy for this run: more domains
	// denied, or only some allowed (nil: the configured policy).
	Domains *domains.Lists `json:"domains,omitempty" jsonschema:"domains to allow or deny for this run, within the server's policy"`

	// Clarify is ClarifyAuto (or empty: the model decides whether to ask
	// clarifying questions before planning) or ClarifyNever.
	Clarify ClarifyMode `json:"clarify,omitempty" jsonschema:"auto (ask clarifying questions when the question is ambiguous) or never"`
	// Answers are the answers to the run's clarifying questions, given
	// up front (a second chat turn, a resumed run): the run asks nothing
	// and the planner gets them.
	Answers []Answer `json:"answers,omitempty" jsonschema:"answers to the clarifying questions asked before"`
	// Plan, when set, is researched exactly: no clarifying question, no
	// planner call.
	Plan *Plan `json:"plan,omitempty" jsonschema:"a plan to research exactly, as deepresearch plan prints it"`
	// Review says which plans are shown to Hooks.Review: ReviewFirstPlan
	// (the plan, before research starts), ReviewEveryCycle (that and
	// each later cycle's follow-ups) or ReviewNever (none, whatever the
	// settings say); "" takes Config.People's. (The JSON form's former
	// "review_plan": true still reads, as "first_plan": see
	// UnmarshalJSON.)
	Review ReviewMode `json:"review,omitempty" jsonschema:"which plans stop the run for a person's review: first_plan (the plan, before research), every_cycle (each later research cycle's plan too) or never (no review, whatever the server's settings); default: the server's"`
	// Length is the report's target length in words (0: the writer's).
	Length int `json:"length,omitempty" jsonschema:"target length of the report in words"`
	// Outline names the report's sections in order; each is researched
	// as its own task and written from its own findings.
	Outline []string `json:"outline,omitempty" jsonschema:"the report's sections, in order"`
	// Language is the report's language ("": the question's); research
	// may read sources in any language.
	Language string `json:"language,omitempty" jsonschema:"the language the report is written in"`
	// Audience is who the report is for, and its tone ("": general).
	Audience string `json:"audience,omitempty" jsonschema:"who the report is written for, and in what tone"`
	// Hooks ask a person (nil: nobody is asked). Not part of the JSON form.
	Hooks *Hooks `json:"-"`
	// Estimate asks a front end for what the run would spend instead of
	// the run (Researcher.Estimate: the plan, expected and maximum calls,
	// tokens and dollars); nothing is researched. Start ignores it.
	Estimate bool `json:"estimate,omitempty" jsonschema:"return what the run would spend (the plan and the expected and maximum model calls, tokens and dollars) instead of running it"`

	// Parent makes the run a follow-up question of the stored run it
	// names (FollowUpRequest sets it; see Runs.Ask): it is answered from
	// that run's sources first, keeping its numbering. A follow-up runs
	// with the Store that holds its parent (RunOptions.Store, Runs); the store
	// keeps it as runstore.Run.Parent, not in the JSON form.
	Parent string `json:"-"`
	// thread loads what a follow-up starts from (Start sets it, with a Store).
	thread func(context.Context) (*engine.Thread, error)
}

// UnmarshalJSON reads req's JSON form strictly, as every front end
// decodes its callers' requests: a member req does not have is refused
// (as encoding/json's DisallowUnknownFields refuses it), and a word its
// typed members do not know (style, review) is a *RequestError naming
// the member and the words it takes. Members left out keep req's values.
//
// "review_plan", the form's former way to ask for review, still reads —
// stored runs, journals and clients of earlier versions carry it — and
// nothing writes it: true is review "first_plan" (with review
// "every_cycle", that; with "never", a contradiction, refused), false
// is nothing.
func (req *Request) UnmarshalJSON(b []byte) error {
	type plain Request // Request's members without this method
	in := struct {
		plain
		ReviewPlan bool `json:"review_plan"`
	}{plain: plain(*req)}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Named as a Request's member, not through the embedding.
			te.Struct, te.Field = "Request", strings.TrimPrefix(te.Field, "plain.")
		}
		if errors.Is(err, cite.ErrStyle) {
			var s struct {
				Style string `json:"style"`
			}
			_ = json.Unmarshal(b, &s)
			return styleError(cite.Style(s.Style))
		}
		return err
	}
	if in.ReviewPlan {
		switch in.Review {
		case "":
			in.Review = ReviewFirstPlan
		case ReviewNever:
			return &RequestError{Field: "review", Problem: "is never, and review_plan asks for the plan to be reviewed"}
		}
	}
	*req = Request(in.plain)
	return nil
}

// Limits of a Request, the same for every front end.
const (
	// MaxQuestionBytes bounds a question (after trimming spaces): it goes
	// into every prompt.
	MaxQuestionBytes = 4096
	// MaxRequestTasks bounds Request.MaxTasks and Request.Parallelism.
	MaxRequestTasks = 16
	// MaxRequestSearchLimit bounds Request.SearchLimit.
	MaxRequestSearchLimit = 50
	// MaxRequestCycles bounds Request.MaxCycles.
	MaxRequestCycles = 8
)

// Validate reports the first thing wrong with req, as a *RequestError
// naming the member of its JSON form: an empty question or one longer
// than MaxQuestionBytes, a limit out of its range, an unknown style.
// Start validates every request; a front end that answers its caller
// before the run starts validates first.
func (req Request) Validate() error {
	switch q := req.question(); {
	case q == "":
		return &RequestError{Field: "question", Problem: "is missing or empty"}
	case !strings.ContainsFunc(q, visible):
		return &RequestError{Field: "question", Problem: "has no visible character (only spaces, control or format characters)"}
	case len(q) > MaxQuestionBytes:
		return &RequestError{Field: "question", Problem: fmt.Sprintf("is %d bytes long; the limit is %d", len(q), MaxQuestionBytes)}
	}
	for _, f := range []struct {
		name   string
		v, max int
	}{{"max_tasks", req.MaxTasks, MaxRequestTasks}, {"parallelism", req.Parallelism, MaxRequestTasks}, {"search_limit", req.SearchLimit, MaxRequestSearchLimit}, {"max_cycles", req.MaxCycles, MaxRequestCycles}} {
		if f.v < 0 || f.v > f.max {
			return &RequestError{Field: f.name, Problem: fmt.Sprintf("is %d; it must be between 1 and %d (or left out for the default)", f.v, f.max)}
		}
	}
	if _, err := citeproc.ParseStyle(string(req.Style)); err != nil {
		return styleError(req.Style)
	}
	if err := checkDomains(req.Domains); err != nil {
		return err
	}
	return req.validatePeople()
}

// styleError is the RequestError of a style that is none of the Style
// constants.
func styleError(s cite.Style) *RequestError {
	return &RequestError{Field: "style", Problem: fmt.Sprintf("is %q; want markdown, plain, footnote or html", s)}
}

// question is the question without the spaces around it, its bytes that
// are not UTF-8 replaced by U+FFFD, as its JSON form (a journal's header,
// a stored run) keeps it: a run replays with the question it was made
// with.
func (req Request) question() string {
	return strings.ToValidUTF8(strings.TrimSpace(req.Question), "\uFFFD")
}

// visible reports whether r is a character a person sees: a letter, a
// mark, a number, a punctuation mark or a symbol, and not U+FFFD.
func visible(r rune) bool {
	return r != utf8.RuneError && unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// check reports what is wrong with req before it runs: Validate's
// findings, and limits outside its JSON form.
func (req Request) check() error {
	if err := req.Validate(); err != nil {
		return err
	}
	if req.MaxRunAgents < 0 {
		return &RequestError{Field: "max_run_agents", Problem: "must not be negative"}
	}
	return nil
}

// settle checks req and fills its zero fields from the Researcher's
// configuration.
func (r *Researcher) settle(req Request) (Request, error) {
	if err := req.check(); err != nil {
		return req, err
	}
	return r.fill(req), nil
}

// fill fills the zero fields of req, checked, from the Researcher's
// configuration.
func (r *Researcher) fill(req Request) Request {
	req.Question = req.question()
	req = r.cfg.People.fill(req)
	req.Style = cmp.Or(req.Style, r.cfg.Style, cite.Markdown)
	if req.RunID == "" {
		req.RunID = NewRunID()
	}
	req.MaxTasks = defaults.PositiveOr(req.MaxTasks, r.cfg.Limits.MaxTasks)
	req.Parallelism = defaults.PositiveOr(req.Parallelism, r.cfg.Limits.Parallelism)
	req.SearchLimit = defaults.PositiveOr(req.SearchLimit, r.cfg.Limits.SearchLimit)
	if req.Plan != nil && req.Plan.MaxCycles > 0 && req.MaxCycles == 0 {
		req.MaxCycles = req.Plan.MaxCycles
	}
	req.MaxCycles = defaults.PositiveOr(req.MaxCycles, r.cfg.Limits.MaxCycles)
	req.MaxRunAgents = defaults.PositiveOr(req.MaxRunAgents, r.cfg.Limits.MaxRunAgents)
	b := r.cfg.Budget
	b.MaxToolCalls = defaults.PositiveOr(req.Budget.MaxToolCalls, b.MaxToolCalls)
	b.MaxTokens = defaults.PositiveOr(req.Budget.MaxTokens, b.MaxTokens)
	b.Timeout = defaults.PositiveOr(req.Budget.Timeout, b.Timeout)
	req.Budget = b
	return req
}

const runLevel = -1 // the Agent of run-level events

func (r *Researcher) run(ctx context.Context, req Request, em *events.Emitter) (*Report, error) {
	clock := r.cfg.Clock
	start := clock.Now()
	rep := &Report{Version: render.Version, RunID: req.RunID, Question: req.Question, Style: req.Style,
		Sections: []Section{}, Sources: []cite.MergedSource{}, References: []render.Reference{}, TimingsMS: map[events.Stage]int64{}}
	log := r.log.With().Str("run", rep.RunID).Logger()
	meter := &engine.Meter{MaxTokens: r.cfg.Limits.MaxRunTokens, MaxCost: r.cfg.Limits.MaxCost, Price: r.cfg.Price, Names: r.cfg.Telemetry.ModelNames, MaxTime: r.cfg.Limits.MaxRunTime, Start: start, Now: clock.Now}
	model := func(role string) llms.Model { return meter.Model(role, r.models[role]) }
	ctx, retries := retry.WithCounter(ctx)
	finish := func() {
		rep.DurationMS, rep.Retries = clock.Now().Sub(start).Milliseconds(), retries.Load()
		rep.Usage = meter.Usage() // every call the run paid for, counted once
	}

	fail := func(stage events.Stage, err error) (*Report, error) {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (%v)", cause, err)
		}
		serr := &StageError{Stage: stage, Err: err}
		finish()
		rep.Error = serr.Error()
		em.Emit(runLevel, "", events.ErrorData{Error: err.Error(), Stage: stage})
		log.Error().Err(err).Str("stage", string(stage)).Msg("run failed")
		return rep, serr
	}
	stage := func(s events.Stage, t0 time.Time) { rep.TimingsMS[s] = clock.Now().Sub(t0).Milliseconds() }
	em.Emit(runLevel, "", events.RunStartedData{Question: req.Question, Config: r.startedConfig(req)})

	ctx, err := r.withDomains(ctx, req.Domains)
	if err != nil {
		return fail(events.StageIndex, err)
	}
	if r.pages {
		pages, err := fetch.New(r.fetcher())
		if err != nil {
			return fail(events.StageIndex, err)
		}
		defer pages.Close()
		ctx = fetch.NewContext(ctx, pages)
	}
	t0 := clock.Now()
	backend, err := r.backend(ctx)
	if err != nil {
		return fail(events.StageIndex, err)
	}
	if len(r.corpora) > 0 {
		stage(events.StageIndex, t0)
	}

	// A follow-up starts from the run it follows (ask.go).
	var th *engine.Thread
	if req.Parent != "" {
		if th, err = journaledThread(ctx, req); err != nil {
			return fail(events.StagePlan, fmt.Errorf("the run %s this follows up: %w", req.Parent, err))
		}
	}

	// Clarify, plan, review (people.go).
	t0 = clock.Now()
	pctx, span := telemetry.Start(ctx, telemetry.SpanPlan, trace.SpanKindInternal)
	answers, err := r.clarify(pctx, model(events.RolePlanner), req, em, rep)
	if err != nil {
		telemetry.End(span, err)
		stage(events.StagePlan, t0)
		return fail(events.StagePlan, err)
	}
	tasks, err := r.planTasks(pctx, model(events.RolePlanner), req, answers)
	if err == nil {
		tasks, err = r.review(pctx, &req, tasks, em)
	}
	telemetry.End(span, err)
	stage(events.StagePlan, t0)
	if err != nil {
		return fail(events.StagePlan, err)
	}
	plan := make([]events.PlanTask, len(tasks))
	for i, t := range tasks {
		plan[i] = events.PlanTask{Index: t.Index, ID: t.ID, Title: t.Title, Question: t.Question, Cycle: 1}
	}
	em.Emit(runLevel, "", events.PlanData{Tasks: plan})
	log.Info().Int("tasks", len(tasks)).Msg("planned")

	// Research in cycles, merge, write (internal/engine).
	res, failed, err := engine.Run(ctx, r.engineParams(req, em, meter, backend, model, log, rep, tasks, th))
	rep.take(res)
	if err != nil {
		return fail(failed, err)
	}
	refs := make([]events.Reference, len(res.Final.References))
	for i, ref := range res.Final.References {
		refs[i] = events.Reference{Number: ref.Number, Source: ref.Source}
	}
	em.Emit(runLevel, "", events.ReportFinishedData{References: refs, Unknown: res.Dropped})

	// Verify: every citation against the text of its source, as read.
	t0 = clock.Now()
	streamed := rep.Text
	if err := r.verifyReport(journal.WithScope(ctx, events.StageVerify.Scope()), rep, req.Style, r.cfg.Unsupported); err != nil {
		return fail(events.StageVerify, err)
	}
	stage(events.StageVerify, t0)
	revised := ""
	if rep.Text != streamed {
		revised = rep.Text
	}
	em.Emit(runLevel, "", verifiedData(rep.Verification, revised))

	finish()
	em.Emit(runLevel, "", events.RunFinishedData{
		Usage: rep.Usage, DurationMS: rep.DurationMS,
		Agents: res.Agents, AgentsFailed: res.Failed, Sources: len(rep.Sources), Citations: len(rep.References),
		Timings: rep.TimingsMS, Stopped: meter.Spent(), CostUSD: meter.Cost(), Cycles: rep.Cycles, LoopEnd: rep.LoopEnd,
	})
	log.Info().Int("references", len(rep.References)).Int("failed_agents", res.Failed).Int("cycles", rep.Cycles).
		Str("loop_end", rep.LoopEnd).Int64("took_ms", rep.DurationMS).Msg("run finished")
	return rep, nil
}

// engineParams are what the engine needs of a run of req, settled and
// reviewed: its plan of tasks, what it follows up (th; nil: none), its
// emitter, meter, metered models, backend and log, and the Researcher's
// agents, clock and tiers. rep holds the clarifications the report
// states.
func (r *Researcher) engineParams(req Request, em *events.Emitter, meter *engine.Meter, backend search.Backend, model func(string) llms.Model, log zerolog.Logger, rep *Report, tasks []agent.Task, th *engine.Thread) engine.Params {
	p := engine.Params{RunID: req.RunID, Question: req.Question, MaxTasks: req.MaxTasks, Parallelism: req.Parallelism, SearchLimit: req.SearchLimit,
		MaxCycles: req.MaxCycles, MaxRunAgents: req.MaxRunAgents, Style: req.Style, Budget: agent.Budget(req.Budget), Domains: req.Domains,
		Controls: req.controls(), Assumptions: assumptions(rep.Clarifications), Plan: tasks, Thread: th,
		Model: model, Backend: backend, Meter: meter, Emitter: em, Log: log, Clock: r.cfg.Clock, Agents: r.engineAgents(),
		Tiers: r.withTiers, Tiered: r.tiers != nil}
	if req.Review == ReviewEveryCycle {
		p.ReviewCycle = func(ctx context.Context, cycle, maxCycles int, tasks []agent.Task) ([]agent.Task, int, string, error) {
			req := req
			req.MaxCycles = maxCycles // the run's now: a reviewer may have set it
			return reviewCycle(ctx, req, em, log, cycle, tasks)
		}
	}
	return p
}

// engineAgents says where and how the engine runs a run's agents: here,
// with r's search channel and relevance judge, or through Config.Agents.
func (r *Researcher) engineAgents() engine.Agents {
	a := engine.Agents{Runner: r.cfg.Agents, Slots: r.agents, Channel: r.channel(), Judge: r.judge, StopGrace: r.cfg.StopGrace, Log: r.log}
	if a.Runner != nil {
		a.Settings = r.agentSettings()
	}
	return a
}
