package deepresearch

import (
	"github.com/tmc/langchaingo/embeddings"

	"github.com/deepresearch/deepresearch/internal/provider"
)

// NewEmbedder returns the embedding model named model, "provider:name" or
// "provider" for its default: "openai:text-embedding-3-small" (OpenAI, or
// any OpenAI-compatible /v1/embeddings at baseURL), "ollama:nomic-embed-text"
// (a local Ollama's /v1), "googleai:gemini-embedding-001" (Gemini's
// batchEmbedContents). baseURL and apiKey, when not empty, override the
// provider's address and key; it reads no environment variable (the
// settings' model.embeddings does: config.ResearcherConfig). It does no
// I/O. The Embedder names itself (corpus.Options.EmbeddingModel may stay
// empty) and does not retry: corpus.Open wraps it in retries. It is for a
// corpus.Corpus's index and a web.Chroma collection's queries.
func NewEmbedder(model, baseURL, apiKey string) (embeddings.Embedder, error) {
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
