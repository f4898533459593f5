// Package source defines Source, the retrieved document every stage agrees
// on: the search tools produce it, citeproc resolves markers to it,
// collapse de-duplicates it, the final report lists it and events carry it.
package source

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
}
