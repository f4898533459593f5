package deepresearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/pdfprint/pdfcheck"
	"github.com/deepresearch/deepresearch/render"
)

// A run over a PDF and a CSV catalogue, rendered as PDF and read back with
// poppler and qpdf: the question as its title, the report's text, every
// reference's entry, the verification summary with the run's own counts;
// the report reloaded from its JSON prints the same text.
func TestPDFReport(t *testing.T) {
	pdfcheck.Need(t, "chromium")
	rep := runOver(t, "How much battery life does the TechBook Air laptop have?")
	b, err := rep.RenderContext(context.Background(), render.PDF, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := pdfcheck.Read(t, b)
	flat := d.Flat()
	if !strings.HasPrefix(flat, rep.Question+" ") {
		t.Errorf("the PDF does not open with the question:\n%s", d.Text)
	}
	for _, r := range rep.References {
		if !strings.Contains(flat, itoa(r.Number)+". "+r.Label()) {
			t.Errorf("reference [%d] %s is missing:\n%s", r.Number, r.Label(), d.Text)
		}
	}
	if rep.Verification == nil {
		t.Fatal("the run was not verified")
	}
	s := rep.Verification.Summary
	want := "Verification " + itoa(s.Citations) + " citations checked against the text of their sources (judged by " + rep.Verification.Judge + "): " +
		itoa(s.Supported) + " supported, " + itoa(s.Unsupported) + " unsupported"
	if !strings.Contains(flat, want) || !strings.Contains(flat, "18 hours of battery") {
		t.Errorf("no verification summary %q or no report text:\n%s", want, d.Text)
	}
	if d.InternalLinks == 0 {
		t.Errorf("no citation links to its reference")
	}
	// Render finds the browser on PATH the same way.
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	back, err := deepresearch.LoadReport(js)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.Render(render.PDF)
	if err != nil {
		t.Fatal(err)
	}
	if got := pdfcheck.Read(t, again).Text; got != d.Text {
		t.Errorf("the reloaded report prints other text:\n%s\nwant:\n%s", got, d.Text)
	}
}

// Without a browser, a PDF is refused before and after a run with the
// same error, and every other format renders.
func TestPDFNoChromium(t *testing.T) {
	opts := render.Options{Chromium: filepath.Join(t.TempDir(), "chromium")}
	if err := opts.Ready(render.PDF); !errors.Is(err, render.ErrNoChromium) ||
		!strings.Contains(err.Error(), "PDF needs Chromium: install it or set output.chromium") {
		t.Errorf("Ready(pdf) = %v, want ErrNoChromium", err)
	}
	if err := opts.Ready(render.DOCX); err != nil {
		t.Errorf("Ready(docx) = %v", err)
	}
	rep := &deepresearch.Report{Version: render.Version, Question: "Q", Draft: "Nothing to cite.\n", Text: "Nothing to cite.\n", Body: "Nothing to cite.\n"}
	if _, err := rep.RenderContext(context.Background(), render.PDF, opts); !errors.Is(err, render.ErrNoChromium) {
		t.Errorf("RenderContext(pdf) = %v, want ErrNoChromium", err)
	}
	if b, err := rep.RenderContext(context.Background(), render.Markdown, opts); err != nil || !strings.Contains(string(b), "Nothing to cite.") {
		t.Errorf("RenderContext(md) = %q, %v", b, err)
	}
}
