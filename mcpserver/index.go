package mcpserver

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/deepresearch/deepresearch/internal/bib"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/source"
)

// Errors of the citation index tools; they reach the client as tool errors.
var (
	ErrNoIndex     = errors.New("no such citation index")
	ErrTooMany     = errors.New("limit reached")
	ErrMalformed   = errors.New("malformed URL")
	ErrBadArgument = errors.New("bad argument")
)

// entry is one source in a citation index.
type entry struct {
	Number           int      `json:"number"`
	URL              string   `json:"url"`
	CanonicalURL     string   `json:"canonical_url"`
	Title            string   `json:"title"`
	Channel          string   `json:"source,omitempty"`
	FirstSeenSection string   `json:"first_seen_section,omitempty"`
	UsedInSections   []string `json:"used_in_sections,omitempty"`
}

// index maps canonical URLs to stable numbers: the first URL of a resource
// gets the next number, later forms of it the same one.
type index struct {
	byKey   map[string]*entry
	entries []*entry // in number order
}

// indexes holds the live citation indexes of one server. It is safe for
// concurrent use: MCP clients may call tools concurrently.
type indexes struct {
	mu         sync.Mutex
	m          map[string]*index
	next       int
	maxIndexes int
	maxEntries int
}

func newIndexes(maxIndexes, maxEntries int) *indexes {
	return &indexes{m: map[string]*index{}, maxIndexes: maxIndexes, maxEntries: maxEntries}
}

func (x *indexes) create() (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.m) >= x.maxIndexes {
		return "", fmt.Errorf("%w: at most %d citation indexes per session", ErrTooMany, x.maxIndexes)
	}
	x.next++
	id := fmt.Sprintf("idx-%d", x.next)
	x.m[id] = &index{byKey: map[string]*entry{}}
	return id, nil
}

func (x *indexes) get(id string) (*index, error) {
	ix, ok := x.m[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoIndex, text(id, 80))
	}
	return ix, nil
}

// add records url in index id and returns its entry (a copy) and whether it
// was new.
func (x *indexes) add(id, rawURL, title, channel, section string) (entry, bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ix, err := x.get(id)
	if err != nil {
		return entry{}, false, err
	}
	rawURL = strings.TrimSpace(rawURL)
	if !canon.Linkable(rawURL) {
		return entry{}, false, fmt.Errorf("%w: %q: want an absolute http, https or file URL", ErrMalformed, text(rawURL, 200))
	}
	key, err := canon.Canonical(rawURL)
	if err != nil {
		return entry{}, false, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	e, isNew, err := ix.add(key, entry{URL: rawURL, Title: text(title, 500), Channel: text(channel, 80)}, text(section, 200), x.maxEntries)
	if err != nil {
		return entry{}, false, err
	}
	return e.clone(), isNew, nil
}

func (ix *index) add(key string, e entry, section string, maxEntries int) (*entry, bool, error) {
	if old, ok := ix.byKey[key]; ok {
		if section != "" && !slices.Contains(old.UsedInSections, section) {
			old.UsedInSections = append(old.UsedInSections, section)
		}
		if old.Title == "" {
			old.Title = e.Title
		}
		return old, false, nil
	}
	if len(ix.entries) >= maxEntries {
		return nil, false, fmt.Errorf("%w: at most %d sources per index", ErrTooMany, maxEntries)
	}
	e.Number = len(ix.entries) + 1
	e.CanonicalURL = key
	if section != "" {
		e.FirstSeenSection = section
		e.UsedInSections = []string{section}
	}
	ne := &e
	ix.byKey[key] = ne
	ix.entries = append(ix.entries, ne)
	return ne, true, nil
}

func (e *entry) clone() entry {
	c := *e
	c.UsedInSections = slices.Clone(e.UsedInSections)
	return c
}

// merge adds the sources of index src to index dst, in src's number order
// (first seen wins), and returns src's numbers mapped to dst's: a caller
// rewrites src's markers with it. src is left as it was.
func (x *indexes) merge(dstID, srcID string) (map[int]int, int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	dst, err := x.get(dstID)
	if err != nil {
		return nil, 0, err
	}
	src, err := x.get(srcID)
	if err != nil {
		return nil, 0, err
	}
	if dst == src {
		return nil, 0, fmt.Errorf("%w: an index cannot be merged into itself", ErrBadArgument)
	}
	renumber := map[int]int{}
	added := 0
	for _, e := range src.entries {
		c := e.clone()
		c.UsedInSections = nil
		d, isNew, err := dst.add(e.CanonicalURL, c, e.FirstSeenSection, x.maxEntries)
		if err != nil {
			return nil, 0, err
		}
		for _, s := range e.UsedInSections {
			if !slices.Contains(d.UsedInSections, s) {
				d.UsedInSections = append(d.UsedInSections, s)
			}
		}
		if isNew {
			added++
		}
		renumber[e.Number] = d.Number
	}
	return renumber, added, nil
}

// export returns index id's entries, in number order.
func (x *indexes) export(id string) ([]entry, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ix, err := x.get(id)
	if err != nil {
		return nil, err
	}
	out := make([]entry, len(ix.entries))
	for i, e := range ix.entries {
		out[i] = e.clone()
	}
	return out, nil
}

// markdown writes the seed's reference list: "[1] Title — source (URL)".
func markdown(es []entry) string {
	var b strings.Builder
	for _, e := range es {
		title := e.Title
		if title == "" {
			title = e.URL
		}
		fmt.Fprintf(&b, "[%d] %s", e.Number, title)
		if e.Channel != "" {
			fmt.Fprintf(&b, " — %s", e.Channel)
		}
		fmt.Fprintf(&b, " (%s)\n", text(e.URL, 2048))
	}
	return b.String()
}

func references(es []entry) []bib.Reference {
	refs := make([]bib.Reference, len(es))
	for i, e := range es {
		refs[i] = bib.Reference{Number: e.Number, Source: source.Source{ID: e.CanonicalURL, URL: e.URL, Title: e.Title, Channel: e.Channel}}
	}
	return refs
}

// text drops control characters, collapses blanks and bounds the length of
// a client's string before it is stored or echoed.
func text(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut]
	}
	return s
}
