package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Issue 28's defects in verify, as the command shows them.

func writeSources(t *testing.T, dir string) string {
	t.Helper()
	srcs := []map[string]any{
		{"number": 1, "url": "file:///kb/techmart_catalog.csv", "title": "Product Catalog", "text": "product_id: SKU001 | price: 1499.0 | name: TechBook Pro"},
		{"number": 2, "url": "https://go.dev/ref/spec", "title": "Spec", "text": "The value of an uninitialized channel is nil. A new, initialized channel value can be made using the built-in function make."},
		{"number": 3, "url": "https://example.com/cpu", "title": "CPU review", "text": "The CPU is 2.5x faster than its predecessor."},
		{"number": 5, "url": "https://example.com/cpu2", "title": "CPU benchmark", "text": "In our benchmark the new CPU was 2.5x faster."},
	}
	b, err := json.Marshal(srcs)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sources.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVerifyDefects(t *testing.T) {
	src := writeSources(t, t.TempDir())
	tests := []struct {
		name, report string
		code         int
		want         []string // in the output
	}{
		{"# Notes and a fabricated number", "# Notes\n\nGoroutines are scheduled preemptively every 10 milliseconds [9].\n", 1,
			[]string{"line 3: error no-source: citation [9] names no source", "FAIL (1 error)"}},
		{"seed HTML citation", `The value of an uninitialized channel is nil <sup class="cite" data-sids="2">[S:2]</sup>.` + "\n", 0,
			[]string{"1          1            0           0        0           0   1.00", "PASS"}},
		{"a right amount", "The TechBook Pro costs $1,499 [1].\n", 0, []string{"PASS"}},
		{"a wrong amount", "The TechBook Pro costs $2,999 [1].\n", 0,
			[]string{"line 1: warning number: number not in [1]: 2,999; the source says 1499.0", "PASS (1 warning)"}},
		{"a verbatim quotation", `The spec says "the value of an uninitialized channel is nil" [2].` + "\n", 0, []string{"PASS"}},
		{"a misquotation", `The spec says "the value of an uninitialized channel is zero" [2].` + "\n", 1,
			[]string{"line 1: error misquote: quote not found in [2]: “the value of an uninitialized channel is zero”", "FAIL (1 error)"}},
		{"a row beyond the source", "The TechBook Pro costs 1499.0 [1, row 99].\n", 1,
			[]string{"line 1: error bad-locator: [1, row 99]: source [1] (file:///kb/techmart_catalog.csv) has no row 99: it has 1 row, the header being row 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, tt.report, "verify", "--sources", src, "-")
			if r.code != tt.code {
				t.Errorf("exit status %d, want %d\n%s%s", r.code, tt.code, r.stdout, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}

// "Jones et al. (2019)" is fixed after its parenthesis, not inside it.
func TestVerifyFixAuthorYear(t *testing.T) {
	src := writeSources(t, t.TempDir())
	r := cli(t, "Jones et al. (2019) measured it.\n", "verify", "--sources", src, "--fix", "-")
	if r.stdout != "Jones et al. (2019) [TODO: verify source] measured it.\n" {
		t.Errorf("fixed %q\n%s", r.stdout, r.stderr)
	}
}

// A bare --report saves the verification report to seed 002's place;
// --report FILE where it says.
func TestVerifyBareReport(t *testing.T) {
	const report = "The value of an uninitialized channel is nil [2].\n"
	tests := []struct {
		name  string
		args  []string
		saved string
	}{
		{"bare, last", []string{"report.md", "--report"}, ".aiwg/reports/citation-verification.md"},
		{"bare, before a flag", []string{"--report", "--strict", "report.md"}, ".aiwg/reports/citation-verification.md"},
		{"bare, JSON", []string{"--json", "report.md", "--report"}, ".aiwg/reports/citation-verification.json"},
		{"a file", []string{"--report", "saved.txt", "report.md"}, "saved.txt"},
		{"a file after =", []string{"--report=saved.txt", "report.md"}, "saved.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src := writeSources(t, dir)
			t.Chdir(dir)
			if err := os.WriteFile("report.md", []byte(report), 0o644); err != nil {
				t.Fatal(err)
			}
			r := cli(t, "", append([]string{"verify", "--sources", src}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("exit status %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			saved, err := os.ReadFile(tt.saved)
			if err != nil || string(saved) != r.stdout {
				t.Errorf("%s: %v\n%s", tt.saved, err, saved)
			}
		})
	}
	if got := bareReportFlag([]string{"run", "--report"}); !slices.Equal(got, []string{"run", "--report"}) {
		t.Errorf("another command's flag rewritten: %q", got)
	}
}

// Seed 001's own sidecar example: a document that is not ours, whose
// claims are in its sidecar without inline markers, is verified claim by
// claim against the sources its sids name.
func TestVerifyForeignSidecar(t *testing.T) {
	dir := t.TempDir()
	src := writeSources(t, dir)
	tests := []struct {
		name, doc string
		code      int
		want      []string
	}{
		{"seed 001's example", `{"some": {"nested": {"field": "The CPU is 2.5x faster…"}}, "_citations": [{"path": "/some/nested/field", "sids": [3, 5]}]}`, 0,
			[]string{"checked: the claims of its sidecar (_citations), one a line: line n is entry n-1", "2          2            0", "PASS"}},
		{"a claim its source does not hold", `{"a": "The TechBook Pro costs $2,999.", "_citations": [{"path": "/a", "sids": [1]}]}`, 0,
			[]string{"line 1: warning number: number not in [1]: 2,999"}},
		{"a sid with no source", `{"a": "The CPU is 2.5x faster.", "_citations": [{"path": "/a", "sids": [9]}]}`, 1,
			[]string{"line 1: error no-source: citation [9] names no source"}},
		{"a path to nothing", `{"a": "x", "_citations": [{"path": "/b", "sids": [3]}]}`, 1,
			[]string{`sidecar entry 0 (/b): "/b": no field "b"`}},
		{"neither text nor sidecar", `{"a": "x"}`, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "doc.json")
			if err := os.WriteFile(p, []byte(tt.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			r := cli(t, "", "verify", "--sources", src, p)
			if r.code != tt.code {
				t.Errorf("exit status %d, want %d\n%s%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if tt.code == 2 {
				wantBadInput(t, r, `"_citations"`)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}
