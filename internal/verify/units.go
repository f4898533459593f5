package verify

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/deepresearch/deepresearch/source"
)

// unitsOfOne reports whether a and b are one document at two different
// pages, rows or slides.
func unitsOfOne(a, b Source) bool {
	return a.ID == b.ID && a.URL == b.URL && a.Location.Unit() && b.Location.Unit() && a.Location != b.Location
}

// source returns what citation number n at pinpoint loc is checked
// against: for a reference cited at several units, the unit loc names, or
// with no pinpoint all of them, their texts together; for a source read
// at one unit, that unit when loc names it or names none; for a whole
// document, the unit loc names when its text marks units (see
// source.Location.In), else the whole. ok is false when no source has
// number n; bad says why when the source has no such page, row or slide
// (a locator outside its source: a problem of its own).
func (c *checker) source(n int, loc source.Location) (src Source, ok bool, bad string) {
	units := c.units[n]
	if len(units) == 0 {
		s, ok := c.sources[n]
		if !ok || loc.IsZero() {
			return s, ok, ""
		}
		if s.Location.Unit() {
			if sameUnit(s.Location, loc) {
				return s, true, ""
			}
			return Source{}, false, fmt.Sprintf("source [%d] (%s) has no %s: it was read at %s", n, name(s), loc, s.Location)
		}
		text := c.judged[n]
		if unit, found := loc.In(text); found {
			s.Text, s.Location = unit, loc
			return s, true, ""
		}
		if why := outside(s, text, loc); why != "" {
			return Source{}, false, fmt.Sprintf("source [%d] (%s) has no %s: %s", n, name(s), loc, why)
		}
		return s, true, ""
	}
	if !loc.IsZero() {
		for _, u := range units {
			if sameUnit(u.Location, loc) {
				return u, true, ""
			}
		}
		locs := make([]source.Location, len(units))
		for i, u := range units {
			locs[i] = u.Location
		}
		return Source{}, false, fmt.Sprintf("source [%d] (%s) has no %s: it was read at %s", n, name(units[0]), loc, source.Locators(locs))
	}
	all := units[0]
	all.Location = source.Location{}
	var texts []string
	for _, u := range units {
		texts = append(texts, u.Text)
	}
	all.Text = strings.Join(texts, "\n\n")
	return all, true, ""
}

// sameUnit reports whether a pinpoint names the unit a source was read
// at (the sheet aside: a pinpoint names none).
func sameUnit(at, pin source.Location) bool {
	return at.Kind == pin.Kind && at.Value == pin.Value
}

// outside says why a whole document's text has no unit loc, as far as the
// text tells: pages or slides its text marks, but not that one; a row
// beyond the rows its text marks, or beyond the lines of a CSV or TSV
// file read as it is (the header is row 1). "" when the text cannot tell.
func outside(s Source, text string, loc source.Location) string {
	marks := map[string]string{source.LocPage: "--- page ", source.LocSlide: "--- slide "}
	if m := marks[loc.Kind]; m != "" {
		if strings.HasPrefix(text, m) || strings.Contains(text, "\n"+m) {
			return "its text marks no such " + map[string]string{source.LocPage: "page", source.LocSlide: "slide"}[loc.Kind]
		}
		return ""
	}
	if loc.Kind != source.LocRow {
		return ""
	}
	row, err := strconv.Atoi(loc.Value)
	if err != nil {
		return ""
	}
	if rowLineRe.MatchString(text) {
		return "its text marks no such row"
	}
	table := false
	for _, p := range []string{s.ID, s.URL} {
		ext := strings.ToLower(path.Ext(p))
		table = table || ext == ".csv" || ext == ".tsv"
	}
	if !table {
		return ""
	}
	lines := 0
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) != "" {
			lines++
		}
	}
	if row > lines || row < 1 {
		return fmt.Sprintf("it has %s, the header being row 1", plural(lines, "row"))
	}
	return ""
}

// rowLineRe finds a row as the table readers mark it in a text: "row 3: …"
// or "Sheet, row 3: …" at the start of a line.
var rowLineRe = regexp.MustCompile(`(?m)^(?:[^\n,]*, )?row \d+: `)
