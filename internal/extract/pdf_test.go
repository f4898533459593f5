package extract

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/source"
)

func TestFromPagesRepairs(t *testing.T) {
	tests := []struct {
		name  string
		pages []string
		want  []string // passages as "location: body"
	}{
		{
			"ligatures",
			[]string{"The ﬁrst ﬂoor is oﬀ limits and the ﬃrm is eﬄuent."},
			[]string{"p. 1: The first floor is off limits and the ffirm is effluent."},
		},
		{
			"PDFium's hyphen marker joins the word",
			[]string{"Whitehouse applied two thousand volts and improv\x02ing the signal failed."},
			[]string{"p. 1: Whitehouse applied two thousand volts and improving the signal failed."},
		},
		{
			"soft hyphen at a line end",
			[]string{"the insu\u00ad\nlation broke"},
			[]string{"p. 1: the insulation broke"},
		},
		{
			"a hard hyphen at a line end stays, without a space",
			[]string{"a 32-\nbit counter and a well-\nknown bug"},
			[]string{"p. 1: a 32-bit counter and a well-known bug"},
		},
		{
			"hyphen before a capital is not a broken word",
			[]string{"the range 1-\nNorth side"},
			[]string{"p. 1: the range 1- North side"},
		},
		{
			"page numbers alone on a line are dropped at the edges",
			[]string{"- 3 -\nSome text of the page.\nPage 3 of 9"},
			[]string{"p. 1: Some text of the page."},
		},
		{
			"running headers and footers on three pages are dropped, digits aside",
			[]string{
				"Cable Handbook, chapter 1\nFirst page text.\nPrinted 2024",
				"Cable Handbook, chapter 2\nSecond page text.\nPrinted 2024",
				"Cable Handbook, chapter 3\nThird page text.\nPrinted 2024",
			},
			[]string{"p. 1: First page text.", "p. 2: Second page text.", "p. 3: Third page text."},
		},
		{
			"a line repeated on two pages only is kept",
			[]string{"Note\nFirst.", "Note\nSecond."},
			[]string{"p. 1: Note First.", "p. 2: Note Second."},
		},
		{
			"empty pages are skipped, pages keep their numbers",
			[]string{"", "  \n ", "Only the third page has text."},
			[]string{"p. 3: Only the third page has text."},
		},
		{
			"control characters and escape sequences go",
			[]string{"red\x1b[31m text\x07 here"},
			[]string{"p. 1: red text here"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FromPages("x.pdf", "", tt.pages)
			var got []string
			for _, p := range Split(&d) {
				if p.Loc.Kind != source.LocPage || p.Location != p.Loc.String() {
					t.Errorf("location %+v (%q)", p.Loc, p.Location)
				}
				got = append(got, p.Location+": "+p.Body)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("passages\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestFromPagesParagraphsAndTitle(t *testing.T) {
	full := "This line is as long as the lines of this page usually are, and"
	page := strings.Join([]string{
		full, "it goes on here as long as the other lines of this page go on.", "Short end.",
		"• A list item", "• Another item",
		full, "and a last line that ends the page.",
	}, "\n")
	d := FromPages("docs/spec.pdf", "Untitled", []string{page})
	if d.Title != "spec.pdf" {
		t.Errorf("title %q, want the file name for a placeholder title", d.Title)
	}
	ps := Split(&d)
	if len(ps) != 1 {
		t.Fatalf("%d passages", len(ps))
	}
	paras := strings.Split(ps[0].Body, "\n\n")
	want := []string{
		full + " it goes on here as long as the other lines of this page go on. Short end.",
		"• A list item", "• Another item",
		full + " and a last line that ends the page.",
	}
	if !slices.Equal(paras, want) {
		t.Errorf("paragraphs\n%q\nwant\n%q", paras, want)
	}
	if !strings.HasPrefix(d.Text, "--- page 1 ---\n") {
		t.Errorf("text does not mark the page: %q", d.Text[:min(40, len(d.Text))])
	}
	if d := FromPages("a.pdf", "Cable Handbook", []string{"x"}); d.Title != "Cable Handbook" {
		t.Errorf("metadata title %q", d.Title)
	}
}

func TestUnitText(t *testing.T) {
	pdf := FromPages("a.pdf", "", []string{"One.", "Two.\nMore two.", "Three."})
	rows, err := ExtractBytes(context.Background(), "c.csv", []byte("a,b\n1,2\n3,4\n"), FormatCSV, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		loc  source.Location
		want string
		ok   bool
	}{
		{pdf.Text, source.Location{Kind: source.LocPage, Value: "1"}, "--- page 1 ---\nOne.", true},
		{pdf.Text, source.Location{Kind: source.LocPage, Value: "2"}, "--- page 2 ---\nTwo.\n\nMore two.", true},
		{pdf.Text, source.Location{Kind: source.LocPage, Value: "3"}, "--- page 3 ---\nThree.", true},
		{pdf.Text, source.Location{Kind: source.LocPage, Value: "4"}, "", false},
		{rows.Text, source.Location{Kind: source.LocRow, Value: "3"}, "row 3: a: 3; b: 4", true},
		{rows.Text, source.Location{Kind: source.LocSection, Value: "x"}, "", false},
		{"--- slide 1: A ---\nx\n\n--- slide 2: B ---\ny", source.Location{Kind: source.LocSlide, Value: "2"}, "--- slide 2: B ---\ny", true},
	}
	for _, tt := range tests {
		got, ok := tt.loc.In(tt.text)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%+v: %q %v, want %q %v", tt.loc, got, ok, tt.want, tt.ok)
		}
	}
}
