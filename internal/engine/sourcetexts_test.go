package engine

import (
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/source"
)

// TestSourceTextsJoinWhatEachAgentRead: two agents shown different parts
// of one page (a follow-up's stored text, then a later search's
// snippets) each quote what they were shown; the verifier checks the
// merged source against both parts, not the longer one alone, which
// flagged the second agent's verbatim quotes as unsupported.
func TestSourceTextsJoinWhatEachAgentRead(t *testing.T) {
	page := source.Source{ID: "doc/go_mem.html", URL: "https://go.dev/ref/mem"}
	stored := "The happens before relation is defined as the transitive closure of the union of the sequenced before and synchronized before relations. " + strings.Repeat("More of the stored text. ", 40)
	snippet := "A send on a channel is synchronized before the completion of the corresponding receive from that channel."
	outcomes := []agentOutcome{
		{res: &agent.Result{Sources: map[int]source.Source{1: page}, Texts: map[int]string{1: stored}}},
		{res: &agent.Result{Sources: map[int]source.Source{3: page}, Texts: map[int]string{3: snippet}}},
		{res: &agent.Result{Sources: map[int]source.Source{2: page}, Texts: map[int]string{2: snippet[:40]}}}, // a part already held
	}
	got := sourceTexts(outcomes, []cite.MergedSource{{Number: 1, Source: page}})[1]
	if !strings.Contains(got, "transitive closure") || !strings.Contains(got, snippet) {
		t.Fatalf("source 1's text lacks a part an agent read:\n%s", got)
	}
	if strings.Count(got, snippet[:40]) != 1 {
		t.Errorf("a part held twice:\n%s", got)
	}
}
