package pdfprint_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/pdfprint"
	"github.com/deepresearch/deepresearch/internal/pdfprint/pdfcheck"
	"github.com/deepresearch/deepresearch/internal/verify"
	"github.com/deepresearch/deepresearch/source"
)

// reportBody has what a report's PDF must keep: headings, a list, a
// table, code, a quote, and citations of four sources.
const reportBody = "# Cable repair\n\n" +
	"Repair ships splice a cut cable within days [1]. Faults are found by reflectometry [2][1], see also [3].\n\n" +
	"## Steps\n\n" +
	"1. Locate the fault [2].\n2. Grapple the cable.\n\n" +
	"- Splice it\n- Test it [4]\n\n" +
	"| Ship | Days |\n|---|---|\n| Léon Thévenin [1] | **12** |\n\n" +
	"```\nsplice --fibre 24 [1]\n```\n\n" +
	"> Most faults are caused by fishing [3].\n"

// reportRefs are the four sources: dated, authored, with locators, one a
// local document with no link.
func reportRefs() []finalreport.Reference {
	return []finalreport.Reference{
		{Number: 1, Source: source.Source{ID: "w1", URL: "https://example.org/cable-ships", Title: "Cable ships", Published: "2024-03-15", Author: "A. Writer"}},
		{Number: 2, Source: source.Source{ID: "w2", URL: "https://example.com/otdr?x=1&y=2", Title: "Reflectometry"}},
		{Number: 3, Source: source.Source{ID: "w3", URL: "https://example.net/faults", Title: "Fault statistics"}},
		{Number: 4, Source: source.Source{ID: "manual.pdf", URL: "file:///corpus/manual.pdf", Title: "Splicing manual"},
			Locations: []source.Location{{Kind: source.LocPage, Value: "4"}, {Kind: source.LocPage, Value: "7"}}},
	}
}

// reportVerified is a verification that found one problem.
func reportVerified() *finalreport.Verified {
	return &finalreport.Verified{
		Summary: verify.Summary{Citations: 8, Supported: 7, Unsupported: 1, Score: 0.875, Warnings: 1},
		Problems: []verify.Problem{{Line: 11, Severity: verify.Severity("warning"), Kind: verify.ProblemUnsupported, Number: 3,
			Message: "[3] does not support the sentence"}},
		Action: "flag", Judge: "lexical",
	}
}

// printReport prints a report as the root package does (PrintHTML, then
// Print) and writes the PDF to $PDF_OUT/name when that is set, to be
// looked at.
func printReport(t *testing.T, name, title string, r *finalreport.Report, v *finalreport.Verified) []byte {
	t.Helper()
	pdfcheck.Need(t, "chromium")
	page, err := finalreport.PrintHTML(title, r, v)
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := pdfprint.Print(context.Background(), []byte(page), pdfprint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("PDF_OUT"); dir != "" {
		_ = os.WriteFile(dir+"/"+name, pdf, 0o600)
	}
	return pdf
}

// The golden structure of a report's PDF, read back with poppler and
// qpdf: its headings in order, the list, table and code text, the
// reference list with each source's date, author, locator and URL
// written out, the verification section, every web source a link
// annotation and each citation an internal link.
func TestReportPDF(t *testing.T) {
	pdf := printReport(t, "report.pdf", "How are undersea cables repaired?", &finalreport.Report{Body: reportBody, References: reportRefs()}, reportVerified())
	d := pdfcheck.Read(t, pdf)
	text, uris, flat := d.Text, d.URIs, d.Flat()
	at := -1
	for _, heading := range []string{"How are undersea cables repaired?", "Cable repair", "Steps", "References", "Verification"} {
		i := strings.Index(text[at+1:], heading+"\n")
		if i < 0 {
			t.Fatalf("heading %q missing or out of order:\n%s", heading, text)
		}
		at += 1 + i
	}
	for _, want := range []string{
		"Repair ships splice a cut cable within days [1].",
		"Locate the fault [2].", "Test it [4]", "Léon Thévenin [1]", "splice --fibre 24 [1]", "Most faults are caused by fishing [3].",
		"1. Cable ships https://example.org/cable-ships — A. Writer (2024-03-15) supported",
		"2. Reflectometry https://example.com/otdr?x=1&y=2 supported",
		"3. Fault statistics https://example.net/faults unsupported, line 11: [3] does not support the sentence",
		"pp. 4, 7",
		"8 citations checked against the text of their sources (judged by lexical): 7 supported, 1 unsupported, 0 fabricated; support score 88%.",
		"Line 11, warning (unsupported): [3] does not support the sentence",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("pdftotext does not give %q:\n%s", want, text)
		}
	}
	slices.Sort(uris)
	uris = slices.Compact(uris)
	if want := []string{"file:///corpus/manual.pdf", "https://example.com/otdr?x=1&y=2", "https://example.net/faults", "https://example.org/cable-ships"}; !slices.Equal(uris, want) {
		t.Errorf("external links %q, want the sources' %q", uris, want)
	}
	// Citations link within the document: Chromium writes each as a link
	// annotation with a destination. The body has 8 citations outside its
	// code block.
	if n := d.InternalLinks; n != 8 {
		t.Errorf("%d internal links, want one for each of the 8 citations", n)
	}
}

