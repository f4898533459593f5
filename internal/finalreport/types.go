package finalreport

import (
	"github.com/deepresearch/deepresearch/internal/citeproc"
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
