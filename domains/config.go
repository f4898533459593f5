package domains

import "fmt"

// Config is a Researcher's domain policy and source tiers
// (deepresearch.Config.Domains; the settings' search.domains), with
// patterns as the package documentation describes them.
type Config struct {
	// Allow, when not empty, limits research to pages matching one of its
	// patterns; Deny refuses the pages matching any of its patterns,
	// whatever Allow says. Both apply to every search backend's results,
	// to the links followed, and to every page fetched and every redirect
	// on the way to it: a denied page is never read, and never a source.
	Allow, Deny []string
	// TierTable replaces the built-in table of source tiers (BuiltinYAML):
	// YAML or JSON mapping each tier ("primary", "news", "forum",
	// "content-farm") to its patterns. Nil: the built-in table.
	TierTable []byte
	// Tiers overrides single entries of the table: pattern → tier
	// ({"blog.example.com": "primary"}). An entry here wins over every
	// entry of the table.
	Tiers map[string]string
	// NoTiers rates no source: references show no tier, results keep
	// their engine's order, and the assessment reports no low-tier gap.
	NoTiers bool
}

// Lists narrow a Config's policy for one request
// (deepresearch.Request.Domains, the "domains" member of a request's
// JSON, and of a worker.Job): Deny refuses more pages; Allow, when not
// empty, lets through only pages that match it too. A request cannot let
// in a page the configuration refuses.
type Lists struct {
	Allow []string `json:"allow,omitempty" jsonschema:"only research pages of these domains (patterns: example.com, *.gov, example.org/docs*)"`
	Deny  []string `json:"deny,omitempty" jsonschema:"never research pages of these domains (patterns as for allow)"`
}

// MaxPatterns bounds the patterns of each of a request's Lists, and
// MaxPatternBytes the bytes of each.
const (
	MaxPatterns     = 64
	MaxPatternBytes = 256
)

// ListError is a request's Lists that Check refuses: which list
// ("domains.allow", "domains.deny", or "domains" for the two together)
// and why.
type ListError struct {
	Field, Problem string
}

func (e *ListError) Error() string { return e.Field + " " + e.Problem }

// Check checks l as a request's lists: their lengths and every pattern.
// A nil l is none, and passes. It returns a *ListError.
func (l *Lists) Check() error {
	if l == nil {
		return nil
	}
	for _, list := range []struct {
		name     string
		patterns []string
	}{{"domains.allow", l.Allow}, {"domains.deny", l.Deny}} {
		if len(list.patterns) > MaxPatterns {
			return &ListError{list.name, fmt.Sprintf("has %d patterns; the limit is %d", len(list.patterns), MaxPatterns)}
		}
		for i, p := range list.patterns {
			if len(p) > MaxPatternBytes {
				return &ListError{list.name, fmt.Sprintf("pattern %d is %d bytes long; the limit is %d", i+1, len(p), MaxPatternBytes)}
			}
		}
	}
	if _, err := NewPolicy(l.Allow, l.Deny); err != nil {
		return &ListError{"domains", err.Error()}
	}
	return nil
}

// Verdict is what a domain policy and a tier table say of one URL
// (deepresearch.Researcher.Domain; `deepresearch domains URL…`).
type Verdict struct {
	URL string `json:"url"`
	// Allowed is whether research may use the page; Reason, when it may
	// not, says which pattern refused it.
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
	// Tier is the page's tier ("" unrated).
	Tier string `json:"tier"`
}
