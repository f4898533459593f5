package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/relevance"
)

var questionsFile = filepath.Join("..", "..", "testdata", "eval", "questions.json")

// The evaluation corpus is written and indexed once per test binary, in
// a temporary folder removed by TestMain.
var (
	setupOnce sync.Once
	setupDir  string
	setupIx   *corpus.Index
	setupErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if setupIx != nil {
		setupIx.Close()
	}
	if setupDir != "" {
		os.RemoveAll(setupDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func evalCorpus(tb testing.TB) *corpus.Index {
	tb.Helper()
	setupOnce.Do(func() {
		ctx := context.Background()
		setupDir, setupErr = os.MkdirTemp("", "deepresearch-eval-")
		if setupErr != nil {
			return
		}
		docs := filepath.Join(setupDir, "corpus")
		if _, setupErr = WriteCorpus(ctx, GOROOT(), docs); setupErr != nil {
			return
		}
		if setupIx, setupErr = corpus.Open(ctx, filepath.Join(setupDir, "index.db")); setupErr != nil {
			return
		}
		_, setupErr = setupIx.Sync(ctx, docs)
	})
	if setupErr != nil {
		tb.Fatal(setupErr)
	}
	return setupIx
}

func docText(ix *corpus.Index) func(context.Context, string) (string, error) {
	return func(ctx context.Context, id string) (string, error) {
		d, err := ix.Fetch(ctx, id)
		return d.Title + "\n" + d.Text, err
	}
}

// evaluate runs the pipeline and the baseline over the questions.
func evaluate(tb testing.TB) (pipe, base Summary, pres, bres []Result, filtered map[string]int) {
	tb.Helper()
	ix := evalCorpus(tb)
	qs, err := LoadQuestions(questionsFile)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	filtered = map[string]int{}
	pipe, pres, err = Evaluate(ctx, "research", qs, Pipeline(PipelineConfig{
		Model: extractive.New(extractive.Options{}), Search: ix,
		Filtered: func(r relevance.Report) {
			filtered["kept"] += len(r.Kept)
			for _, d := range r.Dropped {
				filtered["dropped "+d.Stage]++
			}
		},
	}), docText(ix))
	if err != nil {
		tb.Fatal(err)
	}
	base, bres, err = Evaluate(ctx, "plain BM25 top 5", qs, Baseline(ix, 5), docText(ix))
	if err != nil {
		tb.Fatal(err)
	}
	return pipe, base, pres, bres, filtered
}

// TestRetrievalTargets checks the targets on the shipped
// evaluation: research beats the plain search on hit rate and recall, and
// no report cites a document that shares no key term with its question.
func TestRetrievalTargets(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes and indexes the standard library's documentation and runs 48 researches; run without -short and -race")
	}
	pipe, base, res, _, _ := evaluate(t)
	var b strings.Builder
	Table(&b, pipe, base)
	t.Logf("\n%s", b.String())
	if pipe.HitRate <= base.HitRate || pipe.Recall <= base.Recall {
		t.Errorf("research does not beat the baseline: hit rate %.3f vs %.3f, recall %.3f vs %.3f", pipe.HitRate, base.HitRate, pipe.Recall, base.Recall)
	}
	for _, r := range res {
		if len(r.OffTopic) > 0 {
			t.Errorf("%s %q cites documents sharing no key term with it: %v", r.ID, r.Question.Question, r.OffTopic)
		}
	}
	if pipe.Questions < 40 {
		t.Errorf("%d questions, want at least 40", pipe.Questions)
	}
}

// BenchmarkRetrieval runs the evaluation and prints the table: go test
// ./internal/eval -run XXX -bench Retrieval. The metrics are the research
// pipeline's; the baseline's are in the table.
func BenchmarkRetrieval(b *testing.B) {
	evalCorpus(b)
	var pipe, base Summary
	var res, bres []Result
	var filtered map[string]int
	for b.Loop() {
		pipe, base, res, bres, filtered = evaluate(b)
	}
	b.ReportMetric(100*pipe.HitRate, "hit%")
	b.ReportMetric(100*pipe.Recall, "recall%")
	b.ReportMetric(100*pipe.Precision, "precision%")
	b.ReportMetric(100*base.HitRate, "base-hit%")
	b.ReportMetric(100*base.Recall, "base-recall%")
	fmt.Println()
	Table(os.Stdout, pipe, base)
	fmt.Printf("\nrelevance filter: %d passages kept, %d dropped off-topic, %d duplicates, %d without substance\n",
		filtered["kept"], filtered["dropped relevance"], filtered["dropped duplicate"], filtered["dropped substance"])
	if testing.Verbose() {
		for i, r := range res {
			fmt.Printf("%s recall %.2f (baseline %.2f) cited=%v baseline=%v expect=%v off=%v\n", r.ID, r.Recall, bres[i].Recall, r.Cited, bres[i].Cited, r.Expect, r.OffTopic)
		}
	}
}

// BenchmarkWriteCorpus measures writing the evaluation corpus (parsing the
// standard library with go/doc), and BenchmarkIndexCorpus indexing it
// from scratch: together, what the standard library's docs would add to
// a first run if they joined the default corpus.
func BenchmarkWriteCorpus(b *testing.B) {
	var st CorpusStats
	for b.Loop() {
		var err error
		if st, err = WriteCorpus(context.Background(), GOROOT(), b.TempDir()); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(st.Bytes)
	b.ReportMetric(float64(st.Packages), "packages")
}

func BenchmarkIndexCorpus(b *testing.B) {
	ctx := context.Background()
	docs := filepath.Join(b.TempDir(), "corpus")
	st, err := WriteCorpus(ctx, GOROOT(), docs)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Bytes)
	for b.Loop() {
		ix, err := corpus.Open(ctx, filepath.Join(b.TempDir(), "index.db"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Sync(ctx, docs); err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
}
