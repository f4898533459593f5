package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/retry"
)

// DefaultEmbeddingNames are the embedding models used when a setting
// names the provider alone ("openai", "ollama", "googleai").
var DefaultEmbeddingNames = map[string]string{
	OpenAI:   "text-embedding-3-small",
	Ollama:   "nomic-embed-text",
	GoogleAI: "gemini-embedding-001",
}

// ErrNoEmbeddings reports a provider that has no embedding models
// (Anthropic, the extractive model).
var ErrNoEmbeddings = errors.New("no embedding models")

// Embedder is a provider's embedding model, langchaingo's
// embeddings.Embedder: OpenAI and every OpenAI-compatible server's
// /v1/embeddings (Ollama's included) through langchaingo's openai client,
// Gemini's batchEmbedContents through a small client of its REST API.
//
// Calls go through the same transport as the chat models (typed *Error
// with status and Retry-After, keys, a concurrency cap) and are not
// retried: wrap it in a retry.Embedder. It never changes the slices it is
// given (langchaingo's own EmbedderImpl strips newlines in place). It is
// safe for concurrent use.
type Embedder struct {
	client embeddings.EmbedderClient // one batch, in order
	gem    *geminiEmbedder           // Gemini: documents and queries differ by task type
	ep     endpoint
	lim    *retry.Limiter
}

var _ embeddings.Embedder = (*Embedder)(nil)

// NewEmbedder builds the embedding model cfg describes (cfg.Name empty:
// DefaultEmbeddingNames), reading keys and addresses through getenv as New
// does. It does no I/O.
func NewEmbedder(cfg Config, getenv func(string) string) (*Embedder, error) {
	p := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if cfg.Name == "" {
		cfg.Name = DefaultEmbeddingNames[p]
	}
	switch p {
	case OpenAI, Ollama, GoogleAI:
	case "", Extractive, Anthropic:
		return nil, fmt.Errorf("%s: %w: want openai, ollama (or any OpenAI-compatible server) or googleai", cmp.Or(p, Extractive), ErrNoEmbeddings)
	}
	ep, err := resolve(cfg, getenv)
	if err != nil {
		return nil, err
	}
	base := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		base = cfg.HTTPClient.Transport
	}
	hc := &http.Client{Transport: &transport{base: base, ep: ep, keepZeroTemp: true, clock: clock.Real()}}
	if cfg.HTTPClient != nil {
		hc.Timeout = cfg.HTTPClient.Timeout
	}
	e := &Embedder{ep: ep, lim: cfg.Limiter}
	if e.lim == nil {
		e.lim = retry.NewLimiter(cfg.MaxConcurrent)
	}
	switch ep.provider {
	case GoogleAI:
		e.gem = &geminiEmbedder{hc: hc, base: ep.baseURL, name: ep.name}
	default:
		token := ep.apiKey
		if token == "" {
			token = "none" // langchaingo insists on one; the transport drops it
		}
		llm, err := openai.New(openai.WithToken(token), openai.WithBaseURL(ep.baseURL),
			openai.WithModel(ep.name), openai.WithEmbeddingModel(ep.name), openai.WithHTTPClient(hc))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ep.provider, err)
		}
		e.client = llm
	}
	return e, nil
}

// Name is the model's identity, "provider:name" ("openai:text-embedding-3-small"):
// vectors made by one model are never mixed with another's.
func (e *Embedder) Name() string { return e.ep.provider + ":" + e.ep.name }

// EmbedDocuments returns one vector per text, in order, in one request.
// Callers batch (internal/corpus sends at most 64 passages a call).
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	return e.embed(ctx, texts, false)
}

// EmbedQuery returns the vector of a search query.
func (e *Embedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := e.embed(ctx, []string{text}, true)
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

func (e *Embedder) embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if e.lim != nil {
		if err := e.lim.Acquire(ctx); err != nil {
			return nil, err
		}
		defer e.lim.Release()
	}
	texts = slices.Clone(texts)
	st := &callState{}
	var vs [][]float32
	var err error
	if e.gem != nil {
		vs, err = e.gem.embed(withState(ctx, st), texts, query)
	} else {
		vs, err = e.client.CreateEmbedding(withState(ctx, st), texts)
	}
	switch {
	case ctx.Err() != nil && err != nil:
		return nil, fmt.Errorf("%s: embeddings: %w", e.ep.provider, context.Cause(ctx))
	case st.get() != nil:
		// The transport's typed error: langchaingo flattens it to a string.
		return nil, st.get()
	case err != nil:
		return nil, &Error{Provider: e.ep.provider, Kind: ErrMalformed, Message: "embeddings", Err: err}
	case len(vs) != len(texts):
		return nil, &Error{Provider: e.ep.provider, Kind: ErrMalformed,
			Message: fmt.Sprintf("embeddings: %d vectors for %d texts", len(vs), len(texts))}
	}
	dim := len(vs[0])
	for i, v := range vs {
		if len(v) == 0 || len(v) != dim {
			return nil, &Error{Provider: e.ep.provider, Kind: ErrMalformed,
				Message: fmt.Sprintf("embeddings: vector %d has %d dimensions, vector 1 has %d", i+1, len(v), dim)}
		}
	}
	return vs, nil
}
