// Package collapse merges the reports of parallel research agents onto one
// citation numbering. (Publishing a finished text, renumbered 1..K for
// readers, is finalreport's.)
//
// Each agent numbers its sources from [1]. Merging walks the reports in
// plan order and gives each distinct source (by canonical URL, or by ID
// when it has no URL, and by page, row or slide) a global number the first
// time a report's text cites it. A global number is a citation target: a
// document and, where its passages are located by unit, the page, row or
// slide cited, so that every marker keeps resolving to the page it was
// written for, and verification checks it against that page's text. Two
// pages of one PDF are two numbers of one document (DocumentKey), which
// publication (internal/finalreport) makes one reference listing both
// pages, each citation keeping its own ("[2, p. 4]", "[2, p. 7]"). Numbers, once given, never change as more reports are merged; markers
// are rewritten in their own bracket style; a local number a report cites
// without having it in its mapping, or a bracket of citation-like numbers
// in no understood form ("[3-1]", "[1-70]"), is dropped from the text and
// reported, never resolved to some other source nor left with a local
// number that now means another. A [ref: URL] marker naming a source the
// report did not retrieve but an earlier report (in merge order: the plan's
// order, cycle after cycle) did resolves to that source, as the seed's
// merge rule rewrites every subagent's [ref: …] to the final numbers; only
// a URL no report retrieved is dropped as unknown. A marker right after a '!' ("grew![1][2]",
// no image without a definition) and a <sup class="cite" data-sids="…">
// attribute are renumbered like any marker; a usage tag ([[USAGE:1,3]]),
// whose local numbers would name other sources after the merge, is
// removed. Code (fenced, also inside list items and block quotes, and
// indented) is never touched; see citeproc.
//
// The package does no I/O; it is deterministic for the same reports in the
// same order.
package collapse

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/source"
)

// Report is one agent's intermediate report, with its local numbering.
type Report struct {
	Section string
	Text    string
	// Mapping is the agent's local citation numbers.
	Mapping map[int]source.Source
}

// Source is a merged source: the seed's citation-index entry.
type Source struct {
	Number int `json:"number"`
	source.Source
	// CanonicalURL is the identity under which duplicates met; empty for a
	// source without a URL or with a malformed one.
	CanonicalURL     string   `json:"canonical_url,omitempty"`
	FirstSeenSection string   `json:"first_seen_section"`
	UsedInSections   []string `json:"used_in_sections"`
	// Fixed, when not 0, is the number readers see for the source
	// whatever order a report cites it in (finalreport publishes it so):
	// a follow-up keeps the numbers the report it follows gave its
	// sources (Merger.Seed).
	Fixed int `json:"fixed,omitempty"`
}

// MergedReport is a report rewritten onto the global numbering.
type MergedReport struct {
	Section string `json:"section"`
	Text    string `json:"text"`
}

// Unknown is a citation a report made that its mapping could not resolve:
// a number, a [ref: URL]'s URL, or (Marker) a bracket of citation-like
// numbers in no understood form ("[3-1]", "[1-70]"), which is dropped from
// the text rather than left to name another source after renumbering.
// In JSON, "number" is present exactly when neither "url" nor "marker" is
// (0 is a number).
type Unknown struct {
	Section string `json:"section"`
	Number  int    `json:"number"`
	URL     string `json:"url,omitempty"`
	Marker  string `json:"marker,omitempty"`
}

// MarshalJSON writes "number" only for an unknown number.
func (u Unknown) MarshalJSON() ([]byte, error) {
	type plain Unknown
	if u.URL == "" && u.Marker == "" {
		return json.Marshal(plain(u))
	}
	return json.Marshal(struct {
		Section string `json:"section"`
		URL     string `json:"url,omitempty"`
		Marker  string `json:"marker,omitempty"`
	}{u.Section, u.URL, u.Marker})
}

// InvalidURL is a cited source whose URL could not be canonicalised. When
// the URL is one a browser reads as the URL of a resource (canon.Repaired:
// "https:/a.example/x", a backslash for a slash, a line break inside),
// it is merged with the well-formed URL of that resource, and MergedAs is
// the canonical URL they share: the seed's "log it and merge". Else the
// source is kept under a number of its own: it is merged only with
// sources whose URL is the same string.
type InvalidURL struct {
	Section  string `json:"section"`
	Number   int    `json:"number"`
	URL      string `json:"url"`
	Err      string `json:"error"`
	MergedAs string `json:"merged_as,omitempty"`
}

