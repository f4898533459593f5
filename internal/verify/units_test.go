package verify

import (
	"context"
	"fmt"
	"testing"

	"github.com/deepresearch/deepresearch/source"
)

// One reference cited at two pages: each pinpoint is checked against its
// page's text, a page never read is fabricated, and a citation with no
// pinpoint against both pages.
func TestUnitsOfOneReference(t *testing.T) {
	page := func(p, text string) Source {
		return Source{Number: 1, ID: "spec.pdf", URL: "file:///c/spec.pdf", Title: "spec.pdf",
			Location: source.Location{Kind: source.LocPage, Value: p}, Text: text}
	}
	sources := []Source{
		page("4", "The weight of a magic rule ranges from 0 to 100, and rules with higher weights are tried first."),
		page("7", "Glob patterns are matched against the file name only, never the full path."),
	}
	report := "Magic rule weights range from 0 to 100 [1, p. 4].\n\n" +
		"Glob patterns match the file name, never the full path [1, p. 7].\n\n" +
		"Glob patterns match the file name, never the full path [1, p. 4].\n\n" +
		"Magic rule weights range from 0 to 100 [1, p. 9].\n\n" +
		"Glob patterns match the file name, never the full path [1].\n"
	res, err := Check(context.Background(), report, sources, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Citations {
		got = append(got, fmt.Sprintf("%d %s %s", c.Line, c.Location, c.Status))
	}
	want := "[1 p. 4 supported 3 p. 7 supported 5 p. 4 unsupported 7 p. 9 fabricated 9  supported]"
	if fmt.Sprint(got) != want {
		t.Errorf("citations\n got %v\nwant %s", got, want)
	}
	for _, p := range res.Problems {
		if p.Kind == ProblemDuplicate {
			t.Errorf("two pages of one reference reported as duplicates: %+v", p)
		}
	}
	// Two documents under one number stay an error.
	other := page("2", "x")
	other.ID, other.URL = "other.pdf", "file:///c/other.pdf"
	if _, err := Check(context.Background(), report, append(sources, other), Options{}); err == nil {
		t.Error("two documents under number 1: no error")
	}
}
