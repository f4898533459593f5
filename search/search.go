// Package search defines what a research agent needs from a search backend:
// find passages for a query, and fetch a whole document to read more of it.
// The local corpus (internal/corpus) is the built-in implementation; web
// search providers implement the same interface.
package search

import (
	"context"

	"github.com/deepresearch/deepresearch/source"
)

// Result is one passage a search returned.
type Result struct {
	// DocID identifies the document; pass it to Backend.Fetch.
	DocID string `json:"doc_id"`
	// URL of the document: file:// for a local file, unless the document
	// declares its own http(s) URL (a corpus document's front matter).
	URL string `json:"url"`
	// Title of the document.
	Title string `json:"title"`
	// Location of the passage within the document, for people: a heading
	// path or a line range ("§ Happens Before", "lines 120-148").
	Location string `json:"location,omitempty"`
	// Locator is the passage's location, structured: the page, section,
	// row or slide a citation of the passage points to. The source an
	// agent registers for the result carries it. Zero when the backend
	// locates nothing finer than the document (web results).
	Locator source.Location `json:"locator,omitzero"`
	// Snippet is the passage text (whole passage, not only the matched words).
	Snippet string `json:"snippet"`
	// Score is the backend's relevance score; higher is better.
	Score float64 `json:"score"`
	// Channel names the kind of backend that found it ("web", "corpus");
	// empty when the backend does not say.
	Channel string `json:"channel,omitempty"`
	// Published and Modified are the document's dates, when the backend
	// knows them, in ISO 8601 or a form search APIs write (RFC 1123,
	// "March 15, 2024"; the agent reads it into ISO 8601): a search engine's
	// publication date, a local file's modification time. The source an
	// agent registers for the result carries them.
	Published string `json:"published,omitempty"`
	Modified  string `json:"modified,omitempty"`
	// Author is who wrote the document, when the backend says (Exa's
	// author; several separated by ";", as source.Source.Author). The source
	// an agent registers for the result carries it.
	Author string `json:"author,omitempty"`
}

// Document is a whole document, as text.
type Document struct {
	DocID string `json:"doc_id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
	// Published and Modified are the document's dates in ISO 8601, when
	// known: a web page's from its metadata (article:published_time,
	// JSON-LD, <time>), a local file's modification time. An agent
	// opening a source fills in the dates its search result lacked.
	Published string `json:"published,omitempty"`
	Modified  string `json:"modified,omitempty"`
	// Author is who wrote it, when its metadata says (a page's meta
	// author or JSON-LD author, a PDF's Author, a DOCX's creator; several
	// separated by ";", as source.Source.Author). An agent opening a source
	// fills in the author its search result lacked.
	Author string `json:"author,omitempty"`
	// Channel is the channel of the backend that holds it, as its search
	// results carry it (Result.Channel; set by a combined backend), so
	// that a document fetched by DocID alone (a reference followed) is
	// the same kind of source; "" when the backend does not say.
	Channel string `json:"channel,omitempty"`
}

// Backend searches and fetches documents. Implementations must be safe for
// concurrent use by several agents.
type Backend interface {
	// Search returns at most limit passages for query, best first.
	Search(ctx context.Context, query string, limit int) ([]Result, error)
	// Fetch returns the document with the given id, or an error wrapping
	// ErrNotFound.
	Fetch(ctx context.Context, docID string) (Document, error)
}

// Resolver is a Backend that can find the document a reference names: a
// link target, a path, a title or a heading, as a document it holds
// writes it. The research loop follows such references (see the root's
// loop.go); a backend that is no Resolver has its references followed by
// search only.
type Resolver interface {
	// Resolve returns the DocID of the document ref names, read in the
	// document from ("" when unknown), or an error wrapping ErrNotFound.
	// A reference to from itself names nothing.
	Resolve(ctx context.Context, from, ref string) (string, error)
}
