package finalreport

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/mdtext"
	"github.com/deepresearch/deepresearch/internal/source"
)

// Extra is what the structured documents (JSON, YAML) tell of a run
// beyond its report; the zero value tells nothing more.
type Extra struct {
	// Texts are the sources' texts as the agents read them, by merged
	// number (Report.Sources' numbers): sources_used's excerpts.
	Texts map[int]string
	// Relevance is, by merged number, what the sources reconciler said of
	// each source it kept.
	Relevance map[int]source.Relevance
	// Rounds is how many research cycles ran.
	Rounds int
	// Validated is what checking the report's citations against their
	// sources found: ValidatedPassed, ValidatedFailed, or "" when they
	// were not checked (ValidatedNone).
	Validated string
	// Unfinished says the writer did not finish the report: the document
	// holds the agents' merged findings (Document.Finished is false).
	Unfinished bool
	// Reason is why the run failed ("" when it did not): Document.Reason,
	// and Document.OK is false when it is set.
	Reason string
	// Retries is how many model calls of the run were tried again.
	Retries int
}

// What Stats.Validated says of a report's citations.
const (
	ValidatedPassed = "passed" // checked: no citation of a source that does not exist or was never read
	ValidatedFailed = "failed" // checked, with errors (see the report's verification)
	ValidatedNone   = "none"   // not checked
)

// UsedSource is an entry of a document's sources_used: seed 001's
// envelope ({sid, url, title, text}), with the source's kind, dates and
// relevance (seed 001's o_relevance, q_relevance and reasoning).
type UsedSource struct {
	// SID is the reference number the report cites the source by; a
	// source the writer named only in a usage tag has none in the text and
	// is numbered after the references (K+1, K+2, …, in the order the tags
	// named them).
	SID   int    `json:"sid"`
	URL   string `json:"url"`
	Title string `json:"title"`
	// Text is an excerpt of what the agents read of it (excerptMax bytes
	// at most, cut at a word).
	Text string `json:"text"`
	// Type is source.KindWeb or source.KindLocal.
	Type      string `json:"type"`
	Published string `json:"published,omitempty"`
	Modified  string `json:"modified,omitempty"`
	// Cited reports whether the report's text cites it; false for a
	// source named only in a usage tag.
	Cited bool `json:"cited"`
	// Relevance is what the sources reconciler said of it (o_relevance,
	// q_relevance, reasoning); absent when the run did not keep it.
	*source.Relevance
}

// Stats is seed 001's envelope statistics of a report.
type Stats struct {
	// Rounds is how many research cycles ran (0: not told).
	Rounds int `json:"rounds"`
	// Bytes is the length of the report's text (Document.Text).
	Bytes int `json:"bytes"`
	// Citations is "present" when the report cites a source, else
	// "absent".
	Citations string `json:"citations"`
	// Validated is ValidatedPassed, ValidatedFailed or ValidatedNone.
	Validated string `json:"validated"`
}

// What Provenance.CitationFormat says of the references, as seed 003 names
// it.
const (
	CitationInternal = "internal_kb" // knowledge-base records and local documents only
	CitationWeb      = "web_urls"    // web pages only
	CitationMixed    = "mixed"       // both
)

// Provenance is seed 003's account of a report's sources, from its
// references. Sources are the references' documents, in order, each once
// (source.Source.Name: a web page's URL, a knowledge-base record's file, a
// local document's path); CollectionsUsed their collections, in order,
// each once (source.Source.Collection: source.CollectionWeb, "catalog", a
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
	Sources            []string `json:"sources" jsonschema:"the cited documents, in order, each once: a web page's URL, a knowledge-base record's file (techmart_catalog.csv), a local document's path"`
	CollectionsUsed    []string `json:"collections_used" jsonschema:"the cited documents' collections, in order, each once: web_search for web pages, a knowledge base's collection (catalog), a corpus folder"`
	SourceTypes        []string `json:"source_types" jsonschema:"each reference's type, in order: web, chromadb or local"`
	CitationFormat     string   `json:"citation_format" jsonschema:"internal_kb, web_urls or mixed; empty when nothing is cited"`
	FormattedCitations []string `json:"formatted_citations" jsonschema:"each of sources as a reader names it: [Title](URL) for a web page, the collection's display name (Product Catalog) for a knowledge-base record, a local document's path and title"`
}

