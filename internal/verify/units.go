package verify

import (
	"strings"

	"github.com/deepresearch/deepresearch/internal/source"
)

// unitsOfOne reports whether a and b are one document at two different
// pages, rows or slides.
func unitsOfOne(a, b Source) bool {
	return a.ID == b.ID && a.URL == b.URL && a.Location.Unit() && b.Location.Unit() && a.Location != b.Location
}

// source returns what citation number n at pinpoint loc is checked
// against: for a reference cited at several units, the unit loc names (a
// unit never read is none), or with no pinpoint all of them, their texts
// together; else the source numbered n.
func (c *checker) source(n int, loc source.Location) (Source, bool) {
	units := c.units[n]
	if len(units) == 0 {
		s, ok := c.sources[n]
		return s, ok
	}
	if !loc.IsZero() {
		for _, u := range units {
			if u.Location.Kind == loc.Kind && u.Location.Value == loc.Value {
				return u, true
			}
		}
		return Source{}, false
	}
	all := units[0]
	all.Location = source.Location{}
	var texts []string
	for _, u := range units {
		texts = append(texts, u.Text)
	}
	all.Text = strings.Join(texts, "\n\n")
	return all, true
}
