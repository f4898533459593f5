package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const verifyDir = "testdata/verify"

func TestVerifyReport(t *testing.T) {
	r := cli(t, "", "verify", "--sources", filepath.Join(verifyDir, "sources.json"), filepath.Join(verifyDir, "report.md"))
	if r.code != 1 {
		t.Fatalf("exit status %d, want 1 (FAIL)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"line 5: error no-source: citation [9] names no source",
		"line 6: error not-retrieved: source [3]",
		"line 7: warning unsupported: source [2] does not support the sentence",
		"line 8: warning duplicate: [4]",
		"line 9: warning unversioned: [notes.txt, L1-2]",
		"fix: ",
		"FAIL (2 errors, 3 warnings)",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "failed verification") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestVerifyPassAndStrict(t *testing.T) {
	src := filepath.Join(verifyDir, "sources.json")
	good := filepath.Join(verifyDir, "good.md")
	r := cli(t, "", "verify", "--sources", src, good)
	if r.code != 0 || !strings.Contains(r.stdout, "\nPASS") {
		t.Fatalf("exit status %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Warnings pass, but not under --strict.
	report := "Programs that modify data accessed by multiple goroutines must serialize such access [1][4].\n"
	if r := cli(t, report, "verify", "--sources", src, "-"); r.code != 0 {
		t.Errorf("warnings only: exit status %d\n%s", r.code, r.stdout)
	}
	if r := cli(t, report, "verify", "--strict", "--sources", src, "-"); r.code != 1 || !strings.Contains(r.stdout, "FAIL (1 warning (strict))") {
		t.Errorf("strict: exit status %d\n%s", r.code, r.stdout)
	}
}

func TestVerifyJSON(t *testing.T) {
	r := cli(t, "", "verify", "--json", "--sources", filepath.Join(verifyDir, "sources.json"), filepath.Join(verifyDir, "report.md"))
	if r.code != 1 {
		t.Fatalf("exit status %d: %s", r.code, r.stderr)
	}
	var out struct {
		Pass    bool `json:"pass"`
		Summary struct {
			Citations, Supported, Unsupported, Fabricated, Duplicates int
		} `json:"summary"`
		Problems []struct {
			Line int    `json:"line"`
			Kind string `json:"kind"`
			Fix  string `json:"fix"`
		} `json:"problems"`
		Citations []struct {
			Line     int `json:"line"`
			Evidence *struct {
				Quote      string
				Start, End int
			} `json:"evidence"`
		} `json:"citations"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	s := out.Summary
	if out.Pass || s.Citations != 7 || s.Supported != 3 || s.Unsupported != 1 || s.Fabricated != 2 || s.Duplicates != 1 {
		t.Errorf("pass %v summary %+v", out.Pass, s)
	}
	if len(out.Problems) != 5 || out.Problems[0].Line != 5 || out.Problems[0].Kind != "no-source" || out.Problems[0].Fix == "" {
		t.Errorf("problems %+v", out.Problems)
	}
	if e := out.Citations[0].Evidence; e == nil || e.Start != 0 || !strings.HasPrefix(e.Quote, "Programs that modify") {
		t.Errorf("evidence of line 3: %+v", e)
	}
}

func TestVerifyFix(t *testing.T) {
	src := filepath.Join(verifyDir, "sources.json")
	report := filepath.Join(verifyDir, "report.md")
	r := cli(t, "", "verify", "--fix", "--sources", src, report)
	if r.code != 1 {
		t.Fatalf("exit status %d: %s", r.code, r.stderr)
	}
	orig, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(" [9].", ".", " [3].", ".").Replace(string(orig))
	if r.stdout != want {
		t.Errorf("fixed report:\n%s\nwant:\n%s", r.stdout, want)
	}
	if !strings.Contains(r.stderr, "FAIL") {
		t.Errorf("summary not on stderr: %q", r.stderr)
	}

	// To a file, with unsupported citations flagged; the summary on stdout.
	out := filepath.Join(t.TempDir(), "fixed.md")
	r = cli(t, "", "verify", "--fix", "--unsupported", "flag", "-o", out, "--sources", src, report)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "64 values [2] [unsupported: 2].") || strings.Contains(string(b), "[9]") || !strings.Contains(r.stdout, "FAIL") {
		t.Errorf("fixed file:\n%s\nstdout:\n%s", b, r.stdout)
	}
	// The fixed report has no fabricated citations left.
	if r := cli(t, "", "verify", "--root", verifyDir, "--sources", src, out); strings.Contains(r.stdout, "error") {
		t.Errorf("fixed report still has errors:\n%s", r.stdout)
	}
}

func TestVerifyFolder(t *testing.T) {
	report := "Programs that modify data accessed by multiple goroutines must serialize such access [1].\n" +
		"The value of an uninitialized channel is nil [2].\n"
	r := cli(t, report, "verify", "--json", "--sources", filepath.Join(verifyDir, "docs"), "-")
	if r.code != 0 {
		t.Fatalf("exit status %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	var out struct {
		Summary struct{ Supported int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Summary.Supported != 2 {
		t.Errorf("%v %s", err, r.stdout)
	}
}

func TestVerifyBadInput(t *testing.T) {
	src := filepath.Join(verifyDir, "sources.json")
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("[\n {\"number\": \"one\"}\n]"), 0o644); err != nil {
		t.Fatal(err)
	}
	dup := filepath.Join(t.TempDir(), "dup.json")
	if err := os.WriteFile(dup, []byte(`[{"number": 1}, {"number": 1}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no sources", []string{"verify", "r.md"}, []string{"--sources"}},
		{"no report", []string{"verify", "--sources", src}, []string{"one report"}},
		{"missing report", []string{"verify", "--sources", src, "nope.md"}, []string{"nope.md"}},
		{"missing sources", []string{"verify", "--sources", "nope.json", "-"}, []string{"nope.json"}},
		{"bad json", []string{"verify", "--sources", bad, "-"}, []string{"line 2", "number"}},
		{"duplicate numbers", []string{"verify", "--sources", dup, "-"}, []string{"number 1 is used twice"}},
		{"run without a store", []string{"verify", "--run", "r1", "--store", "/nonexistent/runs.db", "-"}, []string{"--store", "/nonexistent/runs.db"}},
		{"run and sources", []string{"verify", "--run", "r1", "--sources", src, "-"}, []string{"--run and --sources"}},
		{"output without fix", []string{"verify", "--sources", src, "-o", "x.md", "-"}, []string{"--fix"}},
		{"bad unsupported", []string{"verify", "--sources", src, "--fix", "--unsupported", "burn", "-"}, []string{"burn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantBadInput(t, cli(t, "x [1].", tt.args...), tt.want...)
		})
	}
}

// A report of our own pipeline, checked against the files it cites: every
// citation resolves to a retrieved source (the extractive model quotes its
// sources, so the lexical check should find nearly all sentences
// supported).
func TestVerifyOwnReport(t *testing.T) {
	r := research(t, "--format", "json")
	wantSuccess(t, r)
	var rep struct {
		Text       string `json:"text"`
		References []struct {
			Number int    `json:"number"`
			URL    string `json:"url"`
			Title  string `json:"title"`
		} `json:"references"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	type src struct {
		Number int    `json:"number"`
		Title  string `json:"title"`
		URL    string `json:"url"`
		Text   string `json:"text"`
	}
	var srcs []src
	for _, ref := range rep.References {
		path, ok := strings.CutPrefix(ref.URL, "file://")
		if !ok {
			t.Fatalf("reference %d: %s is not a corpus file", ref.Number, ref.URL)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src{ref.Number, ref.Title, ref.URL, string(b)})
	}
	b, err := json.Marshal(srcs)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "sources.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// --corpus reads the texts itself: the JSON report against its own
	// references passes.
	runJSON := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(runJSON, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := cli(t, "", "verify", "--sources", runJSON, "--corpus", corpus, runJSON); v.code != 0 || !strings.Contains(v.stdout, "\nPASS") {
		t.Errorf("--corpus: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	// A corpus folder that does not hold the files: nothing is read from
	// outside it, so every source is "never retrieved".
	if v := cli(t, "", "verify", "--sources", runJSON, "--corpus", t.TempDir(), runJSON); v.code != 1 || !strings.Contains(v.stdout, "not-retrieved") {
		t.Errorf("--corpus elsewhere: exit %d\n%s", v.code, v.stdout)
	}
	// The JSON report itself: its sidecar checks out, and its text too.
	if v := cli(t, r.stdout, "verify", "--sources", file, "-"); v.code != 0 || strings.Contains(v.stdout, "sidecar") {
		t.Errorf("JSON report: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	broken := strings.Replace(r.stdout, `"sids": [`, `"sids": [99, `, 1)
	if v := cli(t, broken, "verify", "--sources", file, "-"); v.code != 1 || !strings.Contains(v.stdout, "sid 99 is not a reference number") {
		t.Errorf("broken sidecar: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	v := cli(t, rep.Text, "verify", "--json", "--sources", file, "-")
	var out struct {
		Pass    bool `json:"pass"`
		Summary struct {
			Citations, Supported, Fabricated, Duplicates int
			Score                                        float64
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(v.stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, v.stdout)
	}
	s := out.Summary
	t.Logf("own report: %+v", s)
	if v.code != 0 || !out.Pass || s.Citations == 0 || s.Fabricated != 0 || s.Duplicates != 0 || s.Score < 0.9 {
		t.Errorf("exit %d, pass %v, summary %+v\n%s", v.code, out.Pass, s, rep.Text)
	}
}
