package deepresearch_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/recheck"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/search"
)

// recheckRun researches a question over a web double and keeps the run in
// a store: the setting of the recheck tests.
func recheckRun(t *testing.T) (*deepresearch.Researcher, *deepresearchtest.WebServer, *deepresearchtest.Store, string) {
	t.Helper()
	web, err := deepresearchtest.NewWebServer(
		search.Document{DocID: "stable", Title: "Grapnels",
			Text: "A repair ship lowers a grapnel to lift the damaged submarine cable from the seabed."},
		search.Document{DocID: "edited", Title: "Cable tanks",
			Text: "A repair ship carries spare submarine cable coiled in large circular tanks below deck."},
		search.Document{DocID: "removed", Title: "Repair costs",
			Text: "A submarine cable repair by a repair ship costs between one and three million dollars."},
		search.Document{DocID: "moved", Title: "Repair times",
			Text: "How long a submarine cable repair takes: a repair ship needs about a week at sea to fix a submarine cable."},
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(web.Close)
	s := config.Defaults()
	s.Search.Providers, s.Search.SearxngURL = []string{"searxng"}, web.URL
	s.Fetch.Allow = []string{strings.TrimPrefix(web.URL, "http://")}
	s.Corpus.Index = filepath.Join(t.TempDir(), "index.db")
	s.Research.MaxCycles = 1
	r, err := config.NewResearcher(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	st := deepresearchtest.NewStore(nil)
	ctx := context.Background()
	rep, err := record(ctx, r, st, deepresearch.Request{
		Question: "How does a repair ship fix a submarine cable: grapnel, spare cable tanks, repair costs and how long a repair takes?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, web, st, rep.RunID
}

// TestRecheck: between the run and the recheck one page changes its
// text, one is removed, one redirects elsewhere and one is as it was;
// the recheck names each, and flags exactly the claims that cite the
// pages that changed or went.
func TestRecheck(t *testing.T) {
	r, web, st, id := recheckRun(t)
	ctx := context.Background()

	// Nothing changed yet: the report holds.
	res, err := r.RecheckRun(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Holds || res.Summary.Unchanged != len(res.Sources) || len(res.Sources) < 4 {
		t.Fatalf("a recheck with nothing changed: %+v", res)
	}

	web.Update("edited", "A repair ship carries its tools in containers on deck.")
	web.Remove("removed", http.StatusGone)
	web.Redirect("moved", http.StatusMovedPermanently, "/pages/stable")
	res, err = r.RecheckRun(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]recheck.Status{
		"stable": recheck.Unchanged, "edited": recheck.Changed,
		"removed": recheck.Gone, "moved": recheck.Gone,
	}
	numbers := map[string]int{}
	for _, s := range res.Sources {
		name := s.URL[strings.LastIndex(s.URL, "/")+1:]
		numbers[name] = s.Number
		if s.Status != want[name] {
			t.Errorf("[%d] %s: %s (%s), want %s", s.Number, name, s.Status, s.Detail, want[name])
		}
		switch name {
		case "edited":
			if len(s.Passages) == 0 || s.Passages[0].Status != recheck.PassageGone || !strings.Contains(s.Passages[0].Text, "circular tanks") {
				t.Errorf("the edited page names no passage that went: %+v", s.Passages)
			}
		case "removed":
			if s.Detail != "410 Gone" {
				t.Errorf("the removed page: %q", s.Detail)
			}
		case "moved":
			if !strings.Contains(s.Detail, "redirects to") || !strings.HasSuffix(s.Detail, "/pages/stable") {
				t.Errorf("the redirected page: %q", s.Detail)
			}
		}
	}
	if len(numbers) != 4 {
		t.Fatalf("the report cites %v; the test wants each of the four pages cited", numbers)
	}
	if res.Holds || res.Summary.Changed != 1 || res.Summary.Gone != 2 || res.Summary.Unchanged != 1 {
		t.Errorf("summary %+v, holds %v", res.Summary, res.Holds)
	}
	flagged := map[int]bool{}
	for _, c := range res.Claims {
		for _, n := range c.Cites {
			flagged[n] = true
		}
		if strings.Contains(c.Sentence, "grapnel") {
			t.Errorf("a claim the unchanged page supports is flagged: %s", c.Sentence)
		}
	}
	for _, name := range []string{"edited", "removed", "moved"} {
		if !flagged[numbers[name]] {
			t.Errorf("no claim citing the %s page [%d] is flagged: %+v", name, numbers[name], res.Claims)
		}
	}
	var text strings.Builder
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"UNCHANGED", "CHANGED", "GONE", "410 Gone", "gone: \"A repair ship carries spare submarine cable", "NO LONGER HOLDS"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("the text says no %q:\n%s", w, text.String())
		}
	}
}

// TestRecheckErrors: a run the store does not hold, and a report with no
// text.
func TestRecheckErrors(t *testing.T) {
	r, err := deepresearch.New(deepresearch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.RecheckRun(context.Background(), deepresearchtest.NewStore(nil), "nope"); !errors.Is(err, runstore.ErrNotFound) {
		t.Errorf("an unknown run: %v", err)
	}
	if _, err := r.Recheck(context.Background(), &render.Document{}); !errors.Is(err, deepresearch.ErrNoReport) {
		t.Errorf("an empty report: %v", err)
	}
}

// TestScheduledRecheck (RunsOptions.RecheckEvery): a Runs re-checks its
// stored report once a period of its clock has passed, keeps the result
// with the run, and again a period after; once a cited page changed and
// another went, the kept re-check says the report no longer holds and
// names the claims. Close stops the re-checks (goleak, in TestMain).
func TestScheduledRecheck(t *testing.T) {
	r, web, st, id := recheckRun(t)
	c := deepresearchtest.NewClock(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC))
	const every = 6 * time.Hour
	var (
		mu   sync.Mutex
		told []bool // OnRecheck's res.Holds, in order
	)
	onRecheck := func(run string, res *recheck.Result) {
		mu.Lock()
		defer mu.Unlock()
		if run == id {
			told = append(told, res.Holds)
		}
	}
	runs, err := deepresearch.NewRuns(r, st, deepresearch.RunsOptions{RecheckEvery: every, Clock: c, OnRecheck: onRecheck})
	if err != nil {
		t.Fatal(err)
	}
	defer runs.Close()
	ctx := t.Context()
	// pass moves the clock a period on and returns once the pass it
	// starts has ended (the next period is armed).
	if err := c.WaitArmed(ctx, every); err != nil {
		t.Fatal(err)
	}
	pass := func() {
		t.Helper()
		c.Advance(every)
		if err := c.WaitArmed(ctx, every); err != nil {
			t.Fatal(err)
		}
	}
	if rc, err := runs.LastRecheck(ctx, id); err != nil || rc != nil {
		t.Fatalf("a re-check before the first period: %+v, %v", rc, err)
	}
	pass()
	first, err := runs.LastRecheck(ctx, id)
	if err != nil || first == nil {
		t.Fatalf("no re-check kept after a period: %v", err)
	}
	if !first.Holds || first.Summary.Unchanged != len(first.Sources) || len(first.Sources) < 4 || first.RunID != id {
		t.Fatalf("the first scheduled re-check, nothing changed: %+v", first)
	}

	web.Update("edited", "A repair ship carries its tools in containers on deck.")
	web.Remove("removed", http.StatusGone)
	pass()
	second, err := runs.LastRecheck(ctx, id)
	if err != nil || second == nil {
		t.Fatalf("no re-check kept after the second period: %v", err)
	}
	if second.Holds || second.Summary.Changed != 1 || second.Summary.Gone != 1 || len(second.Claims) == 0 || second.Checked.Before(first.Checked) {
		t.Fatalf("the second scheduled re-check, a page changed and one gone: holds %v, %+v, %d claims", second.Holds, second.Summary, len(second.Claims))
	}
	for _, cl := range second.Claims {
		if strings.Contains(cl.Sentence, "grapnel") {
			t.Errorf("a claim the unchanged page supports is flagged: %s", cl.Sentence)
		}
	}
	mu.Lock()
	if !slices.Equal(told, []bool{true, false}) {
		t.Errorf("OnRecheck was told holds %v; want [true false]", told)
	}
	mu.Unlock()
	stored, err := st.LastRecheck(ctx, id)
	if err != nil || stored.Holds || !stored.Checked.Equal(second.Checked) {
		t.Errorf("the store's last re-check: %+v, %v", stored, err)
	}
}
