package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/diff"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// TestDiffCommand (issue 33): two runs of one question over a corpus in
// which, between the runs, one cited document changed its text and
// another was removed; diff names the changed one, the dropped one and
// the claims that cited it, and leaves an untouched one alone, as text
// and as JSON. An unknown run is bad input (exit status 2); a run with no
// report a failure that says so (exit status 1).
func TestDiffCommand(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	docs := filepath.Join(dir, "corpus")
	if err := os.CopyFS(docs, os.DirFS(corpus)); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "runs.db")
	run := func(index string) {
		t.Helper()
		wantSuccess(t, cli(t, "", "run", "--corpus", docs, "--index", filepath.Join(dir, index), "--store", st, "--progress", "never", question))
	}
	run("a.db")
	changed := filepath.Join(docs, "history", "tat-8.txt")
	f, err := os.OpenFile(changed, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\nTAT-8 was retired in 2002, after fourteen years of service.\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Remove(filepath.Join(docs, "glossary.org")); err != nil {
		t.Fatal(err)
	}
	run("b.db")
	ids := regexp.MustCompile(`(?m)^([0-9a-f]{16}) `).FindAllStringSubmatch(cli(t, "", "runs", "--store", st).stdout, -1)
	if len(ids) != 2 {
		t.Fatalf("%d runs listed", len(ids))
	}
	a, b := ids[1][1], ids[0][1] // newest first

	r := cli(t, "", "diff", "--store", st, "--json", a, b)
	wantSuccess(t, r)
	var d diff.Result
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("diff --json: %v\n%s", err, r.stdout)
	}
	ids2 := func(ss []diff.Source) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	if d.RunA != a || d.RunB != b {
		t.Errorf("runs %s → %s, want %s → %s", d.RunA, d.RunB, a, b)
	}
	if got := ids2(d.Sources.Dropped); !slices.Equal(got, []string{"glossary.org"}) {
		t.Errorf("dropped %q, want the removed glossary.org", got)
	}
	if got := ids2(d.Sources.Changed); !slices.Contains(got, "history/tat-8.txt") {
		t.Errorf("changed %q, want history/tat-8.txt among them", got)
	}
	// The document first cited, never touched, is read the same way.
	for _, s := range slices.Concat(d.Sources.Added, d.Sources.Dropped, d.Sources.Changed) {
		if s.ID == "operations/cable-faults.md" {
			t.Errorf("the untouched operations/cable-faults.md is listed: %+v", s)
		}
	}
	if d.Sources.Unchanged == 0 {
		t.Error("no source unchanged")
	}
	lost := false
	for _, c := range d.Claims {
		if c.Change == diff.SourceChanged && slices.ContainsFunc(c.Sources, func(k string) bool { return strings.HasSuffix(k, "/glossary.org") }) {
			lost = true
		}
	}
	if !lost {
		t.Errorf("no claim flagged for the removed glossary: %+v", d.Claims)
	}

	r = cli(t, "", "diff", "--store", st, a, b)
	wantSuccess(t, r)
	for _, want := range []string{"A: " + a, "B: " + b, "- [", "Submarine Cable Glossary", "~ [", "TAT-8", "Claims whose support changed:", "source changed: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("diff's text lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := cli(t, "", "diff", "--store", st, a, a); r.code != 0 || !strings.Contains(r.stdout, "Nothing changed") {
		t.Errorf("a run against itself: %d %q %q", r.code, r.stdout, r.stderr)
	}

	wantBadInput(t, cli(t, "", "diff", "--store", st, a, "0123456789abcdef"), `no run "0123456789abcdef"`, "deepresearch runs")
	wantBadInput(t, cli(t, "", "diff", "--store", st, a), "two run IDs")

	s, err := sqlitestore.Open(t.Context(), st, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(t.Context(), runstore.Run{ID: "no-report", Question: question}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r = cli(t, "", "diff", "--store", st, a, "no-report")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "run no-report is interrupted and has no report") {
		t.Errorf("a run with no report: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
