package deepresearch_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
)

// recheckRun researches a question over a web double and keeps the run in
// a store: the setting of the recheck tests.
func recheckRun(t *testing.T) (*deepresearch.Researcher, *deepresearchtest.WebServer, *deepresearchtest.Store, string) {
	t.Helper()
	web, err := deepresearchtest.NewWebServer(
		deepresearch.Document{DocID: "stable", Title: "Grapnels",
			Text: "A repair ship lowers a grapnel to lift the damaged submarine cable from the seabed."},
		deepresearch.Document{DocID: "edited", Title: "Cable tanks",
			Text: "A repair ship carries spare submarine cable coiled in large circular tanks below deck."},
		deepresearch.Document{DocID: "removed", Title: "Repair costs",
			Text: "A submarine cable repair by a repair ship costs between one and three million dollars."},
		deepresearch.Document{DocID: "moved", Title: "Repair times",
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
	r, err := deepresearch.FromSettings(s, nil)
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
	want := map[string]deepresearch.RecheckStatus{
		"stable": deepresearch.RecheckUnchanged, "edited": deepresearch.RecheckChanged,
		"removed": deepresearch.RecheckGone, "moved": deepresearch.RecheckGone,
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
			if len(s.Passages) == 0 || s.Passages[0].Status != deepresearch.PassageGone || !strings.Contains(s.Passages[0].Text, "circular tanks") {
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
	if _, err := r.RecheckRun(context.Background(), deepresearchtest.NewStore(nil), "nope"); !errors.Is(err, deepresearch.ErrRunNotFound) {
		t.Errorf("an unknown run: %v", err)
	}
	if _, err := r.Recheck(context.Background(), &deepresearch.JSONReport{}); !errors.Is(err, deepresearch.ErrNoReport) {
		t.Errorf("an empty report: %v", err)
	}
}
