package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/pdfprint/pdfcheck"
)

// -o report.pdf writes the report printed as PDF (the extension chooses
// the format), read back with poppler and qpdf; on a stdout that is no
// terminal --format pdf writes the PDF itself.
func TestRunPDF(t *testing.T) {
	pdfcheck.Need(t, "chromium")
	file := filepath.Join(t.TempDir(), "report.pdf")
	r := research(t, "-o", file)
	wantSuccess(t, r)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d := pdfcheck.Read(t, b)
	flat := d.Flat()
	if !strings.HasPrefix(flat, question+" ") {
		t.Errorf("the PDF does not open with the question:\n%s", d.Text)
	}
	for _, want := range []string{" References 1. ", " Verification "} {
		if !strings.Contains(flat, want) {
			t.Errorf("the PDF lacks %q:\n%s", want, d.Text)
		}
	}
	if len(d.URIs) == 0 || d.InternalLinks == 0 {
		t.Errorf("links %q and %d internal links: want both", d.URIs, d.InternalLinks)
	}
	r = research(t, "--format", "pdf")
	wantSuccess(t, r)
	if !bytes.HasPrefix([]byte(r.stdout), []byte("%PDF-")) {
		t.Fatalf("stdout is not a PDF: %.40q", r.stdout)
	}
	if again := pdfcheck.Read(t, []byte(r.stdout)); again.Text != d.Text {
		t.Errorf("the report on stdout differs from the one written with -o")
	}
}

// Without the browser a PDF needs, run refuses before any research, saying
// what to do, and writes no file.
func TestRunPDFNoChromium(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "deepresearch.yaml")
	if err := os.WriteFile(conf, []byte("output:\n  chromium: "+filepath.Join(dir, "no-chromium")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "report.pdf")
	r := research(t, "--config", conf, "-o", file)
	wantBadInput(t, r, "PDF needs Chromium: install it or set output.chromium")
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a report file was written: %v", err)
	}
}

// A stored run is shown as PDF, and replayed with --check into a PDF: a
// PDF records when it was printed, so --check compares the reports as
// JSON and passes.
func TestStoredRunPDF(t *testing.T) {
	pdfcheck.Need(t, "chromium")
	store := filepath.Join(t.TempDir(), "runs.db")
	r := research(t, "--store", store, "--format", "json")
	wantSuccess(t, r)
	m := runID.FindStringSubmatch(cli(t, "", "runs", "--json", "--store", store).stdout)
	if m == nil {
		t.Fatal("no run stored")
	}
	show := cli(t, "", "show", "--store", store, "--format", "pdf", m[1])
	wantSuccess(t, show)
	d := pdfcheck.Read(t, []byte(show.stdout))
	out := filepath.Join(t.TempDir(), "replayed.pdf")
	rp := cli(t, "", "replay", "--store", store, "--check", "-o", out, m[1])
	wantSuccess(t, rp)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := pdfcheck.Read(t, b).Text; got != d.Text {
		t.Errorf("the replayed PDF's text differs from the stored run's:\n%s\nwant:\n%s", got, d.Text)
	}
}
