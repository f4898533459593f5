package deepresearch

import (
	"context"
	"net/netip"
	"time"

	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/search"
)

// FetchConfig configures the page fetcher a run's web search reads pages
// with: the SSRF guard's allowlist, a timeout, a size cap (Config.Fetch,
// the fetch section of the settings file). The zero value is ready to
// use: it refuses every internal address. The fetcher stamps each page
// with Config.Clock's time.
type FetchConfig struct {
	// Allow lists HOST:PORT pairs ("localhost:8080", "10.0.0.5:443",
	// "[::1]:8080") that the SSRF guard lets through although they are
	// internal. A name entry opens the name (whatever it resolves to); an
	// IP entry opens that address and port, however the URL named it.
	Allow []string
	// Timeout bounds one fetch, redirects and body included (default 30
	// seconds). It is a deadline on real network I/O: real time.
	Timeout time.Duration
	// MaxBytes caps a page's body; a larger page is refused (default 5
	// MiB).
	MaxBytes int64
	// MaxRedirects caps the redirects followed (default 5; negative:
	// none).
	MaxRedirects int
	// UserAgent is sent with every request (default
	// "deepresearch/1 (+https://github.com/deepresearch/deepresearch)").
	UserAgent string
	// Resolver resolves host names for the fetcher and its SSRF guard
	// (default net.DefaultResolver; a *net.Resolver is one).
	Resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}
}

// fetcher returns the configuration of the fetcher Config.Fetch says, its
// pages stamped on Config.Clock.
func (r *Researcher) fetcher() fetch.Config {
	c := r.cfg.Fetch
	return fetch.Config{Allow: c.Allow, Timeout: c.Timeout, MaxBytes: c.MaxBytes, MaxRedirects: c.MaxRedirects,
		UserAgent: c.UserAgent, Resolver: c.Resolver, Clock: r.cfg.Clock}
}

// Fetch returns a whole document from the Researcher's search backend (the
// local corpus index when Config.Search is nil, opening and indexing it on
// first use), by the Source.ID a run reported. A front end that keeps runs
// uses it to store the text a report cited, so that the citation can be
// checked later without the corpus or the web. Unknown IDs wrap
// ErrNotFound.
func (r *Researcher) Fetch(ctx context.Context, docID string) (search.Document, error) {
	b, err := r.backend(ctx)
	if err != nil {
		return search.Document{}, err
	}
	return b.Fetch(ctx, docID)
}
