package collapse

import (
	"testing"

	"github.com/deepresearch/deepresearch/source"
)

// Two pages of one PDF stay two citation targets, each with its page, so
// that no citation ends up pointing at the other page (publication makes
// them one reference: DocumentKey); the same page cited by two reports is
// one target.
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
	if k := DocumentKey(res.Sources[0].Source); k == "" || k != DocumentKey(res.Sources[1].Source) {
		t.Errorf("the two pages are documents %q and %q", k, DocumentKey(res.Sources[1].Source))
	}
	sheet := func(part string) source.Source {
		return source.Source{ID: "b.xlsx", URL: "file:///c/b.xlsx", Location: source.Location{Kind: source.LocRow, Value: "3", Part: part}}
	}
	if DocumentKey(sheet("Prices")) == DocumentKey(sheet("Stock")) || DocumentKey(source.Source{}) != "" {
		t.Error("two sheets are one document, or an anonymous source has a key")
	}
}
