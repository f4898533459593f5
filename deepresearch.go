// Package deepresearch is a deep-research orchestrator: it plans a question
// into research tasks, runs research agents in parallel (each searching and
// reading sources, then writing a cited intermediate report), merges their
// citations into one numbering and writes a final report whose every
// citation resolves to a source that was really retrieved.
//
// It runs offline out of the box: with a zero Config, the model is the
// built-in extractive summariser and the search backend is a full-text
// index of the Go distribution's documentation. Any langchaingo llms.Model
// and any search.Backend plug in; the config package builds a Researcher
// from the settings the CLI, the server and the MCP server all read, by
// mapping them onto a Config (config.NewResearcher).
//
// This package makes every decision about research, and the front ends
// (cmd/deepresearch, httpapi, mcpserver) only adapt it to their callers:
// they decode a Request (Request.Validate holds it to the same limits
// everywhere), parse formats and actions with render.ParseFormat and
// verify.ParseAction (the words of a Request — Style, ReviewMode — parse
// themselves as its JSON is decoded), start runs with Researcher.Start (kept in
// a Store with RunOptions.Store), and render a Report, which renders the agents' findings when
// the writer failed (see Report). Its citation core is public too: the
// leaf packages cite (Cite, Citer, Collapse, Merger) and verify (Verify),
// and render (the formats, the JSON document and its schema, and
// render.References for a reference list alone).
//
//	r, err := deepresearch.New(deepresearch.Config{Corpus: "./docs"})
//	if err != nil { … }
//	defer r.Close()
//	run, err := r.Start(ctx, deepresearch.Request{Question: "How are undersea cables repaired?"}, deepresearch.RunOptions{})
//	if err != nil { … }
//	rep, err := run.Wait()
//	out, err := rep.Render(render.Markdown)
package deepresearch

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/output"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/internal/retry"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/verify"
	"github.com/deepresearch/deepresearch/web"
	"github.com/deepresearch/deepresearch/worker"
)

// Config configures a Researcher. The zero value runs offline on the
// built-in extractive model and the Go distribution's documentation; zero
// limits take the built-in defaults (those of config.Defaults, which
// config/defaults.yaml documents).
type Config struct {
	// Model answers every model call (planner, agents, writer). Nil means
	// the built-in extractive summariser: deterministic, offline, no
	// weights — it quotes the most relevant retrieved sentences rather than
	// writing new prose.
	Model llms.Model
	// PlannerModel, ResearcherModel and WriterModel answer one role each
	// (plan and the research loop's assessments, priced as the
	// planner's; the agents' tool loops and reports; the final report). Nil means
	// Model: a cheap model can research while a strong one writes.
	PlannerModel, ResearcherModel, WriterModel llms.Model
	// Judges are the models that judge relevance and support, or the
	// lexical judges instead of them.
	Judges Judges
	// Price returns the dollars one call's usage cost on the model of a
	// role: "planner", "researcher" or "writer", the Stage.Role of the
	// stage making the call (events.StagePlan.Role(), …). Nil means no cost is
	// known; Limits.MaxCost then needs one.
	Price func(role string, u events.Usage) float64
	// Search is the search backend: a corpus.Corpus (a local folder's
	// index), a web engine or Chroma collection of package web, an
	// mcpsource.Source, several of them at once (web.Combine), or any
	// search.Backend. Nil means the corpus of the Go distribution's
	// documentation: its standard library's packages with their examples,
	// the go command's help and $(go env GOROOT)/doc, written into the
	// user's cache directory on first use (a few seconds once per Go
	// version; see docs/offline.md). With a web engine among them, each
	// run reads result pages through a fetcher of its own (Fetch). The
	// Researcher owns it: Close closes it when it has a Close method.
	Search search.Backend
	// Channel names where the sources come from (Source.Channel). Empty
	// means "corpus" for a corpus alone, "web" with a web engine, and
	// "search" for another backend.
	Channel string
	// Domains is the domain policy (which pages research may use) and the
	// table of source tiers (how credible each is); the zero value allows
	// every page and rates sources with the built-in table.
	Domains domains.Config
	// Fetch configures the page fetcher each run with a web search engine
	// reads pages through (its SSRF guard, time and size limits), with a
	// cache that lives as long as the run.
	Fetch FetchConfig
	// Limits bound a run: its tasks, agents, cycles, results per search,
	// time, tokens and cost; zero fields take the defaults.
	Limits Limits
	// People are what a request that leaves its people-in-the-loop
	// members zero takes: clarify, plan review, the report's length,
	// language and audience (the zero value: none of them).
	People PeopleDefaults
	// Budget bounds each agent; zero fields take the defaults.
	Budget Budget
	// Unsupported is what the verification stage does with a citation
	// whose source does not support its sentence: verify.Keep,
	// verify.Flag or verify.Remove ("" is verify.Flag).
	Unsupported verify.Action
	// Style renders citations in Report.Text (default Markdown).
	Style cite.Style
	// MaxRetries is how many times a failed model call is tried again,
	// with exponential backoff from half a second (default 2; negative
	// means never). A call that already streamed text is not retried.
	MaxRetries int
	// StopGrace is how long a run whose context is done waits for its
	// agents to stop before it returns without them, naming them (default
	// 500ms). An agent stuck in a call that ignores its context is then
	// left to finish on its own; its events are dropped.
	StopGrace time.Duration
	// Logger receives diagnostics. Nil disables logging.
	Logger *zerolog.Logger
	// Agents runs the research agents of every run (see package worker).
	// Nil runs them in this process, at most Parallelism of a run at
	// once: the default. natsrun.Agents runs them on worker processes
	// through NATS JetStream.
	Agents worker.Runner
	// Clock tells time and arms timers: event stamps, stage timings, agent
	// time limits, the stop grace, retry backoffs, the FetchedAt of pages
	// (unless Fetch sets its own). Nil means the real clock. Tests inject
	// a clock.Fake (deepresearchtest.NewClock), or run inside a
	// testing/synctest bubble with the real one.
	Clock clock.Clock
	// Telemetry receives the OpenTelemetry spans and metrics of every run
	// (the zero value: none, at no cost).
	Telemetry Telemetry
}

