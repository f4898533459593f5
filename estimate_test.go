package deepresearch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
)

// estimateQuestions are the mock world's questions: the test corpus's
// topics, asked as people ask them.
var estimateQuestions = []string{
	question,
	loopQuestion,
	"How much capacity did each generation of undersea cables add, and what limited it?",
	"How are cable faults found, and how long does a repair ship take?",
}

// estimateOutline are sections of a report on the corpus, for runs with a
// plan of several tasks.
var estimateOutline = []string{"Laying cables", "Finding faults", "Repair ships", "Capacity over time"}

// TestEstimateBoundsTheRun is the estimate's property: over runs of the
// mock world — the offline model behind the OpenAI wire double, the test
// corpus — with settings drawn at random (questions, cycles, tasks, tool
// calls, agent token budgets, a run token budget), a run never spends
// more calls, tokens or dollars than its estimate's Maximum, and the
// estimate's Expected is within its Maximum.
func TestEstimateBoundsTheRun(t *testing.T) {
	srv := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}), deepresearchtest.OpenAIOptions{})
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", "")
	index := filepath.Join(t.TempDir(), "index.db")
	rng := rand.New(rand.NewPCG(34, 1))
	runs := 24
	if testing.Short() {
		runs = 6
	}
	for i := range runs {
		s := config.Defaults()
		s.Corpus.Dir, s.Corpus.Index = filepath.Join("testdata", "corpus"), index
		s.Model.Provider, s.Model.Name, s.Model.BaseURL = "openai", "gpt-test", srv.URL+"/v1"
		s.Model.Prices = map[string]config.Price{"openai:gpt-test": {Input: 2.5, Output: 10}}
		s.Research.MaxCycles = 1 + rng.IntN(3)
		s.Research.MaxTasks = 1 + rng.IntN(4)
		s.Research.MaxToolCalls = 1 + rng.IntN(8)
		s.Research.MaxTokens = []int{2000, 6000, 16000}[rng.IntN(3)]
		if rng.IntN(3) == 0 {
			s.Research.MaxRunTokens = 5000 + rng.IntN(40000)
		}
		q := estimateQuestions[rng.IntN(len(estimateQuestions))]
		var outline []string
		if rng.IntN(2) == 0 { // a plan of several tasks, which the offline planner seldom makes
			outline = estimateOutline[:1+rng.IntN(len(estimateOutline))]
		}
		name := fmt.Sprintf("%d/cycles=%d,tasks=%d,tools=%d,tokens=%d,run=%d,outline=%d", i, s.Research.MaxCycles, s.Research.MaxTasks,
			s.Research.MaxToolCalls, s.Research.MaxTokens, s.Research.MaxRunTokens, len(outline))
		t.Run(name, func(t *testing.T) {
			r, err := config.NewResearcher(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			ctx := context.Background()
			req := deepresearch.Request{Question: q, Clarify: deepresearch.ClarifyNever, Outline: outline}
			est, err := r.Estimate(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			var cost float64
			rep, err := research(ctx, r, req, func(e events.Event) {
				if d, ok := e.Data.(events.RunFinishedData); ok {
					cost = d.CostUSD
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			got, most, typ := rep.Usage, est.Maximum, est.Expected
			t.Logf("plan %d tasks; spent %d calls, %d tokens, $%.4f; expected %d calls, %d tokens, $%.4f; at most %d calls, %d tokens, $%.4f",
				len(est.Plan), got.Calls, got.Total(), cost, typ.Calls, typ.Total(), typ.CostUSD, most.Calls, most.Total(), most.CostUSD)
			if got.Calls > most.Calls || got.PromptTokens > most.PromptTokens || got.CompletionTokens > most.CompletionTokens || cost > most.CostUSD+1e-9 {
				t.Errorf("the run spent %+v ($%g), more than the estimate's maximum %+v ($%g)", got, cost, most.Usage, most.CostUSD)
			}
			if typ.Calls > most.Calls || typ.Total() > most.Total() || typ.CostUSD > most.CostUSD {
				t.Errorf("expected %+v above the maximum %+v", typ, most)
			}
			if planned := min(1, 1-len(outline)); !est.Priced || est.Spent.Calls != max(0, planned) {
				t.Errorf("priced %v, the estimate spent %+v (want its planning call, none with an outline)", est.Priced, est.Spent)
			}
		})
	}
}
