package citeproc

import (
	"bytes"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/source"
)

type parseStatus uint8

const (
	pNo       parseStatus = iota // not a marker
	pMore                        // cannot tell before more input
	pYes                         // a marker
	pVerbatim                    // bracket text that must not be touched (a link, a definition)
)

type markerKind uint8

const (
	kBracket     markerKind = iota // [1], [1, 2], [2-4]
	kDouble                        // [[1]]
	kProto                         // [S:1,3]
	kProtoDouble                   // [[S:1,3]]
	kFootnote                      // [^1]
	kLenticular                    // 【1】
	kFullwidth                     // ［1］
	kRef                           // [ref: URL]
	kNear                          // a near miss: a bracket of citation-like numbers that is not a citation
	kUsage                         // [[USAGE:1,3,5]]: the sources a writer used, no citation
	kSids                          // the value of a <sup class="cite"> tag's data-sids attribute: "1,3"
)

type span struct{ lo, hi int }

// marker is the parse of one citation marker. Its byte slices point into
// the processor's input and are valid only while the marker is handled.
type marker struct {
	kind   markerKind
	items  []span
	open   []byte
	close  []byte
	sep    []byte // the first separator as written, blanks included
	dash   []byte // the first range dash as written
	ranged bool   // a single item that is a range
	url    []byte
	next   []byte          // the character after the marker; nil at the end
	def    bool            // the marker is a definition's label ("[1]: …" at a line start)
	dagger bool            // OpenAI's form: 【1†source】, 【3:1†source】, [1†]
	loc    source.Location // a pinpoint: "[2, p. 7]" (see locator.go)
}

const (
	maxMarkerLen = 1024 // a numeric marker longer than this is not one
	maxItems     = 128  // nor one with more numbers than this
	maxRefLen    = 2048 // nor a [ref: URL] longer than this
	maxDigits    = 6
	maxRangeSpan = 64
	maxNearMiss  = 64 // how far a near miss's content is looked through
	// MaxNumber is the largest citation number: markers hold at most six
	// digits, and a Mapping refuses larger numbers.
	MaxNumber = 999999
)

var (
	lenticularOpen  = []byte("【")
	lenticularClose = []byte("】")
	fullwidthOpen   = []byte("［")
	fullwidthClose  = []byte("］")
)

// parse recognises a marker at the start of b. lineStart says whether only
// blanks precede it on its line (where "[1]: url" is a definition); defs
// says whether definitions are left alone (Keep and Remove; Link and
// Renumber give their labels the same numbers as the markers, so that no
// label is left pointing at a number that now means another source). On
// success m.next holds the character
// after the marker (nil at the end of the text), so that rendering can
// keep it from joining the marker into new markdown.
func (m *marker) parse(b []byte, eof, lineStart, defs bool) (int, parseStatus) {
	m.items = m.items[:0]
	m.sep, m.dash, m.url, m.ranged, m.next, m.def, m.dagger = nil, nil, nil, false, nil, false, false
	m.loc = source.Location{}
	var n int
	var st parseStatus
	switch b[0] {
	case '[':
		n, st = m.parseBracket(b, eof)
	case 0xE3:
		n, st = m.parseWide(b, eof, lenticularOpen, lenticularClose, kLenticular)
	case 0xEF:
		n, st = m.parseWide(b, eof, fullwidthOpen, fullwidthClose, kFullwidth)
	default:
		return 0, pNo
	}
	if st == pNo {
		m.items = m.items[:0]
		m.sep, m.dash, m.ranged, m.dagger = nil, nil, false, false
		m.loc = source.Location{}
		n, st = m.nearMiss(b, eof)
	}
	if st != pYes {
		return n, st
	}
	if n < len(b) {
		if !utf8.FullRune(b[n:]) && !eof {
			return 0, pMore
		}
		_, w := utf8.DecodeRune(b[n:])
		m.next = b[n : n+w]
	} else if !eof {
		return 0, pMore
	}
	m.def = lineStart && len(m.next) > 0 && m.next[0] == ':' && b[0] == '[' &&
		(m.kind == kBracket || m.kind == kFootnote || m.kind == kProto || (m.kind == kNear && len(m.open) == 1))
	if b[0] == '[' && len(m.next) > 0 {
		switch {
		case m.next[0] == '(':
			return n, pVerbatim // a markdown link: [1](https://…)
		case m.def && defs:
			return n, pVerbatim // a definition: [1]: https://…
		}
	}
	return n, pYes
}

