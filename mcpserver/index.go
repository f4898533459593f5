package mcpserver

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/source"
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

// index is one citation index: a cite.Merger, which gives each resource
// (by canonical URL) a stable number the first time it is cited, as a run
// numbers its agents' sources. Each add is Merger.Add of its section; keys
// lists the canonical URLs it holds, for the entry limit.
type index struct {
	merger *cite.Merger
	keys   map[string]bool
	// sections are the sections each source is recorded in, by key: at
	// most maxSections each.
	sections map[string]map[string]bool
}

// cite merges one citation of src in section (empty: none) and returns
// its number and whether the index lacked it; at the limit, a source the
// index lacks is refused. A source already recorded in maxSections
// sections is numbered as ever, its new section not recorded.
func (ix *index) cite(key string, src source.Source, section string, maxEntries, maxSections int) (int, bool, error) {
	isNew := !ix.keys[key]
	if isNew && len(ix.keys) >= maxEntries {
		return 0, false, fmt.Errorf("%w: at most %d sources per index", ErrTooMany, maxEntries)
	}
	if section != "" {
		secs := ix.sections[key]
		if secs == nil {
			secs = map[string]bool{}
			ix.sections[key] = secs
		}
		if !secs[section] && len(secs) >= maxSections {
			section = ""
		} else {
			secs[section] = true
		}
	}
	n := ix.merger.Add(section, src)
	ix.keys[key] = true
	return n, isNew, nil
}

// entries returns the index's sources in number order.
func (ix *index) entries() []entry {
	srcs := ix.merger.Sources()
	out := make([]entry, len(srcs))
	for i, s := range srcs {
		out[i] = entryOf(s)
	}
	return out
}

// entryOf is a merged source as an index entry.
func entryOf(s cite.MergedSource) entry {
	e := entry{Number: s.Number, URL: s.URL, CanonicalURL: s.CanonicalURL, Title: s.Title, Channel: s.Channel,
		FirstSeenSection: s.FirstSeenSection, UsedInSections: slices.DeleteFunc(s.UsedInSections, func(sec string) bool { return sec == "" })}
	if len(e.UsedInSections) == 0 {
		e.UsedInSections = nil
	}
	return e
}

// indexes holds the live citation indexes of one server. It is safe for
// concurrent use: MCP clients may call tools concurrently.
type indexes struct {
	mu          sync.Mutex
	m           map[string]*index
	next        int
	maxIndexes  int
	maxEntries  int
	maxSections int
}

func newIndexes(maxIndexes, maxEntries, maxSections int) *indexes {
	return &indexes{m: map[string]*index{}, maxIndexes: maxIndexes, maxEntries: maxEntries, maxSections: maxSections}
}

func (x *indexes) create() (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.m) >= x.maxIndexes {
		return "", fmt.Errorf("%w: at most %d citation indexes per session", ErrTooMany, x.maxIndexes)
	}
	x.next++
	id := fmt.Sprintf("idx-%d", x.next)
	x.m[id] = &index{merger: cite.NewMerger(), keys: map[string]bool{}, sections: map[string]map[string]bool{}}
	return id, nil
}

func (x *indexes) get(id string) (*index, error) {
	ix, ok := x.m[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoIndex, text(id, 80))
	}
	return ix, nil
}

// add records url in index id and returns its entry and whether it was
// new.
func (x *indexes) add(id, rawURL, title, channel, section string) (entry, bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ix, err := x.get(id)
	if err != nil {
		return entry{}, false, err
	}
	rawURL = strings.TrimSpace(rawURL)
	if err := checkURL(rawURL); err != nil {
		return entry{}, false, err
	}
	key, err := canon.Canonical(rawURL)
	if err != nil {
		return entry{}, false, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	src := source.Source{ID: key, URL: rawURL, Title: text(title, maxTitle), Channel: text(channel, maxChannel)}
	n, isNew, err := ix.cite(key, src, text(section, maxSection), x.maxEntries, x.maxSections)
	if err != nil {
		return entry{}, false, err
	}
	merged, _ := ix.merger.Source(n) // one entry, not all of them: an add costs the same in a large index
	return entryOf(merged), isNew, nil
}

// merge adds the sources of index src to index dst, in src's number order
// (first seen wins), each cited in the sections src has it in, and
// returns src's numbers mapped to dst's: a caller rewrites src's markers
// with it. src is left as it was.
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
	for _, e := range src.entries() {
		s := source.Source{ID: e.CanonicalURL, URL: e.URL, Title: e.Title, Channel: e.Channel}
		sections := append([]string{e.FirstSeenSection}, e.UsedInSections...)
		for i, sec := range sections {
			n, isNew, err := dst.cite(e.CanonicalURL, s, sec, x.maxEntries, x.maxSections)
			if err != nil {
				return nil, 0, err
			}
			if i == 0 {
				renumber[e.Number] = n
				if isNew {
					added++
				}
			}
		}
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
	return ix.entries(), nil
}

// references are the index's entries as a reference list.
func references(es []entry) []render.Reference {
	refs := make([]render.Reference, len(es))
	for i, e := range es {
		refs[i] = render.Reference{Number: e.Number, Source: source.Source{ID: e.CanonicalURL, URL: e.URL, Title: e.Title, Channel: e.Channel}}
	}
	return refs
}

// The most bytes of what citation_add keeps: a longer URL is refused,
// longer strings are cut.
const (
	maxURL     = 2048
	maxTitle   = 500
	maxChannel = 80
	maxSection = 200
)

// checkURL refuses what is not an absolute http, https or file URL of at
// most maxURL bytes, written as a URL is (no spaces, control characters,
// quotes or angle brackets), so that every URL an index holds is one a
// reader may follow and no renderer has to guess where it ends.
func checkURL(raw string) error {
	if len(raw) > maxURL {
		return fmt.Errorf("%w: the URL is %d bytes long; at most %d bytes", ErrMalformed, len(raw), maxURL)
	}
	bad := func(r rune) bool {
		return unicode.IsControl(r) || unicode.IsSpace(r) || strings.ContainsRune("<>\"{}|\\^`", r)
	}
	if i := strings.IndexFunc(raw, bad); i >= 0 {
		return fmt.Errorf("%w: %q: %q at byte %d cannot be in a URL (percent-encode it)", ErrMalformed, text(raw, 200), raw[i:i+1], i)
	}
	if !canon.Linkable(raw) {
		return fmt.Errorf("%w: %q: want an absolute http, https or file URL", ErrMalformed, text(raw, 200))
	}
	return nil
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
