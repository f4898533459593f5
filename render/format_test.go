package render

import (
	"errors"
	"testing"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Format
		err  error
	}{
		{"empty is markdown", "", Markdown, nil},
		{"md", "md", Markdown, nil},
		{"markdown alias", "markdown", Markdown, nil},
		{"html", "html", HTML, nil},
		{"json", "json", JSON, nil},
		{"yaml", "yaml", YAML, nil},
		{"yml alias", "yml", YAML, nil},
		{"csl-json", "csl-json", CSL, nil},
		{"bibtex", "bibtex", BibTeX, nil},
		{"xml", "xml", XML, nil},
		{"mermaid", "mermaid", Mermaid, nil},
		{"mmd alias", "mmd", Mermaid, nil},
		{"docx", "docx", DOCX, nil},
		{"pdf", "pdf", PDF, nil},
		{"unknown", "odt", "", ErrFormat},
		{"upper case", "HTML", "", ErrFormat},
		{"spaces", " md", "", ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFormat(tt.in)
			if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("ParseFormat(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
	_, err := ParseFormat("odt")
	if want := `unknown report format "odt": want md, html, json, yaml, xml, mermaid, docx, pdf, csl-json or bibtex`; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	for _, f := range Formats {
		if back, err := ParseFormat(string(f)); back != f || err != nil {
			t.Errorf("%q does not parse back: %q, %v", f, back, err)
		}
		if f.MediaType() == "" {
			t.Errorf("%q has no media type", f)
		}
		if ext := f.Extension(); len(ext) < 3 || ext[0] != '.' {
			t.Errorf("%q has extension %q", f, ext)
		}
		if f.Binary() != (f == DOCX || f == PDF) {
			t.Errorf("%q: Binary() = %v", f, f.Binary())
		}
	}
}
