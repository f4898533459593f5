package deepresearch

import (
	"context"
	"fmt"
	"net/url"

	"github.com/deepresearch/deepresearch/internal/domains"
)

// DomainConfig is the domain policy and the source tiers of web research
// (Config.Domains; the settings' search.domains). Patterns name a domain
// and, optionally, a path: "example.com" (the domain and its subdomains),
// "*.example.com" (the subdomains only), "docs.*" ('*' spans labels),
// "example.org/blog" (that path and below), "example.org/path*" ('*'
// spans slashes); see docs/models-and-web.md.
type DomainConfig struct {
	// Allow, when not empty, limits research to pages matching one of its
	// patterns; Deny refuses the pages matching any of its patterns,
	// whatever Allow says. Both apply to every search backend's results,
	// to the links followed, and to every page fetched and every redirect
	// on the way to it: a denied page is never read, and never a source.
	Allow, Deny []string
	// TierTable replaces the built-in table of source tiers (BuiltinTiers,
	// internal/domains/tiers.yaml): YAML or JSON mapping each tier
	// ("primary", "news", "forum", "content-farm") to its patterns. Nil:
	// the built-in table.
	TierTable []byte
	// Tiers overrides single entries of the table: pattern → tier
	// ({"blog.example.com": "primary"}). An entry here wins over every
	// entry of the table.
	Tiers map[string]string
	// NoTiers rates no source: references show no tier, results keep
	// their engine's order, and the assessment reports no low-tier gap.
	NoTiers bool
}

// RequestDomains narrows the domain policy for one request (Request.Domains,
// the "domains" member of a request's JSON): its Deny refuses more pages,
// its Allow, when not empty, lets through only pages that match it too. A
// request cannot let in a page the configuration refuses.
type RequestDomains struct {
	Allow []string `json:"allow,omitempty" jsonschema:"only research pages of these domains (patterns: example.com, *.gov, example.org/docs*)"`
	Deny  []string `json:"deny,omitempty" jsonschema:"never research pages of these domains (patterns as for allow)"`
}

// MaxRequestDomains bounds the patterns of each list of a
// Request.Domains, and MaxDomainPattern the bytes of each.
const (
	MaxRequestDomains = 64
	MaxDomainPattern  = 256
)

// Source tiers (Source.Tier), best first. A web source matched by no
// pattern of the tier table is unrated ("").
const (
	TierPrimary     = string(domains.Primary)     // standards bodies, official documentation, peer-reviewed venues, .gov, .edu
	TierNews        = string(domains.News)        // news organisations
	TierForum       = string(domains.Forum)       // forums, question-and-answer sites
	TierContentFarm = string(domains.ContentFarm) // pages written for search engines
)

// BuiltinTiers returns the built-in table of source tiers, as YAML: the
// file to start a replacement (DomainConfig.TierTable) from.
func BuiltinTiers() []byte { return domains.BuiltinYAML() }

// validate checks a request's lists: their length, and every pattern.
func (d *RequestDomains) validate() error {
	if d == nil {
		return nil
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"domains.allow", d.Allow}, {"domains.deny", d.Deny}} {
		if len(l.list) > MaxRequestDomains {
			return &RequestError{Field: l.name, Problem: fmt.Sprintf("has %d patterns; the limit is %d", len(l.list), MaxRequestDomains)}
		}
		for i, p := range l.list {
			if len(p) > MaxDomainPattern {
				return &RequestError{Field: l.name, Problem: fmt.Sprintf("pattern %d is %d bytes long; the limit is %d", i+1, len(p), MaxDomainPattern)}
			}
		}
	}
	if _, err := domains.NewPolicy(d.Allow, d.Deny); err != nil {
		return &RequestError{Field: "domains", Problem: err.Error()}
	}
	return nil
}

// setDomains compiles Config.Domains into the Researcher's policy and
// tier table.
func (r *Researcher) setDomains() error {
	d := r.cfg.Domains
	policy, err := domains.NewPolicy(d.Allow, d.Deny)
	if err != nil {
		return configErrorf("Domains: %v", err)
	}
	r.policy = policy
	if d.NoTiers {
		return nil
	}
	table := domains.Builtin()
	if d.TierTable != nil {
		if table, err = domains.ParseTable(d.TierTable); err != nil {
			return configErrorf("Domains.TierTable: %v", err)
		}
	}
	if r.tiers, err = table.Override(d.Tiers); err != nil {
		return configErrorf("Domains.Tiers: %v", err)
	}
	return nil
}

// withDomains returns ctx carrying the domain policy of a run whose
// request narrows the configured one by rd (nil: not at all), for its
// search backend and page fetcher to apply, with the tier table and the
// Researcher's logger, which the backends built apart from it use.
func (r *Researcher) withDomains(ctx context.Context, rd *RequestDomains) (context.Context, error) {
	ctx = r.log.WithContext(ctx) // the backends' logger (zerolog.Ctx)
	if r.tiers != nil {
		ctx = domains.WithTiers(ctx, r.tiers)
	}
	p := r.policy
	if rd != nil {
		var err error
		if p, err = p.Narrow(rd.Allow, rd.Deny); err != nil {
			return nil, &RequestError{Field: "domains", Problem: err.Error()}
		}
	}
	if p == nil {
		return ctx, nil
	}
	return domains.NewContext(ctx, p), nil
}

// tierOf returns the tier of the web page at rawURL ("" when unrated, or
// not an http or https URL).
func (r *Researcher) tierOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return string(r.tiers.Of(rawURL))
}

// withTiers sets the Tier of each web source from the tier table, in
// place, and returns sources.
func (r *Researcher) withTiers(sources []MergedSource) []MergedSource {
	for i := range sources {
		if sources[i].Tier == "" {
			sources[i].Tier = r.tierOf(sources[i].URL)
		}
	}
	return sources
}

// DomainVerdict is what the domain policy and the tier table say of one
// URL (Researcher.Domain).
type DomainVerdict struct {
	URL string `json:"url"`
	// Allowed is whether research may use the page; Reason, when it may
	// not, says which pattern refused it.
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
	// Tier is the page's tier ("" unrated).
	Tier string `json:"tier"`
}

// Domain says whether the Researcher's domain policy lets research use
// the page at rawURL, narrowed by rd (nil: the configured policy alone),
// and the page's tier: what `deepresearch domains URL…` prints, to try a
// policy and a tier table out. It reads nothing.
func (r *Researcher) Domain(rawURL string, rd *RequestDomains) (DomainVerdict, error) {
	p := r.policy
	if rd != nil {
		var err error
		if p, err = p.Narrow(rd.Allow, rd.Deny); err != nil {
			return DomainVerdict{}, &RequestError{Field: "domains", Problem: err.Error()}
		}
	}
	v := DomainVerdict{URL: rawURL, Allowed: true, Tier: r.tierOf(rawURL)}
	if err := p.Check(rawURL); err != nil {
		v.Allowed, v.Reason = false, err.Error()
	}
	return v, nil
}
