package deepresearch

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/embeddings"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/clock"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/retry"
	"github.com/deepresearch/deepresearch/internal/vector"
	"github.com/deepresearch/deepresearch/internal/websearch"
)

// Embedder turns texts into vectors: langchaingo's embeddings.Embedder
// (EmbedDocuments for passages, EmbedQuery for searches). Config.Embedder
// takes one; NewEmbedder builds a provider's.
type Embedder = embeddings.Embedder

// ChromaConfig names the Chroma collections SearchEngines' "chroma"
// queries: the server (empty: $CHROMA_URL, else http://localhost:8000),
// the collections' names (Collection, then Collections: all are queried
// at once, each record keeping its collection), their tenant and database
// (empty: Chroma's defaults) and a token sent as x-chroma-token (empty:
// $CHROMA_API_KEY).
type ChromaConfig = websearch.ChromaConfig

// NewEmbedder returns the embedding model named model, "provider:name" or
// "provider" for its default: "openai:text-embedding-3-small" (OpenAI, or
// any OpenAI-compatible /v1/embeddings at baseURL), "ollama:nomic-embed-text"
// (a local Ollama's /v1), "googleai:gemini-embedding-001" (Gemini's
// batchEmbedContents). baseURL and apiKey, when not empty, override the
// provider's address and key; it reads no environment variable (the
// settings' model.embeddings does: FromSettings). It does no I/O. The
// Embedder names itself (Config.EmbeddingModel may stay empty) and does
// not retry: New wraps it in the retries of model calls.
func NewEmbedder(model, baseURL, apiKey string) (Embedder, error) {
	return newEmbedder(model, baseURL, apiKey, nil)
}

// newEmbedder is NewEmbedder with the provider's usual variables
// (OPENAI_API_KEY, OPENAI_BASE_URL, OLLAMA_HOST, GOOGLE_API_KEY or
// GEMINI_API_KEY) read through getenv (nil: none).
func newEmbedder(model, baseURL, apiKey string, getenv func(string) string) (Embedder, error) {
	p, name := provider.ParseRole(model)
	if p == "" {
		p, name = name, ""
	}
	e, err := provider.NewEmbedder(provider.Config{Provider: p, Name: name, BaseURL: baseURL, APIKey: apiKey}, getenv)
	if err != nil {
		return nil, configErrorf("embeddings: %v", err)
	}
	return e, nil
}

// embedderFromSettings builds model.embeddings' embedder, nil when none
// is set: on the main model's provider it shares model.base_url and
// model.api_key; the provider's usual variables are read through getenv.
func embedderFromSettings(m config.Model, getenv func(string) string) (Embedder, error) {
	if m.Embeddings == "" {
		return nil, nil
	}
	p, _ := provider.ParseRole(m.Embeddings)
	if p == "" {
		p = m.Embeddings
	}
	var base, key string
	if p == m.Provider {
		base, key = m.BaseURL, m.APIKey
	}
	return newEmbedder(m.Embeddings, base, key, getenv)
}

// setEmbedder names Config.Embedder and wraps it in the retries of model
// calls.
func (r *Researcher) setEmbedder() error {
	e := r.cfg.Embedder
	if e == nil {
		if r.cfg.EmbeddingModel != "" {
			return configErrorf("EmbeddingModel is set but Embedder is nil")
		}
		return nil
	}
	name := r.cfg.EmbeddingModel
	if n, ok := e.(interface{ Name() string }); ok && name == "" {
		name = n.Name()
	}
	if name == "" {
		return configErrorf("EmbeddingModel must name the Embedder's model: the index keeps vectors by it")
	}
	policy := r.retryPolicy()
	policy.OnRetry = func(attempt int, err error) {
		r.log.Warn().Err(err).Int("attempt", attempt).Str("embeddings", name).Msg("embedding call failed; retrying")
	}
	r.embedder = vector.Named(&retry.Embedder{Embedder: e, Policy: policy}, name)
	return nil
}

// indexOptions are the local index's options: its embedding model.
func (r *Researcher) indexOptions() []corpus.Option {
	if r.embedder == nil {
		return nil
	}
	return []corpus.Option{corpus.WithEmbedder(r.embedder)}
}

