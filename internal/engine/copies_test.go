package engine

import (
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
	"github.com/deepresearch/deepresearch/worker"
)

// TestCopiesAcrossAgentsCitedOnce: two agents, each of whose filters kept
// one of two copies of a text (under two names), and a third that read
// something else: the merged report has one source for the copies.
func TestCopiesAcrossAgentsCitedOnce(t *testing.T) {
	text := strings.Repeat("Cable ships find a fault by testing the conductor from the shore, then grapple the cable from the sea floor and splice in a new length. ", 3)
	other := "Telegraph cables had nothing along their length but copper, insulation and armour, and signals slowed with length."
	orig := source.Source{ID: "operations/cable-faults.md", URL: "file:///c/operations/cable-faults.md", Title: "Cable Faults"}
	mirror := source.Source{ID: "mirror/repairs.md", URL: "file:///c/mirror/repairs.md", Title: "Repairing Cables"}
	rep := source.Source{ID: "engineering/repeaters.md", URL: "file:///c/engineering/repeaters.md", Title: "Repeaters"}
	outcomes := []agentOutcome{
		{res: &agent.Result{Report: "Ships splice in a new length [1].", Sources: map[int]source.Source{1: orig}, Texts: map[int]string{1: text}}},
		{failure: &worker.Failure{Kind: "error"}},
		{res: &agent.Result{Report: "Faults are found from the shore [1]. Copper [2].", Sources: map[int]source.Source{1: mirror, 2: rep},
			Texts: map[int]string{1: "Excerpt: " + text, 2: other}}},
	}
	citeCopiesOnce(outcomes)
	m := collapse.NewMerger()
	for _, o := range outcomes {
		if o.res == nil {
			continue
		}
		if _, err := m.Add(collapse.Report{Section: "s", Text: o.res.Report, Mapping: o.res.Sources}); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for _, s := range m.Sources() {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, " ") != "operations/cable-faults.md engineering/repeaters.md" {
		t.Errorf("merged sources %v, want the copy cited as the first agent's source, the other kept", ids)
	}
	texts := sourceTexts(outcomes, m.Sources())
	if !strings.HasPrefix(texts[1], "Excerpt: ") {
		t.Errorf("verification reads %q for the copies, want the longer text", texts[1])
	}
}
