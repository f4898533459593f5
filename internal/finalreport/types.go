package finalreport

import (
	"strings"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/render"
)

// The published report's data, defined by the public render package.
type (
	Reference  = render.Reference
	Checked    = render.Checked
	Document   = render.Document
	Claim      = render.Claim
	UsedSource = render.UsedSource
	Stats      = render.Stats
	Provenance = render.Provenance
)

// What Stats.Validated says of a report's citations (render's).
const (
	ValidatedPassed = render.ValidatedPassed
	ValidatedFailed = render.ValidatedFailed
	ValidatedNone   = render.ValidatedNone
)

// References renders a reference list's lines, one per reference, in the
// form of style: what a markdown report's "## References" section holds
// (render.References in Markdown).
func References(refs []Reference, style citeproc.Style) string {
	b, _ := render.References(refs, render.Markdown, style) // Markdown does not fail
	return string(b)
}

// ProvenanceOf is the Provenance of refs, a report's references.
func ProvenanceOf(refs []Reference) Provenance { return render.ProvenanceOf(refs) }

// byline is a reference entry's authors: Source.Authors, joined by ", "
// ("" when none).
func byline(s source.Source) string {
	return strings.Join(s.Authors(), ", ")
}

// dated is the date a reference entry shows after the source's title or
// link, " (2024-03-15)" or " (updated 2024-03-15)", or "".
func dated(s source.Source) string {
	if d := s.Dated(); d != "" {
		return " (" + d + ")"
	}
	return ""
}