// ProvenanceOf is the Provenance of refs, a report's references.
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
		return mdtext.Link(cmp.Or(source.Clean(s.Title), s.URL), s.URL)
	case s.Record():
		return mdtext.Escape(source.CollectionTitle(s.Collection()))
	}
	s.Location = source.Location{} // the document, as sources names it
	return mdtext.Escape(s.Label())
}

// FormatMarkdown is Document.Format: the form of its text (content).
const FormatMarkdown = "markdown"

// excerptMax bounds a sources_used excerpt, in bytes.
const excerptMax = 320

// envelope fills what doc tells beyond the report's blocks: sources_used
// and usage_sids (from the references, then the sources only usage tags
// named), seed 003's Provenance, and stats.
func envelope(doc *Document, r *Report, v *view, x Extra) {
	texts := map[string]string{} // by sourceKey
	rels := map[string]*source.Relevance{}
	for _, s := range r.Sources {
		if t := x.Texts[s.Number]; t != "" {
			texts[sourceKey(s.Source)] = t
		}
		if rel, ok := x.Relevance[s.Number]; ok {
			rels[sourceKey(s.Source)] = &rel
		}
	}
	used := func(sid int, s source.Source, cited bool) UsedSource {
		return UsedSource{SID: sid, URL: s.URL, Title: cmp.Or(source.Clean(s.Title), s.Label()), Text: excerpt(texts[sourceKey(s)]),
			Type: s.Type(), Published: s.Published, Modified: s.Modified, Cited: cited, Relevance: rels[sourceKey(s)]}
	}
	doc.SourcesUsed, doc.UsageSIDs = []UsedSource{}, []int{}
	for _, ref := range doc.References {
		doc.SourcesUsed = append(doc.SourcesUsed, used(ref.Number, ref.Source, true))
	}
	doc.Provenance = ProvenanceOf(doc.References)
	next := len(doc.References)
	for _, n := range r.Used {
		if d, cited := v.display[n]; cited {
			doc.UsageSIDs = append(doc.UsageSIDs, d)
			continue
		}
		i := slices.IndexFunc(r.Sources, func(s collapse.Source) bool { return s.Number == n })
		if i < 0 {
			continue // no merged source: the processor reported nothing else
		}
		next++
		doc.UsageSIDs = append(doc.UsageSIDs, next)
		doc.SourcesUsed = append(doc.SourcesUsed, used(next, r.Sources[i].Source, false))
	}
	doc.OK, doc.Content, doc.Format = x.Reason == "", doc.Text, FormatMarkdown
	doc.Finished, doc.Retries, doc.Reason = !x.Unfinished, x.Retries, source.Clean(x.Reason)
	doc.Stats = Stats{Rounds: x.Rounds, Bytes: len(doc.Text), Citations: "absent", Validated: cmp.Or(x.Validated, ValidatedNone)}
	if len(doc.References) > 0 {
		doc.Stats.Citations = "present"
	}
}

// sourceKey is a source's identity in a report: its document and the
// page, row or slide it is.
func sourceKey(s source.Source) string {
	return s.ID + "\x00" + s.URL + "\x00" + s.Location.Key()
}

// excerpt is the start of text, white space folded, control characters
// dropped, cut at a word to at most excerptMax bytes ("…" marks a cut).
func excerpt(text string) string {
	t := source.Clean(text)
	if len(t) <= excerptMax {
		return t
	}
	cut := excerptMax - len("…")
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(t[:cut], ' '); i > excerptMax/2 {
		cut = i
	}
	return strings.TrimRight(t[:cut], " ") + "…"
}
