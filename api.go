package deepresearch

import (
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/output"
	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// Types callers see, defined in the internal packages.
type (
	// Source is a retrieved document a report can cite.
	Source = source.Source
	// Usage counts model calls and tokens.
	Usage = usage.Usage
	// Budget bounds one research agent: tool calls, tokens and time.
	Budget = agent.Budget
	// Reference is one entry of the final report's reference list.
	Reference = finalreport.Reference
	// MergedSource is a source of the merged numbering of all agents.
	MergedSource = cite.MergedSource
	// Style is how citations are rendered in the report text: Markdown,
	// Plain, Footnote or HTML. Its text form (a Request's JSON, settings)
	// is its name ("markdown", "plain", "footnote", "html"), read by its
	// UnmarshalText, which refuses other names with an error wrapping
	// ErrStyle; the zero Style is the default.
	Style = cite.Style
	// JSONReport is the report as structured data with a citation sidecar.
	JSONReport = finalreport.Document
	// Provenance is seed 003's account of a report's sources (sources,
	// collections_used, source_types, citation_format,
	// formatted_citations), part of JSONReport; Report.Provenance gives
	// it alone.
	Provenance = finalreport.Provenance
	// SourceRelevance is what the sources reconciler said of a source it
	// kept: o_relevance, q_relevance (QueryScore) and reasoning.
	SourceRelevance = source.Relevance
	// QueryScore is a source's relevance to one search of its task.
	QueryScore = source.QueryScore
)

// Format is a document format Report.Render writes.
type Format = output.Format

// Report formats for Report.Render.
const (
	FormatMarkdown = output.Markdown // "md": the report and its reference list
	FormatHTML     = output.HTML     // "html": a standalone page with clickable citations
	FormatJSON     = output.JSON     // "json": blocks, references, sources used, stats and a citation sidecar
	FormatYAML     = output.YAML     // "yaml": the JSON document as YAML, with the same sidecar
	FormatCSL      = output.CSL      // "csl-json": the reference list as CSL-JSON
	FormatBibTeX   = output.BibTeX   // "bibtex": the reference list as BibTeX
	FormatXML      = output.XML      // "xml": the JSON document as XML, valid against ReportXMLSchema
	FormatMermaid  = output.Mermaid  // "mermaid": the citation graph (question, sections, references) as a Mermaid flowchart
	FormatDOCX     = output.DOCX     // "docx": a Word document with linked citations, the reference list and the verification summary (binary)
	FormatPDF      = output.PDF      // "pdf": the report printed by a headless Chromium (RenderContext), with the verification summary (binary)
)

// ParseFormat returns the format named s: "md" (or "markdown"), "html",
// "json", "yaml", "xml", "mermaid", "docx", "pdf", "csl-json" or "bibtex"; "" is
// FormatMarkdown. Other names are
// an error wrapping ErrFormat. Every front end parses formats with it
// (settings, ?format=, the MCP tools), Format.MediaType is the
// Content-Type a server answers with, and Format.Binary says which
// formats are binary files (FormatDOCX, FormatPDF) that are not to be printed on a
// terminal or filtered as text.
func ParseFormat(s string) (Format, error) { return output.ParseFormat(s) }
