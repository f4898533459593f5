package deepresearch_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
)

// TestRunBudgets: when a run-wide budget is reached the agents stop
// researching, the final report is written from what they gathered and
// says so, and run.finished names the budget.
func TestRunBudgets(t *testing.T) {
	free := newResearcher(t, deepresearch.Config{})
	full, err := runWith(context.Background(), free, question, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  deepresearch.Config
		want string
	}{
		{"tokens", deepresearch.Config{Limits: deepresearch.Limits{MaxRunTokens: 1}}, "token budget (1 tokens)"},
		{"cost", deepresearch.Config{Limits: deepresearch.Limits{MaxCost: 0.01}, Price: func(role string, u events.Usage) float64 {
			return float64(u.Total()) * 10 / 1e6 // $10 per million tokens
		}}, "cost budget ($0.01)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newResearcher(t, tc.cfg)
			rec := &recorder{}
			rep, err := runWith(context.Background(), r, question, rec.sink)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rep.Text, "Research stopped early") || !strings.Contains(rep.Text, tc.want) {
				t.Errorf("the report does not say the %s budget stopped it:\n%s", tc.name, rep.Text)
			}
			fin := rec.of(events.RunFinished)[0].Data.(events.RunFinishedData)
			if !strings.Contains(fin.Stopped, tc.want) {
				t.Errorf("run.finished stopped = %q", fin.Stopped)
			}
			if rep.Usage.Calls >= full.Usage.Calls {
				t.Errorf("budgeted run made %d calls, the free one %d: nothing stopped", rep.Usage.Calls, full.Usage.Calls)
			}
			checkCitations(t, rep, rec)
		})
	}
	if _, err := deepresearch.New(deepresearch.Config{Limits: deepresearch.Limits{MaxCost: 1}}); !errors.Is(err, deepresearch.ErrConfig) {
		t.Errorf("MaxCost without prices: %v, want ErrConfig", err)
	}
}

// TestUsageIsEveryCall: a run's usage is counted once, by the meter its
// budgets read: Report.Usage and run.finished's usage are every model
// call the run made — the clarifier's, the planner's, each agent's turns
// in both cycles, the assessments', the writer's — and the agents' own
// figures add up to their part of it.
func TestUsageIsEveryCall(t *testing.T) {
	var mu sync.Mutex
	served := 0
	s := &script{plan: onePart, search: thomsonSearch, assess: followUp, onCall: func(context.Context, string, string) error {
		mu.Lock()
		defer mu.Unlock()
		served++
		return nil
	}}
	r := scriptedResearcher(t, s, deepresearch.Config{Judges: deepresearch.Judges{Lexical: true}})
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, loopQuestion, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cycles != 2 {
		t.Fatalf("%d cycles, want 2 (the script asks for a follow-up)", rep.Cycles)
	}
	if rep.Usage.Calls != served || rep.Usage.PromptTokens == 0 {
		t.Errorf("Report.Usage %+v; the model served %d calls", rep.Usage, served)
	}
	fin := rec.of(events.RunFinished)
	if len(fin) != 1 || fin[0].Data.(events.RunFinishedData).Usage != rep.Usage {
		t.Errorf("run.finished's usage is not the report's: %+v", fin)
	}
	var agents events.Usage
	for _, e := range rec.of(events.AgentFinished) {
		agents = agents.Add(e.Data.(events.AgentFinishedData).Usage)
	}
	// Besides the agents: the clarifier, the planner, two assessments and
	// the writer, one call each.
	if agents.Calls == 0 || rep.Usage.Calls != agents.Calls+5 {
		t.Errorf("agents made %d calls of the run's %d; want all but 5", agents.Calls, rep.Usage.Calls)
	}
}
