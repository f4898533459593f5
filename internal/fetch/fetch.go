// Package fetch reads web pages for research agents, safely: only http and
// https, never an internal address (the SSRF guard), bounded in time and
// size, redirects re-checked, bodies decoded from their charset and reduced
// to text. A Fetcher caches each page for the run, so a page several agents
// want is fetched once.
//
// Page text is untrusted data from the web: the fetcher returns it as plain
// text with its metadata and never interprets it.
package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/internal/telemetry"
)

// Defaults for the zero Config fields.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBytes     = 5 << 20
	DefaultMaxRedirects = 5
	DefaultUserAgent    = "deepresearch/1 (+https://github.com/deepresearch/deepresearch)"
)

// Config configures a Fetcher. The zero value is ready to use: it refuses
// every internal address.
type Config struct {
	// Allow lists HOST:PORT pairs ("localhost:8080", "10.0.0.5:443",
	// "[::1]:8080") that the SSRF guard lets through although they are
	// internal. A name entry opens the name (whatever it resolves to); an IP
	// entry opens that address and port, however the URL named it.
	Allow []string
	// Timeout bounds one fetch, redirects and body included. Default 30s.
	Timeout time.Duration
	// MaxBytes caps the body; a larger page is an ErrTooLarge. Default 5 MiB.
	MaxBytes int64
	// MaxRedirects caps the redirects followed. Default 5; negative: none.
	MaxRedirects int
	// UserAgent is sent with every request. Default DefaultUserAgent.
	UserAgent string
	// Resolver resolves host names. Default net.DefaultResolver.
	Resolver Resolver
	// Clock stamps Page.FetchedAt; nil means the real clock. (Timeout is a
	// deadline on real network I/O and stays on real time.)
	Clock clock.Clock
}

// Page is a fetched page, as text.
type Page struct {
	// URL is the URL asked for; FinalURL the one read, after redirects.
	URL      string `json:"url"`
	FinalURL string `json:"final_url"`
	// Title is the page's title, when it has one.
	Title string `json:"title,omitempty"`
	// Text is the page's main text: the article of an HTML page, a text or
	// markdown page as it is. Untrusted.
	Text string `json:"text"`
	// ContentType is the media type the server declared (or, when it
	// declared none, the sniffed one), without parameters.
	ContentType string `json:"content_type"`
	// Published and Modified are the page's dates as its metadata states
	// them (an HTML page's article:published_time, JSON-LD, <time>; see
	// extract.PageDates), in ISO 8601; "" when it states none.
	Published string `json:"published,omitempty"`
	Modified  string `json:"modified,omitempty"`
	// Author is who the page's metadata says wrote it (an HTML page's
	// meta author or JSON-LD author, extract.PageAuthor; a PDF's Author; a
	// DOCX's creator); "" when it names no one.
	Author string `json:"author,omitempty"`
	// FetchedAt is when the body was read.
	FetchedAt time.Time `json:"fetched_at"`
	// SHA256 is the hex SHA-256 of the body as received.
	SHA256 string `json:"sha256"`
	// Bytes is the body's length as received.
	Bytes int `json:"bytes"`
}

// Fetcher fetches pages. It is safe for concurrent use. Its cache lives as
// long as it does: make one per run. Close it to release idle connections.
type Fetcher struct {
	cfg    Config
	client *http.Client
	tr     *http.Transport

	mu    sync.Mutex
	cache map[string]*call

	// waitHook, if set (by tests, before use), is called when a caller
	// starts waiting for another's fetch.
	waitHook func()
}

// call is one fetch of a URL, shared by every caller that wants it.
type call struct {
	done chan struct{} // closed when page and err are set
	page Page
	err  error
}

// New returns a Fetcher, or an error naming a malformed Config.Allow entry.
func New(cfg Config) (*Fetcher, error) {
	allow, err := parseAllow(cfg.Allow)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	cfg.Clock = clock.Or(cfg.Clock)
	d := newDialer(allow, cfg.Resolver)
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would be the address dialled, past the guard
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
	}
	f := &Fetcher{cfg: cfg, tr: tr, cache: map[string]*call{}}
	f.client = &http.Client{Transport: tr, CheckRedirect: f.checkRedirect}
	return f, nil
}

// Close releases idle connections. Cached pages stay readable.
func (f *Fetcher) Close() error {
	f.tr.CloseIdleConnections()
	return nil
}

// checkRedirect allows at most MaxRedirects redirects, each to http or
// https and to a URL the domain policy of the request's context permits
// (domains.FromContext). The address of each is checked by the dialer as
// for the first.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("%w (%d)", ErrTooManyRedirects, f.cfg.MaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to %q: %w", req.URL.Redacted(), ErrScheme)
	}
	if err := domains.FromContext(req.Context()).Check(req.URL.Redacted()); err != nil {
		return err
	}
	return nil
}

