package source

import "strings"

// UnitText returns the part of a document's Text that the unit loc (a
// page, slide or row; see Location.Unit) holds, as extract.FromPages,
// extract.ExtractBytes and the table readers mark their units in Text: a page
// from its "--- page N ---" line to the next page's, a slide likewise, a
// row its line "row N: …" ("Sheet, row N: …"). It reports false when
// the text has no such unit.
func UnitText(text string, loc Location) (string, bool) {
	var start, next string
	switch loc.Kind {
	case LocPage:
		start, next = "--- page "+loc.Value+" ---\n", "\n--- page "
	case LocSlide:
		start, next = "--- slide "+loc.Value+": ", "\n--- slide "
	case LocRow:
		prefix := loc.String() + ": "
		for line := range strings.SplitSeq(text, "\n") {
			if strings.HasPrefix(line, prefix) {
				return line, true
			}
		}
		return "", false
	default:
		return "", false
	}
	i := -1
	if strings.HasPrefix(text, start) {
		i = 0
	} else if j := strings.Index(text, "\n"+start); j >= 0 {
		i = j + 1
	}
	if i < 0 {
		return "", false
	}
	unit := text[i:]
	if j := strings.Index(unit[len(start):], next); j >= 0 {
		unit = unit[:len(start)+j]
	}
	return strings.TrimSpace(unit), true
}
