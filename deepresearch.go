// Package deepresearch is a deep-research orchestrator: it plans a question
// into research tasks, runs research agents in parallel (each searching and
// reading sources, then writing a cited intermediate report), merges their
// citations into one numbering and writes a final report whose every
// citation resolves to a source that was really retrieved.
//
// It runs offline out of the box: with a zero Config, the model is the
// built-in extractive summariser and the search backend is a full-text
// index of the Go distribution's documentation. Any langchaingo llms.Model
// and any SearchBackend plug in; the config package builds a Researcher
// from the settings the CLI, the server and the MCP server all read, by
// mapping them onto a Config (config.NewResearcher).
//
// This package makes every decision about research, and the front ends
// (cmd/deepresearch, httpapi, mcpserver) only adapt it to their callers:
// they decode a Request (Request.Validate holds it to the same limits
// everywhere), parse formats and actions with ParseFormat and
// ParseAction (the words of a Request — Style, ReviewMode — parse
// themselves as its JSON is decoded), start runs with Researcher.Start (kept in
// a Store with RunOptions.Store), and render a Report, which renders the agents' findings when
// the writer failed (see Report). Its citation core is public too: the
// leaf packages cite (Cite, Citer, Collapse, Merger) and verify (Verify),
// and RenderReferences.
//
//	r, err := deepresearch.New(deepresearch.Config{Corpus: "./docs"})
//	if err != nil { … }
//	defer r.Close()
//	run, err := r.Start(ctx, deepresearch.Request{Question: "How are undersea cables repaired?"}, deepresearch.RunOptions{})
//	if err != nil { … }
//	rep, err := run.Wait()
//	out, err := rep.Render(deepresearch.FormatMarkdown)
package deepresearch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/clock"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/domains"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/mcpsource"
	"github.com/deepresearch/deepresearch/internal/output"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/internal/retry"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/internal/vector"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/verify"
)

// DefaultMaxRetries is how many times a failed model call is tried again
// when Config.MaxRetries is zero.
const DefaultMaxRetries = 2

