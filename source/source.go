// Package source is the vocabulary of what a report cites: Source, one
// retrieved document (a web page, a local document, a record of a
// knowledge base), with its Location inside the document (a page, a
// section, a row, a slide); the Passage of its text a citation was
// checked against; and the Relevance the sources reconciler gave it.
//
// Every stage agrees on these types: the search backends (search.Result)
// produce them, citations resolve to them, events and stored runs carry
// them, and a report lists them. Their JSON forms are part of the wire
// formats of events, reports and stored runs.
//
// The package is a leaf: it links nothing outside the standard library.
// Its names for readers (Label, LabelAt, Location.String) fold white
// space and drop control characters, since a source's fields come from
// outside (a page's title, a document's metadata).
package source

import (
	"cmp"
	"net/url"
	"path"
	"strings"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
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
	// when it last changed, in ISO 8601 ("2024-03-15", or RFC 3339 with a
	// time of day: "2024-03-15T10:00:00Z"); empty when unknown. A web page's come from
	// its search result or its metadata; a local document's Modified is
	// its file's modification time.
	Published string `json:"published,omitempty"`
	Modified  string `json:"modified,omitempty"`
	// Author is who wrote the document, as its source gives it (a search
	// result's author, a page's meta author or JSON-LD author, a PDF's or
	// DOCX's metadata); several authors are separated by AuthorSep (see
	// Authors). Empty when unknown.
	Author string `json:"author,omitempty"`
	// Tier is how credible the source is by its domain, as the run's tier
	// table rates its URL: "primary", "news", "forum" or "content-farm"
	// (domains); empty when unrated or not a web page.
	Tier string `json:"tier,omitempty"`
}

// AuthorSep separates the authors of Source.Author.
const AuthorSep = "; "

// Authors are s.Author's authors, in order.
func (s Source) Authors() []string {
	var out []string
	for _, a := range strings.Split(s.Author, strings.TrimSpace(AuthorSep)) {
		if a = sourcetext.Clean(a); a != "" {
			out = append(out, a)
		}
	}
	return out
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
	if id := sourcetext.Clean(s.ID); id != "" {
		return id
	}
	if u, err := url.Parse(s.URL); err == nil {
		return sourcetext.Clean(u.Path)
	}
	return ""
}

// CollectionWeb is the collection of every web page in the JSON report's
// collections_used, as seed 003 names it.
const CollectionWeb = "web_search"

// Collection is the collection a source belongs to, as the JSON report's
// collections_used lists them: for a local document, the folder its file
// sits in ("docs/api" for "docs/api/io.md"), or its channel ("corpus")
// for a file at the top of the collection; for a record of a store that
// names its records CHANNEL:COLLECTION/SOURCE or CHANNEL:COLLECTION#ID
// (a Chroma collection: "chroma:catalog/techmart_catalog.csv"), the
// collection ("catalog"); for a web page, CollectionWeb.
func (s Source) Collection() string {
	if s.Kind() == KindWeb {
		return CollectionWeb
	}
	if c, _, ok := s.record(); ok {
		return c
	}
	if dir := path.Dir(strings.TrimPrefix(s.Path(), "/")); dir != "." && dir != "/" && dir != "" {
		return dir
	}
	if c := sourcetext.Clean(s.Channel); c != "" {
		return c
	}
	return ChannelCorpus
}

// record splits the ID of a store's record, CHANNEL:COLLECTION/SOURCE or
// CHANNEL:COLLECTION#ID, into its collection and the rest ("SOURCE",
// "#ID"); ok is false for a source that is not a store's record.
func (s Source) record() (collection, rest string, ok bool) {
	ch := sourcetext.Clean(s.Channel)
	if ch == "" || ch == ChannelCorpus || s.Kind() == KindWeb {
		return "", "", false
	}
	after, ok := strings.CutPrefix(sourcetext.Clean(s.ID), ch+":")
	if !ok {
		return "", "", false
	}
	i := strings.IndexAny(after, "/#")
	switch {
	case i < 0:
		return "", "", false
	case i == 0:
		return "", "", false
	case after[i] == '/':
		return after[:i], after[i+1:], after[i+1:] != ""
	}
	return after[:i], after[i:], len(after) > i+1
}

// Record reports whether s is a record of a knowledge-base collection (a
// Chroma collection's: Channel ChannelChroma, ID
// "chroma:COLLECTION/SOURCE" or "chroma:COLLECTION#ID").
func (s Source) Record() bool {
	_, _, ok := s.record()
	return ok && s.Channel == ChannelChroma
}

// Name is how the JSON report's sources list names the document, as seed
// 003 does: a web page by its URL (its ID when it has none), a record of
// a knowledge-base collection by the file it came from
// ("techmart_catalog.csv"; "faq#note_1" for a record of no file), a local
// document by its path ("docs/faq.md").
func (s Source) Name() string {
	switch c, rest, ok := s.record(); {
	case s.Kind() == KindWeb:
		return cmp.Or(sourcetext.Clean(s.URL), sourcetext.Clean(s.ID))
	case ok && strings.HasPrefix(rest, "#"):
		return c + rest
	case ok:
		return rest
	}
	return cmp.Or(s.Path(), sourcetext.Clean(s.ID))
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
	t := sourcetext.Clean(s.Title)
	p := s.Path()
	switch {
	case p == "" && t == "":
		return sourcetext.Clean(s.ID)
	case p == "":
		return t
	case t == "" || t == p || t == path.Base(p):
		return p
	}
	return p + " — " + t
}

// Dated is the date a reference list shows beside the source: its
// publication day ("2024-03-15"); for a web page with none, the day it was
// last modified ("updated 2024-03-15"); else "". A local document's
// modification time is the file's, which says when it was copied as much
// as when it was written: it is not shown (the JSON report carries it).
func (s Source) Dated() string {
	if d := sourcetext.Day(s.Published); d != "" {
		return d
	}
	if d := sourcetext.Day(s.Modified); d != "" && s.Kind() == KindWeb {
		return "updated " + d
	}
	return ""
}