// Merger merges reports one at a time. The zero value is not usable; call
// NewMerger. It is not safe for concurrent use.
type Merger struct {
	sources []Source
	byKey   map[string]int // identity → global number
	canon   map[string]string
	unknown []Unknown
	invalid []InvalidURL
	reports int
	// retrieved are the sources with a URL of every report added so far,
	// in order, one per resource: what a later report's [ref: URL] may
	// name without having retrieved it itself.
	retrieved     []source.Source
	retrievedKeys map[string]bool
}

// NewMerger returns an empty merger.
func NewMerger() *Merger {
	return &Merger{byKey: map[string]int{}, canon: map[string]string{}, retrievedKeys: map[string]bool{}}
}

// Seed gives the sources prior the first global numbers, in order, before
// any report is merged, keeping each one's Fixed number: a follow-up's
// merge starts from the sources of the run it follows, so that a report
// that cites one of them (by its URL, or its ID without one) cites it
// under its number, and sources new to the follow-up are numbered after
// them. A prior source the others already hold is not numbered again. It
// fails once a report was merged.
func (m *Merger) Seed(prior []Source) error {
	if m.reports > 0 {
		return fmt.Errorf("collapse: seed after %d reports were merged", m.reports)
	}
	for _, p := range prior {
		id, canonical := document(p.Source, m.key)
		if id == "" {
			id = "seed:" + strconv.Itoa(len(m.sources)+1)
		}
		id += p.Location.Key()
		if _, ok := m.byKey[id]; ok {
			continue
		}
		g := len(m.sources) + 1
		m.byKey[id] = g
		p.Number, p.CanonicalURL = g, canonical
		p.UsedInSections = slices.Clone(p.UsedInSections)
		if p.UsedInSections == nil {
			p.UsedInSections = []string{}
		}
		m.sources = append(m.sources, p)
		m.retrieve(map[int]source.Source{g: p.Source})
	}
	return nil
}

// Add merges the next report and returns it rewritten onto the global
// numbering. Numbers given by earlier calls are not changed.
func (m *Merger) Add(r Report) (MergedReport, error) {
	m.reports++
	local, err := citeproc.MappingOf(r.Mapping, m.key)
	if err != nil {
		return MergedReport{}, fmt.Errorf("collapse: report %d (%q): %w", m.reports, r.Section, err)
	}
	m.retrieve(r.Mapping)
	// A [ref: URL] naming a source an earlier report of the run (or this
	// one) retrieved resolves to it, under a negative number no marker
	// holds; numbered markers still resolve only to the report's own.
	for i, src := range m.retrieved {
		if _, _, ok := local.LookupURL(src.URL); !ok {
			if err := local.BindURL(-1-i, src); err != nil {
				return MergedReport{}, fmt.Errorf("collapse: report %d (%q): %w", m.reports, r.Section, err)
			}
		}
	}
	reportNo := m.reports
	seen := make(map[int]int, len(r.Mapping)) // local → global, for this report
	num := citeproc.NumbererFunc(func(n int, src source.Source) int {
		if g, ok := seen[n]; ok {
			return g
		}
		g := m.number(r.Section, reportNo, n, src)
		seen[n] = g
		return g
	})
	var sb strings.Builder
	sb.Grow(len(r.Text))
	p := citeproc.New(&sb, citeproc.Config{
		Mode:     citeproc.Renumber,
		Mapping:  local,
		Numberer: num,
		Hooks: citeproc.Hooks{Unknown: func(u citeproc.Unknown) {
			m.unknown = append(m.unknown, Unknown{Section: r.Section, Number: u.Number, URL: u.URL, Marker: u.Marker})
		}},
	})
	p.WriteString(r.Text)
	if err := p.Close(); err != nil {
		return MergedReport{}, fmt.Errorf("collapse: report %d (%q): %w", m.reports, r.Section, err)
	}
	return MergedReport{Section: r.Section, Text: sb.String()}, nil
}

// Cite cites src once in section and returns its global number: what
// Add of a report of section whose text is "[1]" and whose mapping holds
// src under 1 numbers it, without the text.
func (m *Merger) Cite(section string, src source.Source) int {
	m.reports++
	m.retrieve(map[int]source.Source{1: src})
	return m.number(section, m.reports, 1, src)
}

// retrieve notes the sources of mapping that have a URL, in number
// order, each resource once (the first report to retrieve it wins).
func (m *Merger) retrieve(mapping map[int]source.Source) {
	for _, n := range slices.Sorted(maps.Keys(mapping)) {
		src := mapping[n]
		if src.URL == "" {
			continue
		}
		k := m.key(src.URL)
		if k == "" {
			k = "invalid:" + src.URL
		}
		if !m.retrievedKeys[k] {
			m.retrievedKeys[k] = true
			m.retrieved = append(m.retrieved, src)
		}
	}
}

