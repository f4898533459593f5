package citeproc_test

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/source"
)

// One document cited at two pages, numbered as one reference (FirstCited
// compares URLs): every rendering says which page each citation points
// to, and read back, each pinpoint resolves to its page — the link from a
// marker to its page survives renumbering, in every chunking.
func TestPinpointsRoundTrip(t *testing.T) {
	const in = "Weights go to 100 [12]. Magic comes first [13]. Both [12, 13], [1][12] and [13][1]. Again [12]."
	for _, style := range []citeproc.Style{citeproc.Plain, citeproc.Markdown, citeproc.HTML} {
		for _, sp := range splitters {
			var out strings.Builder
			p := citeproc.New(&out, citeproc.Config{Mode: citeproc.Link, Style: style, Mapping: testMapping(t), Numberer: citeproc.FirstCited()})
			for _, c := range sp.split(in) {
				p.WriteString(c)
			}
			p.Close()
			var cited []string
			renumbered := citeproc.NewMapping(nil)
			for _, c := range p.Cited() {
				cited = append(cited, fmt.Sprintf("%d@%s", c.Display, c.Source.Location))
				if err := renumbered.Add(c.Display, c.Source); err != nil {
					t.Fatal(err)
				}
			}
			if want := "[1@p. 4 1@p. 7 2@]"; fmt.Sprint(cited) != want {
				t.Fatalf("style %s %s: cited %v, want %s", style, sp.name, cited, want)
			}
			if style != citeproc.Plain {
				continue // links and superscripts are read by verify, not by the processor
			}
			if want := "Weights go to 100 [1, p. 4]. Magic comes first [1, p. 7]. Both [1, p. 4][1, p. 7], [2][1, p. 4] and [1, p. 7][2]. Again [1, p. 4]."; out.String() != want {
				t.Fatalf("%s: %q\nwant %q", sp.name, out.String(), want)
			}
			var reread []string
			q := citeproc.New(io.Discard, citeproc.Config{Mode: citeproc.Keep, Mapping: renumbered, Hooks: citeproc.Hooks{
				Marker: func(m citeproc.Marker) { reread = append(reread, fmt.Sprintf("%v@%s", m.Numbers, m.Locator)) },
			}})
			q.WriteString(out.String())
			q.Close()
			want := []string{"[1]@p. 4", "[1]@p. 7", "[1]@p. 4", "[1]@p. 7", "[2]@", "[1]@p. 4", "[1]@p. 7", "[2]@", "[1]@p. 4"}
			if !slices.Equal(reread, want) || len(q.Unknowns()) > 0 {
				t.Fatalf("%s: read back %v (unknown %v), want %v", sp.name, reread, q.Unknowns(), want)
			}
		}
	}
}

// A number bound to one document at several units: a pinpoint resolves
// to its unit, a plain marker to the document, and a unit that was never
// bound to nothing; a number bound to a whole document takes any
// pinpoint. Binding another document under a number stays an error.
func TestMappingUnits(t *testing.T) {
	page := func(id, p string) citeproc.Source {
		return citeproc.Source{ID: id, URL: "file:///c/" + id, Title: id, Location: source.Location{Kind: source.LocPage, Value: p}}
	}
	m := citeproc.NewMapping(nil)
	for _, s := range []citeproc.Source{page("a.pdf", "4"), page("a.pdf", "7"), page("a.pdf", "7")} {
		if err := m.Add(1, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Add(1, page("b.pdf", "4")); err == nil {
		t.Error("another document under number 1")
	}
	if err := m.Add(2, citeproc.Source{ID: "whole.pdf"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n    int
		loc  source.Location
		want string
	}{
		{1, source.Location{Kind: source.LocPage, Value: "7"}, "a.pdf p. 7 true"},
		{1, source.Location{Kind: source.LocPage, Value: "9"}, " false"},
		{1, source.Location{Kind: source.LocRow, Value: "4"}, " false"},
		{2, source.Location{Kind: source.LocSlide, Value: "3"}, "whole.pdf slide 3 true"},
		{3, source.Location{Kind: source.LocPage, Value: "1"}, " false"},
	} {
		s, ok := m.LookupAt(tc.n, tc.loc)
		if got := strings.TrimSpace(s.ID+" "+s.Location.String()) + " " + fmt.Sprint(ok); got != tc.want {
			t.Errorf("LookupAt(%d, %v) = %q, want %q", tc.n, tc.loc, got, tc.want)
		}
	}
	if s, ok := m.Lookup(1); !ok || s.ID != "a.pdf" || !s.Location.IsZero() {
		t.Errorf("Lookup(1) = %+v %v, want the document", s, ok)
	}
}