// DefaultStopGrace is how long a canceled run waits for its agents to stop
// when Config.StopGrace is zero.
const DefaultStopGrace = 500 * time.Millisecond

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
	// MaxRunTokens caps the tokens of a whole run, over every model call
	// (0: no cap). When it is reached, the agents stop researching and
	// write up what they have, and the final report says so.
	MaxRunTokens int
	// MaxCost caps a run's cost in dollars, as Price counts it (0: no cap),
	// with the same effect as MaxRunTokens.
	MaxCost float64
	// Price returns the dollars one call's usage cost on the model of a
	// role: "planner", "researcher" or "writer", the Stage.Role of the
	// stage making the call (events.StagePlan.Role(), …). Nil means no cost is
	// known; MaxCost then needs one.
	Price func(role string, u Usage) float64
	// RelevanceModel judges which search results are relevant to an
	// agent's task, in one batched call per search. Nil means the
	// researchers' model (ResearcherModel, else Model) when it is a
	// language model; the built-in extractive model cannot judge, so with
	// it relevance is judged lexically, offline. A model whose answer is
	// unusable falls back to the lexical judge for that search; each
	// sources.filtered event names the judge that decided.
	RelevanceModel llms.Model
	// VerifyModel judges whether each cited source supports the sentence
	// that cites it. Nil means the writer's model (WriterModel, else
	// Model) when it is a language model, and the lexical check with the
	// built-in model; a model whose answer is unusable falls back to the
	// lexical check (Verification.Judge says which decided).
	VerifyModel llms.Model
	// LexicalJudges judges relevance and support lexically even when a
	// language model is configured: no judging calls, no cost.
	LexicalJudges bool
	// Search is the search backend. Nil means SearchEngines, else a local
	// full-text index of Corpus, built or updated on first use.
	Search SearchBackend
	// SearchEngines names the search backends of every run, searched
	// together in this order: "corpus" (the local index of Corpus) and
	// the web search engines "searxng", "tavily", "brave" and "exa", whose
	// address and keys are SearXNGURL, TavilyKey, BraveKey and ExaKey. With
	// a web engine, each run reads result pages through a fetcher of its
	// own (Fetch). Empty, or "corpus" alone, means the local index. It must
	// not be set with Search.
	SearchEngines []string
	// MCPServers are the MCP servers SearchEngines' "mcp:NAME" search
	// and read through, by NAME (see MCPServer). Each is connected on
	// the first search, shared by the Researcher's runs and ended by
	// Close.
	MCPServers map[string]MCPServer
	// SearXNGURL is the SearXNG instance SearchEngines' "searxng" asks (an
	// http or https URL); "searxng" needs it. New reads no environment
	// variable: config.ResearcherConfig (and so the CLI) fills it, the keys below and
	// Chroma's address and token from the settings' environment
	// (SEARXNG_URL, TAVILY_API_KEY, BRAVE_API_KEY, EXA_API_KEY, CHROMA_URL,
	// CHROMA_API_KEY; see config.Settings.Env).
	SearXNGURL string
	// TavilyKey, BraveKey and ExaKey are the API keys of SearchEngines'
	// "tavily", "brave" and "exa"; each engine named needs its key.
	TavilyKey, BraveKey, ExaKey string
	// Channel names where the sources come from (Source.Channel). Empty
	// means "corpus" for the local index, "web" with SearchEngines' web
	// engines, and "search" for Search.
	Channel string
	// Domains is the domain policy (which pages research may use) and the
	// table of source tiers (how credible each is); the zero value allows
	// every page and rates sources with the built-in table.
	Domains DomainConfig
	// Fetch configures the page fetcher each run with a web search engine
	// reads pages through (its SSRF guard, time and size limits), with a
	// cache that lives as long as the run.
	Fetch FetchConfig
	// Corpus is the folder indexed when Search is nil. Empty means the Go
	// distribution's documentation: its standard library's packages with
	// their examples, the go command's help and $(go env GOROOT)/doc,
	// written into the user's cache directory on first use (a few seconds
	// once per Go version; see docs/offline.md). New refuses a folder that
	// does not exist (ErrNoCorpusFolder) or holds no file of a format the
	// index reads (ErrEmptyCorpus), reading its listing and no file.
	Corpus string
	// IndexPath is the index database file for Corpus. Empty means a file
	// in the user's cache directory, one per corpus folder.
	IndexPath string
	// Embedder is an embedding model (NewEmbedder's, or any langchaingo
	// embeddings.Embedder). With one, the local index embeds its passages
	// when it is built (incrementally, in batches; the vectors are kept in
	// the index file by EmbeddingModel and content hash) and searches fuse
	// bm25 with vector similarity; a Chroma collection (SearchEngines'
	// "chroma") is queried with its vectors. Its calls are retried like
	// model calls. Nil means lexical search only, offline.
	Embedder Embedder
	// EmbeddingModel names Embedder's model ("openai:text-embedding-3-small"),
	// under which the index keeps its vectors, so that another model's are
	// never compared with them. Empty means the Embedder's own Name()
	// (NewEmbedder's have one); an Embedder without one needs it.
	EmbeddingModel string
	// Chroma names the collections SearchEngines' "chroma" queries (an
	// empty URL is Chroma's default, http://localhost:8000; an empty Token
	// sends none).
	Chroma ChromaConfig
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
	// MaxCycles caps a run's research cycles (default DefaultMaxCycles):
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
	Style Style
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
	// Agents runs the research agents of every run (see AgentRunner).
	// Nil runs them in this process, at most Parallelism of a run at
	// once: the default. natsrun.Agents runs them on worker processes
	// through NATS JetStream.
	Agents AgentRunner
	// Clock tells time and arms timers: event stamps, stage timings, agent
	// time limits, the stop grace, retry backoffs, the FetchedAt of pages
	// (unless Fetch sets its own). Nil means the real clock.
	Clock Clock
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

// Clock is a Researcher's time source: event stamps, stage timings, agent
// time limits, the stop grace, retry backoffs. Tests inject a fake one (see
// deepresearchtest.Clock), or run inside a testing/synctest bubble with
// the real one, so that no test waits on a real timeout.
type Clock = clock.Clock

