package citeproc_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
)

// TestStyleText: a style's text form is its name, read back as the same
// style through ParseStyle, UnmarshalText and JSON; "" is the zero Style
// (the default); any other name is an error wrapping ErrStyle that lists
// the names known.
func TestStyleText(t *testing.T) {
	tests := []struct {
		in   string
		want citeproc.Style
		err  error
	}{
		{"", "", nil},
		{"markdown", citeproc.Markdown, nil},
		{"plain", citeproc.Plain, nil},
		{"footnote", citeproc.Footnote, nil},
		{"html", citeproc.HTML, nil},
		{"gothic", "", citeproc.ErrStyle},
		{"Markdown", "", citeproc.ErrStyle}, // settings are lower-cased before they are parsed; the word is exact
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := citeproc.ParseStyle(tt.in)
			if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("ParseStyle(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
			}
			if err != nil && !strings.Contains(err.Error(), "markdown, plain, footnote or html") {
				t.Errorf("the error %q does not list the styles", err)
			}
			var s citeproc.Style
			if uerr := s.UnmarshalText([]byte(tt.in)); s != tt.want || (uerr == nil) != (err == nil) {
				t.Errorf("UnmarshalText(%q) = %q, %v; want %q, %v", tt.in, s, uerr, tt.want, err)
			}
			var v struct{ S citeproc.Style }
			jerr := json.Unmarshal([]byte(`{"S":"`+tt.in+`"}`), &v)
			if v.S != tt.want || !errors.Is(jerr, tt.err) || (jerr == nil) != (err == nil) {
				t.Errorf("JSON %q = %q, %v; want %q, %v", tt.in, v.S, jerr, tt.want, tt.err)
			}
			if err == nil {
				b, _ := json.Marshal(v)
				if string(b) != `{"S":"`+tt.in+`"}` {
					t.Errorf("JSON of %q: %s", tt.want, b)
				}
			}
		})
	}
	for _, s := range citeproc.Styles {
		if got, err := citeproc.ParseStyle(string(s)); got != s || err != nil {
			t.Errorf("Styles lists %q, which ParseStyle reads as %q, %v", s, got, err)
		}
	}
}
