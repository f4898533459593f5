// Package source defines Source, the retrieved document every stage agrees
// on: the search tools produce it, citeproc resolves markers to it,
// collapse de-duplicates it, the final report lists it and events carry it.
package source

import "strings"

// Source is one retrieved document that a report may cite.
type Source struct {
	// ID identifies the document within its backend (a corpus path, a
	// search engine's result id). Sources without a URL are de-duplicated
	// by ID.
	ID string `json:"id"`
	// URL is where the document lives; empty when it has none.
	URL string `json:"url,omitempty"`
	// Title is the best-effort human title.
	Title string `json:"title,omitempty"`
	// Channel names the tool or backend that found it ("corpus", "web").
	Channel string `json:"channel,omitempty"`
	// Location is where in the document the passage read sits (a page, a
	// section, a row, a slide); zero for the whole document or a web page.
	Location Location `json:"location,omitzero"`
}

// Label is how every list of sources names one, for readers and models
// alike: its title with white space folded and control characters removed,
// or its ID when it has no title. A source without a URL is found by its
// ID, so then the ID follows the title ("Field notes. corpus/notes.md").
// Its Location follows (see Location.Locate): "spec.pdf, p. 7",
// "faq.md › Returns", "catalog.csv, row 12".
func (s Source) Label() string {
	return s.Location.Locate(s.document())
}

// document is the label of the whole document.
func (s Source) document() string {
	t := Clean(s.Title)
	switch {
	case t == "":
		return Clean(s.ID)
	case s.URL == "" && s.ID != "" && t != Clean(s.ID):
		return t + ". " + Clean(s.ID)
	}
	return t
}

// Clean folds white space to single spaces and drops control characters
// (C0, DEL, C1), so text from a corpus, the web or a model cannot break a
// line of a list or carry a terminal escape sequence.
func Clean(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
