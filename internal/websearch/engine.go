// Package websearch searches the web for research agents: SearXNG, Tavily,
// Brave and Exa behind the search.Backend interface, an existing Chroma
// collection (Chroma), and Combined, which queries several backends (web
// engines, Chroma and the local corpus) at once.
//
// Each engine speaks its provider's own HTTP API. Failures are classified
// (a bad key, rate limiting, an outage, a malformed response) and the
// retryable ones retried through internal/retry, with jittered backoff on
// Config.Clock, honouring Retry-After. A result's
// DocID is its page URL; Fetch reads the page through internal/fetch, with
// its SSRF guard. Only http and https result URLs are kept.
package websearch

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/search"
)

// ChannelWeb is the Result.Channel of web results.
const ChannelWeb = "web"

// The providers' API addresses, the defaults of Config's URL fields.
const (
	TavilyURL = "https://api.tavily.com"
	BraveURL  = "https://api.search.brave.com"
	ExaURL    = "https://api.exa.ai"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvSearXNGURL = "SEARXNG_URL"
	EnvTavilyKey  = "TAVILY_API_KEY"
	EnvBraveKey   = "BRAVE_API_KEY"
	EnvExaKey     = "EXA_API_KEY"
)

// PageFetcher reads a result's page; *fetch.Fetcher implements it.
type PageFetcher interface {
	Fetch(ctx context.Context, url string) (fetch.Page, error)
}

// Config configures the engines. Zero fields take the documented defaults;
// each engine needs only its own address or key.
type Config struct {
	// SearXNGURL is the SearXNG instance's base URL (SEARXNG_URL), e.g.
	// "http://localhost:8888"; its JSON format must be enabled
	// (search.formats in settings.yml).
	SearXNGURL string
	// API keys: TAVILY_API_KEY, BRAVE_API_KEY, EXA_API_KEY.
	TavilyKey, BraveKey, ExaKey string
	// Base URLs of the hosted APIs; default TavilyURL, BraveURL, ExaURL.
	// Tests point them at local servers.
	TavilyURL, BraveURL, ExaURL string

	// Chroma names the collection "chroma" queries (NewChroma), and
	// Embedder makes its query vectors.
	Chroma   ChromaConfig
	Embedder QueryEmbedder

	// Backends are further backends Build knows by name, each searched on
	// a channel of its own, its name ("mcp:NAME": an MCP server's, see
	// mcpsource).
	Backends map[string]search.Backend
	// Tiers rates each result's domain (domains): Search moves
	// primary sources up its list and forums and content farms down (see
	// Engine.Search). Nil: the provider's order stands.
	Tiers *domains.Table

	// Pages reads result pages for Fetch. Nil: Fetch fails, saying so.
	Pages PageFetcher
	// Client makes the API calls. Default: a client with a 30s timeout.
	Client *http.Client
	// UserAgent for API calls. Default fetch.DefaultUserAgent.
	UserAgent string

	// Retries is how many times a rate-limited or failed call (429, 5xx,
	// reset connection, timeout) is tried again. Default 2; negative: none.
	Retries int
	// Backoff is the wait before the first retry when the provider gives no
	// Retry-After; it doubles each time, with jitter. Default 1s.
	Backoff time.Duration
	// MaxRetryAfter is the longest wait: a Retry-After beyond it fails the
	// call at once, and the doubled backoff stops growing there. Default
	// 30s.
	MaxRetryAfter time.Duration
	// Clock times the waits between retries and reads Retry-After dates;
	// nil means the real clock. (Client's timeout is on real time.)
	Clock clock.Clock
}

// ConfigFromEnv returns a Config with the addresses and keys the usual
// variables hold: SEARXNG_URL, TAVILY_API_KEY, BRAVE_API_KEY, EXA_API_KEY,
// CHROMA_URL and CHROMA_API_KEY.
// getenv is os.Getenv or a test's table.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{
		SearXNGURL: strings.TrimSpace(getenv(EnvSearXNGURL)),
		TavilyKey:  strings.TrimSpace(getenv(EnvTavilyKey)),
		BraveKey:   strings.TrimSpace(getenv(EnvBraveKey)),
		ExaKey:     strings.TrimSpace(getenv(EnvExaKey)),
		Chroma:     ChromaConfig{URL: strings.TrimSpace(getenv(EnvChromaURL)), Token: strings.TrimSpace(getenv(EnvChromaKey))},
	}
}

