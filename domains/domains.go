// Package domains decides which web pages research may use (a Policy of
// allowed and denied domain patterns) and how credible each is (a Table of
// source tiers: primary sources above news, above forums, above content
// farms). It is pure: it parses URLs and patterns and does no I/O.
//
// A pattern names a domain and, optionally, a path:
//
//	example.com            the domain and every subdomain of it
//	*.example.com          the subdomains only
//	docs.*                 any host whose first label is docs ('*' spans labels)
//	example.org/blog       that path and everything below it
//	example.org/path*      paths that begin /path ('*' spans slashes)
//
// Patterns are matched case-insensitively against a URL's host name
// (without its port) and path; a leading "http://" or "https://" in a
// pattern is ignored.
package domains

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrDenied reports a URL that the policy refuses. *DeniedError wraps it.
var ErrDenied = errors.New("domain not allowed by the search.domains policy")

// ErrPattern reports a malformed pattern.
var ErrPattern = errors.New("domains: malformed pattern")

// DeniedError says why a URL was refused: the pattern of the deny list
// that matched it, or (Pattern "") that it matched nothing on an allow
// list.
type DeniedError struct {
	URL     string
	Pattern string
}

func (e *DeniedError) Error() string {
	if e.Pattern == "" {
		return fmt.Sprintf("%s is on no allow list of search.domains: %v", e.URL, ErrDenied)
	}
	return fmt.Sprintf("%s is denied by search.domains pattern %q: %v", e.URL, e.Pattern, ErrDenied)
}

// Unwrap returns ErrDenied.
func (e *DeniedError) Unwrap() error { return ErrDenied }

// pattern is one parsed pattern.
type pattern struct {
	raw  string // as written, for messages
	host string // lowercased; may hold '*'
	path string // "" for any path; else begins with '/'
}

// parsePattern checks and normalises one pattern.
func parsePattern(raw string) (pattern, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	for _, scheme := range []string{"https://", "http://"} {
		s = strings.TrimPrefix(s, scheme)
	}
	bad := func(why string) (pattern, error) {
		return pattern{}, fmt.Errorf("%w %q: %s", ErrPattern, raw, why)
	}
	if s == "" {
		return bad("empty")
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '?' || r == '#' }) {
		return bad("white space, control characters, '?' and '#' are not allowed")
	}
	host, path, hasPath := strings.Cut(s, "/")
	if hasPath {
		path = "/" + path
		if path == "/" {
			path = ""
		}
	}
	host = strings.TrimSuffix(host, ".")
	if h, _, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
		host = h // a port names no other domain
	}
	if host == "" || strings.Trim(host, "*.") == "" {
		return bad("it names no domain")
	}
	if strings.Contains(host, "**") {
		return bad("'**' is not a wildcard; use '*'")
	}
	return pattern{raw: strings.TrimSpace(raw), host: host, path: path}, nil
}

