package citeproc

import (
	"fmt"
	"maps"
	"slices"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/source"
)

// Mapping binds citation numbers to sources, and (through a canonicaliser)
// URLs to numbers, for [ref: URL] markers. The zero value is not usable;
// call NewMapping. A Mapping may grow while a Processor uses it (an agent
// registers sources as its tools return them) but is not safe for
// concurrent use.
type Mapping struct {
	byNum     map[int]Source
	at        map[int][]Source // numbers bound to one document at several units: all of them
	byURL     map[string]int
	links     map[int]string // canon.Link of a source's URL ("": none), decided when first asked
	refOnly   map[int]Source // bound by BindURL: reachable by URL only
	canonical func(string) string
}

// NewMapping returns an empty mapping. canonical maps a URL to the key under
// which equal resources meet (canon.Key); nil means URLs must match
// exactly.
func NewMapping(canonical func(string) string) *Mapping {
	return &Mapping{byNum: map[int]Source{}, byURL: map[string]int{}, canonical: canonical}
}

// MappingOf builds a mapping from a plain map.
func MappingOf(m map[int]Source, canonical func(string) string) (*Mapping, error) {
	mp := &Mapping{byNum: make(map[int]Source, len(m)), byURL: make(map[string]int, len(m)), canonical: canonical}
	for _, n := range slices.Sorted(maps.Keys(m)) {
		if err := mp.Add(n, m[n]); err != nil {
			return nil, err
		}
	}
	return mp, nil
}

func (m *Mapping) key(u string) string {
	if m.canonical != nil {
		if k := m.canonical(u); k != "" {
			return k
		}
	}
	return u
}

// Add binds n to src. Re-adding the same source is a no-op; binding a
// number that is already bound to another source is an error, because a
// number that silently changes its source is exactly the bug this package
// exists to prevent. The one exception is a reference numbered by
// document: n may be bound to one document at several pages, rows or
// slides (sources equal but for a Location that is a unit), each of which
// a pinpoint marker ("[2, p. 7]") resolves to (see LookupAt).
func (m *Mapping) Add(n int, src Source) error {
	if n < 0 || n > MaxNumber {
		return fmt.Errorf("citeproc: citation number %d: must be from 0 to %d (markers hold at most %d digits)", n, MaxNumber, maxDigits)
	}
	if old, ok := m.byNum[n]; ok {
		if old == src || slices.Contains(m.at[n], src) {
			return nil
		}
		if sameDocument(old, src) && old.Location.Unit() && src.Location.Unit() {
			if m.at == nil {
				m.at = map[int][]Source{}
			}
			if len(m.at[n]) == 0 {
				m.at[n] = []Source{old}
			}
			m.at[n] = append(m.at[n], src)
			return nil
		}
		return fmt.Errorf("citeproc: citation number %d already bound to %q, not %q", n, sourceName(old), sourceName(src))
	}
	m.byNum[n] = src
	if src.URL != "" {
		k := m.key(src.URL)
		if old, ok := m.byURL[k]; !ok || old < 0 { // Add's binding wins over BindURL's
			m.byURL[k] = n
		}
	}
	return nil
}

// link returns the URL n's source may be linked under, or "" (see
// canon.Link: an http, https or file URL as it is, a doi: or arxiv:
// identifier in its https form; in-page anchors too). It is decided once
// per number, when Link mode first renders it: merging, which never links,
// pays nothing.
func (m *Mapping) link(n int) string {
	if v, ok := m.links[n]; ok {
		return v
	}
	u := m.byNum[n].URL
	v := canon.Link(u)
	if v == "" && isAnchor(u) {
		v = u
	}
	if m.links == nil {
		m.links = map[int]string{}
	}
	m.links[n] = v
	return v
}

// Lookup returns the source bound to n. For a number bound to one
// document at several units it is the document: the source with no
// Location.
func (m *Mapping) Lookup(n int) (Source, bool) {
	s, ok := m.byNum[n]
	if len(m.at[n]) > 1 {
		s.Location = source.Location{}
	}
	return s, ok
}

// LookupAt returns the source a pinpoint marker ("[2, p. 7]") cites: the
// source bound to n at that unit (its sheet not compared: a pinpoint names
// none), or, when n is bound to a whole document, that document at loc.
// A pinpoint to a unit n is not bound at resolves to nothing.
func (m *Mapping) LookupAt(n int, loc source.Location) (Source, bool) {
	s, ok := m.byNum[n]
	if !ok {
		return Source{}, false
	}
	if !s.Location.IsZero() || len(m.at[n]) > 0 {
		for _, c := range append([]Source{s}, m.at[n]...) {
			if c.Location.Kind == loc.Kind && c.Location.Value == loc.Value {
				return c, true
			}
		}
		return Source{}, false
	}
	s.Location = loc
	return s, true
}

// sameDocument reports whether a and b differ at most in their Location.
func sameDocument(a, b Source) bool {
	a.Location, b.Location = source.Location{}, source.Location{}
	return a == b
}

// LookupURL returns the number and source whose URL is the same resource
// as u: one Add bound, else one BindURL bound.
func (m *Mapping) LookupURL(u string) (int, Source, bool) {
	n, ok := m.byURL[m.key(u)]
	if !ok {
		return 0, Source{}, false
	}
	if src, ok := m.byNum[n]; ok {
		return n, src, true
	}
	return n, m.refOnly[n], true
}

// BindURL makes src reachable by the [ref: URL] markers that name its URL
// (the same resource, by the mapping's canonicaliser) under n, without
// binding n: a numbered marker "[n]" still resolves only to what Add
// bound, and Lookup, Len and Numbers do not see it. n must be negative,
// so that it is no number a marker can hold. A URL already bound (by Add
// or BindURL) keeps its source, and src without a URL is an error. It is
// how a merge resolves a report's [ref: URL] to a source another report
// retrieved: Numberer and Hooks see n as the citation's Number.
func (m *Mapping) BindURL(n int, src Source) error {
	if n >= 0 {
		return fmt.Errorf("citeproc: bind URL: number %d: want a negative number, which no marker holds", n)
	}
	if src.URL == "" {
		return fmt.Errorf("citeproc: bind URL: source %q has no URL", src.ID)
	}
	k := m.key(src.URL)
	if _, ok := m.byURL[k]; ok {
		return nil
	}
	if _, ok := m.refOnly[n]; ok {
		return fmt.Errorf("citeproc: bind URL: number %d already bound", n)
	}
	if m.refOnly == nil {
		m.refOnly = map[int]Source{}
	}
	m.refOnly[n] = src
	m.byURL[k] = n
	return nil
}

// Len reports how many numbers are bound.
func (m *Mapping) Len() int { return len(m.byNum) }

// Numbers returns the bound numbers in ascending order.
func (m *Mapping) Numbers() []int { return slices.Sorted(maps.Keys(m.byNum)) }

func sourceName(s Source) string {
	if s.URL != "" {
		return s.URL
	}
	return s.ID
}

// isAnchor reports whether u is an in-page anchor ("#ref-1"): safe to link,
// and how finalreport links citations to its own reference list.
func isAnchor(u string) bool {
	if len(u) < 2 || u[0] != '#' {
		return false
	}
	for k := 1; k < len(u); k++ {
		if c := u[k]; c <= ' ' || c == 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' {
			return false
		}
	}
	return true
}