func (m *marker) parseWide(b []byte, eof bool, open, close []byte, k markerKind) (int, parseStatus) {
	switch ok, partial := hasPrefix(b, open); {
	case partial:
		return more(eof)
	case !ok:
		return 0, pNo
	}
	// 【【1】】: doubled, like [[1]].
	switch ok, partial := hasPrefix(b[len(open):], open); {
	case partial:
		return more(eof)
	case ok:
		m.kind, m.open, m.close = k, b[:2*len(open)], doubled(close)
		return m.parseList(b, 2*len(open), m.close, eof)
	}
	m.kind, m.open, m.close = k, b[:len(open)], close
	return m.parseList(b, len(open), close, eof)
}

var (
	lenticularClose2 = []byte("】】")
	fullwidthClose2  = []byte("］］")
)

func doubled(close []byte) []byte {
	if close[0] == lenticularClose[0] && close[2] == lenticularClose[2] {
		return lenticularClose2
	}
	return fullwidthClose2
}

func (m *marker) parseBracket(b []byte, eof bool) (int, parseStatus) {
	if len(b) < 2 {
		return more(eof)
	}
	switch b[1] {
	case '[':
		if len(b) < 4 {
			return more(eof)
		}
		if (b[2] == 'S' || b[2] == 's') && b[3] == ':' {
			m.kind, m.open, m.close = kProtoDouble, b[:4], closeDouble
			return m.parseList(b, 4, closeDouble, eof)
		}
		if b[2] == 'U' || b[2] == 'u' {
			return m.parseUsage(b, eof)
		}
		m.kind, m.open, m.close = kDouble, b[:2], closeDouble
		return m.parseList(b, 2, closeDouble, eof)
	case '^':
		// [^1], and lists of them: [^1, 2], [^1,^2].
		m.kind, m.open, m.close = kFootnote, b[:2], closeSingle
		return m.parseList(b, 2, closeSingle, eof)
	case 'S', 's':
		if len(b) < 3 {
			return more(eof)
		}
		if b[2] == ':' {
			m.kind, m.open, m.close = kProto, b[:3], closeSingle
			return m.parseList(b, 3, closeSingle, eof)
		}
	case 'r', 'R':
		return m.parseRef(b, eof)
	}
	m.kind, m.open, m.close = kBracket, b[:1], closeSingle
	return m.parseList(b, 1, closeSingle, eof)
}

// parseSids parses the value of a data-sids attribute, v (the closing
// quote included), as a list of numbers: "1,3", "2-4", "1, 3".
func (m *marker) parseSids(v []byte) bool {
	m.items = m.items[:0]
	m.sep, m.dash, m.url, m.ranged, m.next, m.def, m.dagger = nil, nil, nil, false, nil, false, false
	m.loc = source.Location{}
	m.kind, m.open, m.close, m.next = kSids, v[:0], v[:0], v[len(v)-1:]
	n, st := m.parseList(v, 0, v[len(v)-1:], true)
	if st != pYes || n != len(v) || m.dagger {
		return false
	}
	m.close = v[len(v)-1 : len(v)-1]
	return true
}

// parseUsage parses seed 001's usage telemetry tag, [[USAGE:1,3,5]]
// ("usage" in any case; numbers and ranges as in any marker; none at all
// in [[USAGE:]]).
func (m *marker) parseUsage(b []byte, eof bool) (int, parseStatus) {
	const pfx = "[[usage:"
	for k := 2; k < len(pfx); k++ {
		if k == len(b) {
			return more(eof)
		}
		if lower(b[k]) != pfx[k] {
			return 0, pNo
		}
	}
	m.kind, m.open, m.close = kUsage, b[:len(pfx)], closeDouble
	i := skipBlanks(b, len(pfx))
	switch ok, partial := hasPrefix(b[i:], closeDouble); {
	case partial:
		return more(eof)
	case ok:
		return i + len(closeDouble), pYes
	}
	return m.parseList(b, len(pfx), closeDouble, eof)
}

var (
	closeSingle = []byte("]")
	closeDouble = []byte("]]")
)

func (m *marker) parseRef(b []byte, eof bool) (int, parseStatus) {
	const pfx = "ref:"
	for k := 0; k < len(pfx); k++ {
		if 1+k == len(b) {
			return more(eof)
		}
		if lower(b[1+k]) != pfx[k] {
			return 0, pNo
		}
	}
	i := skipBlanks(b, 1+len(pfx))
	if i == len(b) {
		return more(eof)
	}
	angled := b[i] == '<' // [ref: <https://…>]
	if angled {
		i++
	}
	start := i
	for i < len(b) && b[i] != ']' && b[i] != '[' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' && b[i] != '<' && b[i] != '>' {
		i++
		if i-start > maxRefLen {
			return 0, pNo
		}
	}
	if i == len(b) {
		return more(eof)
	}
	if i == start {
		return 0, pNo
	}
	url := b[start:i]
	if angled {
		if b[i] != '>' {
			return 0, pNo
		}
		i++
	}
	i = skipBlanks(b, i)
	if i == len(b) {
		return more(eof)
	}
	if b[i] != ']' {
		return 0, pNo
	}
	m.kind, m.open, m.close, m.url = kRef, b[:1], closeSingle, url
	return i + 1, pYes
}

