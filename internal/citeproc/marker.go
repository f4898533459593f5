package citeproc

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/mdtext"
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
	next   []byte // the character after the marker; nil at the end
	def    bool   // the marker is a definition's label ("[1]: …" at a line start)
	dagger bool   // OpenAI's form: 【1†source】, 【3:1†source】, [1†]
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
			hi = v
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
			if hi > lo {
				m.sep = b[k:next]
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

// parseNumber reads 1 to maxDigits ASCII or fullwidth digits, not
// starting with zero (but "0" itself is a number).
func parseNumber(b []byte, i int, eof bool) (v, end int, st parseStatus) {
	digits := 0
	lead0 := false
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
		if lead0 {
			return 0, 0, pNo // "01"
		}
		if digits == 0 && d == 0 {
			lead0 = true
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
// no citation ("[3-1]", "[01]", "[1-70]", "[1 2]", "[1234567]"): opening
// brackets, then only digits, blanks, separators, dashes, '^', ':', '†',
// '#' and the words "and", "S", "source", "ref", then as many closing
// brackets, within maxNearMiss bytes on the line and with at least one
// digit. It is reported and, in the modes that change numbers, never
// passed through.
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
	for i < len(b) {
		if i-start > maxNearMiss {
			return 0, pNo
		}
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
			i++
			continue
		case c == ' ' || c == '\t' || c == ',' || c == ';' || c == '&' || c == '-' || c == '^' || c == ':' || c == '#' || c == '+':
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
				i = j
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
				digits = true
				i += w
				continue
			case r == '†' || r == '，' || r == '、' || (r >= 0x2010 && r <= 0x2014) || r == 0x2212:
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

// marker acts on a recognised marker according to the mode. Facts are
// reported before any text of the marker is output.
func (p *Processor) marker(raw []byte) {
	m := &p.m
	p.group = p.group[:0]
	switch m.kind {
	case kNear:
		p.reportUnknown(Unknown{Marker: string(raw)})
	case kRef:
		if n, src, ok := p.mapping.LookupURL(string(m.url)); ok {
			p.resolve(n, src)
		} else {
			p.reportUnknown(Unknown{URL: string(m.url)})
		}
	default:
		for _, it := range m.items {
			for v := it.lo; v <= it.hi; v++ {
				if src, ok := p.mapping.Lookup(v); ok {
					p.resolve(v, src)
				} else {
					p.reportUnknown(Unknown{Number: v})
				}
			}
		}
	}
	if p.hooks.Marker != nil {
		p.markerFact(raw)
	}
	switch {
	case p.mode == Keep:
		p.put(raw)
	case p.mode == Remove || len(p.group) == 0:
		p.drop(raw)
	case p.afterShown && p.repeatsShown():
		// "[1][2]" where both are one resource: shown once already.
	case p.mode == Link:
		p.renderLink()
		p.noteShown()
	default:
		p.renderRenumbered()
		p.noteShown()
	}
}

// markerFact reports the marker being handled to the Marker hook.
func (p *Processor) markerFact(raw []byte) {
	m := &p.m
	f := Marker{Offset: p.markerAt, Len: len(raw)}
	if m.kind == kRef {
		f.URL = string(m.url)
	} else {
		p.nums = p.nums[:0]
		for _, it := range m.items {
			for v := it.lo; v <= it.hi; v++ {
				p.nums = append(p.nums, v)
			}
		}
		f.Numbers = p.nums
	}
	p.flush(false)
	p.hooks.Marker(f)
}

// resolve records that number v resolved to src and adds it to the
// current group, once per display number.
func (p *Processor) resolve(v int, src Source) {
	d := v
	if p.number != nil && p.mode != Keep {
		d = p.number.Display(v, src)
	}
	for _, c := range p.group {
		if c.Display == d {
			return
		}
	}
	c := Citation{Number: v, Display: d, Source: src}
	if k, seen := p.citedIdx[d]; seen {
		// One display number shows one source (and so one URL)
		// everywhere: in the text, the facts and the lists.
		c.Source = p.cited[k].Source
		p.group = append(p.group, c)
		return
	}
	p.group = append(p.group, c)
	p.citedIdx[d] = len(p.cited)
	p.cited = append(p.cited, c)
	if p.hooks.Citation != nil {
		p.flush(false)
		p.hooks.Citation(c)
	}
}

func (p *Processor) reportUnknown(u Unknown) {
	switch {
	case u.Marker != "":
		if _, seen := p.unknownURL["\x00"+u.Marker]; seen {
			return
		}
		if p.unknownURL == nil {
			p.unknownURL = map[string]struct{}{}
		}
		p.unknownURL["\x00"+u.Marker] = struct{}{}
	case u.URL != "":
		if _, seen := p.unknownURL[u.URL]; seen {
			return
		}
		if p.unknownURL == nil {
			p.unknownURL = map[string]struct{}{}
		}
		p.unknownURL[u.URL] = struct{}{}
	default:
		if _, seen := p.unknownNum[u.Number]; seen {
			return
		}
		if p.unknownNum == nil {
			p.unknownNum = map[int]struct{}{}
		}
		p.unknownNum[u.Number] = struct{}{}
	}
	p.unknown = append(p.unknown, u)
	if p.hooks.Unknown != nil {
		p.flush(false)
		p.hooks.Unknown(u)
	}
}

// drop removes a marker from the text. Inside brackets ("[[9]1]",
// "[5[9]]", "[1[9]0]") removing it could join its neighbours into a new
// marker, so in Link and Renumber modes (whose output is read again) it is
// written with escaped brackets instead: visible, and never a citation.
func (p *Processor) drop(raw []byte) {
	if p.removed && p.sep != 0 {
		p.sep, p.sepBlank = 0, false // "[1], [2]": the separator goes too
	}
	if p.mode != Remove && (p.lastOpen || p.textOpen > 0 || isCloseBracket(p.m.next) || p.m.def) {
		inner := raw[len(p.m.open) : len(raw)-len(p.m.close)]
		if p.removed {
			p.settle([]byte{'\\'})
		}
		p.out = append(p.out, `\[`...)
		p.out = append(p.out, inner...)
		p.out = append(p.out, `\]`...)
		p.rendered()
		return
	}
	p.removed = true
}

// repeatsShown reports whether the current group cites nothing the marker
// just before it did not.
func (p *Processor) repeatsShown() bool {
	for _, c := range p.group {
		if !slices.Contains(p.prevShown, c.Display) {
			return false
		}
	}
	return true
}

func (p *Processor) noteShown() {
	p.prevShown = p.prevShown[:0]
	for _, c := range p.group {
		p.prevShown = append(p.prevShown, c.Display)
	}
	p.afterShown = true
}

func isCloseBracket(next []byte) bool {
	return len(next) > 0 && (next[0] == ']' || bytes.Equal(next, lenticularClose) || bytes.Equal(next, fullwidthClose))
}

// begin settles a dropped marker's blanks before rendered output starts
// with c. After '!' or '\\' a space keeps the rendering from reading as an
// image or an escaped bracket.
func (p *Processor) begin(c byte) {
	if p.removed {
		p.settle([]byte{c})
	}
	if c == '[' && (p.last == '!' || p.last == '\\') {
		p.out = append(p.out, ' ')
		p.last, p.held = ' ', 0
	}
}

// outLineStart reports whether only blanks precede the output's end on its
// line. Non-Keep modes hold trailing blanks, so what precedes them is the
// last byte before the held run (or the last byte written).
func (p *Processor) outLineStart() bool {
	k := len(p.out)
	for k > 0 && isBlank(p.out[k-1]) {
		k--
	}
	prev := p.flushedLast
	if k > 0 {
		prev = p.out[k-1]
	}
	return prev == 0 || prev == '\n'
}

// guardAfter keeps a rendered marker from joining what follows into new
// markdown: "[1](…)" would be a link, and "[1]:" at the start of a line a
// definition.
func (p *Processor) guardAfter(lineStart bool) {
	if p.last != ']' || len(p.m.next) == 0 {
		return
	}
	if c := p.m.next[0]; c == '(' || (c == ':' && lineStart && !p.m.def) {
		p.out = append(p.out, ' ')
		p.last, p.held = ' ', 1
	}
}

func (p *Processor) appendNum(d int) {
	p.out = strconv.AppendInt(p.out, int64(d), 10)
}

// appendPlain writes [1] or [1, 2].
func (p *Processor) appendPlain(g []Citation) {
	p.out = append(p.out, '[')
	for k, c := range g {
		if k > 0 {
			p.out = append(p.out, ", "...)
		}
		p.appendNum(c.Display)
	}
	p.out = append(p.out, ']')
}

// appendFootnotes writes [^1][^2].
func (p *Processor) appendFootnotes(g []Citation) {
	for _, c := range g {
		p.out = append(p.out, "[^"...)
		p.appendNum(c.Display)
		p.out = append(p.out, ']')
	}
}

// linkable reports whether the source shown under c's display number may
// be linked (decided once per mapping number, when the mapping is built).
func (p *Processor) linkable(c Citation) bool {
	return p.mapping.isLinkable(p.cited[p.citedIdx[c.Display]].Number)
}

func (p *Processor) renderLink() {
	g := p.group
	lineStart := p.outLineStart()
	switch p.style {
	case Plain:
		p.begin('[')
		p.appendPlain(g)
	case Footnote:
		p.begin('[')
		p.appendFootnotes(g)
	case HTML:
		p.begin('<')
		p.out = append(p.out, `<sup class="cite">`...)
		for k, c := range g {
			if k > 0 {
				p.out = append(p.out, ',')
			}
			if !p.linkable(c) {
				p.out = append(p.out, '[')
				p.appendNum(c.Display)
				p.out = append(p.out, ']')
				continue
			}
			p.out = append(p.out, `<a href="`...)
			p.out = appendHTMLAttr(p.out, c.Source.URL)
			if c.Source.Title != "" {
				p.out = append(p.out, `" title="`...)
				p.out = appendHTMLAttr(p.out, c.Source.Title)
			}
			p.out = append(p.out, `">[`...)
			p.appendNum(c.Display)
			p.out = append(p.out, "]</a>"...)
		}
		p.out = append(p.out, "</sup>"...)
	default: // Markdown
		p.begin('[')
		for _, c := range g {
			p.out = append(p.out, '[')
			if !p.linkable(c) {
				p.appendNum(c.Display) // no URL, or one that must not be followed
				p.out = append(p.out, ']')
				continue
			}
			p.out = append(p.out, '[')
			p.appendNum(c.Display)
			p.out = append(p.out, "]]("...)
			p.out = mdtext.AppendDestination(p.out, c.Source.URL)
			p.out = append(p.out, ')')
		}
	}
	p.rendered()
	p.guardAfter(lineStart)
}

// renderRenumbered writes the group in the marker's own dialect.
func (p *Processor) renderRenumbered() {
	m := &p.m
	g := p.group
	p.begin('[')
	lineStart := p.outLineStart()
	switch m.kind {
	case kRef:
		p.appendPlain(g)
	case kFootnote:
		p.appendFootnotes(g)
	default:
		p.out = append(p.out, m.open...)
		if m.ranged && len(g) > 1 && contiguous(g) {
			p.appendNum(g[0].Display)
			p.out = append(p.out, m.dash...)
			p.appendNum(g[len(g)-1].Display)
		} else {
			sep := m.sep
			if sep == nil {
				sep = []byte(defaultSep(m.kind))
			}
			for k, c := range g {
				if k > 0 {
					p.out = append(p.out, sep...)
				}
				p.appendNum(c.Display)
			}
		}
		p.out = append(p.out, m.close...)
	}
	p.rendered()
	p.guardAfter(lineStart)
}

func defaultSep(k markerKind) string {
	switch k {
	case kProto, kProtoDouble:
		return ","
	case kLenticular, kFullwidth:
		return "，"
	}
	return ", "
}

func contiguous(g []Citation) bool {
	for k := 1; k < len(g); k++ {
		if g[k].Display != g[k-1].Display+1 {
			return false
		}
	}
	return true
}

func appendHTMLAttr(b []byte, s string) []byte {
	for k := 0; k < len(s); k++ {
		switch c := s[k]; c {
		case '&':
			b = append(b, "&amp;"...)
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '"':
			b = append(b, "&#34;"...)
		case '\'':
			b = append(b, "&#39;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// firstCited numbers citations 1..K in order of first citation, giving
// every citation of the same thing the same number.
type firstCited struct {
	key     func(Source) string // nil: by mapping number
	byKey   map[string]int
	byNum   map[int]int
	counter int
}

// FirstCited returns a Numberer that numbers sources 1..K in order of
// first citation, giving the same number to every citation of the same
// source: the same URL or, for sources without one, the same ID. Use a new
// one for each text.
func FirstCited() Numberer { return FirstCitedBy(nil) }

// FirstCitedBy is FirstCited with sources compared by key (for example a
// canonical URL, so that two URL forms of one page share a number); a
// source whose key is "" is compared by ID. Nil compares URLs exactly.
func FirstCitedBy(key func(Source) string) Numberer {
	if key == nil {
		key = func(s Source) string { return s.URL }
	}
	return &firstCited{key: key, byKey: map[string]int{}, byNum: map[int]int{}}
}

// FirstCitedNumbers returns a Numberer that numbers 1..K in order of first
// citation by mapping number: for mappings whose numbers already stand for
// distinct sources, such as merged ones.
func FirstCitedNumbers() Numberer { return &firstCited{byNum: map[int]int{}} }

func (f *firstCited) Display(n int, src Source) int {
	if d, ok := f.byNum[n]; ok {
		return d
	}
	if f.key == nil {
		f.counter++
		f.byNum[n] = f.counter
		return f.counter
	}
	k := f.key(src)
	if k == "" {
		k = "\x00id:" + src.ID
	}
	d, ok := f.byKey[k]
	if !ok {
		f.counter++
		d = f.counter
		f.byKey[k] = d
	}
	f.byNum[n] = d
	return d
}
