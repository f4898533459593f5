package eval_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/eval"
	"github.com/deepresearch/deepresearch/internal/extractive"
)

var questionsDir = filepath.Join("..", "..", "testdata", "eval")

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// corpora are the evaluation's corpora, read from where this machine has
// their sources: Node.js's API pages from the folder eval.NodeDocsEnv names
// (.ci/run unpacks them there), else Debian's.
func corpora() []eval.Corpus {
	return eval.CorporaFrom(eval.Sources{NodeDocs: os.Getenv(eval.NodeDocsEnv)})
}

// prepare writes and indexes corpus c in a temporary folder. A corpus
// whose Debian package is missing is skipped with a message, except under
// CI=true, where .ci/run has installed it.
func prepare(tb testing.TB, c eval.Corpus) *eval.Prepared {
	tb.Helper()
	p, err := eval.Prepare(context.Background(), c, tb.TempDir())
	if errors.Is(err, eval.ErrMissing) {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%v; .ci/run installs it", err)
		}
		tb.Skipf("%v; install the Debian packages %v to evaluate on it", err, c.Packages)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// researcher is the real Researcher, offline, over p's corpus and index:
// what a user gets from `deepresearch run` in that folder.
func researcher(tb testing.TB, p *eval.Prepared) eval.Run {
	tb.Helper()
	return researcherWith(tb, p, deepresearch.Config{})
}

// researcherWith is researcher with cfg's settings, its Search p's corpus.
func researcherWith(tb testing.TB, p *eval.Prepared, cfg deepresearch.Config) eval.Run {
	tb.Helper()
	cfg.Search = deepresearchtest.Corpus(tb, p.Docs, p.IndexPath)
	r, err := deepresearch.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return func(ctx context.Context, q string, sink func(events.Event)) error {
		_, err := startWait(ctx, r, deepresearch.Request{Question: q}, deepresearch.RunOptions{Sink: sink})
		return err
	}
}

func compare(tb testing.TB, c eval.Corpus) *eval.Comparison {
	tb.Helper()
	p := prepare(tb, c)
	cmp, err := p.Compare(context.Background(), questionsDir, eval.Research(researcher(tb, p)))
	if err != nil {
		tb.Fatal(err)
	}
	return cmp
}

// checkKeys fails tb for every fact of a question set's answer keys that
// none of the question's expected documents in p holds, and logs the
// expected documents p lacks (their facts are not checked).
func checkKeys(tb testing.TB, p *eval.Prepared, file string) {
	tb.Helper()
	problems, absent, err := p.CheckKeys(context.Background(), questionsDir, file)
	if err != nil {
		tb.Fatal(err)
	}
	for _, pr := range problems {
		tb.Errorf("%s: %s", file, pr)
	}
	if len(absent) > 0 {
		tb.Logf("%s: %d expected documents are not in this corpus; facts only they could hold are not checked: %v", file, len(absent), absent)
	}
}

// watched is the researcher of researcher, its agents' model watched
// (eval.Shown): its answers record what the agents were shown. The
// agents' model is the built-in one, as researcher's; relevance is
// judged lexically, as it is there.
func watched(tb testing.TB, p *eval.Prepared) eval.Answerer {
	tb.Helper()
	shown := eval.NewShown(extractive.New(extractive.Options{}))
	run := researcherWith(tb, p, deepresearch.Config{ResearcherModel: shown, Judges: deepresearch.Judges{Lexical: true}})
	return eval.Showing(shown, eval.Research(run))
}

// TestRetrievalTargets checks the targets on every evaluation corpus and
// question set: research is at least as good as the plain search on hit
// rate and recall, never says "no evidence" beside a kept expected
// document, and never cites a document that shares no key term with its
// question. It checks the answer keys against the documents first
// (TestAnswerKeys) and reports the answer metrics, evidence recall and
// answered, without targets yet.
func TestRetrievalTargets(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes and indexes nine corpora and runs about 330 researches; run without -short and -race")
	}
	for _, c := range corpora() {
		t.Run(c.Name, func(t *testing.T) {
			p := prepare(t, c)
			t.Logf("%s: %d documents (%.1f MB) written and indexed in %v", c.Name, p.Stats.Docs+p.Stats.Packages, float64(p.Stats.Bytes)/1e6, p.Took.Round(time.Millisecond))
			research := watched(t, p)
			for i, file := range c.QuestionSets() {
				checkKeys(t, p, file)
				cmp, err := p.CompareSet(context.Background(), questionsDir, file, research)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				cmp.Print(&b, testing.Verbose() && os.Getenv("EVAL_QUESTIONS") != "")
				t.Logf("\n%s", b.String())
				for _, p := range cmp.Problems() {
					t.Errorf("%s: %s", file, p)
				}
				if min := minQuestions(i); cmp.Research.Questions < min {
					t.Errorf("%s: %d questions, want at least %d", file, cmp.Research.Questions, min)
				}
			}
		})
	}
}