// Limits bound a run (Config.Limits). Zero fields take the built-in
// defaults (those of config.Defaults); a Request's own limits narrow them
// for one run.
type Limits struct {
	// MaxTasks caps the research tasks of a plan.
	MaxTasks int
	// Parallelism caps the agents of one run running at once.
	Parallelism int
	// MaxAgents caps the agents running at once across all the runs of the
	// Researcher. 0 means two per core when every role runs on the
	// built-in model, which is CPU-bound (so that a server's many runs
	// queue for the cores instead of crowding out the delivery of their
	// events), and no cap beyond each run's Parallelism otherwise.
	MaxAgents int
	// SearchLimit is the results per search call.
	SearchLimit int
	// MaxCycles caps a run's research cycles (default 3):
	// after each, an assessment of the merged findings decides whether
	// follow-up agents research what is missing. 1 is a single pass.
	MaxCycles int
	// MaxRunAgents caps the agents of one run over all its cycles (0:
	// MaxTasks × MaxCycles, as many as the cycles can hold).
	MaxRunAgents int
	// MaxRunTime is a run's time budget (0: none): past it, agents stop
	// researching and write up, no cycle starts, and the report says so.
	// It does not cancel the run; a context deadline does.
	MaxRunTime time.Duration
	// MaxRunTokens caps the tokens of a whole run, over every model call
	// (0: no cap). When it is reached, the agents stop researching and
	// write up what they have, and the final report says so.
	MaxRunTokens int
	// MaxCost caps a run's cost in dollars, as Config.Price counts it (0: no cap),
	// with the same effect as MaxRunTokens.
	MaxCost float64
}