// parseList parses "item (sep item)* close" from b[i:], where an item is a
// number or a range, optionally prefixed ("^1", "S1", "Source 1"), and
// blanks may surround items and separators. A separator may lead or trail
// ("[,2]", "[1, 2,]"). The last item may carry OpenAI's suffix: "1†source",
// "3:1†source" (the first number names the source).
func (m *marker) parseList(b []byte, i int, close []byte, eof bool) (int, parseStatus) {
	i = skipBlanks(b, i)
	if i == len(b) {
		return more(eof)
	}
	if sl, st := sepAt(b, i, eof); st == pMore {
		return more(eof)
	} else if sl > 0 && !isDigitAt(b, i) {
		i += sl // "[,2]"
	}
	for {
		if i > maxMarkerLen || len(m.items) >= maxItems {
			return 0, pNo
		}
		i = skipBlanks(b, i)
		var st parseStatus
		if i, st = itemPrefix(b, i, eof); st != pYes {
			return i, st
		}
		lo, j, st := parseNumber(b, i, eof)
		if st != pYes {
			return j, st
		}
		hi := lo
		dashed := false // the item is a range ("1-1" too)
		if len(m.items) == 0 && m.kind == kBracket {
			if e, st := m.locatorSuffix(b, j, close, eof); st != pYes {
				return e, st
			} else if e > j {
				m.items = append(m.items, span{lo, lo}) // "[2, p. 7]"
				return e + len(close), pYes
			}
		}
		if e, st := m.daggerSuffix(b, j, close, eof); st != pYes {
			return e, st
		} else if e > j {
			m.items = append(m.items, span{lo, lo})
			return e + len(close), pYes
		}
		k := skipBlanks(b, j)
		if k == len(b) {
			return more(eof)
		}
		if dl, st := dashAt(b, k, eof); st == pMore {
			return more(eof)
		} else if dl > 0 {
			e := skipBlanks(b, k+dl)
			e, st := itemPrefix(b, e, eof)
			if st != pYes {
				return e, st
			}
			v, j2, st := parseNumber(b, e, eof)
			if st != pYes {
				return j2, st
			}
			if v < lo || v-lo > maxRangeSpan {
				return 0, pNo
			}
			if m.dash == nil {
				m.dash = b[j:e]
			}
			hi, dashed = v, true
			k = skipBlanks(b, j2)
			if k == len(b) {
				return more(eof)
			}
		}
		m.items = append(m.items, span{lo, hi})
		if ok, partial := hasPrefix(b[k:], close); partial {
			return more(eof)
		} else if ok {
			m.ranged = len(m.items) == 1 && hi > lo
			return k + len(close), pYes
		}
		sl, st := sepAt(b, k, eof)
		switch {
		case st == pMore:
			return more(eof)
		case sl == 0:
			return 0, pNo
		}
		next := skipBlanks(b, k+sl)
		if b[k] != 'a' { // ", and 3"
			if al, st := andAt(b, next, eof); st == pMore {
				return more(eof)
			} else if al > 0 {
				next = skipBlanks(b, next+al)
			}
		}
		if next == len(b) {
			return more(eof)
		}
		if ok, partial := hasPrefix(b[next:], close); partial {
			return more(eof)
		} else if ok {
			m.ranged = len(m.items) == 1 && hi > lo
			return next + len(close), pYes // "[1, 2,]"
		}
		if m.sep == nil {
			m.sep = b[j:next]
			if dashed {
				m.sep = b[k:next] // not the range's dash and end: "[1-1&2]"
			}
		}
		i = next
	}
}

func isDigitAt(b []byte, i int) bool { return i < len(b) && b[i] >= '0' && b[i] <= '9' }