// parsePatterns parses a list, naming the entry at fault.
func parsePatterns(what string, raw []string) ([]pattern, error) {
	out := make([]pattern, 0, len(raw))
	for i, r := range raw {
		p, err := parsePattern(r)
		if err != nil {
			return nil, fmt.Errorf("%s entry %d: %w", what, i+1, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// matches reports whether p matches host and path (both lowercased host,
// path as the URL has it).
func (p pattern) matches(host, path string) bool {
	switch {
	case !strings.Contains(p.host, "*"):
		if host != p.host && !strings.HasSuffix(host, "."+p.host) {
			return false
		}
	case strings.HasPrefix(p.host, "*.") && !strings.Contains(p.host[2:], "*"):
		if !strings.HasSuffix(host, p.host[1:]) {
			return false
		}
	default:
		if !glob(p.host, host) {
			return false
		}
	}
	switch {
	case p.path == "":
		return true
	case strings.Contains(p.path, "*"):
		return glob(strings.ToLower(p.path), strings.ToLower(path))
	}
	lp, want := strings.ToLower(path), strings.TrimSuffix(strings.ToLower(p.path), "/")
	return lp == want || strings.HasPrefix(lp, want+"/")
}

// specificity orders the patterns that match one URL: the one with more
// literal characters is the more specific.
func (p pattern) specificity() int {
	return len(p.host) + len(p.path) - strings.Count(p.host+p.path, "*")
}

// glob reports whether s matches pat, where '*' matches any run of
// characters (none included) and everything else itself.
func glob(pat, s string) bool {
	// Iterative wildcard matching with backtracking to the last star.
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(pat) && pat[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(pat) && pat[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			pi, mark = star+1, mark+1
			si = mark
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == '*' {
		pi++
	}
	return pi == len(pat)
}

// hostPath splits rawURL into its lowercased host name (no port, no
// trailing dot) and its path; ok is false for a URL without a host.
func hostPath(rawURL string) (host, path string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Host == "" {
		return "", "", false
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), u.Path, true
}

// Policy is which URLs research may use: layers of allow and deny lists,
// each of which must let a URL through (a request's lists narrow the
// configured ones; none widens them). In a layer, a URL matching a deny
// pattern is refused, and, when the layer has an allow list, so is one
// that matches none of its patterns. The nil *Policy permits every URL.
// A Policy is immutable and safe for concurrent use.
type Policy struct {
	layers []layer
}

type layer struct{ allow, deny []pattern }

// NewPolicy returns the policy of one allow and one deny list, or nil
// when both are empty; a malformed pattern is an error wrapping
// ErrPattern that names its list and entry.
func NewPolicy(allow, deny []string) (*Policy, error) {
	return (*Policy)(nil).Narrow(allow, deny)
}

// Narrow returns p with one more layer, allow and deny: a URL passes the
// result when it passes p and the new lists. Empty lists return p.
func (p *Policy) Narrow(allow, deny []string) (*Policy, error) {
	if len(allow) == 0 && len(deny) == 0 {
		return p, nil
	}
	a, err := parsePatterns("allow", allow)
	if err != nil {
		return nil, err
	}
	d, err := parsePatterns("deny", deny)
	if err != nil {
		return nil, err
	}
	out := &Policy{}
	if p != nil {
		out.layers = append(out.layers, p.layers...)
	}
	out.layers = append(out.layers, layer{allow: a, deny: d})
	return out, nil
}

// Check returns nil when the policy lets rawURL through, else a
// *DeniedError. A URL without a host (a file: URL, a corpus document's
// ID) is no web page and always passes.
func (p *Policy) Check(rawURL string) error {
	if p == nil {
		return nil
	}
	host, path, ok := hostPath(rawURL)
	if !ok {
		return nil
	}
	for _, l := range p.layers {
		for _, d := range l.deny {
			if d.matches(host, path) {
				return &DeniedError{URL: rawURL, Pattern: d.raw}
			}
		}
		if len(l.allow) == 0 {
			continue
		}
		allowed := false
		for _, a := range l.allow {
			if a.matches(host, path) {
				allowed = true
				break
			}
		}
		if !allowed {
			return &DeniedError{URL: rawURL}
		}
	}
	return nil
}

// Permits reports whether Check lets rawURL through.
func (p *Policy) Permits(rawURL string) bool { return p.Check(rawURL) == nil }

type policyKey struct{}

// NewContext returns ctx carrying p, the policy of one run: the search
// backends, which outlive runs, read it from the context of each search.
func NewContext(ctx context.Context, p *Policy) context.Context {
	return context.WithValue(ctx, policyKey{}, p)
}

// FromContext returns the policy NewContext put in ctx, or nil (every URL
// passes).
func FromContext(ctx context.Context) *Policy {
	p, _ := ctx.Value(policyKey{}).(*Policy)
	return p
}

type tiersKey struct{}

// WithTiers returns ctx carrying t, the tier table of a run's Researcher:
// web engines, which are built apart from it, rate results by the table
// of the search's context.
func WithTiers(ctx context.Context, t *Table) context.Context {
	return context.WithValue(ctx, tiersKey{}, t)
}

// TiersFrom returns the table WithTiers put in ctx, or nil.
func TiersFrom(ctx context.Context) *Table {
	t, _ := ctx.Value(tiersKey{}).(*Table)
	return t
}
