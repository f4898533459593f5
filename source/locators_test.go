package source

import "testing"

func TestLabelAt(t *testing.T) {
	page := func(v string) Location { return Location{Kind: LocPage, Value: v} }
	row := func(part, v string) Location { return Location{Kind: LocRow, Value: v, Part: part} }
	pdf := Source{ID: "spec.pdf", URL: "file:///c/spec.pdf", Title: "spec.pdf"}
	for _, tc := range []struct {
		name string
		src  Source
		locs []Location
		want string
	}{
		{"two pages", pdf, []Location{page("7"), page("4")}, "spec.pdf, pp. 4, 7"},
		{"numeric order", pdf, []Location{page("10"), page("9"), page("10")}, "spec.pdf, pp. 9, 10"},
		{"one page", pdf, []Location{page("7")}, "spec.pdf, p. 7"},
		{"none", pdf, nil, "spec.pdf"},
		{"rows of a sheet", Source{ID: "b.xlsx", URL: "file:///c/b.xlsx", Title: "b.xlsx"}, []Location{row("Prices", "5"), row("Prices", "3")}, "b.xlsx, Prices, rows 3, 5"},
		{"rows", Source{ID: "c.csv", Title: "c.csv"}, []Location{row("", "12"), row("", "3")}, "c.csv, rows 3, 12"},
		{"slides", Source{ID: "d.pptx", URL: "file:///c/d.pptx", Title: "Deck"}, []Location{{Kind: LocSlide, Value: "2"}, {Kind: LocSlide, Value: "5"}}, "d.pptx — Deck, slides 2, 5"},
		{"control characters", pdf, []Location{page("4\x1b[2J"), page("7")}, "spec.pdf, pp. 4[2J, 7"},
	} {
		if got := tc.src.LabelAt(tc.locs); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
