// Package pdfcheck reads PDFs back with the real tools for tests: qpdf
// checks a PDF's structure and lists its link annotations, poppler's
// pdffonts its fonts and pdftotext its text. A test that needs a tool
// that is not installed is skipped with the reason, except under CI
// (CI set), where .ci/run installs them (chromium, poppler-utils, qpdf,
// fonts-noto-cjk, fonts-noto-core) and their absence fails it.
package pdfcheck

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Need skips the test when one of tools is not on PATH, or fails it under
// CI.
func Need(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (.ci/run installs it): %v", tool, err)
			}
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
}

// Run runs a tool and returns its standard output; a failure fails the
// test with its stderr.
func Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, ee.Stderr)
		}
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// Doc is what the tools read of a PDF.
type Doc struct {
	// Text is what pdftotext gives (UTF-8, the layout's lines).
	Text string
	// URIs are the targets of its link annotations to URIs, in the order
	// qpdf lists them.
	URIs []string
	// InternalLinks counts its link annotations to a place in the
	// document (a /Dest).
	InternalLinks int
}

// Flat is Text with every run of white space one space.
func (d Doc) Flat() string { return strings.Join(strings.Fields(d.Text), " ") }

var (
	uriAnnot  = regexp.MustCompile(`"/URI": "u:([^"]+)"`)
	destAnnot = regexp.MustCompile(`"/Dest": `)
)

// Read checks pdf with the tools — qpdf --check finds no error, pdffonts
// lists at least one font and every one embedded — and returns what they
// read of it.
func Read(t testing.TB, pdf []byte) Doc {
	t.Helper()
	Need(t, "pdftotext", "pdffonts", "qpdf")
	path := filepath.Join(t.TempDir(), "read.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := Run(t, "qpdf", "--check", path); !strings.Contains(out, "No syntax or stream encoding errors found") {
		t.Errorf("qpdf --check:\n%s", out)
	}
	fonts := strings.Split(strings.TrimSpace(Run(t, "pdffonts", path)), "\n")
	if len(fonts) < 3 {
		t.Errorf("pdffonts lists no font:\n%s", strings.Join(fonts, "\n"))
	}
	for _, line := range fonts[min(2, len(fonts)):] {
		// name type encoding emb sub uni object ID: emb is the fifth
		// field from the end (a name may be "[none]", a type two words).
		if f := strings.Fields(line); len(f) < 7 || f[len(f)-5] != "yes" {
			t.Errorf("a font is not embedded: %s", line)
		}
	}
	js := Run(t, "qpdf", "--json", path)
	var d Doc
	for _, m := range uriAnnot.FindAllStringSubmatch(js, -1) {
		d.URIs = append(d.URIs, m[1])
	}
	d.InternalLinks = len(destAnnot.FindAllString(js, -1))
	d.Text = Run(t, "pdftotext", "-enc", "UTF-8", path, "-")
	return d
}
