package deepresearch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/events"
)

// TestRunBudgets: when a run-wide budget is reached the agents stop
// researching, the final report is written from what they gathered and
// says so, and run.finished names the budget.
func TestRunBudgets(t *testing.T) {
	free := newResearcher(t, deepresearch.Config{})
	full, err := free.Run(context.Background(), question)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  deepresearch.Config
		want string
	}{
		{"tokens", deepresearch.Config{MaxRunTokens: 1}, "token budget (1 tokens)"},
		{"cost", deepresearch.Config{MaxCost: 0.01, Price: func(role string, u deepresearch.Usage) float64 {
			return float64(u.Total()) * 10 / 1e6 // $10 per million tokens
		}}, "cost budget ($0.01)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newResearcher(t, tc.cfg)
			rec := &recorder{}
			rep, err := r.RunWith(context.Background(), question, rec.sink)
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
	if _, err := deepresearch.New(deepresearch.Config{MaxCost: 1}); !errors.Is(err, deepresearch.ErrConfig) {
		t.Errorf("MaxCost without prices: %v, want ErrConfig", err)
	}
}
