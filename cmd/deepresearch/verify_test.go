package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

const verifyDir = "testdata/verify"

func TestVerifyReport(t *testing.T) {
	r := cli(t, "", "verify", "--root", verifyDir, "--sources", filepath.Join(verifyDir, "sources.json"), filepath.Join(verifyDir, "report.md"))
	if r.code != 1 {
		t.Fatalf("exit status %d, want 1 (FAIL)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"line 5: error no-source: citation [9] names no source",
		"line 6: error not-retrieved: source [3]",
		"line 7: warning number: number not in [2]: 64",
		`line 7: warning overclaim: "always": certainty language, but it rests on a single source`,
		`fix: hedge it ("always" → "usually")`,
		"line 8: warning duplicate: [4]",
		"line 9: warning unversioned: [notes.txt, L1-2]",
		"UN-VERSIONED citations:\n  - [notes.txt, L1-2] (line 9)\n    File exists but no content hash; cite it as notes.txt@",
		"fix: ",
		"FAIL (2 errors, 4 warnings)",
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
	r := cli(t, "", "verify", "--json", "--root", verifyDir, "--sources", filepath.Join(verifyDir, "sources.json"), filepath.Join(verifyDir, "report.md"))
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
	if len(out.Problems) != 6 || out.Problems[0].Line != 5 || out.Problems[0].Kind != "no-source" || out.Problems[0].Fix == "" {
		t.Errorf("problems %+v", out.Problems)
	}
	if e := out.Citations[0].Evidence; e == nil || e.Start != 0 || !strings.HasPrefix(e.Quote, "Programs that modify") {
		t.Errorf("evidence of line 3: %+v", e)
	}
}

func TestVerifyFix(t *testing.T) {
	src := filepath.Join(verifyDir, "sources.json")
	report := filepath.Join(verifyDir, "report.md")
	r := cli(t, "", "verify", "--fix", "--root", verifyDir, "--sources", src, report)
	if r.code != 1 {
		t.Fatalf("exit status %d: %s", r.code, r.stderr)
	}
	orig, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	// Removed citations leave a comment saying why; the overclaim is
	// hedged.
	want := strings.NewReplacer(
		" [9].", "<!-- verify: removed [9]: no source 9 among the sources -->.",
		" [3].", "<!-- verify: removed [3]: source 3 was never retrieved -->.",
		"are always buffered", `are usually<!-- verify: hedged "always": it rests on a single source --> buffered`,
	).Replace(string(orig))
	if r.stdout != want {
		t.Errorf("fixed report:\n%s\nwant:\n%s", r.stdout, want)
	}
	if !strings.Contains(r.stderr, "FAIL") {
		t.Errorf("summary not on stderr: %q", r.stderr)
	}

	// To a file, with unsupported citations flagged; the summary on stdout.
	out := filepath.Join(t.TempDir(), "fixed.md")
	r = cli(t, "", "verify", "--fix", "--unsupported", "flag", "-o", out, "--root", verifyDir, "--sources", src, report)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "64 values [2] [unsupported: 2].") || strings.Contains(string(b), "[9].") || !strings.Contains(r.stdout, "FAIL") {
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
		{"two reports", []string{"verify", "--sources", src, "a.md", "b.md"}, []string{"one report"}},
		{"rlm and corpus-only", []string{"verify", "--rlm", "--corpus-only", "-"}, []string{"--rlm and --corpus-only"}},
		{"output without a report", []string{"verify", "--fix", "-o", "x.md"}, []string{"--output takes one"}},
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
	// outside it, and the report is checked against the passages it kept.
	if v := cli(t, "", "verify", "--sources", runJSON, "--corpus", t.TempDir(), runJSON); v.code != 0 || !strings.Contains(v.stdout, "\nPASS") {
		t.Errorf("--corpus elsewhere: exit %d\n%s", v.code, v.stdout)
	}
	// The JSON report itself: its sidecar checks out, and its text too.
	if v := cli(t, r.stdout, "verify", "--sources", file, "-"); v.code != 0 || strings.Contains(v.stdout, "sidecar") {
		t.Errorf("JSON report: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	broken := strings.Replace(r.stdout, `"sids": [`, `"sids": [99, `, 1)
	if v := cli(t, broken, "verify", "--sources", file, "-"); v.code != 1 || !strings.Contains(v.stdout, "sid 99 is not a reference number") {
		t.Errorf("broken sidecar: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	} else if lines := strings.Split(strings.TrimSpace(v.stdout), "\n"); !strings.HasPrefix(lines[len(lines)-1], "FAIL") || !strings.Contains(lines[len(lines)-1], "sidecar problem") {
		t.Errorf("broken sidecar: the verdict line %q does not fail on the sidecar\n%s", lines[len(lines)-1], v.stdout)
	}
	// The YAML report verifies like the JSON one, as report and as --sources.
	y := research(t, "--format", "yaml")
	wantSuccess(t, y)
	dir := t.TempDir()
	runYAML := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(runYAML, []byte(y.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := cli(t, "", "verify", "--sources", file, runYAML); v.code != 0 || strings.Contains(v.stdout, "sidecar") {
		t.Errorf("YAML report: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	if v := cli(t, "", "verify", "--sources", runYAML, "--corpus", t.TempDir(), runYAML); v.code != 0 || !strings.Contains(v.stdout, "\nPASS") {
		t.Errorf("--sources run.yaml refused: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	var ydoc map[string]any
	if err := yaml.Unmarshal([]byte(y.stdout), &ydoc); err != nil {
		t.Fatal(err)
	}
	cites, _ := ydoc["_citations"].([]any)
	if len(cites) == 0 {
		t.Fatalf("the YAML report has no _citations:\n%s", y.stdout)
	}
	first := cites[0].(map[string]any)
	first["sids"] = append([]any{99}, first["sids"].([]any)...)
	yb, err := yaml.Marshal(ydoc)
	if err != nil {
		t.Fatal(err)
	}
	brokenYAML := filepath.Join(dir, "broken.yml")
	if err := os.WriteFile(brokenYAML, yb, 0o644); err != nil {
		t.Fatal(err)
	}
	if v := cli(t, "", "verify", "--sources", file, brokenYAML); v.code != 1 || !strings.Contains(v.stdout, "sid 99 is not a reference number") {
		t.Errorf("broken YAML sidecar: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	} else if lines := strings.Split(strings.TrimSpace(v.stdout), "\n"); !strings.HasPrefix(lines[len(lines)-1], "FAIL") {
		t.Errorf("broken YAML sidecar: verdict %q", lines[len(lines)-1])
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

// checkGolden compares got with testdata/name, or under -update writes it.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update if intended):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// A planted report, checked against a folder of sources whose front
// matter grades them and names REF-7: an uncited statistic, an
// overclaim resting on a blog, an @-mention of a missing file and a stale
// file reference are each one problem on their line, and --fix annotates
// them (goldens).
func TestVerifyPlanted(t *testing.T) {
	dir := filepath.Join(verifyDir, "planted")
	fixed := filepath.Join(t.TempDir(), "fixed.md")
	saved := filepath.Join(t.TempDir(), "verification.txt")
	r := cli(t, "", "verify", "--root", dir, "--sources", filepath.Join(dir, "sources"), "--fix", "-o", fixed, "--report", saved, filepath.Join(dir, "report.md"))
	if r.code != 1 {
		t.Fatalf("exit status %d, want 1 (FAIL)\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		`line 3: warning statistic: "40%": a statistic in a sentence that cites nothing`,
		`line 5: warning overclaim: "proves" and "always": certainty language, but its best source is graded LOW`,
		"line 6: error file-missing: @docs/research/missing.md: no such file",
		"line 7: warning stale: [src/retry.go@0123456789abcdef, L3-4]",
		"line 9: error no-source: citation [9] names no source",
	} {
		if strings.Count(r.stdout, want) != 1 {
			t.Errorf("output has %q %d times, want once:\n%s", want, strings.Count(r.stdout, want), r.stdout)
		}
	}
	checkGolden(t, "verify/planted/result.golden", r.stdout)
	b, err := os.ReadFile(fixed)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "verify/planted/fixed.golden", string(b))
	if s, err := os.ReadFile(saved); err != nil || string(s) != r.stdout {
		t.Errorf("--report saved %q (%v), want the output", s, err)
	}

	// --rlm checks the file reference alone, with no sources; --strict
	// fails it for being stale.
	r = cli(t, "", "verify", "--rlm", "--root", dir, filepath.Join(dir, "report.md"))
	if r.code != 0 || !strings.Contains(r.stdout, "RLM Citations: 1 total") || strings.Contains(r.stdout, "statistic") || strings.Contains(r.stdout, "mention") {
		t.Errorf("--rlm: exit %d\n%s", r.code, r.stdout)
	}
	if r := cli(t, "", "verify", "--rlm", "--strict", "--root", dir, filepath.Join(dir, "report.md")); r.code != 1 {
		t.Errorf("--rlm --strict: exit %d\n%s", r.code, r.stdout)
	}
	// --corpus-only: numbers, @-mentions and REF identifiers.
	r = cli(t, "", "verify", "--corpus-only", "--json", "--root", dir, "--sources", filepath.Join(dir, "sources"), filepath.Join(dir, "report.md"))
	var out struct {
		Citations []struct{ Kind, Status string } `json:"citations"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range out.Citations {
		kinds = append(kinds, c.Kind+"="+c.Status)
	}
	if want := "number=supported number=supported mention=missing mention=matched ref-id=matched number=supported number=fabricated"; strings.Join(kinds, " ") != want {
		t.Errorf("--corpus-only citations %v, want %s", kinds, want)
	}
}

// With no report named, every .md file under the current folder is
// checked (hidden folders left out), each under its name; --fix rewrites
// each that changes in place; --uncited reports sentences that cite
// nothing. Without sources, numbered citations are unchecked.
func TestVerifyEveryFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.md":           "# A\n\nGoroutines are multiplexed onto a small number of threads.\n",
		"docs/b.md":      "# B\n\nA channel [1] carries values; see @a.md and @docs/gone.md.\n",
		".hidden/c.md":   "Leaks cause 40% of outages.\n",
		"notes/skip.txt": "Leaks cause 40% of outages.\n",
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	r := cli(t, "", "verify", "--uncited", "--fix", "--report", "verification.md")
	if r.code != 1 {
		t.Fatalf("exit status %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"== a.md\n", "== docs/b.md\n",
		"line 3: warning uncited:",
		"line 3: warning unchecked: 1 citation not checked: no sources were given",
		"line 3: error file-missing: @docs/gone.md: no such file",
		"fixed: a.md rewritten", "fixed: docs/b.md rewritten",
		"FAIL: 2 files, 1 failed",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "hidden") || strings.Contains(r.stdout, "verification.md") {
		t.Errorf("a hidden file or the report was checked:\n%s", r.stdout)
	}
	a, _ := os.ReadFile("a.md")
	b, _ := os.ReadFile(filepath.Join("docs", "b.md"))
	if string(a) != "# A\n\nGoroutines are multiplexed onto a small number of threads [TODO: cite a source].\n" ||
		string(b) != "# B\n\nA channel [1] carries values; see @a.md and @docs/gone.md [MISSING: no such file].\n" {
		t.Errorf("fixed in place:\n%s\n%s", a, b)
	}
	if saved, err := os.ReadFile("verification.md"); err != nil || string(saved) != r.stdout {
		t.Errorf("--report: %v\n%s", err, saved)
	}
	// Nothing to check.
	t.Chdir(t.TempDir())
	wantBadInput(t, cli(t, "", "verify"), "no .md file")
}

// A JSON report carries its run_id: when the run store holds the run, the
// sources are checked against what the agents read, even with no
// passages kept; without the store, against the passages alone. A passage
// edited after the run fails the report.
func TestVerifyStoredTexts(t *testing.T) {
	r := research(t, "--format", "json")
	wantSuccess(t, r)
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["run_id"] == "" {
		t.Fatalf("no run_id:\n%s", r.stdout)
	}
	dir := t.TempDir()
	report := filepath.Join(dir, "report.md")
	if err := os.WriteFile(report, []byte(doc["text"].(string)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name string, doc map[string]any) string {
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	summary := func(args ...string) (int, map[string]any) {
		t.Helper()
		v := cli(t, "", append([]string{"verify", "--json"}, args...)...)
		var out map[string]any
		if err := json.Unmarshal([]byte(v.stdout), &out); err != nil {
			t.Fatalf("%v\n%s%s", err, v.stdout, v.stderr)
		}
		return v.code, out["summary"].(map[string]any)
	}
	refs := doc["references"].([]any)
	for _, ref := range refs {
		if ps := ref.(map[string]any)["passages"]; ps == nil {
			t.Fatalf("a reference without passages: %v", ref)
		}
	}
	// No passages, but the store holds the run.
	for _, ref := range refs {
		delete(ref.(map[string]any), "passages")
	}
	bare := write("bare.json", doc)
	code, s := summary("--sources", bare, report)
	if code != 0 || s["supported"] != s["citations"] || s["unsupported"] != 0.0 {
		t.Errorf("with the store: exit %d, summary %v", code, s)
	}
	// Not on this machine: nothing to check against, but nothing
	// fabricated either.
	wantBadInput(t, cli(t, "", "verify", "--sources", bare, "--store", filepath.Join(t.TempDir(), "none.db"), report), "--store", "none.db")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	code, s = summary("--sources", bare, report)
	if code != 0 || s["supported"] != 0.0 || s["fabricated"] != 0.0 {
		t.Errorf("without the store: exit %d, summary %v", code, s)
	}
	// An edited passage.
	var again map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &again); err != nil {
		t.Fatal(err)
	}
	p := again["references"].([]any)[0].(map[string]any)["passages"].([]any)[0].(map[string]any)
	p["text"] = "Goroutines never leak. " + p["text"].(string)
	v := cli(t, "", "verify", "--sources", write("edited.json", again), report)
	if v.code != 1 || !strings.Contains(v.stdout, "error altered: passage 1 of source [1]") {
		t.Errorf("edited passage: exit %d\n%s", v.code, v.stdout)
	}
}

// TestVerifyDocumentedExample runs the example of `verify --help`, which
// docs/verification.md shows too, as a user would on a fresh machine:
// build the command, research with the defaults (the Go distribution's
// docs), take the report's text with jq, verify it against the JSON report. It must
// pass, with the run store and again without it (the report moved to
// another machine: the passages it kept are enough).
func TestVerifyDocumentedExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("the example needs jq (.ci/run installs it):", err)
	}
	var lines []string
	for _, line := range strings.Split(newVerifyCmd().Example, "\n") {
		if line = strings.TrimSpace(line); line != "" && len(lines) < 3 {
			lines = append(lines, line)
		}
	}
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "deepresearch run --format json") || !strings.HasPrefix(lines[2], "deepresearch verify") {
		t.Fatalf("the example is not the pipeline this test runs: %q", lines)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "verification.md"))
	if err != nil {
		t.Fatal(err)
	}
	var trimmed []string
	for _, line := range strings.Split(string(readme), "\n") {
		trimmed = append(trimmed, strings.TrimSpace(line))
	}
	if !strings.Contains(strings.Join(trimmed, "\n"), strings.Join(lines, "\n")) {
		t.Errorf("docs/verification.md does not show the example of verify --help:\n%s", strings.Join(lines, "\n"))
	}
	bin := t.TempDir()
	if out, err := exec.Command(gobin, "build", "-o", filepath.Join(bin, "deepresearch"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	isolate(t)
	work := t.TempDir()
	sh := func(script string) string {
		t.Helper()
		cmd := exec.Command("sh", "-ec", script)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	out := sh(strings.Join(lines, "\n"))
	if !strings.HasSuffix(out, "\nPASS\n") {
		t.Errorf("the example does not pass:\n%s", out)
	}
	// On another machine: no run store.
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	if out := sh(lines[2]); !strings.HasSuffix(out, "\nPASS\n") {
		t.Errorf("without the run store the example does not pass:\n%s", out)
	}
}
