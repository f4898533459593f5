package retry

import (
	"context"

	"github.com/tmc/langchaingo/embeddings"
)

// Embedder wraps an embeddings.Embedder so that a call that fails is tried
// again as its Policy says (the same classifier as model calls: 429, 5xx,
// dropped connections are retried; a bad key or request is not). Each call
// is one batch, retried whole. It is safe for concurrent use when the
// wrapped Embedder and the Policy's funcs are.
type Embedder struct {
	embeddings.Embedder
	Policy
}

// EmbedDocuments embeds texts, retrying the call.
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	var out [][]float32
	err := e.Do(ctx, func(int) error {
		var err error
		out, err = e.Embedder.EmbedDocuments(ctx, texts)
		return err
	})
	return out, err
}

// EmbedQuery embeds one query, retrying the call.
func (e *Embedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	var out []float32
	err := e.Do(ctx, func(int) error {
		var err error
		out, err = e.Embedder.EmbedQuery(ctx, text)
		return err
	})
	return out, err
}