// minQuestions is the least number of questions of a corpus's i-th
// question set: 30 for its own, 20 for a further one.
func minQuestions(i int) int {
	if i == 0 {
		return 30
	}
	return 20
}

// TestAnswerKeys checks every answer key against the corpus: each fact
// of a keyed question occurs in one of its expected documents, as the
// index reads them. It writes and indexes every corpus (TestRetrievalTargets
// checks the same before its research runs).
func TestAnswerKeys(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes and indexes nine corpora; run without -short and -race")
	}
	for _, c := range corpora() {
		t.Run(c.Name, func(t *testing.T) {
			p := prepare(t, c)
			t.Logf("%s: %d documents (%.1f MB) written and indexed in %v", c.Name, p.Stats.Docs+p.Stats.Packages, float64(p.Stats.Bytes)/1e6, p.Took.Round(time.Millisecond))
			keyed := 0
			for _, file := range c.QuestionSets() {
				checkKeys(t, p, file)
				qs, err := eval.LoadQuestions(filepath.Join(questionsDir, file))
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range qs {
					if len(q.Facts) > 0 {
						keyed++
					}
				}
			}
			if keyed == 0 {
				t.Errorf("no question of %v has an answer key", c.QuestionSets())
			}
		})
	}
}

// cablesCorpus copies the repository's test corpus (undersea cables),
// with extra files, into a temporary folder.
func cablesCorpus(t *testing.T, extra map[string]string) *deepresearch.Researcher {
	t.Helper()
	dir := t.TempDir()
	docs := filepath.Join(dir, "corpus")
	if err := os.CopyFS(docs, os.DirFS(filepath.Join("..", "..", "testdata", "corpus"))); err != nil {
		t.Fatal(err)
	}
	for name, text := range extra {
		p := filepath.Join(docs, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := deepresearch.New(deepresearch.Config{Search: deepresearchtest.Corpus(t, docs, filepath.Join(dir, "index.db"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestUnanswerableQuestionSaysSo(t *testing.T) {
	r := cablesCorpus(t, nil)
	a, err := eval.Research(func(ctx context.Context, q string, sink func(events.Event)) error {
		_, err := startWait(ctx, r, deepresearch.Request{Question: q}, deepresearch.RunOptions{Sink: sink})
		return err
	})(context.Background(), "What is the airspeed velocity of an unladen swallow?")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Cited) != 0 || !a.NoEvidence {
		t.Errorf("the report cites %v and says no evidence: %v", a.Cited, a.NoEvidence)
	}
}

// TestCopiesUnderTwoNamesCitedOnce: two agents (the plan has several
// tasks) that each keep one of two copies of a text still cite it once.
func TestCopiesUnderTwoNamesCitedOnce(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "operations", "cable-faults.md"))
	if err != nil {
		t.Fatal(err)
	}
	r := cablesCorpus(t, map[string]string{"mirror/repairing-undersea-cables.md": string(orig)})
	rep, err := startWait(context.Background(), r, deepresearch.Request{Question: "How are broken submarine cables found and repaired?"}, deepresearch.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	copies := 0
	for _, ref := range rep.References {
		if ref.ID == "operations/cable-faults.md" || ref.ID == "mirror/repairing-undersea-cables.md" {
			copies++
		}
	}
	if copies != 1 {
		t.Errorf("the report cites %d copies of the same text, want 1:\n%s", copies, rep.Body)
	}
}

// BenchmarkRetrieval runs the evaluation and prints the tables: go test
// ./internal/eval -run XXX -bench Retrieval (-v for each question). The
// metrics reported are summed over the corpora.
func BenchmarkRetrieval(b *testing.B) {
	for _, c := range corpora() {
		b.Run(c.Name, func(b *testing.B) {
			var cmp *eval.Comparison
			for b.Loop() {
				cmp = compare(b, c)
			}
			b.ReportMetric(100*cmp.Research.HitRate, "hit%")
			b.ReportMetric(100*cmp.Research.Recall, "recall%")
			b.ReportMetric(100*cmp.Baseline.HitRate, "base-hit%")
			b.ReportMetric(100*cmp.Baseline.Recall, "base-recall%")
			cmp.Print(os.Stdout, testing.Verbose())
		})
	}
}

// BenchmarkIndexCorpus indexes the Go evaluation corpus, which is the
// default corpus (godoc.Write; godoc's BenchmarkWrite measures writing
// it), from scratch: with that write, the cost of a first run.
func BenchmarkIndexCorpus(b *testing.B) {
	ctx := context.Background()
	docs := filepath.Join(b.TempDir(), "corpus")
	root, err := corpus.GoRoot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	st, err := eval.WriteCorpus(ctx, root, docs)
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
