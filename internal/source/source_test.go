package source

import "testing"

func TestLabel(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  Source
		want string
	}{
		{"title", Source{ID: "w1", URL: "https://e.org/a", Title: "  Spaced\n title "}, "Spaced title"},
		{"no title", Source{ID: "corpus/a.md"}, "corpus/a.md"},
		{"no url names the id", Source{ID: "corpus/notes.md", Title: "Field notes"}, "Field notes. corpus/notes.md"},
		{"title equals id", Source{ID: "notes", Title: "notes"}, "notes"},
		{"escape sequences", Source{ID: "x", URL: "https://e.org", Title: "Red\x1b[31m text\u009b"}, "Red[31m text"},
		{"page", Source{ID: "spec.pdf", URL: "file:///c/spec.pdf", Title: "spec.pdf", Location: Location{Kind: LocPage, Value: "7"}}, "spec.pdf, p. 7"},
		{"section", Source{ID: "faq.md", URL: "file:///c/faq.md", Title: "faq.md", Location: Location{Kind: LocSection, Value: "Returns"}}, "faq.md › Returns"},
		{"row", Source{ID: "catalog.csv", URL: "file:///c/catalog.csv", Title: "catalog.csv", Location: Location{Kind: LocRow, Value: "12"}}, "catalog.csv, row 12"},
		{"row of a sheet", Source{ID: "b.xlsx", URL: "file:///c/b.xlsx", Title: "b.xlsx", Location: Location{Kind: LocRow, Value: "3", Part: "Prices"}}, "b.xlsx, Prices, row 3"},
		{"slide", Source{ID: "d.pptx", URL: "file:///c/d.pptx", Title: "Deck", Location: Location{Kind: LocSlide, Value: "4"}}, "Deck, slide 4"},
		{"lines", Source{ID: "n.txt", URL: "file:///c/n.txt", Title: "n", Location: Location{Kind: LocLines, Value: "45-49"}}, "n, lines 45-49"},
		{"one line", Source{ID: "n.txt", URL: "file:///c/n.txt", Title: "n", Location: Location{Kind: LocLines, Value: "4"}}, "n, line 4"},
		{"after the id", Source{ID: "corpus/notes.md", Title: "Field notes", Location: Location{Kind: LocSection, Value: "A › B"}}, "Field notes. corpus/notes.md › A › B"},
		{"location without title", Source{ID: "x.pdf", Location: Location{Kind: LocPage, Value: "2"}}, "x.pdf, p. 2"},
		{"control characters in a location", Source{ID: "x", URL: "https://e.org", Title: "T", Location: Location{Kind: LocSection, Value: "A\x1b[2J\nB"}}, "T › A[2J B"},
	} {
		if got := tc.src.Label(); got != tc.want {
			t.Errorf("%s: Label() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLocationString(t *testing.T) {
	for _, tc := range []struct {
		loc  Location
		want string
	}{
		{Location{}, ""},
		{Location{Kind: LocPage, Value: "12"}, "p. 12"},
		{Location{Kind: LocRow, Value: "2", Part: "Sheet1"}, "Sheet1, row 2"},
		{Location{Kind: "paragraph", Value: "3"}, "paragraph 3"},
		{Location{Kind: LocLines, Value: "1–3"}, "lines 1–3"},
	} {
		if got := tc.loc.String(); got != tc.want {
			t.Errorf("%+v: String() = %q, want %q", tc.loc, got, tc.want)
		}
		if tc.loc.IsZero() != (tc.want == "") {
			t.Errorf("%+v: IsZero() = %v", tc.loc, tc.loc.IsZero())
		}
	}
}

func TestLocationKey(t *testing.T) {
	for _, tc := range []struct {
		loc  Location
		want string
	}{
		{Location{}, ""},
		{Location{Kind: LocPage, Value: "7"}, "#page::7"},
		{Location{Kind: LocRow, Value: "3", Part: "Prices"}, "#row:Prices:3"},
		{Location{Kind: LocSlide, Value: "2"}, "#slide::2"},
		{Location{Kind: LocSection, Value: "A › B"}, ""},
		{Location{Kind: LocLines, Value: "4-9"}, ""},
		{Location{Kind: LocPage}, ""},
	} {
		if got := tc.loc.Key(); got != tc.want {
			t.Errorf("%+v: Key() = %q, want %q", tc.loc, got, tc.want)
		}
		if tc.loc.Unit() != (tc.want != "") {
			t.Errorf("%+v: Unit() = %v", tc.loc, tc.loc.Unit())
		}
	}
}