func (c Config) withDefaults() Config {
	if c.TavilyURL == "" {
		c.TavilyURL = TavilyURL
	}
	if c.BraveURL == "" {
		c.BraveURL = BraveURL
	}
	if c.ExaURL == "" {
		c.ExaURL = ExaURL
	}
	if c.Client == nil {
		c.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if c.UserAgent == "" {
		c.UserAgent = fetch.DefaultUserAgent
	}
	switch {
	case c.Retries == 0:
		c.Retries = defaults.MaxRetries
	case c.Retries < 0:
		c.Retries = 0
	}
	if c.Backoff <= 0 {
		c.Backoff = time.Second
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 30 * time.Second
	}
	c.Clock = clock.Or(c.Clock)
	return c
}

// provider is one search API: it sends the query and maps the response.
type provider interface {
	search(ctx context.Context, c *caller, query string, limit int) ([]search.Result, error)
}

// Engine is one web search provider as a search.Backend. It is safe for
// concurrent use.
type Engine struct {
	name    string
	tiers   *domains.Table
	impl    provider
	caller  caller
	pages   PageFetcher
	dropped atomic.Int64
}

// Name returns the provider's name ("searxng", "tavily", "brave", "exa").
func (e *Engine) Name() string { return e.name }

// Dropped returns how many results were dropped so far because their URL
// was not http or https (or was missing).
func (e *Engine) Dropped() int64 { return e.dropped.Load() }

// Search asks the provider for at most limit results for query, best
// first. Each result's DocID and URL are its page URL, its Channel "web".
// The provider's order is adjusted by the tier of each result's domain
// (the table of ctx, domains.WithTiers; else Config.Tiers), a prior of tierShift places a tier: a primary source
// moves up three places, a forum down three, a content farm down six, a
// news site or an unrated one stays (ties keep the provider's order).
// Errors are *Error values; a call that fails after its retries returns its
// error, never an empty success.
func (e *Engine) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if limit <= 0 {
		return nil, nil
	}
	raw, err := e.impl.search(ctx, &e.caller, query, limit)
	if err != nil {
		return nil, err
	}
	out := make([]search.Result, 0, min(len(raw), limit))
	for _, r := range raw {
		u, ok := webURL(r.URL)
		if !ok {
			e.dropped.Add(1)
			continue
		}
		r.URL, r.DocID, r.Channel = u, u, ChannelWeb
		r.Title = oneLine(r.Title)
		if r.Title == "" {
			r.Title = u
		}
		r.Snippet = cleanSnippet(r.Snippet)
		r.Published, r.Modified = sourcetext.ParseDate(r.Published), sourcetext.ParseDate(r.Modified)
		r.Author = sourcetext.ParseAuthors(r.Author)
		out = append(out, r)
		if len(out) == limit {
			break
		}
	}
	tiers := e.tiers
	if t := domains.TiersFrom(ctx); t != nil {
		tiers = t
	}
	return byTier(out, tiers), nil
}

// tierShift is how many places a tier's rank moves a result (Search).
const tierShift = 3

// byTier reorders results by position plus tierShift per tier rank away
// from news (domains.Tier.Rank), stably.
func byTier(results []search.Result, tiers *domains.Table) []search.Result {
	if tiers == nil || len(results) < 2 {
		return results
	}
	keys, idx := make([]int, len(results)), make([]int, len(results))
	for i, r := range results {
		keys[i], idx[i] = i+tierShift*(tiers.Of(r.URL).Rank()-1), i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return keys[a] - keys[b] })
	out := make([]search.Result, len(results))
	for i, j := range idx {
		out[i] = results[j]
	}
	return out
}

