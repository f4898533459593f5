package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/recheck"
	"github.com/deepresearch/deepresearch/search"
)

// TestRecheckCommand: a stored run, and its JSON report, rechecked after
// one cited page changed and another went: recheck RUN and verify
// --refetch REPORT.json name both, list the claims that lost their
// support and exit 1; an unknown run is bad input.
func TestRecheckCommand(t *testing.T) {
	index := isolate(t)
	web, err := deepresearchtest.NewWebServer(
		search.Document{DocID: "stable", Title: "Grapnels",
			Text: "A repair ship lowers a grapnel to lift the damaged submarine cable from the seabed."},
		search.Document{DocID: "edited", Title: "Cable tanks",
			Text: "A repair ship carries spare submarine cable coiled in large circular tanks below deck."},
		search.Document{DocID: "removed", Title: "Repair costs",
			Text: "A submarine cable repair by a repair ship costs between one and three million dollars."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	t.Setenv("SEARXNG_URL", web.URL)
	t.Setenv("DEEPRESEARCH_SEARCH_PROVIDERS", "searxng")
	t.Setenv("DEEPRESEARCH_FETCH_ALLOW", strings.TrimPrefix(web.URL, "http://"))
	t.Setenv("DEEPRESEARCH_RESEARCH_MAX_CYCLES", "1")
	r := cli(t, "", "run", "--index", index, "--progress", "never", "--format", "json",
		"How does a repair ship fix a submarine cable: grapnel, spare cable tanks and repair costs?")
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.RunID == "" {
		t.Fatalf("run: %v, run_id %q", err, doc.RunID)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(report, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, "", "recheck", doc.RunID); r.code != 0 || !strings.Contains(r.stdout, "HOLDS") {
		t.Fatalf("recheck before any change: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	web.Update("edited", "A repair ship carries its tools in containers on deck.")
	web.Remove("removed", http.StatusNotFound)
	for _, args := range [][]string{{"recheck", doc.RunID}, {"verify", "--refetch", report}} {
		r := cli(t, "", args...)
		if r.code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		for _, w := range []string{"UNCHANGED   Grapnels", "CHANGED     Cable tanks", "GONE        Repair costs", "404 Not Found", "2 claims lost their support", "NO LONGER HOLDS"} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v says no %q:\n%s", args, w, r.stdout)
			}
		}
	}
	r = cli(t, "", "recheck", "--json", doc.RunID)
	var res recheck.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("recheck --json: %v\n%s", err, r.stdout)
	}
	if r.code != 1 || res.Holds || res.Summary.Gone != 1 || res.Summary.Changed != 1 || len(res.Claims) != 2 {
		t.Errorf("recheck --json: exit %d, %+v", r.code, res)
	}
	if r := cli(t, "", "recheck", "nosuchrun"); r.code != 2 {
		t.Errorf("an unknown run: exit %d: %s", r.code, r.stderr)
	}
	if r := cli(t, "", "verify", "--refetch"); r.code != 2 {
		t.Errorf("--refetch without a report: exit %d: %s", r.code, r.stderr)
	}
}