// Researcher runs research. It is safe for concurrent use: each run is
// independent, and they share the model and search backend.
type Researcher struct {
	cfg    Config
	log    zerolog.Logger
	models map[string]llms.Model // by role, each with retries
	search SearchBackend
	pages  bool            // runs need a page fetcher (web search)
	judge  relevance.Judge // scores search results; nil: the offline lexical judge
	// verifyModel judges whether sources support the report's sentences;
	// nil: the lexical check.
	verifyModel llms.Model

	embedder vector.Embedder // Config.Embedder, named and retried; nil: none

	metrics *telemetry.Metrics // Config.MeterProvider's instruments; nil: none

	policy *domains.Policy // Config.Domains' allow and deny lists; nil: every page
	tiers  *domains.Table  // the source tiers; nil: none (NoTiers)

	indexMu  sync.Mutex // guards index, synced and lastSync, held while opening it
	index    *corpus.Index
	synced   bool
	lastSync corpus.SyncStats

	agents chan struct{} // a slot per running agent, across runs; nil: no cap
	// offline: the planner is the built-in extractive model, which never
	// asks a clarifying question (the call is not made).
	offline bool

	runsMu sync.Mutex // guards closed, active and nextRun
	closed bool
	active map[uint64]context.CancelCauseFunc
	next   uint64
	runs   sync.WaitGroup

	mcp []*mcpsource.Source // the MCP servers of SearchEngines, ended by Close
}

// New returns a Researcher. It does no I/O: a local corpus is opened and
// indexed on the first run.
func New(cfg Config) (*Researcher, error) {
	if cfg.MaxTasks < 0 || cfg.Parallelism < 0 || cfg.SearchLimit < 0 || cfg.MaxAgents < 0 {
		return nil, configErrorf("MaxTasks, Parallelism, SearchLimit and MaxAgents must not be negative")
	}
	if cfg.MaxCycles < 0 || cfg.MaxRunAgents < 0 || cfg.MaxRunTime < 0 {
		return nil, configErrorf("MaxCycles, MaxRunAgents and MaxRunTime must not be negative")
	}
	cfg.MaxCycles = defaults.PositiveOr(cfg.MaxCycles, DefaultMaxCycles)
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
	if cfg.MaxRunTokens < 0 || cfg.MaxCost < 0 {
		return nil, configErrorf("MaxRunTokens and MaxCost must not be negative")
	}
	if cfg.MaxCost > 0 && cfg.Price == nil {
		return nil, configErrorf("MaxCost is set but no Price is known for the models (add them to model.prices)")
	}
	cfg.MaxTasks = defaults.PositiveOr(cfg.MaxTasks, defaults.MaxTasks)
	cfg.Parallelism = defaults.PositiveOr(cfg.Parallelism, defaults.Parallelism)
	cfg.SearchLimit = defaults.PositiveOr(cfg.SearchLimit, defaults.SearchLimit)
	cfg.Budget = cfg.Budget.WithDefaults()
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = DefaultStopGrace
	}
	cfg.Clock = clock.Or(cfg.Clock)
	if cfg.Fetch.Clock == nil {
		cfg.Fetch.Clock = cfg.Clock
	}
	if cfg.Search != nil && len(cfg.SearchEngines) > 0 {
		return nil, configErrorf("Search and SearchEngines are both set: give one")
	}
	r := &Researcher{cfg: cfg, log: zerolog.Nop(), search: cfg.Search, active: map[uint64]context.CancelCauseFunc{}}
	if cfg.Logger != nil {
		r.log = *cfg.Logger
	}
	metrics, err := telemetry.NewMetrics(cfg.MeterProvider)
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
	if !cfg.LexicalJudges {
		// A language model judges relevance (in one batched call per
		// search) and support; the lexical judges stay their fallback.
		if m := r.judgeModel(cfg.RelevanceModel, raw[events.RoleResearcher]); m != nil {
			r.judge = &relevance.LLMJudge{Model: m}
		}
		r.verifyModel = r.judgeModel(cfg.VerifyModel, raw[events.RoleWriter])
	}
	if r.cfg.MaxAgents == 0 && builtin(raw[events.RolePlanner]) && builtin(raw[events.RoleResearcher]) && builtin(raw[events.RoleWriter]) {
		r.cfg.MaxAgents = 2 * runtime.GOMAXPROCS(0)
	}
	if r.cfg.MaxAgents > 0 {
		r.agents = make(chan struct{}, r.cfg.MaxAgents)
	}
	if err := r.setDomains(); err != nil {
		return nil, err
	}
	if err := r.setEmbedder(); err != nil {
		return nil, err
	}
	if err := r.searchEngines(); err != nil {
		return nil, err
	}
	if r.cfg.Corpus != "" && r.cfg.Search == nil && (len(r.cfg.SearchEngines) == 0 || slices.Contains(r.cfg.SearchEngines, websearch.ChannelCorpus)) {
		// A corpus that cannot be searched fails here, before any run.
		if err := corpus.CheckFolder(r.cfg.Corpus); err != nil {
			return nil, fmt.Errorf("deepresearch: %w", corpusError{err})
		}
	}
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

