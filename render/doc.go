// Package render is what a report renders as: its formats (Format,
// ParseFormat: Markdown, HTML, JSON, YAML, XML, Mermaid, DOCX, PDF, and
// the reference list alone as CSL-JSON or BibTeX), the options rendering
// takes (Options, HTMLOptions), the structured document the JSON, YAML
// and XML formats write (Document, with its References and Provenance)
// and its schemas (Schema, XMLSchema), and the renderers of a reference
// list alone (References, ReferenceIndex).
//
// deepresearch.Report.Render and RenderContext render a whole report in a
// Format (RenderContext prints PDF with a headless Chromium). The package
// does no I/O but Options.Ready's look for that browser on PATH, and
// links no run store, spreadsheet library or model provider.
package render
