package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	docs "github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/eval"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/vector"
	"github.com/tmc/langchaingo/embeddings"
)

// concepts is the embeddings double: the Concepts embedding of
// testdata/eval/concepts.json (a synonym table written before this
// evaluation was run), served over OpenAI's /v1/embeddings and read
// through the real provider client.
func concepts(tb testing.TB) embeddings.Embedder {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(questionsDir, "concepts.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var table struct {
		Groups [][]string `json:"groups"`
	}
	if err := json.Unmarshal(b, &table); err != nil {
		tb.Fatal(err)
	}
	srv := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}),
		deepresearchtest.OpenAIOptions{Embedder: deepresearchtest.NewConcepts(table.Groups)})
	tb.Cleanup(srv.Close)
	e, err := deepresearch.NewEmbedder("openai:concepts", srv.URL+"/v1", "none")
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// TestHybridRetrieval measures hybrid retrieval (bm25 fused with the
// embeddings double's vector similarity) against bm25 on the Go corpus,
// with the real Researcher (Config.Embedder) and as a plain top-5 search
// of the question, and names the questions only one of them finds. It
// fails if the hybrid search no longer finds the question that shares no
// word with its documents that the issue names (q11, "put … in order":
// sort, slices), which bm25 misses.
func TestHybridRetrieval(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("researches the Go corpus twice; run without -short and -race")
	}
	var c eval.Corpus
	for _, k := range corpora() {
		if k.Name == "go" {
			c = k
		}
	}
	p := prepare(t, c)
	ctx := context.Background()
	emb := concepts(t)
	hybridPath := filepath.Join(t.TempDir(), "hybrid.db")
	hx, err := corpus.Open(ctx, hybridPath, corpus.WithEmbedder(vector.Named(emb, "openai:concepts")))
	if err != nil {
		t.Fatal(err)
	}
	defer hx.Close()
	if _, err := hx.Sync(ctx, p.Docs); err != nil {
		t.Fatal(err)
	}
	hybrid, err := docs.Open(p.Docs, docs.Options{IndexPath: hybridPath, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	r, err := deepresearch.New(deepresearch.Config{Search: hybrid})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hybridRun := func(ctx context.Context, q string, sink func(events.Event)) error {
		_, err := startWait(ctx, r, deepresearch.Request{Question: q}, deepresearch.RunOptions{Sink: sink})
		return err
	}
	cmp, err := p.Compare(ctx, questionsDir, eval.Research(researcher(t, p)))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := eval.LoadQuestions(filepath.Join(questionsDir, c.Questions))
	if err != nil {
		t.Fatal(err)
	}
	hres, hresults, err := eval.Evaluate(ctx, "research, hybrid", qs, eval.Research(hybridRun), p.Doc)
	if err != nil {
		t.Fatal(err)
	}
	hbase, hbresults, err := eval.Evaluate(ctx, "hybrid top 5", qs, eval.DocumentTexts(eval.Baseline(hx, 5), p.Doc), p.Doc)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	eval.Table(&b, cmp.Research, hres, cmp.Baseline, hbase)
	t.Logf("\n%s", b.String())
	only := func(a, b []eval.Result) (out []string) {
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
		{"only hybrid top 5 finds", only(hbresults, cmp.BaselineResults)},
		{"only BM25 top 5 finds", only(cmp.BaselineResults, hbresults)},
		{"only research with hybrid search cites", only(hresults, cmp.ResearchResults)},
		{"only research with BM25 cites", only(cmp.ResearchResults, hresults)},
	} {
		t.Logf("%s (%d):\n  %s", line.what, len(line.ids), strings.Join(line.ids, "\n  "))
	}
	for i := range qs {
		if qs[i].ID == "q11" && (!hbresults[i].Hit || cmp.BaselineResults[i].Hit) {
			t.Errorf("q11 %q: hybrid top 5 %v, bm25 top 5 %v", qs[i].Question, hbresults[i].Cited, cmp.BaselineResults[i].Cited)
		}
	}
}