// searchEngines builds the search backend of Config.SearchEngines, when
// it names a web engine: the engines read pages through the fetcher of
// the run that asks (Config.Fetch); the local corpus, when named, is the
// Researcher's own index, opened on first use.
func (r *Researcher) searchEngines() error {
	names := r.cfg.SearchEngines
	if !slices.ContainsFunc(names, func(p string) bool { return p != websearch.ChannelCorpus }) {
		return nil // the local index alone, the default
	}
	wcfg := websearch.Config{SearXNGURL: r.cfg.SearXNGURL, TavilyKey: r.cfg.TavilyKey, BraveKey: r.cfg.BraveKey,
		ExaKey: r.cfg.ExaKey, Chroma: r.cfg.Chroma, Pages: journal.Pages{PageFetcher: fetch.ContextPages{}}, Tiers: r.tiers}
	var err error
	if wcfg.Backends, err = r.mcpSources(names); err != nil {
		return err
	}
	if r.embedder != nil {
		wcfg.Embedder = r.embedder
	}
	var local SearchBackend
	if slices.Contains(names, websearch.ChannelCorpus) {
		local = localIndex{r}
	}
	combined, err := websearch.Build(names, wcfg, local, websearch.Hooks{
		Failed: func(name string, err error) {
			r.log.Warn().Str("search", name).Err(err).Msg("a search backend failed; the others answered")
		},
	})
	if err != nil {
		r.closeMCP()
	}
	if errors.Is(err, websearch.ErrNoKey) {
		return configErrorf("SearchEngines: %v (New reads no environment: set Config's SearXNGURL, TavilyKey, BraveKey or ExaKey, which config.ResearcherConfig fills from the variable)", err)
	}
	if err != nil {
		return configErrorf("SearchEngines: %v", err)
	}
	r.search, r.pages = combined, true
	if r.cfg.Channel == "" {
		r.cfg.Channel = "web"
	}
	return nil
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
// Config.MaxRetries times (default DefaultMaxRetries; negative: never),
// with backoff from half a second on the Researcher's clock.
func (r *Researcher) retryPolicy() retry.Policy {
	retries := r.cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
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
	r.closeMCP()

	r.indexMu.Lock()
	defer r.indexMu.Unlock()
	if r.index == nil {
		return nil
	}
	err := r.index.Close()
	r.index = nil
	return err
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

// backend returns the search backend, opening and syncing the local corpus
// index on first use, journaled in the run's journal (when ctx has one).
func (r *Researcher) backend(ctx context.Context) (SearchBackend, error) {
	if r.search != nil {
		return tracedBackend{Backend: journal.Backend{Backend: r.search}}, nil
	}
	ix, err := r.openIndex(ctx)
	if err != nil {
		return nil, err
	}
	return tracedBackend{Backend: journal.Backend{Backend: ix}, channel: websearch.ChannelCorpus}, nil
}

// openIndex returns the local corpus index, opening and syncing it on first
// use.
func (r *Researcher) openIndex(ctx context.Context) (*corpus.Index, error) {
	r.indexMu.Lock()
	defer r.indexMu.Unlock()
	if r.index != nil && r.synced {
		return r.index, nil
	}
	dir, path, err := corpusPaths(ctx, r.cfg.Corpus, r.cfg.IndexPath)
	if err != nil {
		return nil, err
	}
	if r.index == nil {
		ix, err := corpus.Open(ctx, path, r.indexOptions()...)
		if err != nil {
			return nil, corpusError{err}
		}
		r.index = ix
	}
	start := r.cfg.Clock.Now()
	st, err := r.index.Sync(ctx, dir)
	if err != nil {
		return nil, corpusError{err}
	}
	r.synced, r.lastSync = true, st
	r.log.Info().Str("corpus", dir).Int("added", st.Added).Int("updated", st.Updated).Int("removed", st.Removed).
		Int("unchanged", st.Unchanged).Int("passages", st.Passages).Int("embedded", st.Embedded).Dur("took", r.cfg.Clock.Now().Sub(start)).Msg("corpus indexed")
	return r.index, nil
}

// channel names where the agents' sources come from, for Source.Channel.
func (r *Researcher) channel() string {
	switch {
	case r.cfg.Channel != "":
		return r.cfg.Channel
	case r.cfg.Search == nil:
		return "corpus"
	}
	return "search"
}
