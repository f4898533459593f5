// Package source defines Source, the retrieved document every stage agrees
// on: the search tools produce it, citeproc resolves markers to it,
// collapse de-duplicates it, the final report lists it and events carry it.
package source

import (
	"net/url"
	"path"
	"strings"
)

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
	// Published is when the document was first published, and Modified
	// when it last changed, in ISO 8601 (see ParseDate: "2024-03-15",
	// "2024-03-15T10:00:00Z"); empty when unknown. A web page's come from
	// its search result or its metadata; a local document's Modified is
	// its file's modification time.
	Published string `json:"published,omitempty"`
	Modified  string `json:"modified,omitempty"`
}

// Kinds of source (Source.Kind), as reference lists cite them and the
// JSON report's source_types names them.
const (
	// KindWeb is a page of the web, cited by its title, linked to its URL,
	// with its date.
	KindWeb = "web"
	// KindLocal is a document of a local collection (the corpus), cited by
	// its folder and file.
	KindLocal = "local"
)

// ChannelCorpus is the Channel of documents from the local corpus.
const ChannelCorpus = "corpus"

// ChannelChroma is the Channel of records of a Chroma collection.
const ChannelChroma = "chroma"

// TypeChroma is Type's name for a record of a Chroma collection, as seed
// 003's source_types has it.
const TypeChroma = "chromadb"

// Type is the source's type as the JSON report's source_types names it:
// TypeChroma for a record of a Chroma collection, else its Kind.
func (s Source) Type() string {
	if s.Channel == ChannelChroma {
		return TypeChroma
	}
	return s.Kind()
}

// Kind is KindLocal for a document of a local collection — found by the
// corpus (Channel "corpus"), addressed by a file: URL, or with no URL but
// an ID — and KindWeb for everything else.
func (s Source) Kind() string {
	if s.Channel == ChannelCorpus || s.URL == "" && s.ID != "" || strings.HasPrefix(strings.ToLower(s.URL), "file:") {
		return KindLocal
	}
	return KindWeb
}

// Path is a local document's path as its collection names it: its ID (a
// path relative to the corpus folder, "docs/faq.md"), else its file:
// URL's path. It is "" for a web page.
func (s Source) Path() string {
	if s.Kind() != KindLocal {
		return ""
	}
	if id := Clean(s.ID); id != "" {
		return id
	}
	if u, err := url.Parse(s.URL); err == nil {
		return Clean(u.Path)
	}
	return ""
}

// Collection is the collection a source belongs to, as the JSON report's
// collections_used lists them: for a local document, the folder its file
// sits in ("docs/api" for "docs/api/io.md"), or its channel ("corpus")
// for a file at the top of the collection; for a record of a store that
// names its records CHANNEL:COLLECTION/SOURCE or CHANNEL:COLLECTION#ID
// (a Chroma collection: "chroma:catalog/techmart_catalog.csv"), the
// collection ("catalog"); for a web page, "web".
func (s Source) Collection() string {
	if s.Kind() == KindWeb {
		return KindWeb
	}
	if ch := Clean(s.Channel); ch != "" && ch != ChannelCorpus {
		if rest, ok := strings.CutPrefix(Clean(s.ID), ch+":"); ok {
			if c, _, _ := strings.Cut(rest, "/"); c != "" {
				if c, _, _ = strings.Cut(c, "#"); c != "" {
					return c
				}
			}
		}
	}
	if dir := path.Dir(strings.TrimPrefix(s.Path(), "/")); dir != "." && dir != "/" && dir != "" {
		return dir
	}
	if c := Clean(s.Channel); c != "" {
		return c
	}
	return ChannelCorpus
}

// Label is how every list of sources names one, for readers and models
// alike, with white space folded and control characters removed. A web
// page is named by its title (its ID when it has none). A local document
// is named by its folder and file, then its title when that says more
// than the file name: "docs/faq.md — FAQ". Its Location follows (see
// Location.Locate): "spec.pdf, p. 7", "docs/faq.md — FAQ › Returns",
// "catalog.csv, row 12". The date is not part of it (see Dated).
func (s Source) Label() string {
	return s.Location.Locate(s.document())
}

// document is the label of the whole document.
func (s Source) document() string {
	t := Clean(s.Title)
	p := s.Path()
	switch {
	case p == "" && t == "":
		return Clean(s.ID)
	case p == "":
		return t
	case t == "" || t == p || t == path.Base(p):
		return p
	}
	return p + " — " + t
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