// Fetch reads the page docID names (a result's URL) through Config.Pages.
// A docID that is not an http or https URL wraps search.ErrNotFound.
func (e *Engine) Fetch(ctx context.Context, docID string) (search.Document, error) {
	u, ok := webURL(docID)
	if !ok {
		return search.Document{}, fmt.Errorf("websearch: %s: %q is not a web page: %w", e.name, docID, search.ErrNotFound)
	}
	if e.pages == nil {
		return search.Document{}, &Error{Provider: e.name, Op: "fetch", Err: fmt.Errorf("no page fetcher configured")}
	}
	p, err := e.pages.Fetch(ctx, u)
	if err != nil {
		return search.Document{}, err
	}
	return search.Document{DocID: docID, URL: p.FinalURL, Title: p.Title, Text: p.Text, Published: p.Published, Modified: p.Modified, Author: p.Author}, nil
}

// webURL returns raw trimmed when it is an absolute http or https URL with
// a host and no control characters.
func webURL(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return raw, true
	}
	return "", false
}

// oneLine decodes HTML entities and collapses s to one clean line.
func oneLine(s string) string { return clean(stripTags(html.UnescapeString(s))) }

// maxSnippet caps a result's snippet, in bytes.
const maxSnippet = 2000

// cleanSnippet decodes entities, drops markup and control characters,
// collapses white space and caps the length at maxSnippet.
func cleanSnippet(s string) string {
	s = stripTags(html.UnescapeString(s))
	s = strings.ToValidUTF8(strings.Join(strings.FieldsFunc(s, isSpaceOrControl), " "), "")
	if len(s) > maxSnippet {
		cut := maxSnippet
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// stripTags removes the highlighting markup some providers put in titles
// and snippets (<strong>, <b>, <em>).
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	r := strings.NewReplacer("<strong>", "", "</strong>", "", "<b>", "", "</b>", "", "<em>", "", "</em>", "")
	return r.Replace(s)
}

// Check asks the provider for one result, without retrying, to show that
// it answers and accepts the key (for `deepresearch doctor`). It costs one
// API call.
func (e *Engine) Check(ctx context.Context) error {
	c := e.caller
	cfg := *c.cfg
	cfg.Retries = 0
	c.cfg = &cfg
	_, err := e.impl.search(ctx, &c, "deepresearch", 1)
	return err
}

var _ search.Resolver = (*Engine)(nil)

// Resolve returns the page a link names, as the page from (a result's
// URL, or "" for none) writes it: ref resolved against from, without its
// fragment. Only an http or https URL with a public host name is a page:
// a link to another scheme, to an IP literal in a private, loopback or
// link-local range, to "localhost" or another name only a local network
// resolves (fetch.InternalHost), to from itself or with user information
// wraps search.ErrNotFound, as does a name written as words or without a
// slash or an extension ("Control Groups", "cgroup-v2": linkLike). It
// fetches nothing.
func (e *Engine) Resolve(_ context.Context, from, ref string) (string, error) {
	return resolveLink(from, ref)
}

// resolveLink is Resolve for any web backend.
func resolveLink(from, ref string) (string, error) {
	notFound := fmt.Errorf("websearch: link %q: %w", ref, search.ErrNotFound)
	if !linkLike(strings.TrimSpace(ref)) {
		return "", notFound
	}
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil || strings.ContainsFunc(ref, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", notFound
	}
	var base *url.URL
	if b, ok := webURL(from); ok {
		base, _ = url.Parse(b)
		u = base.ResolveReference(u)
	}
	u.Fragment, u.RawFragment = "", ""
	switch {
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.User != nil, fetch.InternalHost(u.Hostname()):
		return "", notFound
	case base != nil && strings.TrimSuffix(u.String(), "/") == strings.TrimSuffix(withoutFragment(base), "/"):
		return "", notFound
	}
	return u.String(), nil
}

// linkLike reports whether ref is written as a link's target, not as a
// name ("Control Groups", a link's words, an rst label "cgroup-v2"), which
// would otherwise resolve, as a relative reference, to a made-up page
// beside from: it holds no white space, and a slash (a URL, a path) or a
// file name's extension ("spec-ctrl.html").
func linkLike(ref string) bool {
	if ref == "" || strings.ContainsFunc(ref, unicode.IsSpace) {
		return false
	}
	p := ref
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	return strings.Contains(p, "/") || path.Ext(p) != ""
}

func withoutFragment(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}