// Judges are the models that judge (Config.Judges): which search results
// are relevant to an agent's task, and whether each cited source supports
// the sentence that cites it.
type Judges struct {
	// Relevance judges which search results are relevant to an
	// agent's task, in one batched call per search. Nil means the
	// researchers' model (ResearcherModel, else Model) when it is a
	// language model; the built-in extractive model cannot judge, so with
	// it relevance is judged lexically, offline. A model whose answer is
	// unusable falls back to the lexical judge for that search; each
	// sources.filtered event names the judge that decided.
	Relevance llms.Model
	// Verify judges whether each cited source supports the sentence
	// that cites it. Nil means the writer's model (WriterModel, else
	// Model) when it is a language model, and the lexical check with the
	// built-in model; a model whose answer is unusable falls back to the
	// lexical check (Verification.Judge says which decided).
	Verify llms.Model
	// Lexical judges relevance and support lexically even when a
	// language model is configured: no judging calls, no cost.
	Lexical bool
}

// Telemetry is where a Researcher's OpenTelemetry spans and metrics go
// (Config.Telemetry).
type Telemetry struct {
	// TracerProvider receives the OpenTelemetry spans of every run: one
	// per run (the root), cycle, agent, model call (with the GenAI
	// semantic conventions' model, tokens and the call's cost), search,
	// fetch, verification and wait for a person, each carrying the run's
	// ID; ServeAgent continues the trace of the job's coordinator from its
	// context. Nil means none, at no cost. New reads no OTEL_* variable:
	// the front ends build the provider (docs/telemetry.md).
	TracerProvider trace.TracerProvider
	// MeterProvider receives the OpenTelemetry metrics of every run: the
	// GenAI semantic conventions' gen_ai.client.token.usage and
	// gen_ai.client.operation.duration per model call, and the runs,
	// their duration and cost, searches, document reads, citations by
	// verdict and failed agents (docs/telemetry.md lists the
	// instruments). Nil means none, at no cost. New reads no OTEL_*
	// variable: the front ends build the provider.
	MeterProvider metric.MeterProvider
	// ModelNames names the model of each role ("planner", "researcher",
	// "writer") as "provider:name", for the spans of model calls
	// (gen_ai.provider.name, gen_ai.request.model);
	// config.ResearcherConfig fills it. A role missing is a call without a model name.
	ModelNames map[string]string
}

// Researcher runs research. It is safe for concurrent use: each run is
// independent, and they share the model and search backend.
type Researcher struct {
	cfg    Config
	log    zerolog.Logger
	models map[string]llms.Model // by role, each with retries
	search search.Backend        // Config.Search, or the default corpus
	// borrowed: search is another Researcher's (a replay's), which Close
	// leaves open.
	borrowed bool
	corpora  []*corpus.Corpus // the corpora among search, loaded at each run's start
	pages    bool             // runs need a page fetcher (a web engine is among search)
	judge    relevance.Judge  // scores search results; nil: the offline lexical judge
	// verifyModel judges whether sources support the report's sentences;
	// nil: the lexical check.
	verifyModel llms.Model

	metrics *telemetry.Metrics // Config.Telemetry.MeterProvider's instruments; nil: none

	policy *domains.Policy // Config.Domains' allow and deny lists; nil: every page
	tiers  *domains.Table  // the source tiers; nil: none (NoTiers)

	agents chan struct{} // a slot per running agent, across runs; nil: no cap
	// offline: the planner is the built-in extractive model, which never
	// asks a clarifying question (the call is not made).
	offline bool

	runsMu sync.Mutex // guards closed, active and nextRun
	closed bool
	active map[uint64]context.CancelCauseFunc
	next   uint64
	runs   sync.WaitGroup
}