// Fetch returns the page at rawURL. The first call for a URL fetches it;
// concurrent and later calls for the same URL (as written) wait for and
// share that result, errors included, except a fetch ended by its caller's
// context, which the next caller tries again. A caller whose ctx ends while
// waiting returns at once with the context's error.
//
// The domain policy in ctx (domains.FromContext: the run's
// search.domains) is applied to rawURL and to every redirect: a refused
// URL is an *Error wrapping domains.ErrDenied, and nothing is read from
// it.
//
// Errors are *Error values wrapping ErrScheme, ErrBlocked, ErrTooLarge,
// ErrTooManyRedirects, ErrStatus, ErrContentType, ErrNoText, a context
// error or a network error; their messages are written for an agent to read.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Page, error) {
	for {
		f.mu.Lock()
		c, ok := f.cache[rawURL]
		if !ok {
			c = &call{done: make(chan struct{})}
			f.cache[rawURL] = c
			f.mu.Unlock()
			sctx, span := telemetry.Start(ctx, telemetry.SpanPage, trace.SpanKindClient, telemetry.URLFull.String(telemetry.Text(rawURL)))
			c.page, c.err = f.fetch(sctx, rawURL)
			telemetry.End(span, c.err)
			if c.err != nil && ctx.Err() != nil {
				// Ended by this caller: forget it, so the next one retries.
				f.mu.Lock()
				delete(f.cache, rawURL)
				f.mu.Unlock()
			}
			close(c.done)
			return c.page, c.err
		}
		f.mu.Unlock()
		if f.waitHook != nil {
			f.waitHook()
		}
		select {
		case <-ctx.Done():
			return Page{}, &Error{URL: rawURL, Step: "wait", Err: context.Cause(ctx)}
		case <-c.done:
		}
		f.mu.Lock()
		retry := f.cache[rawURL] != c
		f.mu.Unlock()
		if !retry {
			return c.page, c.err
		}
	}
}

// fetch does the work of Fetch, uncached.
func (f *Fetcher) fetch(ctx context.Context, rawURL string) (Page, error) {
	fail := func(stage string, err error) (Page, error) {
		if ctx.Err() != nil && !errors.Is(err, context.Cause(ctx)) {
			err = fmt.Errorf("%w: %w", context.Cause(ctx), err)
		}
		return Page{}, &Error{URL: rawURL, Step: stage, Err: err}
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return fail("url", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fail("url", ErrScheme)
	}
	if u.Host == "" {
		return fail("url", errors.New("missing host"))
	}
	u.User = nil
	if err := domains.FromContext(ctx).Check(u.String()); err != nil {
		return fail("domain", err)
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail("url", err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,*/*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		stage := "dial"
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
			if ue.URL != req.URL.String() && !errors.Is(err, ErrScheme) && !errors.Is(err, ErrTooManyRedirects) && !errors.Is(err, domains.ErrDenied) {
				// A redirect's request failed: name where it led.
				stage, err = "redirect", fmt.Errorf("redirect to %q: %w", ue.URL, err)
			}
		}
		if errors.Is(err, ErrTooManyRedirects) || errors.Is(err, ErrScheme) || errors.Is(err, domains.ErrDenied) {
			stage = "redirect"
		}
		return fail(stage, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return fail("status", &StatusError{Code: resp.StatusCode, URL: final})
	}
	if resp.ContentLength > f.cfg.MaxBytes {
		return fail("read", fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, resp.ContentLength, f.cfg.MaxBytes))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return fail("read", err)
	}
	if int64(len(body)) > f.cfg.MaxBytes {
		return fail("read", fmt.Errorf("%w: more than %d bytes", ErrTooLarge, f.cfg.MaxBytes))
	}
	sum := sha256.Sum256(body)
	page := Page{
		URL:       rawURL,
		FinalURL:  final,
		FetchedAt: f.cfg.Clock.Now(),
		SHA256:    hex.EncodeToString(sum[:]),
		Bytes:     len(body),
	}
	c, err := toText(ctx, body, resp.Header.Get("Content-Type"), final)
	page.ContentType, page.Title, page.Text, page.Published, page.Modified, page.Author = c.mediaType, c.title, c.text, c.published, c.modified, c.author
	if err != nil {
		stage := "decode"
		if errors.Is(err, ErrNoText) {
			stage = "extract"
		}
		return fail(stage, err)
	}
	return page, nil
}
