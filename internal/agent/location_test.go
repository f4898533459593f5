package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

// pagedBackend returns passages of one PDF from two pages, the second
// twice, as a corpus over PDFs does.
type pagedBackend struct{}

func (pagedBackend) Search(context.Context, string, int) ([]search.Result, error) {
	page := func(n, text string) search.Result {
		loc := source.Location{Kind: source.LocPage, Value: n}
		return search.Result{DocID: "spec.pdf", URL: "file:///c/spec.pdf", Title: "spec.pdf",
			Location: loc.String(), Locator: loc, Snippet: text, Channel: "corpus"}
	}
	return []search.Result{
		page("4", "The default weight of a glob rule is 50, and the maximum weight of a glob rule is 100."),
		page("7", "Magic rules with a higher priority are tried first when a glob rule leaves the type in doubt."),
		page("7", "Magic rules with a higher priority are tried first when a glob rule leaves the type in doubt."),
	}, nil
}

func (pagedBackend) Fetch(context.Context, string) (search.Document, error) {
	return search.Document{DocID: "spec.pdf", Title: "spec.pdf",
		Text: "--- page 4 ---\nThe default weight is 50.\n\n--- page 7 ---\nMagic rules come first."}, nil
}

// Passages of one document at different locations are different sources,
// each carrying its location; the same passage again is the same source.
func TestSourcesCarryLocations(t *testing.T) {
	s := newSession(Config{Search: pagedBackend{}}, Task{Objective: "glob rule weight priority", Question: "glob rule weight priority"})
	out, err := s.search(t.Context(), "glob rule weight", nil)
	if err != nil {
		t.Fatal(err)
	}
	srcs := s.Sources()
	want := map[int]string{1: "spec.pdf, p. 4", 2: "spec.pdf, p. 7"}
	if len(srcs) != len(want) {
		t.Fatalf("%d sources %+v, want 2:\n%s", len(srcs), srcs, out)
	}
	for n, label := range want {
		if got := srcs[n].Label(); got != label {
			t.Errorf("[%d] %q, want %q", n, got, label)
		}
	}
	if !strings.Contains(out, "Location: p. 7") {
		t.Errorf("the model is not told the location:\n%s", out)
	}
	opened, err := s.open(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(opened, "Location: p. 7") || !strings.Contains(opened, "Magic rules come first.") || strings.Contains(opened, "default weight is 50") {
		t.Errorf("opening the page-7 source shows more or less than page 7:\n%s", opened)
	}
	if strings.Contains(s.texts[1], "Magic") || !strings.Contains(s.texts[2], "Magic") {
		t.Errorf("each source's text is its own passage's: %v", s.texts)
	}
}
