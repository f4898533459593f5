// Package web builds the search backends beyond the local corpus: the web
// search engines SearXNG, Tavily, Brave and Exa, existing Chroma
// collections, and Combine, which searches several backends (these, a
// corpus.Corpus, an mcpsource.Source) at once. Each is a search.Backend
// for deepresearch.Config.Search, built by the caller with its own
// address or key: the library reads no environment variable.
//
//	tv, err := web.Tavily(key, web.Options{})
//	docs, err := corpus.Open("docs", corpus.Options{})
//	both, err := web.Combine(tv, docs)
//	r, err := deepresearch.New(deepresearch.Config{Search: both})
//
// A web engine's results are pages: each run reads them through a page
// fetcher of its own (deepresearch.Config.Fetch: its SSRF guard, limits
// and cache), and orders them by the tier of their domain (Config.Domains).
// Every engine speaks its provider's own HTTP API; failures are classified
// (a bad key, rate limiting, an outage, a malformed response) and the
// retryable ones retried with backoff, honouring Retry-After.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/embeddings"

	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/retry"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/mcpsource"
	"github.com/deepresearch/deepresearch/search"
)

// Channel is the channel of a web engine's results (search.Result.Channel,
// and so a source's); a Chroma collection's is ChromaChannel.
const (
	Channel       = websearch.ChannelWeb
	ChromaChannel = websearch.ChannelChroma
)

// ErrNoKey reports an engine built without its key or address.
var ErrNoKey = websearch.ErrNoKey

// Options are what an engine may be given beyond its key or address. The
// zero value speaks to the provider's public API with a 30-second client.
type Options struct {
	// BaseURL replaces the provider's API address (https://api.tavily.com,
	// https://api.search.brave.com, https://api.exa.ai): a proxy, or a
	// local server in tests. SearXNG's and Chroma's address is their
	// argument.
	BaseURL string
	// Client makes the API calls (default: a client with a 30s timeout).
	Client *http.Client
	// UserAgent is sent with each API call (default: the page fetcher's).
	UserAgent string
	// MaxRetries is how many times a rate-limited or failed call (429,
	// 5xx, a reset connection, a timeout) is tried again (0: 2; negative:
	// never).
	MaxRetries int
}

// config is the internal engines' configuration for opts.
func (o Options) config() websearch.Config {
	return websearch.Config{Client: o.Client, UserAgent: o.UserAgent, Retries: o.MaxRetries,
		// Each run's own fetcher, from its context; recorded in its journal.
		Pages: journal.Pages{PageFetcher: fetch.ContextPages{}}}
}

// Engine is one web search provider as a search.Backend (and
// search.Resolver: a page's links resolve against its URL). A result's
// DocID is its page's URL; only http and https URLs are kept. It is safe
// for concurrent use.
type Engine struct{ e *websearch.Engine }

var (
	_ search.Backend  = (*Engine)(nil)
	_ search.Resolver = (*Engine)(nil)
)

// SearXNG returns the engine of the SearXNG instance at baseURL (an http
// or https URL, e.g. "http://localhost:8888"), whose JSON format must be
// enabled (search.formats in its settings.yml). It makes no call.
func SearXNG(baseURL string, opts Options) (*Engine, error) {
	cfg := opts.config()
	cfg.SearXNGURL = strings.TrimSpace(baseURL)
	return engine("searxng", cfg)
}

// Tavily returns the Tavily engine with API key key. It makes no call: a
// bad key shows on the first search.
func Tavily(key string, opts Options) (*Engine, error) {
	cfg := opts.config()
	cfg.TavilyKey, cfg.TavilyURL = strings.TrimSpace(key), opts.BaseURL
	return engine("tavily", cfg)
}

// Brave returns the Brave Search engine with API key key. It makes no
// call.
func Brave(key string, opts Options) (*Engine, error) {
	cfg := opts.config()
	cfg.BraveKey, cfg.BraveURL = strings.TrimSpace(key), opts.BaseURL
	return engine("brave", cfg)
}

// Exa returns the Exa engine with API key key. It makes no call.
func Exa(key string, opts Options) (*Engine, error) {
	cfg := opts.config()
	cfg.ExaKey, cfg.ExaURL = strings.TrimSpace(key), opts.BaseURL
	return engine("exa", cfg)
}

// New returns the engine provider names ("searxng", "tavily", "brave",
// "exa") with its key (SearXNG: its address): what a settings file's
// search list builds.
func New(provider, key string, opts Options) (*Engine, error) {
	switch strings.ToLower(strings.TrimSpace(provider)) {
	case "searxng":
		return SearXNG(key, opts)
	case "tavily":
		return Tavily(key, opts)
	case "brave":
		return Brave(key, opts)
	case "exa":
		return Exa(key, opts)
	}
	return nil, fmt.Errorf("web: %q: %w (want one of %s)", provider, websearch.ErrUnknownProvider, strings.Join(websearch.Providers, ", "))
}

func engine(name string, cfg websearch.Config) (*Engine, error) {
	e, err := websearch.New(name, cfg)
	if err != nil {
		return nil, err
	}
	return &Engine{e}, nil
}

// Name is the provider's name: "searxng", "tavily", "brave" or "exa".
func (e *Engine) Name() string { return e.e.Name() }

// Channel is "web", the channel of its results.
func (e *Engine) Channel() string { return Channel }

// Search asks the provider for at most limit results for query, best
// first, moved up or down by the tier of their domain.
func (e *Engine) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	return e.e.Search(ctx, query, limit)
}

// Fetch reads the page at docID (its URL) through the run's fetcher.
func (e *Engine) Fetch(ctx context.Context, docID string) (search.Document, error) {
	return e.e.Fetch(ctx, docID)
}

