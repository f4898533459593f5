package websearch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/search"
)

// TestDomainPolicy: a denied domain is dropped from every member's
// results, and a link to one does not resolve.
func TestDomainPolicy(t *testing.T) {
	const limit = 6
	sx := newAPI(t, "searxng", limit, reply{body: fixture(t, "searxng/search.json")})
	tv := newAPI(t, "tavily", limit, reply{body: fixture(t, "tavily/search.json")})
	clk := clock.NewFake(testNow)
	searx, err := websearch.New("searxng", config(sx, clk))
	if err != nil {
		t.Fatal(err)
	}
	tav, err := websearch.New("tavily", config(tv, clk))
	if err != nil {
		t.Fatal(err)
	}
	c, err := websearch.Combine(websearch.Hooks{},
		websearch.Member{Name: "searxng", Channel: websearch.ChannelWeb, Backend: searx},
		websearch.Member{Name: "tavily", Channel: websearch.ChannelWeb, Backend: tav})
	if err != nil {
		t.Fatal(err)
	}
	policy, err := domains.NewPolicy(nil, []string{"*.wikipedia.org"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := domains.NewContext(context.Background(), policy)
	got, err := c.Search(ctx, testQuery, limit)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, r := range got {
		urls = append(urls, r.URL)
		if strings.Contains(r.URL, "wikipedia") {
			t.Errorf("a denied domain's result came back: %s", r.URL)
		}
	}
	if len(got) != 2 {
		t.Errorf("results %v, want britannica's and submarinenetworks'", urls)
	}
	if _, err := c.Resolve(ctx, got[0].URL, "https://de.wikipedia.org/wiki/Seekabel"); !errors.Is(err, search.ErrNotFound) || !errors.Is(err, domains.ErrDenied) {
		t.Errorf("Resolve of a denied link: err = %v, want ErrNotFound and ErrDenied", err)
	}
	if u, err := c.Resolve(ctx, got[0].URL, "https://example.org/cables.html"); err != nil || u == "" {
		t.Errorf("Resolve of an allowed link: %q, %v", u, err)
	}
}

// TestTierPrior: the tier table moves primary sources up a provider's
// list and content farms down.
func TestTierPrior(t *testing.T) {
	sx := newAPI(t, "searxng", 4, reply{body: fixture(t, "searxng/search.json")}, reply{body: fixture(t, "searxng/search.json")})
	cfg := config(sx, clock.NewFake(testNow))
	plain, err := websearch.New("searxng", cfg)
	if err != nil {
		t.Fatal(err)
	}
	tiers, err := domains.ParseTable([]byte("primary: [submarinenetworks.com]\ncontent-farm: [wikipedia.org]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tiers = tiers
	tiered, err := websearch.New("searxng", cfg)
	if err != nil {
		t.Fatal(err)
	}
	first := func(e *websearch.Engine) string {
		res, err := e.Search(context.Background(), testQuery, 4)
		if err != nil || len(res) != 2 {
			t.Fatalf("search: %d results, %v", len(res), err)
		}
		return res[0].URL
	}
	if u := first(plain); !strings.Contains(u, "wikipedia") {
		t.Errorf("without tiers, first %s; want the provider's first (wikipedia)", u)
	}
	if u := first(tiered); !strings.Contains(u, "submarinenetworks") {
		t.Errorf("with tiers, first %s; want the primary source", u)
	}
}