// New returns a Researcher. It does no I/O: a local corpus is opened and
// indexed on the first run.
func New(cfg Config) (*Researcher, error) {
	if cfg.Limits.MaxTasks < 0 || cfg.Limits.Parallelism < 0 || cfg.Limits.SearchLimit < 0 || cfg.Limits.MaxAgents < 0 {
		return nil, configErrorf("MaxTasks, Parallelism, SearchLimit and MaxAgents must not be negative")
	}
	if cfg.Limits.MaxCycles < 0 || cfg.Limits.MaxRunAgents < 0 || cfg.Limits.MaxRunTime < 0 {
		return nil, configErrorf("MaxCycles, MaxRunAgents and MaxRunTime must not be negative")
	}
	cfg.Limits.MaxCycles = defaults.PositiveOr(cfg.Limits.MaxCycles, defaults.MaxCycles)
	if err := cfg.People.check(); err != nil {
		return nil, configErrorf("People: %v", err)
	}
	if _, err := citeproc.ParseStyle(string(cfg.Style)); err != nil {
		return nil, configErrorf("Style: %v", err)
	}
	unsupported, err := output.ParseAction(string(cfg.Unsupported))
	if err != nil {
		return nil, configErrorf("Unsupported: %v", err)
	}
	cfg.Unsupported = unsupported
	if cfg.Limits.MaxRunTokens < 0 || cfg.Limits.MaxCost < 0 {
		return nil, configErrorf("MaxRunTokens and MaxCost must not be negative")
	}
	if cfg.Limits.MaxCost > 0 && cfg.Price == nil {
		return nil, configErrorf("MaxCost is set but no Price is known for the models (add them to model.prices)")
	}
	cfg.Limits.MaxTasks = defaults.PositiveOr(cfg.Limits.MaxTasks, defaults.MaxTasks)
	cfg.Limits.Parallelism = defaults.PositiveOr(cfg.Limits.Parallelism, defaults.Parallelism)
	cfg.Limits.SearchLimit = defaults.PositiveOr(cfg.Limits.SearchLimit, defaults.SearchLimit)
	cfg.Budget = cfg.Budget.withDefaults()
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = defaults.StopGrace
	}
	cfg.Clock = clock.Or(cfg.Clock)
	r := &Researcher{cfg: cfg, log: zerolog.Nop(), search: cfg.Search, active: map[uint64]context.CancelCauseFunc{}}
	if cfg.Logger != nil {
		r.log = *cfg.Logger
	}
	metrics, err := telemetry.NewMetrics(cfg.Telemetry.MeterProvider)
	if err != nil {
		return nil, configErrorf("MeterProvider: %v", err)
	}
	r.metrics = metrics
	base := cfg.Model
	if base == nil {
		base = extractive.New(extractive.Options{})
	}
	raw := map[string]llms.Model{} // by role, as configured
	r.models = map[string]llms.Model{}
	for role, m := range map[string]llms.Model{events.RolePlanner: cfg.PlannerModel, events.RoleResearcher: cfg.ResearcherModel, events.RoleWriter: cfg.WriterModel} {
		raw[role] = cmp.Or[llms.Model](m, base)
		r.models[role] = r.withRetries(raw[role])
	}
	r.offline = builtin(raw[events.RolePlanner])
	if !cfg.Judges.Lexical {
		// A language model judges relevance (in one batched call per
		// search) and support; the lexical judges stay their fallback.
		if m := r.judgeModel(cfg.Judges.Relevance, raw[events.RoleResearcher]); m != nil {
			r.judge = &relevance.LLMJudge{Model: m}
		}
		r.verifyModel = r.judgeModel(cfg.Judges.Verify, raw[events.RoleWriter])
	}
	if r.cfg.Limits.MaxAgents == 0 && builtin(raw[events.RolePlanner]) && builtin(raw[events.RoleResearcher]) && builtin(raw[events.RoleWriter]) {
		r.cfg.Limits.MaxAgents = 2 * runtime.GOMAXPROCS(0)
	}
	if r.cfg.Limits.MaxAgents > 0 {
		r.agents = make(chan struct{}, r.cfg.Limits.MaxAgents)
	}
	if err := r.setDomains(); err != nil {
		return nil, err
	}
	if r.search == nil {
		c, err := corpus.Open("", corpus.Options{Logger: cfg.Logger})
		if err != nil {
			return nil, fmt.Errorf("deepresearch: %w", err)
		}
		r.search = c
	}
	r.corpora, r.pages = backends(r.search)
	return r, nil
}

// builtin reports whether m is the built-in extractive model, which is
// no language model: it cannot judge, and it is CPU-bound.
func builtin(m llms.Model) bool {
	_, ok := m.(*extractive.Model)
	return ok
}

