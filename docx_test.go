package deepresearch_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/source"
)

// A run over a PDF and a CSV catalogue, rendered as DOCX and read back by
// the repository's own DOCX reader: the reference list names the row the
// report cites, with each reference's entry, and the verification
// summary states the run's own counts.
func TestDOCXReport(t *testing.T) {
	rep := runOver(t, "How much battery life does the TechBook Air laptop have?")
	ref, _ := referenceAt(t, rep, "catalog.csv", source.Location{Kind: source.LocRow, Value: "3"})
	b, err := rep.Render(render.DOCX)
	if err != nil {
		t.Fatal(err)
	}
	d, err := extract.ExtractBytes(context.Background(), "report.docx", b, extract.FormatDOCX, extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != rep.Question {
		t.Errorf("title %q, want the question", d.Title)
	}
	if !regexp.MustCompile(`(?m)^\[` + itoa(ref.Number) + `\] catalog\.csv, (row 3|rows (\d+, )*3(, \d+)*)$`).MatchString(d.Text) {
		t.Errorf("the reference list does not give the row:\n%s", d.Text)
	}
	for _, r := range rep.References {
		if !strings.Contains(d.Text, "["+itoa(r.Number)+"] "+r.Label()) {
			t.Errorf("reference [%d] %s is missing:\n%s", r.Number, r.Label(), d.Text)
		}
	}
	if rep.Verification == nil {
		t.Fatal("the run was not verified")
	}
	s := rep.Verification.Summary
	want := itoa(s.Citations) + " citations checked against the text of their sources (judged by " + rep.Verification.Judge + "): " +
		itoa(s.Supported) + " supported, " + itoa(s.Unsupported) + " unsupported"
	if !strings.Contains(d.Text, "## Verification\n\n"+want) {
		t.Errorf("no verification summary %q:\n%s", want, d.Text)
	}
	if !strings.Contains(d.Text, "[1]") || !strings.Contains(d.Text, "18 hours of battery") {
		t.Errorf("the report's text is missing:\n%s", d.Text)
	}
}
