package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/extract"
)

// readDOCX reads a DOCX report back with the corpus's own reader.
func readDOCX(t *testing.T, b []byte) extract.Document {
	t.Helper()
	d, err := extract.ExtractBytes(context.Background(), "report.docx", b, extract.FormatDOCX, extract.Limits{})
	if err != nil {
		t.Fatalf("not a DOCX report: %v (%d bytes)", err, len(b))
	}
	return d
}

// --format docx -o report.docx writes a Word document; to a stdout that
// is no terminal (a pipe, a file) the document goes byte for byte, not
// through the text filter that drops control bytes.
func TestRunDOCX(t *testing.T) {
	file := filepath.Join(t.TempDir(), "report.docx")
	r := research(t, "--format", "docx", "-o", file)
	wantSuccess(t, r)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d := readDOCX(t, b)
	if d.Title != question {
		t.Errorf("title %q, want the question", d.Title)
	}
	for _, want := range []string{"\n## References\n\n[1] ", "\n## Verification\n\n"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("the document lacks %q:\n%s", want, d.Text)
		}
	}
	r = research(t, "--format", "docx")
	wantSuccess(t, r)
	if !bytes.HasPrefix([]byte(r.stdout), []byte("PK\x03\x04")) {
		t.Fatalf("stdout is not a zip: %.40q", r.stdout)
	}
	if again := readDOCX(t, []byte(r.stdout)); again.Text != d.Text {
		t.Errorf("the report on stdout differs from the one written with -o")
	}
}

// On a terminal, --format docx without -o is refused before any research,
// with a way out.
func TestRunDOCXRefusesTerminal(t *testing.T) {
	index := isolate(t)
	args, _ := json.Marshal([]string{"run", "--corpus", corpus, "--index", index, "--progress", "never", "--format", "docx", question})
	term := startTerminal(t, args)
	var seen bytes.Buffer
	io.Copy(&seen, term.screen) // until the process ends and the terminal closes
	err := term.cmd.Wait()
	if err == nil || term.cmd.ProcessState.ExitCode() != 2 {
		t.Errorf("exit %v, want status 2\n%s", err, seen.String())
	}
	for _, want := range []string{"--format docx is a binary file and stdout is a terminal", "-o report.docx"} {
		if !strings.Contains(seen.String(), want) {
			t.Errorf("the terminal shows no %q:\n%s", want, seen.String())
		}
	}
	if strings.Contains(seen.String(), "PK\x03\x04") {
		t.Errorf("the document was printed on the terminal")
	}
}
