package deepresearch

import (
	"context"

	"github.com/tmc/langchaingo/embeddings"

	"github.com/deepresearch/deepresearch/events"
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
// settings' model.embeddings does: config.ResearcherConfig). It does no I/O. The
// Embedder names itself (Config.EmbeddingModel may stay empty) and does
// not retry: New wraps it in the retries of model calls.
func NewEmbedder(model, baseURL, apiKey string) (Embedder, error) {
	p, name := provider.ParseRole(model)
	if p == "" {
		p, name = name, ""
	}
	e, err := provider.NewEmbedder(provider.Config{Provider: p, Name: name, BaseURL: baseURL, APIKey: apiKey}, nil)
	if err != nil {
		return nil, configErrorf("embeddings: %v", err)
	}
	return e, nil
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
