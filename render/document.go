package render

import "github.com/deepresearch/deepresearch/source"

// Version is the version of a stored report's JSON form
// (deepresearch.Report's Version) that this module writes and
// deepresearch.LoadReport reads.
const Version = 1

// Reference is one entry of a report's reference list: one document,
// numbered 1..K in order of first citation. Its Source (source.Source:
// ID, URL, Title, dates, Location …) is the document; its Location is the
// first unit the report cites it at (a page, a row, a slide); when it
// cites more than one, Locations lists them all in order of first
// citation, and Label names them ("spec.pdf, pp. 4, 7").
type Reference struct {
	// Number is the reference's number in the report's text ([n]).
	Number int `json:"number"`
	source.Source
	// CanonicalURL is the identity under which duplicates of the source
	// met when the agents' sources were merged; empty for a source without
	// a URL or with a malformed one.
	CanonicalURL string `json:"canonical_url,omitempty"`
	// Locations are the units the report cites the document at, in order
	// of first citation, when it cites more than one.
	Locations []source.Location `json:"locations,omitempty"`
	// Checked is set in a report's JSON form only (nil elsewhere); its
	// fields are the reference's own in JSON.
	*Checked
}

// Label names the reference for readers: its source's Label, with every
// unit the report cites it at ("spec.pdf, pp. 4, 7").
func (r Reference) Label() string {
	if len(r.Locations) > 1 {
		return r.Source.LabelAt(r.Locations)
	}
	return r.Source.Label()
}

// Checked is what a report's JSON form keeps of the text read of a
// source, so that the report can be checked again without the source
// (`deepresearch verify --sources report.json`).
type Checked struct {
	// TextSHA256 is the hex SHA-256 of the text the agents read.
	TextSHA256 string `json:"text_sha256,omitempty"`
	// Passages are the passages of it the report's citations were checked
	// against (none when the report was not verified).
	Passages []source.Passage `json:"passages,omitempty"`
}

// Claim is an entry of the citation sidecar: the JSON Pointer of a string
// field that holds a claim, and the reference numbers it cites.
type Claim struct {
	// Path is the JSON Pointer of the claim's field ("/blocks/3").
	Path string `json:"path"`
	// SIDs are the reference numbers the claim cites, in order.
	SIDs []int `json:"sids"`
}

// Document is a report as structured data (the JSON, YAML and XML
// formats; deepresearch.Report.JSON returns it) with the citation sidecar
// of the citation protocol: Blocks are the report's markdown blocks
// (with plain [n] markers); Citations say which references each block
// cites. Around them, seed 001's envelope and seed 003's source fields:
// SourcesUsed, UsageSIDs, Stats, Sources, CollectionsUsed, SourceTypes,
// CitationFormat and FormattedCitations. Schema is its JSON Schema.
type Document struct {
	// RunID names the run in the store that keeps it (empty when none).
	RunID string `json:"run_id,omitempty"`
	// Question is the question the report answers.
	Question string `json:"question"`
	// Text is the report's markdown with plain [n] markers, without the
	// reference list.
	Text string `json:"text"`
	// Blocks are Text's markdown blocks (paragraphs, headings, list items
	// …), each rendered on its own with the report's numbering.
	Blocks []string `json:"blocks"`
	// References are the sources the report cites, numbered 1..K.
	References []Reference `json:"references"`
	// SourcesUsed are the sources the report used: its references, then
	// those the writer named only in usage tags ([[USAGE:…]]), each with
	// an excerpt of its text.
	SourcesUsed []UsedSource `json:"sources_used"`
	// UsageSIDs are the sids (of SourcesUsed) the writer's usage tags
	// named, in order; empty when it wrote none.
	UsageSIDs []int `json:"usage_sids"`
	// Provenance is seed 003's account of the references: sources,
	// collections_used, source_types, citation_format and
	// formatted_citations.
	Provenance
	// Stats is seed 001's envelope statistics.
	Stats Stats `json:"stats"`
	// Citations is the citation sidecar: which references each block
	// cites.
	Citations []Claim `json:"_citations"`

	// Seed 001's run contract, the envelope of the document: OK is true
	// when the run did not fail; Content is Text again (the seed's name
	// for it); Format is the form of Content ("markdown"); Finished is
	// false when the writer failed and the document holds the agents'
	// merged findings; Retries counts the model calls of the run that
	// were tried again; Reason is why the run failed ("" when OK).
	OK       bool   `json:"ok"`
	Content  string `json:"content"`
	Format   string `json:"format"`
	Finished bool   `json:"finished"`
	Retries  int    `json:"retries"`
	Reason   string `json:"reason"`
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
	SID int `json:"sid"`
	// URL is the source's URL ("" for a local document without one).
	URL string `json:"url"`
	// Title is the source's title, or its label when it has none.
	Title string `json:"title"`
	// Text is an excerpt of what the agents read of it (320 bytes at
	// most, cut at a word).
	Text string `json:"text"`
	// Type is the source's type: "web", "chromadb" or "local".
	Type string `json:"type"`
	// Published and Modified are the source's dates, as it gives them.
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
