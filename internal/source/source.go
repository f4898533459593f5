// Package source defines Source, the retrieved document every stage agrees
// on: the search tools produce it, citeproc resolves markers to it,
// collapse de-duplicates it, the final report lists it and events carry it.
package source

import (
	"cmp"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
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
	// Author is who wrote the document, as its source gives it (a search
	// result's author, a page's meta author or JSON-LD author, a PDF's or
	// DOCX's metadata); several authors are separated by "; " (see
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
		if a = Clean(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// maxAuthors and maxAuthor bound what JoinAuthors keeps of a source's
// authors: untrusted metadata cannot make a reference line long.
const (
	maxAuthors = 10
	maxAuthor  = 100
)

// ParseAuthors is the Author of a list of names separated by ";" (a
// search result's, a document's metadata), as JoinAuthors makes it.
func ParseAuthors(list string) string {
	return JoinAuthors(strings.Split(list, ";")...)
}

// JoinAuthors is the Author of names: each cleaned (white space folded,
// control characters dropped, ";" made ","), empty and repeated ones
// dropped, at most 10 of at most 100 bytes each (cut at a rune), joined
// by AuthorSep.
func JoinAuthors(names ...string) string {
	var out []string
	for _, n := range names {
		n = Clean(strings.ReplaceAll(n, ";", ","))
		if len(n) > maxAuthor {
			cut := maxAuthor
			for cut > 0 && !utf8.RuneStart(n[cut]) {
				cut--
			}
			n = strings.TrimSpace(n[:cut])
		}
		if n != "" && !slices.Contains(out, n) && len(out) < maxAuthors {
			out = append(out, n)
		}
	}
	return strings.Join(out, AuthorSep)
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
	if c := Clean(s.Channel); c != "" {
		return c
	}
	return ChannelCorpus
}

// record splits the ID of a store's record, CHANNEL:COLLECTION/SOURCE or
// CHANNEL:COLLECTION#ID, into its collection and the rest ("SOURCE",
// "#ID"); ok is false for a source that is not a store's record.
func (s Source) record() (collection, rest string, ok bool) {
	ch := Clean(s.Channel)
	if ch == "" || ch == ChannelCorpus || s.Kind() == KindWeb {
		return "", "", false
	}
	after, ok := strings.CutPrefix(Clean(s.ID), ch+":")
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
		return cmp.Or(Clean(s.URL), Clean(s.ID))
	case ok && strings.HasPrefix(rest, "#"):
		return c + rest
	case ok:
		return rest
	}
	return cmp.Or(s.Path(), Clean(s.ID))
}

// collectionTitles are the display names of the collections seed 003's
// knowledge base has, and of their usual synonyms.
var collectionTitles = map[string]string{
	"catalog": "Product Catalog", "catalogue": "Product Catalog", "products": "Product Catalog", "product_catalog": "Product Catalog",
	"faq": "FAQ", "faqs": "FAQ",
	"troubleshooting": "Troubleshooting Guide", "troubleshooting_guide": "Troubleshooting Guide",
	CollectionWeb: "Web Search",
}

// CollectionTitle is a collection's display name, as seed 003's
// formatted_citations name a knowledge base's records: "Product Catalog"
// for "catalog", "FAQ" for "faq", "Troubleshooting Guide" for
// "troubleshooting"; another name is title-cased, its underscores and
// hyphens made spaces ("return_policy": "Return Policy"). White space is
// folded and control characters dropped.
func CollectionTitle(collection string) string {
	c := Clean(collection)
	if t, ok := collectionTitles[strings.ToLower(c)]; ok {
		return t
	}
	words := strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(c))
	for i, w := range words {
		r := []rune(w)
		words[i] = strings.ToUpper(string(r[0])) + string(r[1:])
	}
	return strings.Join(words, " ")
}

// Attribution is how an answer names a collection it draws on, as seed
// 003's answers do: "According to our product catalog", "According to
// our FAQ", "From our troubleshooting guide" (a guide is drawn from).
// Words of the display name (CollectionTitle) are lower case but for
// acronyms.
func Attribution(collection string) string {
	words := strings.Fields(CollectionTitle(collection))
	for i, w := range words {
		if w != strings.ToUpper(w) {
			words[i] = strings.ToLower(w)
		}
	}
	name := "our " + strings.Join(words, " ")
	if n := len(words); n > 0 && words[n-1] == "guide" {
		return "From " + name
	}
	return "According to " + name
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