// key is the canonical URL (canon.Lenient: a malformed URL a browser
// reads meets its resource's), memoised: the same URL recurs across
// reports.
func (m *Merger) key(u string) string {
	if k, ok := m.canon[u]; ok {
		return k
	}
	k := canon.Lenient(u)
	m.canon[u] = k
	return k
}

// number returns the global number of src, cited in section as local
// number n, giving it the next number if it is new.
func (m *Merger) number(section string, reportNo, n int, src source.Source) int {
	id, canonical := document(src, m.key)
	if id == "" {
		// Nothing to compare by: a number of its own, never shared.
		id = "anon:" + strconv.Itoa(reportNo) + ":" + strconv.Itoa(n)
	}
	// A page, row or slide of a document is a citation target of its own,
	// so that a marker keeps pointing at its page through every
	// renumbering; publication makes the document one reference.
	id += src.Location.Key()
	repaired := src.URL != "" && canonical != "" && canon.Key(src.URL) == ""
	if repaired {
		_, err := canon.Canonical(src.URL)
		m.invalid = append(m.invalid, InvalidURL{Section: section, Number: n, URL: src.URL, Err: err.Error(), MergedAs: canonical})
	}
	if g, ok := m.byKey[id]; ok {
		s := &m.sources[g-1]
		if !slices.Contains(s.UsedInSections, section) {
			s.UsedInSections = append(s.UsedInSections, section)
		}
		if s.Published == "" && s.Modified == "" {
			// An agent that opened the page may know its dates.
			s.Published, s.Modified = src.Published, src.Modified
		}
		if s.Author == "" {
			s.Author = src.Author // as its dates
		}
		return g
	}
	if src.URL != "" && canonical == "" {
		_, err := canon.Canonical(src.URL)
		m.invalid = append(m.invalid, InvalidURL{Section: section, Number: n, URL: src.URL, Err: err.Error()})
	}
	g := len(m.sources) + 1
	m.byKey[id] = g
	m.sources = append(m.sources, Source{
		Number:           g,
		Source:           src,
		CanonicalURL:     canonical,
		FirstSeenSection: section,
		UsedInSections:   []string{section},
	})
	return g
}

// Sources returns the merged sources in global number order (Sources()[i]
// has number i+1).
func (m *Merger) Sources() []Source {
	out := make([]Source, len(m.sources))
	for i, s := range m.sources {
		s.UsedInSections = slices.Clone(s.UsedInSections)
		out[i] = s
	}
	return out
}

// Source returns the merged source numbered n (a copy), without copying
// the others as Sources does.
func (m *Merger) Source(n int) (Source, bool) {
	if n < 1 || n > len(m.sources) {
		return Source{}, false
	}
	s := m.sources[n-1]
	s.UsedInSections = slices.Clone(s.UsedInSections)
	return s, true
}

// Unknown returns the citations that could not be resolved, in order.
func (m *Merger) Unknown() []Unknown { return slices.Clone(m.unknown) }

// Invalid returns the cited sources whose URL was malformed, in order.
func (m *Merger) Invalid() []InvalidURL { return slices.Clone(m.invalid) }

// Result is the outcome of merging a set of reports.
type Result struct {
	Reports []MergedReport `json:"reports"`
	Sources []Source       `json:"sources"`
	Unknown []Unknown      `json:"unknown"`
	Invalid []InvalidURL   `json:"invalid_urls,omitempty"`
}

// Merge merges reports in the order given (plan order).
func Merge(reports []Report) (*Result, error) {
	m := NewMerger()
	res := &Result{Reports: make([]MergedReport, 0, len(reports))}
	for _, r := range reports {
		mr, err := m.Add(r)
		if err != nil {
			return nil, err
		}
		res.Reports = append(res.Reports, mr)
	}
	res.Sources = m.Sources()
	res.Unknown = m.Unknown()
	res.Invalid = m.Invalid()
	if res.Unknown == nil {
		res.Unknown = []Unknown{}
	}
	return res, nil
}

// Mapping returns the merged sources as a citeproc mapping from global
// number to source, for the final-report stage.
func Mapping(sources []Source) (*citeproc.Mapping, error) {
	mp := citeproc.NewMapping(canon.Key)
	for _, s := range sources {
		if err := mp.Add(s.Number, s.Source); err != nil {
			return nil, fmt.Errorf("collapse: %w", err)
		}
	}
	return mp, nil
}
