package render

import (
	"errors"
	"fmt"

	"github.com/deepresearch/deepresearch/internal/output"
)

// Format is a document format a report renders in. Its text form is its
// name ("md", "html", …), which ParseFormat reads.
type Format string

// The formats (deepresearch.Report.Render writes each; References the
// reference list alone in Markdown, CSL and BibTeX).
const (
	Markdown Format = "md"       // the report and its reference list
	HTML     Format = "html"     // a standalone page with clickable citations
	JSON     Format = "json"     // blocks, references, sources used and a citation sidecar
	YAML     Format = "yaml"     // the JSON document as YAML, with the same sidecar
	CSL      Format = "csl-json" // the reference list as CSL-JSON
	BibTeX   Format = "bibtex"   // the reference list as BibTeX
	XML      Format = "xml"      // the JSON document as XML, valid against XMLSchema
	Mermaid  Format = "mermaid"  // the citation graph as a Mermaid flowchart
	DOCX     Format = "docx"     // a Word document (Office Open XML), with the reference list and verification summary
	PDF      Format = "pdf"      // the HTML report printed by a headless Chromium (Options.Chromium), with the verification summary
)

// Formats lists the formats, in the order messages name them.
var Formats = []Format{Markdown, HTML, JSON, YAML, XML, Mermaid, DOCX, PDF, CSL, BibTeX}

// ErrFormat reports a format that is none of Formats.
var ErrFormat = errors.New("unknown report format")

// ParseFormat returns the format named s: "md" (or "markdown"), "html",
// "json", "yaml" (or "yml"), "xml", "mermaid" (or "mmd"), "docx", "pdf",
// "csl-json" or "bibtex"; "" is Markdown. Other names (in other
// cases too: settings are lower-cased before they are parsed) are an error
// wrapping ErrFormat. Every front end parses formats with it (settings,
// --format, ?format=, the MCP tools), MediaType is the Content-Type a
// server answers with, and Binary says which formats are binary files
// (DOCX, PDF) that are not to be printed on a terminal or filtered as
// text.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case "", "markdown":
		return Markdown, nil
	case "yml":
		return YAML, nil
	case "mmd":
		return Mermaid, nil
	case Markdown, HTML, JSON, YAML, XML, Mermaid, DOCX, PDF, CSL, BibTeX:
		return f, nil
	}
	return "", fmt.Errorf("%w %q: want %s", ErrFormat, s, output.Names(Formats))
}

// MediaType is the format's Internet media type, for Content-Type.
func (f Format) MediaType() string {
	switch f {
	case HTML:
		return "text/html; charset=utf-8"
	case JSON:
		return "application/json"
	case YAML:
		return "application/yaml" // RFC 9512
	case CSL:
		return "application/vnd.citationstyles.csl+json"
	case BibTeX:
		return "application/x-bibtex; charset=utf-8"
	case XML:
		return "application/xml"
	case Mermaid:
		return "text/vnd.mermaid; charset=utf-8"
	case DOCX:
		return "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	case PDF:
		return "application/pdf"
	}
	return "text/markdown; charset=utf-8"
}

// Binary reports whether the format's documents are binary files (DOCX,
// a zip archive; PDF) rather than text: they are written byte for byte,
// never filtered as text, and not printed on a terminal.
func (f Format) Binary() bool { return f == DOCX || f == PDF }

// Extension is the file name extension of the format's documents, with
// its dot: ".md", ".docx", ".json" …
func (f Format) Extension() string {
	switch f {
	case "", Markdown:
		return ".md"
	case CSL:
		return ".json"
	case BibTeX:
		return ".bib"
	case Mermaid:
		return ".mmd"
	}
	return "." + string(f)
}
