package render_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/source"
)

// refs are a web page (dated, authored) and a page of a local document.
func refs() []render.Reference {
	return []render.Reference{
		{Number: 1, Source: source.Source{ID: "w", URL: "https://example.org/cables", Title: "Cable ships", Published: "2024-03-15", Author: "A. Writer"}},
		{Number: 2, Source: source.Source{ID: "manual.pdf", URL: "file:///corpus/ops/manual.pdf", Title: "Splicing manual", Channel: "corpus",
			Location: source.Location{Kind: source.LocPage, Value: "4"}}},
	}
}

// A reference list alone, as a report's "## References" section has it
// and in the MCP citation index's export form.
func ExampleReferences() {
	md, _ := render.References(refs(), render.Markdown, cite.Markdown)
	fmt.Print(string(md))
	fmt.Print(render.ReferenceIndex(refs()))
	// Output:
	// - [1] [Cable ships](https://example.org/cables) — A. Writer (2024-03-15)
	// - [2] [manual.pdf — Splicing manual, p. 4](file:///corpus/ops/manual.pdf)
	// [1] Cable ships (2024-03-15) (https://example.org/cables)
	// [2] manual.pdf — Splicing manual, p. 4 — corpus (file:///corpus/ops/manual.pdf)
}

// TestReferences: each citation style has its form of reference line,
// the authors between the title and the date;
// CSL-JSON and BibTeX carry every reference; a format that is not a
// reference list's is an error wrapping ErrFormat.
func TestReferences(t *testing.T) {
	for style, want := range map[cite.Style]string{
		cite.Plain:    "[1] Cable ships — A. Writer (2024-03-15). https://example.org/cables  \n",
		cite.Footnote: "[^1]: [Cable ships](https://example.org/cables) — A. Writer (2024-03-15)\n",
		cite.HTML:     `<p id="ref-1">[1] <a href="https://example.org/cables">Cable ships</a> — A. Writer (2024-03-15)</p>` + "\n",
	} {
		b, err := render.References(refs()[:1], "", style)
		if err != nil || string(b) != want {
			t.Errorf("style %v: %q, %v; want %q", style, b, err, want)
		}
	}
	b, err := render.References(refs(), render.CSL, cite.Markdown)
	var items []map[string]any
	if err != nil || json.Unmarshal(b, &items) != nil || len(items) != 2 || items[0]["title"] != "Cable ships" {
		t.Errorf("CSL-JSON: %s, %v", b, err)
	}
	if b, err := render.References(refs(), render.BibTeX, cite.Markdown); err != nil || bytes.Count(b, []byte("\n@")) != 1 || !bytes.HasPrefix(b, []byte("@")) {
		t.Errorf("BibTeX: %s, %v", b, err)
	}
	if _, err := render.References(refs(), render.JSON, cite.Markdown); !errors.Is(err, render.ErrFormat) {
		t.Errorf("References(json) = %v, want ErrFormat", err)
	}
}

// TestProvenanceOf: no references give empty lists (JSON [], never
// null) and no citation format; a web page and a local document are
// mixed, each named once.
func TestProvenanceOf(t *testing.T) {
	b, _ := json.Marshal(render.ProvenanceOf(nil))
	if want := `{"sources":[],"collections_used":[],"source_types":[],"citation_format":"","formatted_citations":[]}`; string(b) != want {
		t.Errorf("ProvenanceOf(nil) = %s, want %s", b, want)
	}
	p := render.ProvenanceOf(append(refs(), refs()[0]))
	if p.CitationFormat != render.CitationMixed || len(p.Sources) != 2 || strings.Join(p.SourceTypes, ",") != "web,local,web" ||
		p.FormattedCitations[0] != "[Cable ships](https://example.org/cables)" {
		t.Errorf("ProvenanceOf = %+v", p)
	}
}

// TestSchemas: the JSON Schema names SchemaID and requires the
// document's references; XMLSchema hands out a copy.
func TestSchemas(t *testing.T) {
	b, err := render.Schema()
	var s struct {
		ID       string   `json:"$id"`
		Required []string `json:"required"`
	}
	if err != nil || json.Unmarshal(b, &s) != nil || s.ID != render.SchemaID || !strings.Contains(strings.Join(s.Required, ","), "references") {
		t.Errorf("Schema: $id %q, required %v, %v", s.ID, s.Required, err)
	}
	x := render.XMLSchema()
	x[0] = 'X'
	if y := render.XMLSchema(); y[0] == 'X' || !bytes.Contains(y, []byte("xs:schema")) {
		t.Errorf("XMLSchema is not a fresh copy of the XSD: %.40q", y)
	}
}
