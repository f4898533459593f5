package source

import (
	"strings"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// Location kinds: what a Location's Value counts.
const (
	// LocPage: Value is a 1-based page number of a PDF ("7").
	LocPage = "page"
	// LocSection: Value is a heading path, outermost first, joined by
	// SectionSep ("Returns › Refunds").
	LocSection = "section"
	// LocRow: Value is a row number as a spreadsheet shows it, the header
	// being row 1 ("12"); Part names the sheet of a workbook.
	LocRow = "row"
	// LocSlide: Value is a 1-based slide number of a presentation ("3").
	LocSlide = "slide"
	// LocLines: Value is a 1-based line range of a text file ("45-49", "4").
	LocLines = "lines"
)

// SectionSep joins the headings of a LocSection path.
const SectionSep = " › "

// Location is where in its document a passage sits, so that a citation can
// point inside the document: a page, a section, a row, a slide. The zero
// Location is the whole document.
//
// Location is comparable: two sources are the same source only if their
// locations are equal too.
type Location struct {
	// Kind is one of LocPage, LocSection, LocRow, LocSlide, LocLines.
	Kind string `json:"kind"`
	// Value is the page, heading path, row, slide or line range, as the
	// Kind says.
	Value string `json:"value"`
	// Part names the part of the document Value counts within, where the
	// document has several: a workbook's sheet. Empty for most documents.
	Part string `json:"part,omitempty"`
}

// IsZero reports whether l is the whole document.
func (l Location) IsZero() bool { return l == Location{} }

// String is the location for readers, cleaned of control characters:
// "p. 7", "Returns › Refunds", "row 12" ("Prices, row 12" with a sheet),
// "slide 3", "lines 45-49" ("line 4"); "" for the whole document.
func (l Location) String() string {
	v := sourcetext.Clean(l.Value)
	var s string
	switch l.Kind {
	case "":
		return sourcetext.Clean(l.Part)
	case LocPage:
		s = "p. " + v
	case LocSection:
		s = v
	case LocRow:
		s = "row " + v
	case LocSlide:
		s = "slide " + v
	case LocLines:
		if strings.ContainsAny(v, "-–") {
			s = "lines " + v
		} else {
			s = "line " + v
		}
	default:
		s = strings.TrimSpace(sourcetext.Clean(l.Kind) + " " + v)
	}
	if p := sourcetext.Clean(l.Part); p != "" {
		s = p + ", " + s
	}
	return s
}

// Locate appends the location to a label naming its document: a section
// path after " › " ("faq.md › Returns"), any other location after a comma
// ("spec.pdf, p. 7", "catalog.csv, row 12"). The whole document adds
// nothing.
func (l Location) Locate(label string) string {
	where := l.String()
	switch {
	case where == "":
		return label
	case label == "":
		return where
	case l.Kind == LocSection && l.Part == "":
		return label + SectionSep + where
	}
	return label + ", " + where
}

// Unit reports whether l is a page, a row or a slide: a unit of the
// document that a citation points to on its own. Passages at different
// units are different sources; a section or a line range is not a unit
// (a document's sections are cited as one source).
func (l Location) Unit() bool {
	switch l.Kind {
	case LocPage, LocRow, LocSlide:
		return l.Value != ""
	}
	return false
}

// Key is the part of a source's identity that its location adds: "" for
// the whole document and for a location that is not a Unit, else
// "#kind:part:value". Passages of one document at different pages, rows
// or slides are different sources, so that each citation points where its
// words are and is checked against that passage's text.
func (l Location) Key() string {
	if !l.Unit() {
		return ""
	}
	return "#" + l.Kind + ":" + l.Part + ":" + l.Value
}

// In returns the part of a document's extracted text (search.Result's
// Text) that the unit l (a page, slide or row; see Unit) holds, as the
// extractors mark their units in the text: a page from its
// "--- page N ---" line to the next page's, a slide from its
// "--- slide N: …" line likewise, a row its line "row N: …"
// ("Sheet, row N: …"). It reports false when the text has no such unit,
// and for a section, a line range or the whole document.
func (l Location) In(text string) (string, bool) {
	var start, next string
	switch l.Kind {
	case LocPage:
		start, next = "--- page "+l.Value+" ---\n", "\n--- page "
	case LocSlide:
		start, next = "--- slide "+l.Value+": ", "\n--- slide "
	case LocRow:
		prefix := l.String() + ": "
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