// itemPrefix skips an item's prefix: "^", "S" or "s" right before a digit,
// or "Source" (any case) and blanks.
func itemPrefix(b []byte, i int, eof bool) (int, parseStatus) {
	if i == len(b) {
		n, st := more(eof)
		return n, st
	}
	switch b[i] {
	case '^':
		return i + 1, pYes
	case 'S', 's':
		if i+1 == len(b) {
			n, st := more(eof)
			return n, st
		}
		if isDigitAt(b, i+1) {
			return i + 1, pYes
		}
		const w = "source"
		for k := range len(w) {
			if i+k == len(b) {
				n, st := more(eof)
				return n, st
			}
			if lower(b[i+k]) != w[k] {
				return 0, pNo
			}
		}
		j := i + len(w)
		if j == len(b) {
			n, st := more(eof)
			return n, st
		}
		if b[j] == ':' {
			j++
		}
		return skipBlanks(b, j), pYes
	}
	return i, pYes
}

// daggerSuffix recognises, at b[j] right after a number, OpenAI's suffix
// (":n" then "†" then anything up to the close) and returns where the
// close starts; j when there is none.
func (m *marker) daggerSuffix(b []byte, j int, close []byte, eof bool) (int, parseStatus) {
	k := j
	if k < len(b) && b[k] == ':' {
		k++
		for k < len(b) && b[k] >= '0' && b[k] <= '9' && k-j <= maxDigits {
			k++
		}
		if k == j+1 {
			return j, pYes
		}
	}
	switch ok, partial := hasPrefix(b[min(k, len(b)):], dagger); {
	case partial || k == len(b):
		return more(eof)
	case !ok:
		return j, pYes
	}
	for k += len(dagger); k < len(b); k++ {
		if k-j > maxMarkerLen {
			return 0, pNo
		}
		switch c := b[k]; {
		case c == '\n' || c == '\r' || c == '[' || c == ']':
			if c == ']' && close[0] == ']' {
				if ok, partial := hasPrefix(b[k:], close); partial {
					return more(eof)
				} else if ok {
					m.dagger = true
					return k, pYes
				}
			}
			return 0, pNo
		case c == close[0]:
			if ok, partial := hasPrefix(b[k:], close); partial {
				return more(eof)
			} else if ok {
				m.dagger = true
				return k, pYes
			}
		}
	}
	return more(eof)
}

var dagger = []byte("†")

// parseNumber reads 1 to maxDigits ASCII or fullwidth digits. Leading
// zeros are allowed and mean nothing ("[01]" is 1): models pad numbers,
// and dropping such a marker would delete the citation.
func parseNumber(b []byte, i int, eof bool) (v, end int, st parseStatus) {
	digits := 0
	for {
		if i == len(b) {
			if digits == 0 || !eof {
				n, st := more(eof)
				return 0, n, st
			}
			break
		}
		d := -1
		w := 1
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c == 0xEF:
			if i+3 > len(b) {
				n, st := more(eof)
				return 0, n, st
			}
			if b[i+1] == 0xBC && b[i+2] >= 0x90 && b[i+2] <= 0x99 {
				d, w = int(b[i+2]-0x90), 3
			}
		}
		if d < 0 {
			break
		}
		digits++
		if digits > maxDigits {
			return 0, 0, pNo
		}
		v = v*10 + d
		i += w
	}
	if digits == 0 {
		return 0, 0, pNo
	}
	return v, i, pYes
}

// dashAt reports the length of a range dash at b[i], or 0: "-", en and em
// dashes, the hyphen U+2010, the non-breaking hyphen U+2011 and the minus
// sign U+2212.
func dashAt(b []byte, i int, eof bool) (int, parseStatus) {
	switch b[i] {
	case '-':
		return 1, pYes
	case 0xE2:
		if i+3 > len(b) {
			return more(eof)
		}
		if (b[i+1] == 0x80 && b[i+2] >= 0x90 && b[i+2] <= 0x94 && b[i+2] != 0x92) || (b[i+1] == 0x88 && b[i+2] == 0x92) {
			return 3, pYes
		}
	}
	return 0, pYes
}

// sepAt reports the length of an item separator at b[i], or 0: "," ";"
// "&" "，" "、" or the word "and".
func sepAt(b []byte, i int, eof bool) (int, parseStatus) {
	switch b[i] {
	case ',', ';', '&':
		return 1, pYes
	case 'a', 'A':
		return andAt(b, i, eof)
	case 0xEF, 0xE3:
		if i+3 > len(b) {
			return more(eof)
		}
		if (b[i] == 0xEF && b[i+1] == 0xBC && b[i+2] == 0x8C) || (b[i] == 0xE3 && b[i+1] == 0x80 && b[i+2] == 0x81) {
			return 3, pYes
		}
	}
	return 0, pYes
}

