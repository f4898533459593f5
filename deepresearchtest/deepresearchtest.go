// Package deepresearchtest provides test doubles for programs that embed
// deepresearch, in the way net/http/httptest does for HTTP: a
// deterministic offline model (Model, and JudgingModel, which also answers
// the judgements a language model is asked for), an in-memory search
// backend, local servers that speak OpenAI's and SearXNG's wire formats,
// and a fake clock, so that an embedder's tests run a real research
// pipeline without a network, a model or a corpus on disk.
package deepresearchtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/terms"
	"github.com/deepresearch/deepresearch/search"
)

// Model returns the built-in extractive model, the offline default: a
// deterministic llms.Model with tool calls and streaming that answers by
// quoting retrieved sentences. Each call first waits latency (0: none),
// like a provider's round trip; the wait ends early when ctx is done.
func Model(latency time.Duration) llms.Model {
	return extractive.New(extractive.Options{Latency: latency})
}

// Backend is an in-memory search.Backend. Each document is
// split into paragraphs; a search returns the paragraphs that contain the
// most distinct query words (case-insensitive), best first, ties in
// document order. It is safe for concurrent use.
type Backend struct {
	docs     map[string]search.Document
	passages []passage
}

type passage struct {
	doc   search.Document
	n     int // paragraph number, from 1
	text  string
	words map[string]bool
}

var _ search.Backend = (*Backend)(nil)

// NewBackend returns a backend over docs. A document without a DocID is
// given "doc-N" (N from 1, in order); documents must not share a DocID.
func NewBackend(docs ...search.Document) (*Backend, error) {
	b := &Backend{docs: map[string]search.Document{}}
	for i, d := range docs {
		if d.DocID == "" {
			d.DocID = fmt.Sprintf("doc-%d", i+1)
		}
		if _, dup := b.docs[d.DocID]; dup {
			return nil, fmt.Errorf("deepresearchtest: two documents with DocID %q", d.DocID)
		}
		b.docs[d.DocID] = d
		for n, para := range strings.Split(d.Text, "\n\n") {
			if para = strings.TrimSpace(para); para != "" {
				b.passages = append(b.passages, passage{doc: d, n: n + 1, text: para, words: wordSet(para)})
			}
		}
	}
	return b, nil
}

// Search implements search.Backend.
func (b *Backend) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	terms := wordSet(query)
	type hit struct {
		p     *passage
		score int
	}
	var hits []hit
	for i := range b.passages {
		p := &b.passages[i]
		score := 0
		for t := range terms {
			if p.words[t] {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{p, score})
		}
	}
	slices.SortStableFunc(hits, func(a, c hit) int { return c.score - a.score })
	var out []search.Result
	for _, h := range hits[:min(len(hits), max(limit, 0))] {
		out = append(out, search.Result{
			DocID: h.p.doc.DocID, URL: h.p.doc.URL, Title: h.p.doc.Title,
			Location: fmt.Sprintf("paragraph %d", h.p.n), Snippet: h.p.text, Score: float64(h.score),
			Published: h.p.doc.Published, Modified: h.p.doc.Modified,
		})
	}
	return out, nil
}

// Fetch implements search.Backend.
func (b *Backend) Fetch(ctx context.Context, docID string) (search.Document, error) {
	if err := ctx.Err(); err != nil {
		return search.Document{}, err
	}
	d, ok := b.docs[docID]
	if !ok {
		return search.Document{}, fmt.Errorf("deepresearchtest: fetch %q: %w", docID, search.ErrNotFound)
	}
	return d, nil
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range terms.Tokens(s) {
		if len(w) > 2 {
			m[w] = true
		}
	}
	return m
}
