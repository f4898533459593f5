package source

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// plural names several units of one kind for readers.
var plural = map[string]string{LocPage: "pp.", LocRow: "rows", LocSlide: "slides"}

// Locators names several locations of one document for readers, by
// kind, each kind once: "pp. 4, 7", "rows 3, 12", "slides 2, 5", "p. 4;
// rows 2, 3" (a workbook's sheet once first: "Prices, rows 3, 5"). Page,
// row and slide numbers are sorted; repeats are dropped. One location is
// its String.
func Locators(locs []Location) string {
	locs = slices.Clone(locs)
	slices.SortStableFunc(locs, func(a, b Location) int {
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Part, b.Part); c != 0 {
			return c
		}
		x, ex := strconv.Atoi(a.Value)
		y, ey := strconv.Atoi(b.Value)
		if ex != nil || ey != nil {
			return strings.Compare(a.Value, b.Value)
		}
		return x - y
	})
	locs = slices.Compact(locs)
	if len(locs) == 1 {
		return locs[0].String()
	}
	var groups []string
	for i := 0; i < len(locs); {
		j := i + 1
		for j < len(locs) && locs[j].Kind == locs[i].Kind && locs[j].Part == locs[i].Part && plural[locs[i].Kind] != "" {
			j++
		}
		if j-i == 1 {
			groups = append(groups, locs[i].String())
			i = j
			continue
		}
		vals := make([]string, 0, j-i)
		for _, l := range locs[i:j] {
			vals = append(vals, sourcetext.Clean(l.Value))
		}
		g := plural[locs[i].Kind] + " " + strings.Join(vals, ", ")
		if p := sourcetext.Clean(locs[i].Part); p != "" {
			g = p + ", " + g
		}
		groups = append(groups, g)
		i = j
	}
	return strings.Join(groups, "; ")
}

// LabelAt is Label for a source cited at several locations of its
// document: "spec.pdf, pp. 4, 7". With one location or none it is the
// Label of the source at that location.
func (s Source) LabelAt(locs []Location) string {
	switch len(locs) {
	case 0:
		return s.Label()
	case 1:
		s.Location = locs[0]
		return s.Label()
	}
	return s.document() + ", " + Locators(locs)
}
