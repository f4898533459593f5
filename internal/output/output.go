// Package output names the choices about a run's output that settings,
// requests and command lines spell as words: the report's Format and the
// Action verification takes on a citation its source does not support.
// Each has one Parse, which config, the root package and every front end
// use; the root package re-exports them. (The citation Style is
// citeproc's, with its own words.)
package output

import (
	"errors"
	"fmt"
	"strings"
)

// Format is a document format a report renders in.
type Format string

// The formats.
const (
	Markdown Format = "md"       // the report and its reference list
	HTML     Format = "html"     // a standalone page with clickable citations
	JSON     Format = "json"     // blocks, references, sources used and a citation sidecar
	YAML     Format = "yaml"     // the JSON document as YAML, with the same sidecar
	CSL      Format = "csl-json" // the reference list as CSL-JSON
	BibTeX   Format = "bibtex"   // the reference list as BibTeX
	XML      Format = "xml"      // the JSON document as XML, of a documented schema (report.xsd)
	Mermaid  Format = "mermaid"  // the citation graph as a Mermaid flowchart
	DOCX     Format = "docx"     // a Word document (Office Open XML), with the reference list and verification summary
	PDF      Format = "pdf"      // the HTML report printed by a headless Chromium, with the verification summary
)

// Formats lists the formats, in the order messages name them.
var Formats = []Format{Markdown, HTML, JSON, YAML, XML, Mermaid, DOCX, PDF, CSL, BibTeX}

// ErrFormat reports a format that is none of Formats.
var ErrFormat = errors.New("unknown report format")

// ParseFormat returns the format named s: "md" (or "markdown"), "html",
// "json", "yaml" (or "yml"), "xml", "mermaid" (or "mmd"), "docx", "pdf",
// "csl-json" or "bibtex"; "" is Markdown. Other names (in other
// cases too: settings are lower-cased before they are parsed) are an error
// wrapping ErrFormat.
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
	return "", fmt.Errorf("%w %q: want %s", ErrFormat, s, names(Formats))
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

// Action is what verification does with a citation whose source does not
// support the sentence that cites it.
type Action string

// The actions.
const (
	Keep   Action = "keep"   // leave it; the report's verification lists it
	Flag   Action = "flag"   // keep it, marked "[unsupported: n]"
	Remove Action = "remove" // drop it from the report
)

// Actions lists the actions, in the order messages name them.
var Actions = []Action{Keep, Flag, Remove}

// ErrAction reports an action that is none of Actions.
var ErrAction = errors.New("unknown action on unsupported citations")

// ParseAction returns the action named s: "keep", "flag" or "remove"; ""
// is Flag, the default of output.unsupported. Other names are an error
// wrapping ErrAction.
func ParseAction(s string) (Action, error) {
	switch a := Action(s); a {
	case "":
		return Flag, nil
	case Keep, Flag, Remove:
		return a, nil
	}
	return "", fmt.Errorf("%w %q: want %s", ErrAction, s, names(Actions))
}

// names lists choices for a message: "a, b or c".
func names[T ~string](choices []T) string {
	var b strings.Builder
	for i, c := range choices {
		switch {
		case i == 0:
		case i == len(choices)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(c))
	}
	return b.String()
}