// A report written in Japanese and Arabic, citing its sources, prints with
// its fonts embedded and every script's text given back.
func TestReportPDFScripts(t *testing.T) {
	body := "# 海底ケーブル\n\n海底ケーブルの修理には数週間かかる [1]。\n\n## الكابلات البحرية\n\nتستغرق إصلاحات الكابلات البحرية أسابيع [2].\n\nMixed: 東京 and القاهرة [1][2].\n"
	refs := []finalreport.Reference{
		{Number: 1, Source: source.Source{ID: "ja", URL: "https://example.jp/kaitei", Title: "海底ケーブルの修理", Published: "2025-01-02"}},
		{Number: 2, Source: source.Source{ID: "ar", URL: "https://example.eg/cables", Title: "إصلاح الكابلات"}},
	}
	pdf := printReport(t, "scripts.pdf", "海底ケーブルはどう修理されるか", &finalreport.Report{Body: body, References: refs}, nil)
	d := pdfcheck.Read(t, pdf)
	text, uris := d.Text, d.URIs
	for _, want := range []string{"海底ケーブルはどう修理されるか", "海底ケーブルの修理には数週間かかる [1]。", "تستغرق", "البحرية", "أسابيع",
		"東京", "القاهرة", "https://example.jp/kaitei", "https://example.eg/cables",
		"The citations of this report were not checked against their sources."} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext does not give %q:\n%s", want, text)
		}
	}
	if len(uris) < 2 {
		t.Errorf("links %q, want both sources'", uris)
	}
}

// Printing a report fetches nothing: an image the report links, on a
// server that answers, is not asked for (the page's CSP), although the
// same image on a page without it is.
func TestReportPDFFetchesNothing(t *testing.T) {
	pdfcheck.Need(t, "chromium")
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`)
	}))
	defer srv.Close()
	img := srv.URL + "/chart.svg"
	printReport(t, "image.pdf", "Q", &finalreport.Report{Body: "# Chart\n\n![chart](" + img + ") and [a link](" + srv.URL + "/page) [1].\n", References: reportRefs()[:1]}, nil)
	if n := hits.Load(); n != 0 {
		t.Errorf("printing the report asked the server %d times", n)
	}
	// The control: a page without the policy loads the image.
	if _, err := pdfprint.Print(context.Background(), []byte(`<!DOCTYPE html><p><img src="`+img+`"></p>`), pdfprint.Options{}); err != nil {
		t.Fatal(err)
	}
	if hits.Load() == 0 {
		t.Errorf("a page without the policy did not load its image: the test proves nothing")
	}
}