// judgeModel is the model that judges: the one configured for it, else
// the role's own when it is a language model (nil: judge lexically).
func (r *Researcher) judgeModel(configured, role llms.Model) llms.Model {
	switch {
	case configured != nil:
		return r.withRetries(configured)
	case builtin(role):
		return nil
	}
	return r.withRetries(role)
}

// backends finds the corpora in b (b itself, or a web.Combine's members)
// and whether a web engine is among them, whose runs need a page fetcher.
func backends(b search.Backend) (corpora []*corpus.Corpus, pages bool) {
	switch b := b.(type) {
	case *corpus.Corpus:
		return []*corpus.Corpus{b}, false
	case *web.Engine:
		return nil, true
	case *web.Combined:
		for _, m := range b.Members() {
			c, p := backends(m)
			corpora, pages = append(corpora, c...), pages || p
		}
	}
	return corpora, pages
}

// withRetries wraps m so that failed calls are retried as Config says,
// and journaled in the journal of the run that makes them (see
// RunOptions.Journal): outside the retries, so that a call is recorded once
// it has succeeded or finally failed.
func (r *Researcher) withRetries(m llms.Model) llms.Model {
	p := r.retryPolicy()
	if p.Retries == 0 {
		return journal.Model{Model: m}
	}
	log := r.log
	p.OnRetry = func(attempt int, err error) {
		log.Warn().Err(err).Int("attempt", attempt).Msg("model call failed; retrying")
	}
	return journal.Model{Model: &retry.Model{Model: m, Policy: p}}
}

// retryPolicy is how failed model and embedding calls are retried:
// Config.MaxRetries times (default 2; negative: never),
// with backoff from half a second on the Researcher's clock.
func (r *Researcher) retryPolicy() retry.Policy {
	retries := r.cfg.MaxRetries
	switch {
	case retries == 0:
		retries = defaults.MaxRetries
	case retries < 0:
		retries = 0
	}
	return retry.Policy{Retries: retries, Backoff: 500 * time.Millisecond, Clock: r.cfg.Clock}
}

// Close cancels the runs in progress (they fail with ErrClosed), waits for
// them to stop and releases the local corpus index. Runs started after
// Close fail with ErrClosed. Close is idempotent.
func (r *Researcher) Close() error {
	r.runsMu.Lock()
	r.closed = true
	for _, cancel := range r.active {
		cancel(ErrClosed)
	}
	r.runsMu.Unlock()
	r.runs.Wait()
	if c, ok := r.search.(io.Closer); ok && !r.borrowed {
		return c.Close()
	}
	return nil
}

// begin registers a run, so that Close can cancel it and wait for it. The
// returned context is canceled with ErrClosed by Close; end must be
// called when the run is over.
func (r *Researcher) begin(ctx context.Context) (_ context.Context, end func(), _ error) {
	r.runsMu.Lock()
	defer r.runsMu.Unlock()
	if r.closed {
		return nil, nil, &StageError{Stage: events.StagePlan, Err: ErrClosed}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	id := r.next
	r.next++
	r.active[id] = cancel
	r.runs.Add(1)
	return ctx, func() {
		r.runsMu.Lock()
		delete(r.active, id)
		r.runsMu.Unlock()
		cancel(nil)
		r.runs.Done()
	}, nil
}

// backend returns the search backend, the corpora among it opened and
// brought up to date on first use, journaled in the run's journal (when
// ctx has one).
func (r *Researcher) backend(ctx context.Context) (search.Backend, error) {
	for _, c := range r.corpora {
		if err := c.Load(ctx); err != nil {
			return nil, err
		}
	}
	channel := ""
	if len(r.corpora) == 1 && r.search == search.Backend(r.corpora[0]) {
		channel = corpus.Channel
	}
	return engine.Traced(journal.Backend{Backend: r.search}, channel), nil
}

// channel names where the agents' sources come from, for Source.Channel.
func (r *Researcher) channel() string {
	switch {
	case r.cfg.Channel != "":
		return r.cfg.Channel
	case r.pages:
		return web.Channel
	case len(r.corpora) == 1 && r.search == search.Backend(r.corpora[0]):
		return corpus.Channel
	}
	return "search"
}
