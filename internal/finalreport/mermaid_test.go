package finalreport

import (
	"regexp"
	"strings"
	"testing"
)

// TestMermaid: the graph links the question to each section and each
// section to the references its blocks cite, by the sidecar; hostile
// text in the question and titles stays inside its label.
func TestMermaid(t *testing.T) {
	rep, x := envelopeReport(t)
	doc, err := JSON(`Why"] --> X[click X href "javascript:alert(1)"] %%{init}%% <b>?`, rep, x)
	if err != nil {
		t.Fatal(err)
	}
	got := Mermaid(doc)
	golden(t, "envelope.mmd", got)
	for _, want := range []string{"flowchart LR\n", "  S1[\"Cables\"]\n", "  Q --> S1\n", "  S1 --> R1\n", "  S1 --> R2\n", "  S1 --> R3\n", "  S1 --> R4\n",
		"  R3[\"3. Three #38; #60;Co#62;\"]\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the graph lacks %q:\n%s", want, got)
		}
	}
	// Every line is a node with a quoted label of safe characters and
	// entity codes, or an edge between known nodes.
	line := regexp.MustCompile(`^(flowchart LR|  [QSR]\d*\["[A-Za-z0-9 .,#;-]*"\]|  Q --> S\d+|  S\d+ --> R\d+)$`)
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if !line.MatchString(l) {
			t.Errorf("line %q is neither a safe node nor an edge", l)
		}
	}
	if strings.Count(got, "-->") != 5 {
		t.Errorf("want 5 edges:\n%s", got)
	}
	if l := mermaidLabel(strings.Repeat("word ", 40)); !strings.HasSuffix(l, "#8230;") || len(l) != labelMax-1+len("#8230;") {
		t.Errorf("a long label: %q", l)
	}
}
