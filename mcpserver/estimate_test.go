package mcpserver

import (
	"strings"
	"testing"
)

// TestResearchEstimate: the research tool with "estimate": true returns
// the plan and the expected and maximum spend, as text and as
// Report.Estimate, and researches nothing (no report, no references).
func TestResearchEstimate(t *testing.T) {
	cs := connect(t, Options{Research: newResearcher(t, nil)})
	var rep Report
	res := call(t, cs, "research", map[string]any{"question": "How are submarine cables repaired?", "estimate": true, "max_cycles": 2}, &rep)
	est := rep.Estimate
	if est == nil || rep.Markdown != "" || len(rep.References) != 0 {
		t.Fatalf("an estimate call gave %+v", rep)
	}
	if len(est.Plan) == 0 || est.MaxCycles != 2 || est.Maximum.Calls < est.Expected.Calls || est.Expected.Calls == 0 {
		t.Errorf("estimate %+v", est)
	}
	if text := contentText(res); !strings.Contains(text, "| at most |") || !strings.Contains(text, est.Plan[0].Title) {
		t.Errorf("the estimate's text:\n%s", text)
	}
}