// andAt reports the length of the word "and" followed by a blank at b[i],
// or 0.
func andAt(b []byte, i int, eof bool) (int, parseStatus) {
	const w = "and "
	for k := range len(w) {
		if i+k == len(b) {
			return more(eof)
		}
		if c := lower(b[i+k]); c != w[k] && !(k == 3 && b[i+k] == '\t') {
			return 0, pYes
		}
	}
	return 3, pYes
}

// nearMiss recognises a bracket that carries citation-like numbers but is
// no citation ("[3-1]", "[1-70]", "[1 2]", "[1234567]"): opening
// brackets, then only digits, blanks, separators, dashes, '^', ':', '†',
// '#' and the words "and", "S", "source", "ref", then as many closing
// brackets, within maxNearMiss bytes on the line and with at least one
// digit. It is reported and, in the modes that change numbers, never
// passed through. A dash that follows no digit makes a negative number
// ("[-1]", "[1, -2]"), which is prose: no near miss.
func (m *marker) nearMiss(b []byte, eof bool) (int, parseStatus) {
	opens, i := 0, 0
	for i < len(b) && opens <= 2 {
		w := bracketAt(b, i, true)
		if w < 0 {
			return more(eof)
		}
		if w == 0 {
			break
		}
		opens++
		i += w
	}
	if opens == 0 || opens > 2 {
		return 0, pNo
	}
	start := i
	digits := false
	afterDigit := false // the last character that is no blank is a digit
	for i < len(b) {
		if i-start > maxNearMiss {
			return 0, pNo
		}
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digits, afterDigit = true, true
			i++
			continue
		case c == '-' && !afterDigit:
			return 0, pNo // a negative number ("[-1]", "[1, -2]"): prose, never a citation
		case c == ' ' || c == '\t':
			i++
			continue
		case c == ',' || c == ';' || c == '&' || c == '-' || c == '^' || c == ':' || c == '#' || c == '+':
			afterDigit = false
			i++
			continue
		case c|0x20 >= 'a' && c|0x20 <= 'z':
			j := i
			for j < len(b) && b[j]|0x20 >= 'a' && b[j]|0x20 <= 'z' {
				j++
			}
			if j == len(b) {
				return more(eof)
			}
			switch string(bytes.ToLower(b[i:j])) {
			case "and", "s", "source", "sources", "ref", "refs":
				i, afterDigit = j, false
				continue
			}
			return 0, pNo
		case c >= 0x80:
			if !utf8.FullRune(b[i:]) {
				return more(eof)
			}
			r, w := utf8.DecodeRune(b[i:])
			switch {
			case r >= '０' && r <= '９':
				digits, afterDigit = true, true
				i += w
				continue
			case ((r >= 0x2010 && r <= 0x2014) || r == 0x2212) && !afterDigit:
				return 0, pNo // a negative number, with a dash or the minus sign
			case r == '†' || r == '，' || r == '、' || (r >= 0x2010 && r <= 0x2014) || r == 0x2212:
				afterDigit = false
				i += w
				continue
			}
		}
		break
	}
	if i == len(b) {
		return more(eof)
	}
	if !digits || i == start {
		return 0, pNo
	}
	end := i
	for k := 0; k < opens; k++ {
		w := bracketAt(b, i, false)
		if w < 0 {
			return more(eof)
		}
		if w == 0 {
			return 0, pNo
		}
		i += w
	}
	m.kind, m.open, m.close = kNear, b[:start], b[end:i]
	return i, pYes
}

// bracketAt reports the length of an opening (or closing) bracket at b[i]:
// [ 【 ［ (] 】 ］); 0 for none; -1 when more input is needed.
func bracketAt(b []byte, i int, open bool) int {
	if i == len(b) {
		return -1
	}
	c := byte(']')
	wide := [2][]byte{lenticularClose, fullwidthClose}
	if open {
		c, wide = '[', [2][]byte{lenticularOpen, fullwidthOpen}
	}
	if b[i] == c {
		return 1
	}
	if b[i] < utf8.RuneSelf {
		return 0
	}
	for _, w := range wide {
		if ok, partial := hasPrefix(b[i:], w); ok {
			return len(w)
		} else if partial {
			return -1
		}
	}
	return 0
}

func more(eof bool) (int, parseStatus) {
	if eof {
		return 0, pNo
	}
	return 0, pMore
}

// hasPrefix reports whether b starts with p, or whether b is a proper
// prefix of p (so more input could complete it).
func hasPrefix(b, p []byte) (ok, partial bool) {
	n := min(len(b), len(p))
	for k := 0; k < n; k++ {
		if b[k] != p[k] {
			return false, false
		}
	}
	if len(b) < len(p) {
		return false, true
	}
	return true, false
}

func skipBlanks(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
