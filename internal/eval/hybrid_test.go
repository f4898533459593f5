package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/provider"
)

var conceptsFile = filepath.Join("..", "..", "testdata", "eval", "concepts.json")

// hybridIndex indexes the evaluation corpus with the embeddings double:
// the Concepts embedding of testdata/eval/concepts.json, served over
// OpenAI's /v1/embeddings and embedded through the real provider client.
func hybridIndex(tb testing.TB) *corpus.Index {
	tb.Helper()
	evalCorpus(tb)
	b, err := os.ReadFile(conceptsFile)
	if err != nil {
		tb.Fatal(err)
	}
	var table struct {
		Groups [][]string `json:"groups"`
	}
	if err := json.Unmarshal(b, &table); err != nil {
		tb.Fatal(err)
	}
	srv := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}), deepresearchtest.OpenAIOptions{Embedder: deepresearchtest.NewConcepts(table.Groups)})
	tb.Cleanup(srv.Close)
	emb, err := provider.NewEmbedder(provider.Config{Provider: provider.OpenAI, Name: "concepts", BaseURL: srv.URL + "/v1"}, func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	ix, err := corpus.Open(ctx, filepath.Join(tb.TempDir(), "hybrid.db"), corpus.WithEmbedder(emb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(ctx, filepath.Join(setupDir, "corpus")); err != nil {
		tb.Fatal(err)
	}
	return ix
}

// TestHybridRetrieval measures hybrid retrieval (bm25 fused with the
// embeddings double's vector similarity) against plain bm25 on the
// shipped evaluation, as a plain top-5 search of the question and as the
// research pipeline's citations, and names the questions only one of them
// finds. It fails if the hybrid search no longer finds the question that
// shares no word with its documents that the issue names ("put … in
// order": sort, slices), which bm25 misses.
func TestHybridRetrieval(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("the hybrid evaluation takes a while; run it without -short or -race")
	}
	ix, hx := evalCorpus(t), hybridIndex(t)
	qs, err := LoadQuestions(questionsFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	model := extractive.New(extractive.Options{})
	base, bres, err := Evaluate(ctx, "plain BM25 top 5", qs, Baseline(ix, 5), docText(ix))
	if err != nil {
		t.Fatal(err)
	}
	hyb, hres, err := Evaluate(ctx, "hybrid top 5", qs, Baseline(hx, 5), docText(ix))
	if err != nil {
		t.Fatal(err)
	}
	pipe, pres, err := Evaluate(ctx, "research", qs, Pipeline(PipelineConfig{Model: model, Search: ix}), docText(ix))
	if err != nil {
		t.Fatal(err)
	}
	hpipe, hpres, err := Evaluate(ctx, "research, hybrid", qs, Pipeline(PipelineConfig{Model: model, Search: hx}), docText(ix))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	Table(&b, pipe, hpipe, base, hyb)
	t.Logf("\n%s", b.String())
	only := func(a, b []Result) (out []string) {
		for i := range a {
			if a[i].Hit && !b[i].Hit {
				out = append(out, fmt.Sprintf("%s %q (expects %s)", a[i].ID, a[i].Question.Question, strings.Join(a[i].Expect, ", ")))
			}
		}
		return out
	}
	for _, line := range []struct {
		what string
		ids  []string
	}{
		{"only hybrid top 5 finds", only(hres, bres)},
		{"only BM25 top 5 finds", only(bres, hres)},
		{"only research with hybrid search cites", only(hpres, pres)},
		{"only research with BM25 cites", only(pres, hpres)},
	} {
		t.Logf("%s (%d):\n  %s", line.what, len(line.ids), strings.Join(line.ids, "\n  "))
	}
	for i := range qs {
		if qs[i].ID == "q11" && (!hres[i].Hit || bres[i].Hit) {
			t.Errorf("q11 %q: hybrid top 5 %v, bm25 top 5 %v", qs[i].Question, hres[i].Cited, bres[i].Cited)
		}
	}
}
