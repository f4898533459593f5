package domains

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"
)

// Tier is how credible a kind of source is, best first: Primary, News,
// Forum, ContentFarm; "" is unrated (no pattern of the table matched).
type Tier string

// The tiers.
const (
	// Primary: standards bodies, official documentation, peer-reviewed
	// venues, governments and universities.
	Primary Tier = "primary"
	// News: news organisations with an editorial process.
	News Tier = "news"
	// Forum: forums and question-and-answer sites.
	Forum Tier = "forum"
	// ContentFarm: pages written for search engines.
	ContentFarm Tier = "content-farm"
)

// Tiers are the tiers, best first.
var Tiers = []Tier{Primary, News, Forum, ContentFarm}

// ParseTier returns the tier named s ("primary", "news", "forum",
// "content-farm"; "content_farm" and any case too).
func ParseTier(s string) (Tier, error) {
	t := Tier(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-"))
	if slices.Contains(Tiers, t) {
		return t, nil
	}
	return "", fmt.Errorf("domains: tier %q: want primary, news, forum or content-farm", s)
}

// Rank orders tiers for ranking: 0 for Primary, 1 for News and unrated,
// 2 for Forum, 3 for ContentFarm.
func (t Tier) Rank() int {
	switch t {
	case Primary:
		return 0
	case Forum:
		return 2
	case ContentFarm:
		return 3
	}
	return 1
}

// Low reports whether t is a low tier (Forum or ContentFarm): a claim
// that only such sources support is a gap in the research.
func (t Tier) Low() bool { return t == Forum || t == ContentFarm }

// Table maps domain patterns to tiers. The nil *Table rates nothing. A
// Table is immutable and safe for concurrent use.
type Table struct {
	rules []rule // most specific first
}

type rule struct {
	pattern
	tier     Tier
	override bool // from Override: wins over the table's own rules
}

//go:embed tiers.yaml
var builtinYAML []byte

var (
	builtinOnce  sync.Once
	builtinTable *Table
)

// Builtin returns the built-in table (tiers.yaml in this package, the
// documented default).
func Builtin() *Table {
	builtinOnce.Do(func() {
		t, err := ParseTable(builtinYAML)
		if err != nil {
			panic("domains: the built-in tiers.yaml: " + err.Error())
		}
		builtinTable = t
	})
	return builtinTable
}

// BuiltinYAML returns the built-in table's file, to start a replacement
// from.
func BuiltinYAML() []byte { return slices.Clone(builtinYAML) }

// ParseTable reads a table from YAML (or JSON): a mapping from each tier's
// name to its list of patterns, as tiers.yaml is written. An unknown tier,
// a malformed pattern, or one pattern under two tiers is an error naming
// it.
func ParseTable(data []byte) (*Table, error) {
	var m map[string][]string
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("domains: tiers: %w", err)
	}
	t := &Table{}
	seen := map[string]Tier{}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		tier, err := ParseTier(name)
		if err != nil {
			return nil, err
		}
		for i, raw := range m[name] {
			p, err := parsePattern(raw)
			if err != nil {
				return nil, fmt.Errorf("domains: tiers: %s entry %d: %w", name, i+1, err)
			}
			key := p.host + p.path
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("domains: tiers: %q is under both %s and %s", raw, prev, tier)
			}
			seen[key] = tier
			t.rules = append(t.rules, rule{pattern: p, tier: tier})
		}
	}
	t.sort()
	return t, nil
}

// Override returns t with entries (pattern → tier name) that win over
// t's own: "blog.example.com: primary" rates that blog a primary source
// whatever the table says of example.com. Empty entries return t.
func (t *Table) Override(entries map[string]string) (*Table, error) {
	if len(entries) == 0 {
		return t, nil
	}
	out := &Table{}
	if t != nil {
		out.rules = slices.Clone(t.rules)
	}
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		p, err := parsePattern(k)
		if err != nil {
			return nil, fmt.Errorf("domains: tiers override: %w", err)
		}
		tier, err := ParseTier(entries[k])
		if err != nil {
			return nil, fmt.Errorf("domains: tiers override %q: %w", k, err)
		}
		out.rules = append(out.rules, rule{pattern: p, tier: tier, override: true})
	}
	out.sort()
	return out, nil
}

// sort puts overrides first, then the most specific rules.
func (t *Table) sort() {
	sort.SliceStable(t.rules, func(i, j int) bool {
		a, b := t.rules[i], t.rules[j]
		if a.override != b.override {
			return a.override
		}
		return a.specificity() > b.specificity()
	})
}

// Of returns the tier of the page at rawURL: that of the overriding entry
// that matches it, else of the most specific pattern that does, else ""
// (unrated). A URL without a host (a local document) is unrated.
func (t *Table) Of(rawURL string) Tier {
	if t == nil {
		return ""
	}
	host, path, ok := hostPath(rawURL)
	if !ok {
		return ""
	}
	for _, r := range t.rules {
		if r.matches(host, path) {
			return r.tier
		}
	}
	return ""
}

// Len returns the number of patterns in t.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	return len(t.rules)
}
