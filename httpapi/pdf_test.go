package httpapi

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/pdfprint/pdfcheck"
	"github.com/deepresearch/deepresearch/render"
)

// finished starts a run and reads its events to the end.
func (e *env) finished(question string) string {
	e.t.Helper()
	s := e.start(question)
	if _, end := e.events(s.ID, 0); end["status"] != "finished" {
		e.t.Fatalf("the run ended %v", end)
	}
	return s.ID
}

// get GETs path and returns the answer with its body read.
func (e *env) get(path string) (*http.Response, []byte) {
	e.t.Helper()
	res := e.do("GET", path, "")
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		e.t.Fatal(err)
	}
	return res, b
}

// ?format=pdf serves the report printed as PDF, as a file to save.
func TestResearchPDF(t *testing.T) {
	pdfcheck.Need(t, "chromium")
	e := newEnv(t, envOpts{})
	id := e.finished("How are undersea cables repaired?")
	res, b := e.get("/v1/research/" + id + "?format=pdf")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/pdf" ||
		res.Header.Get("Content-Disposition") != "attachment; filename=report-"+id+".pdf" {
		t.Fatalf("%s, %s, %s: %.200s", res.Status, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"), b)
	}
	d := pdfcheck.Read(t, b)
	if flat := d.Flat(); !strings.HasPrefix(flat, "How are undersea cables repaired? ") || !strings.Contains(flat, " References 1. ") {
		t.Errorf("the PDF lacks the question or the references:\n%s", d.Text)
	}
}

// A server with no browser says so (501), and prints nothing else.
func TestResearchPDFNoChromium(t *testing.T) {
	e := newEnv(t, envOpts{render: render.Options{Chromium: filepath.Join(t.TempDir(), "chromium")}})
	id := e.finished("How are undersea cables repaired?")
	res, b := e.get("/v1/research/" + id + "?format=pdf")
	if res.StatusCode != http.StatusNotImplemented || !strings.Contains(string(b), "PDF needs Chromium: install it or set output.chromium") {
		t.Errorf("%s: %s", res.Status, b)
	}
	if res, _ := e.get("/v1/research/" + id + "?format=docx"); res.StatusCode != 200 {
		t.Errorf("docx: %s", res.Status)
	}
}

// PDFs are printed MaxPrints at a time: one more while they print is a
// 429, and the one printing is served.
func TestResearchPDFBusy(t *testing.T) {
	dir := t.TempDir()
	started, release := filepath.Join(dir, "started"), filepath.Join(dir, "release")
	browser := filepath.Join(dir, "chromium")
	script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --print-to-pdf=*) out=\"${a#--print-to-pdf=}\";; esac; done\n" +
		"touch " + started + "\nwhile [ ! -e " + release + " ]; do sleep 0.01; done\nprintf '%%PDF-1.4 printed' > \"$out\"\n"
	if err := os.WriteFile(browser, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOpts{render: render.Options{Chromium: browser}, maxPrints: 1})
	id := e.finished("How are undersea cables repaired?")
	type answer struct {
		status int
		body   string
	}
	first := make(chan answer, 1)
	go func() {
		res := e.do("GET", "/v1/research/"+id+"?format=pdf", "")
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		first <- answer{res.StatusCode, string(b)}
	}()
	for { // until the first is printing
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case a := <-first:
			t.Fatalf("the first answered before printing: %d %s", a.status, a.body)
		default:
		}
	}
	res, b := e.get("/v1/research/" + id + "?format=pdf")
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "prints at most 1 PDFs at once") {
		t.Errorf("the second: %s %s", res.Status, b)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if a := <-first; a.status != 200 || a.body != "%PDF-1.4 printed" {
		t.Errorf("the first: %d %q", a.status, a.body)
	}
}
