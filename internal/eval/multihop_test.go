package eval_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/eval"
	"github.com/deepresearch/deepresearch/internal/search"
)

var multiHopFile = filepath.Join("..", "..", "testdata", "eval", "multihop.json")

// research answers with the references of a run of the Researcher over
// backend, with at most cycles research cycles.
func research(tb testing.TB, backend search.Backend, cycles int) eval.Answerer {
	r, err := deepresearch.New(deepresearch.Config{Search: backend, Channel: "corpus", MaxCycles: cycles})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return func(ctx context.Context, q string) ([]string, error) {
		rep, err := r.Run(ctx, q)
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, ref := range rep.References {
			if !slices.Contains(ids, ref.ID) {
				ids = append(ids, ref.ID)
			}
		}
		return ids, nil
	}
}

// multiHop runs one cycle, the loop and the plain search over the
// multi-hop questions.
func multiHop(tb testing.TB) (one, loop, base eval.MultiHopSummary, ones, loops []eval.MultiHopResult) {
	tb.Helper()
	ix := eval.EvalCorpus(tb)
	qs, err := eval.LoadMultiHop(multiHopFile)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	if one, ones, err = eval.EvaluateMultiHop(ctx, "one cycle", qs, research(tb, ix, 1)); err != nil {
		tb.Fatal(err)
	}
	if loop, loops, err = eval.EvaluateMultiHop(ctx, "research loop", qs, research(tb, ix, deepresearch.DefaultMaxCycles)); err != nil {
		tb.Fatal(err)
	}
	if base, _, err = eval.EvaluateMultiHop(ctx, "plain BM25 top 5", qs, eval.Baseline(ix, 5)); err != nil {
		tb.Fatal(err)
	}
	return one, loop, base, ones, loops
}

// TestMultiHopTargets checks the loop on questions that need a second
// hop: it finds the second hop for most of the questions one cycle does
// not, and it does no worse than one cycle on the single-hop evaluation.
func TestMultiHopTargets(t *testing.T) {
	if testing.Short() || eval.RaceEnabled {
		t.Skip("writes and indexes the standard library's documentation and runs about 130 researches; run without -short and -race")
	}
	one, loop, base, ones, loops := multiHop(t)
	var b strings.Builder
	eval.MultiHopTable(&b, one, loop, base)
	t.Logf("multi-hop:\n%s", b.String())
	missed, found := 0, 0
	for i, r := range ones {
		if r.SecondHop {
			if !loops[i].SecondHop {
				t.Errorf("%s: one cycle finds the second hop, the loop does not (loop cited %v)", r.ID, loops[i].Cited)
			}
			continue
		}
		missed++
		if loops[i].SecondHop {
			found++
		} else {
			t.Logf("%s: neither finds the second hop %v; the loop cited %v", r.ID, r.Second, loops[i].Cited)
		}
	}
	if missed > 0 && 2*found <= missed {
		t.Errorf("the loop finds the second hop for %d of the %d questions one cycle misses; want most", found, missed)
	}

	ix := eval.EvalCorpus(t)
	qs, err := eval.LoadQuestions(eval.QuestionsFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	text := func(ctx context.Context, id string) (string, error) {
		d, err := ix.Fetch(ctx, id)
		return d.Title + "\n" + d.Text, err
	}
	single, sres, err := eval.Evaluate(ctx, "one cycle", qs, research(t, ix, 1), text)
	if err != nil {
		t.Fatal(err)
	}
	looped, lres, err := eval.Evaluate(ctx, "research loop", qs, research(t, ix, deepresearch.DefaultMaxCycles), text)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	eval.Table(&b, single, looped)
	t.Logf("single-hop:\n%s", b.String())
	if looped.HitRate < single.HitRate || looped.Recall < single.Recall {
		t.Errorf("the loop does worse than one cycle on single-hop questions: hit rate %.3f vs %.3f, recall %.3f vs %.3f",
			looped.HitRate, single.HitRate, looped.Recall, single.Recall)
		for i, r := range lres {
			if r.Recall < sres[i].Recall {
				t.Logf("%s: loop cited %v, one cycle %v, expected %v", r.ID, r.Cited, sres[i].Cited, r.Expect)
			}
		}
	}
	for _, r := range lres {
		if len(r.OffTopic) > 0 {
			t.Errorf("%s %q: the loop cites documents sharing no key term with it: %v", r.ID, r.Question.Question, r.OffTopic)
		}
	}
}
