// Package deepresearch is a deep-research orchestrator: it plans a question
// into research tasks, runs research agents in parallel (each searching and
// reading sources, then writing a cited intermediate report), merges their
// citations into one numbering and writes a final report whose every
// citation resolves to a source that was really retrieved.
//
// It runs offline out of the box: with a zero Config, the model is the
// built-in extractive summariser and the search backend is a full-text
// index of the Go distribution's documentation. Any langchaingo llms.Model
// and any SearchBackend plug in.
//
//	r, err := deepresearch.New(deepresearch.Config{Corpus: "./docs"})
//	if err != nil { … }
//	defer r.Close()
//	rep, err := r.Run(ctx, "How are undersea cables repaired?")
//	fmt.Print(rep.Markdown())
package deepresearch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/retry"
	"github.com/deepresearch/deepresearch/internal/search"
	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// Types callers see, defined in the internal packages.
type (
	// Event is one thing that happened in a run; see the events' Type.
	Event = events.Event
	// EventType names an event ("agent.search", "report.delta", …).
	EventType = events.Type
	// Source is a retrieved document a report can cite.
	Source = source.Source
	// Usage counts model calls and tokens.
	Usage = usage.Usage
	// Budget bounds one research agent: tool calls, tokens and time.
	Budget = agent.Budget
	// SearchBackend is what research agents search and read.
	SearchBackend = search.Backend
	// SearchResult is one passage a search returned.
	SearchResult = search.Result
	// Document is a whole document a SearchBackend returns.
	Document = search.Document
	// Reference is one entry of the final report's reference list.
	Reference = finalreport.Reference
	// MergedSource is a source of the merged numbering of all agents.
	MergedSource = collapse.Source
	// Style is how citations are rendered in the report text.
	Style = citeproc.Style
	// JSONReport is the report as structured data with a citation sidecar.
	JSONReport = finalreport.Document
)

// Citation styles.
const (
	Markdown = citeproc.Markdown // [[1]](https://…)
	Plain    = citeproc.Plain    // [1]
	Footnote = citeproc.Footnote // [^1]
	HTML     = citeproc.HTML     // <sup><a href="…">[1]</a></sup>
)

// Event types, re-exported for switch statements.
const (
	RunStarted     = events.RunStarted
	PlanReady      = events.PlanReady
	AgentStarted   = events.AgentStarted
	SearchIssued   = events.SearchIssued
	SourceFound    = events.SourceFound
	AgentDelta     = events.AgentDelta
	AgentCited     = events.AgentCited
	AgentFinished  = events.AgentFinished
	AgentFailed    = events.AgentFailed
	SourcesMerged  = events.SourcesMerged
	ReportDelta    = events.ReportDelta
	CitationFound  = events.Citation
	ReportFinished = events.ReportFinished
	RunFinished    = events.RunFinished
	RunError       = events.Error
)

// Defaults of the zero Config.
const (
	DefaultMaxTasks    = 4
	DefaultParallelism = 4
	DefaultSearchLimit = 5
	DefaultMaxRetries  = 2
)

// Config configures a Researcher. The zero value runs offline on the
// built-in extractive model and the Go distribution's documentation.
type Config struct {
	// Model answers every model call (planner, agents, writer). Nil means
	// the built-in extractive summariser: deterministic, offline, no
	// weights — it quotes the most relevant retrieved sentences rather than
	// writing new prose.
	Model llms.Model
	// Search is the search backend. Nil means a local full-text index of
	// Corpus, built or updated on first use.
	Search SearchBackend
	// Corpus is the folder indexed when Search is nil. Empty means the Go
	// distribution's documentation ($(go env GOROOT)/doc).
	Corpus string
	// IndexPath is the index database file for Corpus. Empty means a file
	// in the user's cache directory, one per corpus folder.
	IndexPath string
	// MaxTasks caps the research tasks of a plan (default 4).
	MaxTasks int
	// Parallelism caps the agents running at once (default 4).
	Parallelism int
	// SearchLimit is the results per search call (default 5).
	SearchLimit int
	// Budget bounds each agent; zero fields take agent defaults (8 tool
	// calls, 16000 tokens, 2 minutes).
	Budget Budget
	// Style renders citations in Report.Text (default Markdown).
	Style Style
	// MaxRetries is how many times a failed model call is tried again,
	// with exponential backoff from half a second (default 2; negative
	// means never). A call that already streamed text is not retried.
	MaxRetries int
	// Logger receives diagnostics. Nil disables logging.
	Logger *zerolog.Logger
	// Clock stamps events; nil means time.Now.
	Clock func() time.Time
}

