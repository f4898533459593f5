package collapse

import (
	"testing"

	"github.com/deepresearch/deepresearch/internal/source"
)

// Two pages of one PDF stay two sources, each with its page, so that no
// citation ends up pointing at the other page; the same page cited by two
// reports is one source.
func TestMergeKeepsLocations(t *testing.T) {
	page := func(n string) source.Source {
		return source.Source{ID: "spec.pdf", URL: "file:///c/spec.pdf", Title: "spec.pdf",
			Location: source.Location{Kind: source.LocPage, Value: n}}
	}
	res, err := Merge([]Report{
		{Section: "A", Text: "Weights go to 100 [1]. Magic comes first [2].", Mapping: map[int]source.Source{1: page("4"), 2: page("7")}},
		{Section: "B", Text: "Magic is tried first [1].", Mapping: map[int]source.Source{1: page("7")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sources) != 2 || res.Sources[0].Label() != "spec.pdf, p. 4" || res.Sources[1].Label() != "spec.pdf, p. 7" {
		t.Fatalf("sources %+v", res.Sources)
	}
	if got := res.Reports[1].Text; got != "Magic is tried first [2]." {
		t.Errorf("second report %q", got)
	}
}