// Resolve returns the URL a link ref in the page from points to.
func (e *Engine) Resolve(ctx context.Context, from, ref string) (string, error) {
	return e.e.Resolve(ctx, from, ref)
}

// Check makes one small search, to tell whether the key and address work.
func (e *Engine) Check(ctx context.Context) error { return e.e.Check(ctx) }

// ChromaConfig is where a Chroma server is and how to speak to it. Empty
// fields take Chroma's defaults: URL http://localhost:8000, its default
// tenant and database, no token (sent as x-chroma-token when set).
type ChromaConfig struct {
	URL, Tenant, Database, Token string
}

// Collection is an existing Chroma collection as a search.Backend, queried
// with vectors of the embedding model its records were embedded with. A
// record's metadata "source" names its document and "row_index" its row
// (a CSV file's, as the local corpus cites it). It is safe for concurrent
// use.
type Collection struct {
	c    *websearch.Chroma
	name string
}

var _ search.Backend = (*Collection)(nil)

// Chroma returns the collection named collection on the server cfg
// names, whose queries emb embeds (its failed calls retried like the
// API's). It makes no call.
func Chroma(collection string, cfg ChromaConfig, emb embeddings.Embedder, opts Options) (*Collection, error) {
	if emb == nil {
		return nil, &websearch.Error{Provider: ChromaChannel, Op: "config", Err: errors.New("no embedding model for the queries (model.embeddings)")}
	}
	cc := websearch.ChromaConfig{URL: cfg.URL, Collection: strings.TrimSpace(collection), Tenant: cfg.Tenant, Database: cfg.Database, Token: cfg.Token}
	wcfg := opts.config()
	// The queries' embedding calls are retried as the API calls are.
	retries := max(wcfg.Retries, 0)
	if wcfg.Retries == 0 {
		retries = 2
	}
	emb = &retry.Embedder{Embedder: emb, Policy: retry.Policy{Retries: retries, Backoff: 500 * time.Millisecond}}
	c, err := websearch.NewChroma(cc, emb, wcfg)
	if err != nil {
		return nil, err
	}
	return &Collection{c: c, name: cc.Collection}, nil
}

// Name is "chroma:COLLECTION".
func (c *Collection) Name() string { return ChromaChannel + ":" + c.name }

// Channel is "chroma", the channel of its results.
func (c *Collection) Channel() string { return ChromaChannel }

// Search returns the limit records nearest to query's vector.
func (c *Collection) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	return c.c.Search(ctx, query, limit)
}

// Fetch reads every record of the document docID names.
func (c *Collection) Fetch(ctx context.Context, docID string) (search.Document, error) {
	return c.c.Fetch(ctx, docID)
}

// Check finds the collection, to tell whether the server and name work.
func (c *Collection) Check(ctx context.Context) error { return c.c.Check(ctx) }

// Combined searches several backends at once and merges their results:
// round-robin in the order given, de-duplicated by canonical URL, each
// result on its backend's channel; a document is read from the backend
// that found it. A backend that fails is logged (to the search context's
// zerolog logger) while the others answer; the search fails only when all
// do. It is safe for concurrent use.
type Combined struct {
	c       *websearch.Combined
	members []search.Backend
}

var (
	_ search.Backend  = (*Combined)(nil)
	_ search.Resolver = (*Combined)(nil)
)

// Combine returns the search over backends, in order of preference (it
// breaks ties in the interleaving). Each is named by its Name method
// ("tavily", "corpus", "chroma:notes", "mcp:files"; others "search1",
// "search2", …), which must be unique, and its results take the channel
// of its Channel method ("search" without one).
func Combine(backends ...search.Backend) (*Combined, error) {
	members := make([]websearch.Member, 0, len(backends))
	for i, b := range backends {
		if b == nil {
			return nil, fmt.Errorf("web: combine: backend %d is nil", i+1)
		}
		m := websearch.Member{Name: fmt.Sprintf("search%d", i+1), Channel: "search", Backend: b}
		if n, ok := b.(interface{ Name() string }); ok && n.Name() != "" {
			m.Name = n.Name()
		}
		if ch, ok := b.(interface{ Channel() string }); ok && ch.Channel() != "" {
			m.Channel = ch.Channel()
			if strings.HasPrefix(m.Channel, mcpsource.ChannelPrefix) {
				m.Name = m.Channel
			}
		}
		members = append(members, m)
	}
	c, err := websearch.Combine(websearch.Hooks{Failed: func(ctx context.Context, name string, err error) {
		zerolog.Ctx(ctx).Warn().Str("search", name).Err(err).Msg("a search backend failed; the others answered")
	}}, members...)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	return &Combined{c: c, members: slices.Clone(backends)}, nil
}

// Members are the backends, in the order given to Combine.
func (c *Combined) Members() []search.Backend { return slices.Clone(c.members) }

// Search asks every backend for limit results concurrently and interleaves
// their lists.
func (c *Combined) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	return c.c.Search(ctx, query, limit)
}

// Fetch reads docID from the backend that found it, else from each in
// turn.
func (c *Combined) Fetch(ctx context.Context, docID string) (search.Document, error) {
	return c.c.Fetch(ctx, docID)
}

// Resolve asks the backend that found from what ref names in it.
func (c *Combined) Resolve(ctx context.Context, from, ref string) (string, error) {
	return c.c.Resolve(ctx, from, ref)
}

// Close closes the backends that have a Close method (a corpus's index
// file, an MCP server's session), each once.
func (c *Combined) Close() error {
	var errs []error
	for _, b := range c.members {
		if cl, ok := b.(io.Closer); ok {
			errs = append(errs, cl.Close())
		}
	}
	return errors.Join(errs...)
}