// Researcher runs research. It is safe for concurrent use: each Run is
// independent, and they share the model and search backend.
type Researcher struct {
	cfg    Config
	log    zerolog.Logger
	model  llms.Model
	search SearchBackend

	mu       sync.Mutex // guards index, opening it
	index    *corpus.Index
	indexErr error
	synced   bool
}

// New returns a Researcher. It does no I/O: a local corpus is opened and
// indexed on the first Run.
func New(cfg Config) (*Researcher, error) {
	if cfg.MaxTasks < 0 || cfg.Parallelism < 0 || cfg.SearchLimit < 0 {
		return nil, fmt.Errorf("%w: MaxTasks, Parallelism and SearchLimit must not be negative", ErrConfig)
	}
	switch cfg.Style {
	case Markdown, Plain, Footnote, HTML:
	default:
		return nil, fmt.Errorf("%w: unknown Style %d", ErrConfig, cfg.Style)
	}
	cfg.MaxTasks = cmpOr(cfg.MaxTasks, DefaultMaxTasks)
	cfg.Parallelism = cmpOr(cfg.Parallelism, DefaultParallelism)
	cfg.SearchLimit = cmpOr(cfg.SearchLimit, DefaultSearchLimit)
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	r := &Researcher{cfg: cfg, log: zerolog.Nop(), model: cfg.Model, search: cfg.Search}
	if cfg.Logger != nil {
		r.log = *cfg.Logger
	}
	if r.model == nil {
		r.model = extractive.New(extractive.Options{})
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	if retries > 0 {
		log := r.log
		r.model = &retry.Model{Model: r.model, Retries: retries, Backoff: 500 * time.Millisecond,
			OnRetry: func(attempt int, err error) {
				log.Warn().Err(err).Int("attempt", attempt).Msg("model call failed; retrying")
			}}
	}
	return r, nil
}

// Close releases the local corpus index, if the Researcher opened one.
func (r *Researcher) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.index == nil {
		return nil
	}
	err := r.index.Close()
	r.index = nil
	return err
}

// backend returns the search backend, opening and syncing the local corpus
// index on first use.
func (r *Researcher) backend(ctx context.Context) (SearchBackend, error) {
	if r.search != nil {
		return r.search, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.index != nil && r.synced {
		return r.index, nil
	}
	dir, path, err := corpusPaths(r.cfg.Corpus, r.cfg.IndexPath)
	if err != nil {
		return nil, err
	}
	if r.index == nil {
		ix, err := corpus.Open(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorpus, err)
		}
		r.index = ix
	}
	start := time.Now()
	st, err := r.index.Sync(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("%w: indexing %s: %w", ErrCorpus, dir, err)
	}
	r.synced = true
	r.log.Info().Str("corpus", dir).Int("added", st.Added).Int("updated", st.Updated).Int("removed", st.Removed).
		Int("unchanged", st.Unchanged).Int("passages", st.Passages).Dur("took", time.Since(start)).Msg("corpus indexed")
	return r.index, nil
}

// Sentinel errors; match them with errors.Is.
var (
	// ErrConfig reports an invalid Config.
	ErrConfig = errors.New("deepresearch: invalid config")
	// ErrCorpus reports a local corpus that could not be opened or indexed.
	ErrCorpus = errors.New("deepresearch: corpus")
	// ErrNoResearch reports a run in which no research agent produced a
	// report.
	ErrNoResearch = errors.New("deepresearch: no research agent produced a report")
	// ErrNotFound is what a SearchBackend's Fetch wraps for an unknown
	// document.
	ErrNotFound = search.ErrNotFound
)

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