// Index brings the Researcher's local corpus index up to date (Config's
// Corpus and IndexPath), embedding new passages with its Embedder: what
// its first run would do, done ahead. IndexStats.Embedded counts the
// passages embedded. An index left without documents fails with
// ErrEmptyCorpus, as the package's Index does.
func (r *Researcher) Index(ctx context.Context) (IndexStats, error) {
	dir, path, err := corpusPaths(ctx, r.cfg.Corpus, r.cfg.IndexPath)
	if err != nil {
		return IndexStats{}, &StageError{Stage: events.StageIndex, Err: err}
	}
	r.indexMu.Lock()
	r.synced = false // sync again, even if a run already did
	r.indexMu.Unlock()
	if _, err := r.openIndex(ctx); err != nil {
		return IndexStats{}, &StageError{Stage: events.StageIndex, Err: err}
	}
	r.indexMu.Lock()
	st := r.lastSync
	r.indexMu.Unlock()
	return indexed(dir, path, st)
}

// diagnoseEmbeddings describes model.embeddings and, with call, embeds
// one query; the provider's usual variables are read through getenv.
func diagnoseEmbeddings(ctx context.Context, m config.Model, getenv func(string) string, call bool) Diagnosis {
	p, name := provider.ParseRole(m.Embeddings)
	if p == "" {
		p, name = name, ""
	}
	cfg := provider.Config{Provider: p, Name: cmp.Or(name, provider.DefaultEmbeddingNames[p])}
	if p == m.Provider {
		cfg.BaseURL, cfg.APIKey = m.BaseURL, m.APIKey
	}
	desc := provider.Describe(cfg, getenv)
	d := Diagnosis{Part: "embeddings", Provider: desc.Provider, Detail: strings.TrimSpace(desc.Name + " " + desc.BaseURL), Key: desc.Key, Err: desc.Err}
	if !call || d.Err != "" {
		return d
	}
	d.Checked = true
	e, err := embedderFromSettings(m, getenv)
	if err == nil {
		var v []float32
		if v, err = e.EmbedQuery(ctx, "deepresearch doctor"); err == nil {
			d.Detail += fmt.Sprintf(" (%d dimensions)", len(v))
		}
	}
	if err != nil {
		d.Err = err.Error()
	}
	return d
}

// diagnoseChroma describes the Chroma collections of wcfg
// (webFromSettings) and, with call, finds each.
func diagnoseChroma(ctx context.Context, s config.Settings, wcfg websearch.Config, call bool) Diagnosis {
	cc := wcfg.Chroma
	names := cc.Names()
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	d := Diagnosis{Part: "search", Provider: websearch.ChannelChroma,
		Detail: cmp.Or(cc.URL, websearch.DefaultChromaURL) + " collection " + strings.Join(quoted, ", "),
		Key:    websearch.EnvChromaKey + " unset"}
	if len(names) > 1 {
		d.Detail = strings.Replace(d.Detail, " collection ", " collections ", 1)
	}
	if cc.Token != "" {
		d.Key = websearch.EnvChromaKey + " set"
	}
	emb, err := embedderFromSettings(s.Model, s.Getenv)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	if len(names) == 0 {
		names = []string{""} // NewChroma says what is missing
	}
	var errs []string
	for _, n := range names {
		one := cc
		one.Collection, one.Collections = n, nil
		ch, err := websearch.NewChroma(one, emb, wcfg)
		if err == nil && call {
			d.Checked = true
			err = ch.Check(ctx)
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	d.Err = strings.Join(errs, "; ")
	return d
}

// IndexSettings is Index of the corpus settings name (corpus.dir,
// corpus.index) with the embedding model of model.embeddings, when one is
// set, and hooks: what `deepresearch index` does. Embedding calls are
// retried DefaultMaxRetries times.
func IndexSettings(ctx context.Context, s config.Settings, hooks IndexHooks) (IndexStats, error) {
	e, err := embedderFromSettings(s.Model, s.Getenv)
	if err != nil {
		return IndexStats{}, &StageError{Stage: events.StageIndex, Err: err}
	}
	if e == nil {
		return index(ctx, s.Corpus.Dir, s.Corpus.Index, hooks)
	}
	r := &Researcher{cfg: Config{Embedder: e, Clock: clock.Real()}, log: zerolog.Nop()}
	if err := r.setEmbedder(); err != nil {
		return IndexStats{}, &StageError{Stage: events.StageIndex, Err: err}
	}
	return index(ctx, s.Corpus.Dir, s.Corpus.Index, hooks, r.indexOptions()...)
}
