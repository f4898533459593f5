package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAskCommand (issue 33): ask answers a follow-up question of a
// stored run: from the run's own sources, with the report's numbers and
// no search, when they hold the answer; with one cycle of research whose
// new source is numbered after the report's when they do not. --json
// prints the answer as the JSON report. An unknown run is bad input.
func TestAskCommand(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	st, index := filepath.Join(dir, "runs.db"), filepath.Join(dir, "index.db")
	wantSuccess(t, cli(t, "", "run", "--corpus", corpus, "--index", index, "--store", st, "--progress", "never", question))
	ids := regexp.MustCompile(`(?m)^([0-9a-f]{16}) `).FindAllStringSubmatch(cli(t, "", "runs", "--store", st).stdout, -1)
	if len(ids) != 1 {
		t.Fatalf("%d runs listed", len(ids))
	}
	run := ids[0][1]
	type ref struct {
		Number int    `json:"number"`
		ID     string `json:"id"`
	}
	report := func(r result) []ref {
		t.Helper()
		wantSuccess(t, r)
		var doc struct {
			References []ref `json:"references"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("not a JSON report: %v\n%s", err, r.stdout)
		}
		return doc.References
	}
	numbers := map[string]int{}
	for _, r := range report(cli(t, "", "show", "--store", st, "--format", "json", run)) {
		numbers[r.ID] = r.Number
	}
	if numbers["engineering/cable-construction.rst"] == 0 || numbers["capacity/capacity-growth.html"] != 0 {
		t.Fatalf("the run cites %v; want the cable's construction and not its capacity", numbers)
	}
	ask := func(q string) ([]ref, int) {
		t.Helper()
		evs := filepath.Join(t.TempDir(), "events.jsonl")
		refs := report(cli(t, "", "ask", "--corpus", corpus, "--index", index, "--store", st, "--progress", "never", "--events", evs, "--json", run, q))
		b, err := os.ReadFile(evs)
		if err != nil {
			t.Fatal(err)
		}
		return refs, strings.Count(string(b), `"type":"agent.search"`)
	}

	refs, searches := ask("What material insulated the core of the cable?")
	if searches != 0 || len(refs) == 0 {
		t.Errorf("an answered follow-up made %d searches and cites %v", searches, refs)
	}
	for _, r := range refs {
		if r.Number != numbers[r.ID] {
			t.Errorf("the answer cites %s as [%d]; the report numbers it [%d]", r.ID, r.Number, numbers[r.ID])
		}
	}

	refs, searches = ask("How did the capacity of submarine cables grow in terabits per second?")
	if searches == 0 {
		t.Error("a follow-up the run's sources do not answer made no search")
	}
	found := false
	for _, r := range refs {
		if n, ok := numbers[r.ID]; ok && r.Number != n {
			t.Errorf("the answer cites %s as [%d]; the report numbers it [%d]", r.ID, r.Number, n)
		}
		if r.ID == "capacity/capacity-growth.html" {
			found = true
			if r.Number <= len(numbers) {
				t.Errorf("the new source is [%d]; want a number after the report's %d", r.Number, len(numbers))
			}
		}
	}
	if !found {
		t.Errorf("the researched answer does not cite the capacity page: %v", refs)
	}
	if out := cli(t, "", "runs", "--store", st).stdout; strings.Count(out, "\n") != 4 {
		t.Errorf("the follow-ups are not listed as runs:\n%s", out)
	}

	r := cli(t, "", "ask", "--store", st, "--corpus", corpus, "--index", index, "--progress", "never", run, "What did the Great Eastern lay?")
	wantSuccess(t, r)
	if !strings.Contains(r.stdout, "## References") {
		t.Errorf("ask prints no markdown answer:\n%s", r.stdout)
	}
	wantBadInput(t, cli(t, "", "ask", "--store", st, "--corpus", corpus, "--index", index, "0123456789abcdef", "why?"), `no run "0123456789abcdef"`)
	wantBadInput(t, cli(t, "", "ask", "--store", st, run), "a run ID and a question")
}
