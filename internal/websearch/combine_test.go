package websearch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/search"
)

// openCorpus indexes the repository's test corpus (undersea cables).
func openCorpus(t testing.TB) *corpus.Index {
	t.Helper()
	ctx := context.Background()
	ix, err := corpus.Open(ctx, filepath.Join(t.TempDir(), "corpus.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(ctx, filepath.Join("..", "..", "testdata", "corpus")); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestCombinedInterleaves(t *testing.T) {
	const limit = 6
	ix := openCorpus(t)
	sx := newAPI(t, "searxng", limit, reply{body: fixture(t, "searxng/search.json")})
	tv := newAPI(t, "tavily", limit, reply{body: fixture(t, "tavily/search.json")})
	clk := clock.NewFake(testNow)
	cfgS, cfgT := config(sx, clk), config(tv, clk)
	searx, err := websearch.New("searxng", cfgS)
	if err != nil {
		t.Fatal(err)
	}
	tav, err := websearch.New("tavily", cfgT)
	if err != nil {
		t.Fatal(err)
	}
	c, err := websearch.Combine(websearch.Hooks{Failed: func(_ context.Context, m string, err error) { t.Errorf("%s failed: %v", m, err) }},
		websearch.Member{Name: "searxng", Channel: websearch.ChannelWeb, Backend: searx},
		websearch.Member{Name: "tavily", Channel: websearch.ChannelWeb, Backend: tav},
		websearch.Member{Name: "corpus", Channel: websearch.ChannelCorpus, Backend: ix},
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := c.Search(ctx, testQuery, limit)
	if err != nil {
		t.Fatal(err)
	}
	corpusRes, err := ix.Search(ctx, testQuery, limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(corpusRes) < 3 {
		t.Fatalf("corpus search: %d results, want 3 or more", len(corpusRes))
	}
	// Round-robin: searxng[0], tavily[0], corpus[0], searxng[1],
	// (tavily[1] is searxng[0] again, under a fragment), corpus[1], corpus[2]
	// (passages of one document from one member are all kept).
	want := []struct{ url, channel string }{
		{"https://en.wikipedia.org/wiki/Submarine_communications_cable", "web"},
		{"https://www.britannica.com/technology/submarine-cable", "web"},
		{corpusRes[0].URL, "corpus"},
		{"https://www.submarinenetworks.com/en/systems/trans-atlantic/repeaters?utm_source=searx", "web"},
		{corpusRes[1].URL, "corpus"},
		{corpusRes[2].URL, "corpus"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(got), len(want), got)
	}
	owner := map[string]string{}
	for i, w := range want {
		r := got[i]
		if r.URL != w.url || r.Channel != w.channel || r.Snippet == "" {
			t.Errorf("result %d = %s (%s), want %s (%s)", i, r.URL, r.Channel, w.url, w.channel)
		}
		k := canon.Key(r.URL)
		if o, ok := owner[k]; ok && o != r.Channel+r.DocID {
			t.Errorf("result %d duplicates %s from another backend", i, k)
		}
		owner[k] = r.Channel + r.DocID
	}
	// A corpus result is read back from the corpus.
	doc, err := c.Fetch(ctx, corpusRes[0].DocID)
	if err != nil || doc.DocID != corpusRes[0].DocID || doc.Text == "" {
		t.Errorf("Fetch(%q) = %+v, %v", corpusRes[0].DocID, doc, err)
	}
	if _, err := c.Fetch(ctx, "no/such/doc.md"); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("Fetch of an unknown document: err = %v, want ErrNotFound", err)
	}
}

// TestCombinedFetchesPages: a web result is read through the page fetcher,
// whose guard lets only the allowlisted page server through.
func TestCombinedFetchesPages(t *testing.T) {
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		fmt.Fprintf(w, "# Repeaters\n\nRepeaters are spaced every 70 km (%s).\n", r.URL.Path)
	}))
	defer pages.Close()
	body := fmt.Sprintf(`{"query": %q, "number_of_results": 0, "results": [
		{"url": %q, "title": "Repeaters", "content": "Repeaters are spaced every 70 km.", "engine": "bing", "engines": ["bing"], "score": 1.0, "category": "general"}
	], "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []}`, testQuery, pages.URL+"/repeaters")
	sx := newAPI(t, "searxng", 5, reply{body: []byte(body)})
	f, err := fetch.New(fetch.Config{Allow: []string{strings.TrimPrefix(pages.URL, "http://")}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg := config(sx, clock.NewFake(testNow))
	cfg.Pages = f
	c, err := websearch.Build([]string{"searxng"}, cfg, nil, websearch.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := c.Search(ctx, testQuery, 5)
	if err != nil || len(res) != 1 {
		t.Fatalf("Search = %+v, %v", res, err)
	}
	doc, err := c.Fetch(ctx, res[0].DocID)
	if err != nil {
		t.Fatal(err)
	}
	if doc.DocID != pages.URL+"/repeaters" || doc.URL != pages.URL+"/repeaters" || doc.Text != "# Repeaters\n\nRepeaters are spaced every 70 km (/repeaters)." {
		t.Errorf("Fetch = %+v", doc)
	}
	// The API server is not on the allowlist: its pages are refused.
	if _, err := c.Fetch(ctx, sx.URL+"/secret"); !errors.Is(err, fetch.ErrBlocked) {
		t.Errorf("Fetch of a non-allowlisted local URL: err = %v, want fetch.ErrBlocked", err)
	}
}

func TestCombinedFailures(t *testing.T) {
	ok := newAPI(t, "searxng", 4, reply{body: fixture(t, "searxng/search.json")})
	badBrave := newAPI(t, "brave", 4, reply{status: 401, body: fixture(t, "brave/401.json")})
	badTavily := newAPI(t, "tavily", 4, reply{status: 401, body: fixture(t, "tavily/401.json")})
	clk := clock.NewFake(testNow)
	engine := func(p string, a *api) websearch.Member {
		e, err := websearch.New(p, config(a, clk))
		if err != nil {
			t.Fatal(err)
		}
		return websearch.Member{Name: p, Channel: websearch.ChannelWeb, Backend: e}
	}
	t.Run("one fails", func(t *testing.T) {
		var mu sync.Mutex
		failed := map[string]error{}
		c, err := websearch.Combine(websearch.Hooks{Failed: func(_ context.Context, m string, err error) { mu.Lock(); failed[m] = err; mu.Unlock() }},
			engine("brave", badBrave), engine("searxng", ok))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Search(context.Background(), testQuery, 4)
		if err != nil || len(res) != 2 {
			t.Fatalf("Search = %d results, %v; want searxng's 2", len(res), err)
		}
		if !errors.Is(failed["brave"], websearch.ErrAuth) || len(failed) != 1 {
			t.Errorf("Failed hook got %v", failed)
		}
	})
	t.Run("all fail", func(t *testing.T) {
		c, err := websearch.Combine(websearch.Hooks{}, engine("brave", badBrave), engine("tavily", badTavily))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Search(context.Background(), testQuery, 4)
		if res != nil || !errors.Is(err, websearch.ErrAuth) || !strings.Contains(err.Error(), "BRAVE_API_KEY") || !strings.Contains(err.Error(), "TAVILY_API_KEY") {
			t.Fatalf("Search = %v, %v; want both members' errors", res, err)
		}
	})
}

func TestBuild(t *testing.T) {
	ix := openCorpus(t)
	cfg := websearch.Config{SearXNGURL: "http://searx.invalid:8888"}
	tests := []struct {
		names  []string
		corpus search.Backend
		wantIn string // "" for success
	}{
		{[]string{"searxng", "corpus"}, ix, ""},
		{[]string{" Corpus ", ""}, ix, ""},
		{[]string{"corpus"}, nil, "no local index"},
		{[]string{"searxng", "SearXNG"}, ix, "listed twice"},
		{[]string{"tavily"}, ix, "set TAVILY_API_KEY"},
		{[]string{"bing"}, ix, "unknown search provider"},
		{nil, ix, "no search backends"},
	}
	for _, tt := range tests {
		_, err := websearch.Build(tt.names, cfg, tt.corpus, websearch.Hooks{})
		if tt.wantIn == "" && err != nil || tt.wantIn != "" && (err == nil || !strings.Contains(err.Error(), tt.wantIn)) {
			t.Errorf("Build(%q) err = %v, want %q", tt.names, err, tt.wantIn)
		}
	}
}

// BenchmarkCombinedSearch is one agent search over SearXNG (a local
// server answering with the fixture) and the test corpus, merged.
func BenchmarkCombinedSearch(b *testing.B) {
	ix := openCorpus(b)
	sx := newAPI(b, "searxng", 5, reply{body: fixture(b, "searxng/search.json")})
	c, err := websearch.Build([]string{"searxng", "corpus"}, config(sx, clock.NewFake(testNow)), ix, websearch.Hooks{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res, err := c.Search(ctx, testQuery, 5); err != nil || len(res) != 5 {
			b.Fatal(len(res), err)
		}
	}
}

// TestCombinedFetchSaysChannel: a document fetched by DocID, which no
// search returned (a reference followed), carries the channel of the
// member that holds it, as its search results would.
func TestCombinedFetchSaysChannel(t *testing.T) {
	ix := openCorpus(t)
	c, err := websearch.Combine(websearch.Hooks{}, websearch.Member{Name: "corpus", Channel: websearch.ChannelCorpus, Backend: ix})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := c.Fetch(context.Background(), "glossary.org")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Channel != websearch.ChannelCorpus {
		t.Errorf("Fetch(glossary.org).Channel = %q, want %q", doc.Channel, websearch.ChannelCorpus)
	}
}
