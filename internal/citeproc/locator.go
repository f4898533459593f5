package citeproc

import (
	"strconv"

	"github.com/deepresearch/deepresearch/source"
)

// A pinpoint names the page, row or slide of its source a citation points
// to: "[2, p. 7]", "[2, row 12]", "[2, slide 3]" (one number, then a
// comma, the unit and its number). Link mode writes one for every citation
// of a source located at such a unit, so that when one document is one
// reference cited at several pages (finalreport numbers by document), each
// marker still says which; reading it back resolves the citation to that
// page (Mapping.LookupAt). The sheet of a workbook's row is not written:
// it is part of the reference, not the pinpoint.
var pinpoints = []struct {
	word string
	kind string
}{
	{"p.", source.LocPage},
	{"row", source.LocRow},
	{"slide", source.LocSlide},
}

// pin is the pinpoint of loc ("p. 7"), or "" when loc is no unit.
func pin(loc source.Location) string {
	if !loc.Unit() {
		return ""
	}
	return source.Location{Kind: loc.Kind, Value: loc.Value}.String()
}

// locatorSuffix recognises, at b[j] right after a bracket marker's first
// number, a pinpoint (", p. 7", ", row 12", ", slide 3") followed by the
// close, and returns where the close starts; j when there is none.
func (m *marker) locatorSuffix(b []byte, j int, close []byte, eof bool) (int, parseStatus) {
	k := skipBlanks(b, j)
	if k == len(b) {
		return more(eof)
	}
	if b[k] != ',' {
		return j, pYes
	}
	k = skipBlanks(b, k+1)
	if k == len(b) {
		return more(eof)
	}
	kind := ""
	for _, p := range pinpoints {
		ok, partial := hasPrefix(b[k:], []byte(p.word))
		if partial {
			return more(eof)
		}
		if ok {
			kind, k = p.kind, k+len(p.word)
			break
		}
	}
	if kind == "" {
		return j, pYes
	}
	d := skipBlanks(b, k)
	if d == len(b) {
		return more(eof)
	}
	if d == k && kind != source.LocPage {
		return j, pYes // "row12": no pinpoint
	}
	v, e, st := parseNumber(b, d, eof)
	switch st {
	case pMore:
		return e, st
	case pNo:
		return j, pYes
	}
	e = skipBlanks(b, e)
	if e == len(b) {
		return more(eof)
	}
	switch ok, partial := hasPrefix(b[e:], close); {
	case partial:
		return more(eof)
	case !ok:
		return j, pYes
	}
	m.loc = source.Location{Kind: kind, Value: strconv.Itoa(v)}
	return e, pYes
}

// appendPin writes ", p. 7" after a citation's number when the marker
// shows pinpoints: in Link mode for every citation at a unit, in Renumber
// mode when the marker had one.
func (r *renderer) appendPin(c Citation) {
	switch {
	case r.mode == Link:
	case r.mode == Renumber && !r.c.loc.IsZero():
	default:
		return
	}
	if p := pin(c.Source.Location); p != "" {
		r.out = append(r.out, ", "...)
		r.out = append(r.out, p...)
	}
}

// pinned reports whether a citation of g shows a pinpoint: then Plain
// writes each in brackets of its own ("[1][2, p. 7]").
func (r *renderer) pinned(g []Citation) bool {
	if r.mode != Link {
		return false
	}
	for _, c := range g {
		if pin(c.Source.Location) != "" {
			return true
		}
	}
	return false
}

// citeKey is a citation's identity in the output: its display number and
// where in the source it points.
type citeKey struct {
	display int
	loc     source.Location
}

func keyOf(c Citation) citeKey { return citeKey{c.Display, c.Source.Location} }
