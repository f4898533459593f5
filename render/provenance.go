package render

import (
	"cmp"
	"slices"

	"github.com/deepresearch/deepresearch/internal/mdtext"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/source"
)

// What Provenance.CitationFormat says of the references, as seed 003 names
// it.
const (
	CitationInternal = "internal_kb" // knowledge-base records and local documents only
	CitationWeb      = "web_urls"    // web pages only
	CitationMixed    = "mixed"       // both
)

// Provenance is seed 003's account of a report's sources, from its
// references. Sources are the references' documents, in order, each once
// (Source.Name: a web page's URL, a knowledge-base record's file, a
// local document's path); CollectionsUsed their collections, in order,
// each once (Source.Collection: "web_search", "catalog", a
// corpus folder); SourceTypes the type of each reference, in order
// ("web", "chromadb", "local"); CitationFormat what kinds they are
// (CitationInternal, CitationWeb, CitationMixed; "" when there are none);
// FormattedCitations each of Sources as a reader names it: a web page as
// a markdown link, [Title](URL), a knowledge-base record by its
// collection's display name ("Product Catalog"), a local document by its
// label. Every list is empty, not nil, when there are no references.
// The jsonschema tags describe the fields where a schema is made of the
// type (the MCP server's output schema).
type Provenance struct {
	// Sources are the cited documents, each once.
	Sources []string `json:"sources" jsonschema:"the cited documents, in order, each once: a web page's URL, a knowledge-base record's file (techmart_catalog.csv), a local document's path"`
	// CollectionsUsed are their collections, each once.
	CollectionsUsed []string `json:"collections_used" jsonschema:"the cited documents' collections, in order, each once: web_search for web pages, a knowledge base's collection (catalog), a corpus folder"`
	// SourceTypes is each reference's type.
	SourceTypes []string `json:"source_types" jsonschema:"each reference's type, in order: web, chromadb or local"`
	// CitationFormat is CitationInternal, CitationWeb or CitationMixed.
	CitationFormat string `json:"citation_format" jsonschema:"internal_kb, web_urls or mixed; empty when nothing is cited"`
	// FormattedCitations is each of Sources as a reader names it.
	FormattedCitations []string `json:"formatted_citations" jsonschema:"each of sources as a reader names it: [Title](URL) for a web page, the collection's display name (Product Catalog) for a knowledge-base record, a local document's path and title"`
}

// ProvenanceOf is the Provenance of refs, a report's references
// (deepresearch.Report.Cited); deepresearch.Report.Provenance is the
// report's.
func ProvenanceOf(refs []Reference) Provenance {
	p := Provenance{Sources: []string{}, CollectionsUsed: []string{}, SourceTypes: []string{}, FormattedCitations: []string{}}
	web, internal := false, false
	for _, ref := range refs {
		p.SourceTypes = append(p.SourceTypes, ref.Type())
		if c := ref.Collection(); !slices.Contains(p.CollectionsUsed, c) {
			p.CollectionsUsed = append(p.CollectionsUsed, c)
		}
		if ref.Kind() == source.KindWeb {
			web = true
		} else {
			internal = true
		}
		if n := ref.Name(); !slices.Contains(p.Sources, n) {
			p.Sources = append(p.Sources, n)
			p.FormattedCitations = append(p.FormattedCitations, formatted(ref.Source))
		}
	}
	switch {
	case web && internal:
		p.CitationFormat = CitationMixed
	case web:
		p.CitationFormat = CitationWeb
	case internal:
		p.CitationFormat = CitationInternal
	}
	return p
}

// formatted is a source as formatted_citations names it: a web page as a
// markdown link to it, its title escaped ("[External
// Review](https://example.com/article)"), a knowledge-base record by its
// collection's display name ("Product Catalog"), a local document by its
// label, escaped.
func formatted(s source.Source) string {
	switch {
	case s.Kind() == source.KindWeb && s.URL != "":
		return mdtext.Link(cmp.Or(sourcetext.Clean(s.Title), s.URL), s.URL)
	case s.Record():
		return mdtext.Escape(sourcetext.CollectionTitle(s.Collection()))
	}
	s.Location = source.Location{} // the document, as sources names it
	return mdtext.Escape(s.Label())
}
