package deepresearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/worker"
)

// domainWeb is a web double for the domain tests: a primary source, a
// forum thread that alone makes one claim, two pages of a denied path, and
// an allowed page that redirects into it.
func domainWeb(t *testing.T) *deepresearchtest.WebServer {
	t.Helper()
	web, err := deepresearchtest.NewWebServer(
		search.Document{DocID: "spec-repair", Title: "Submarine cable repair procedure",
			Text: "Cable repair ships lift a damaged submarine cable to the surface with a grapnel before the splice.\n\nThe repair ship splices a new length of submarine cable into the damaged section."},
		search.Document{DocID: "forum-thread", Title: "How long does a submarine cable splice take?",
			Text: "A submarine cable splice on board a repair ship takes about ten days, one poster wrote."},
		search.Document{DocID: "evil-1", Title: "Cable repair secrets",
			Text: "Cable repair ships splice submarine cable zebrawords every time, the denied page says."},
		search.Document{DocID: "evil-2", Title: "More cable repair secrets",
			Text: "Repair ships splice a submarine cable with zebrawords, says the page a redirect leads to."},
		search.Document{DocID: "hop", Title: "How repair ships splice a submarine cable",
			Text: "How do repair ships splice a submarine cable? Repair ships splice a submarine cable at sea, and a submarine cable splice takes time."},
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(web.Close)
	web.Redirect("hop", http.StatusFound, "/pages/evil-2")
	return web
}

func domainSettings(t *testing.T, web *deepresearchtest.WebServer) config.Settings {
	s := config.Defaults()
	s.Search.Providers, s.Search.SearxngURL = []string{"searxng"}, web.URL
	s.Fetch.Allow = []string{strings.TrimPrefix(web.URL, "http://")}
	s.Corpus.Index = filepath.Join(t.TempDir(), "index.db")
	s.Domains.Deny = []string{"127.0.0.1/pages/evil*"}
	s.Domains.Tiers = []string{"127.0.0.1/pages/spec*=primary", "127.0.0.1/pages/forum*=forum"}
	s.Research.MaxCycles = 2
	return s
}

// TestDomainPolicyAndTiers: a denied page never becomes a source, not
// even behind a redirect from an allowed one, and is never requested;
// each web source carries its tier into the references (markdown and
// JSON); and the assessment names the claim that only a forum supports
// as a low-tier gap.
func TestDomainPolicyAndTiers(t *testing.T) {
	web := domainWeb(t)
	r, err := config.NewResearcher(domainSettings(t, web), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, "How do repair ships splice a submarine cable, and how long does a submarine cable splice take?", rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	checkCitations(t, rep, rec)
	for _, u := range web.Fetched() {
		if strings.Contains(u, "/pages/evil") {
			t.Errorf("a denied page was requested: %s", u)
		}
	}
	if !strings.Contains(strings.Join(web.Fetched(), " "), "/pages/hop") {
		t.Errorf("the page that redirects to a denied one was never opened (the test tests nothing): %v", web.Fetched())
	}
	tiers := map[string]string{}
	for _, s := range rep.Sources {
		if strings.Contains(s.URL, "/pages/evil") {
			t.Errorf("a denied page is a source: %s", s.URL)
		}
		if strings.Contains(rep.SourceTexts[s.Number], "zebrawords") {
			t.Errorf("source [%d] %s holds a denied page's text", s.Number, s.URL)
		}
		tiers[s.URL[strings.LastIndex(s.URL, "/")+1:]] = s.Tier
	}
	if tiers["spec-repair"] != "primary" || tiers["forum-thread"] != "forum" || tiers["hop"] != "" {
		t.Errorf("source tiers %v; want spec-repair primary, forum-thread forum, hop unrated", tiers)
	}

	md, err := rep.Render(render.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "(tier: forum)") || !strings.Contains(string(md), "(tier: primary)") {
		t.Errorf("the markdown references show no tiers:\n%s", md)
	}
	for _, f := range []render.Format{render.HTML, render.XML} {
		out, err := rep.Render(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "(tier: forum)") && !strings.Contains(string(out), `tier="forum"`) {
			t.Errorf("the %s references show no tier:\n%s", f, out)
		}
	}
	js, err := rep.Render(render.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		References []struct {
			URL  string `json:"url"`
			Tier string `json:"tier"`
		} `json:"references"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	jsonTiers := map[string]bool{}
	for _, ref := range doc.References {
		jsonTiers[ref.Tier] = true
	}
	if !jsonTiers["forum"] || !jsonTiers["primary"] {
		t.Errorf("the JSON references' tiers: %+v", doc.References)
	}

	var low []events.Gap
	for _, e := range rec.of(events.Assessed) {
		for _, g := range e.Data.(events.AssessedData).Gaps {
			if g.Kind == events.GapLowTier {
				low = append(low, g)
			}
		}
	}
	if len(low) == 0 || !strings.Contains(low[0].Detail, "ten days") || !strings.Contains(low[0].Detail, "(forum)") {
		t.Fatalf("no low-tier gap names the forum's claim: %+v", low)
	}
	for _, g := range low {
		if strings.Contains(g.Detail, "grapnel") {
			t.Errorf("a claim with a primary source is a low-tier gap: %s", g.Detail)
		}
	}
}

// TestRequestDomains: a request's domain lists narrow the configured
// policy for its run only — in this process, and on workers, with which
// they travel in each agent's job — and a malformed pattern is a
// RequestError naming the member.
func TestRequestDomains(t *testing.T) {
	web := domainWeb(t)
	s := domainSettings(t, web)
	s.Research.MaxCycles = 1
	newResearcher := func(t *testing.T, agents worker.Runner) *deepresearch.Researcher {
		cfg, err := config.ResearcherConfig(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Agents = agents
		r, err := deepresearch.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	for _, c := range []struct {
		name   string
		agents func(t *testing.T) worker.Runner
	}{
		{"in process", func(*testing.T) worker.Runner { return nil }},
		{"on workers", func(t *testing.T) worker.Runner { return wireRunner{worker: newResearcher(t, nil)} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newResearcher(t, c.agents(t))
			req := deepresearch.Request{Question: "How long does a submarine cable splice take on a repair ship?",
				Domains: &domains.Lists{Deny: []string{"127.0.0.1/pages/forum-thread"},
					Allow: []string{"127.0.0.1/pages/evil-1", "127.0.0.1/pages/forum*", "127.0.0.1/pages/spec*"}}}
			rep, err := research(context.Background(), r, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Sources) == 0 {
				t.Fatal("no sources")
			}
			for _, src := range rep.Sources {
				if !strings.Contains(src.URL, "/pages/spec") {
					t.Errorf("source %s is outside the request's policy (allowed: spec*; the configuration denies evil*)", src.URL)
				}
			}
		})
	}
	var reqErr *deepresearch.RequestError
	bad := deepresearch.Request{Question: "q?", Domains: &domains.Lists{Deny: []string{"a b"}}}
	if err := bad.Validate(); !errors.As(err, &reqErr) || reqErr.Field != "domains" {
		t.Errorf("Validate of a bad pattern: %v", err)
	}
}
