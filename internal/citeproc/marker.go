package citeproc

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"
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
}

const (
	maxMarkerLen = 1024 // a numeric marker longer than this is not one
	maxItems     = 128  // nor one with more numbers than this
	maxRefLen    = 2048 // nor a [ref: URL] longer than this
	maxDigits    = 6
	maxRangeSpan = 64
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
	m.sep, m.dash, m.url, m.ranged, m.next, m.def = nil, nil, nil, false, nil, false
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
	m.def = lineStart && len(m.next) > 0 && m.next[0] == ':' && (m.kind == kBracket || m.kind == kFootnote)
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
	m.kind, m.open, m.close = k, b[:len(open)], close
	return m.parseList(b, len(open), close, eof)
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
		if b[2] == 'S' && b[3] == ':' {
			m.kind, m.open, m.close = kProtoDouble, b[:4], closeDouble
			return m.parseList(b, 4, closeDouble, eof)
		}
		m.kind, m.open, m.close = kDouble, b[:2], closeDouble
		return m.parseList(b, 2, closeDouble, eof)
	case '^':
		m.kind, m.open, m.close = kFootnote, b[:2], closeSingle
		v, i, st := parseNumber(b, 2, eof)
		if st != pYes {
			return i, st
		}
		if i == len(b) {
			return more(eof)
		}
		if b[i] != ']' {
			return 0, pNo
		}
		m.items = append(m.items, span{v, v})
		return i + 1, pYes
	case 'S':
		if len(b) < 3 {
			return more(eof)
		}
		if b[2] != ':' {
			return 0, pNo
		}
		m.kind, m.open, m.close = kProto, b[:3], closeSingle
		return m.parseList(b, 3, closeSingle, eof)
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
	start := i
	for i < len(b) && b[i] != ']' && b[i] != '[' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
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
// number or a range and blanks may surround items and separators.
func (m *marker) parseList(b []byte, i int, close []byte, eof bool) (int, parseStatus) {
	for {
		if i > maxMarkerLen || len(m.items) >= maxItems {
			return 0, pNo
		}
		i = skipBlanks(b, i)
		lo, j, st := parseNumber(b, i, eof)
		if st != pYes {
			return j, st
		}
		hi := lo
		k := skipBlanks(b, j)
		if k == len(b) {
			return more(eof)
		}
		if dl, st := dashAt(b, k, eof); st == pMore {
			return more(eof)
		} else if dl > 0 {
			e := skipBlanks(b, k+dl)
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
		if m.sep == nil {
			m.sep = b[j:next]
			if hi > lo {
				m.sep = b[k:next]
			}
		}
		i = next
	}
}

// parseNumber reads 1 to maxDigits ASCII or fullwidth digits, not
// starting with zero.
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
		if digits == 0 && d == 0 {
			return 0, 0, pNo
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

// dashAt reports the length of a range dash (- – —) at b[i], or 0.
func dashAt(b []byte, i int, eof bool) (int, parseStatus) {
	switch b[i] {
	case '-':
		return 1, pYes
	case 0xE2:
		if i+3 > len(b) {
			return more(eof)
		}
		if b[i+1] == 0x80 && (b[i+2] == 0x93 || b[i+2] == 0x94) {
			return 3, pYes
		}
	}
	return 0, pYes
}

// sepAt reports the length of an item separator (, ; ， 、) at b[i], or 0.
func sepAt(b []byte, i int, eof bool) (int, parseStatus) {
	switch b[i] {
	case ',', ';':
		return 1, pYes
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
	if m.kind == kRef {
		if n, src, ok := p.mapping.LookupURL(string(m.url)); ok {
			p.resolve(n, src)
		} else {
			p.reportUnknown(Unknown{URL: string(m.url)})
		}
	} else {
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
	p.group = append(p.group, c)
	if _, seen := p.citedIdx[d]; seen {
		return
	}
	p.citedIdx[d] = len(p.cited)
	p.cited = append(p.cited, c)
	if p.hooks.Citation != nil {
		p.flush(false)
		p.hooks.Citation(c)
	}
}

func (p *Processor) reportUnknown(u Unknown) {
	if u.URL != "" {
		if _, seen := p.unknownURL[u.URL]; seen {
			return
		}
		if p.unknownURL == nil {
			p.unknownURL = map[string]struct{}{}
		}
		p.unknownURL[u.URL] = struct{}{}
	} else {
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
	if p.mode != Remove && (p.lastOpen || p.textOpen > 0 || isCloseBracket(p.m.next)) {
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
			if c.Source.URL == "" {
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
			if c.Source.URL == "" {
				p.appendNum(c.Display)
				p.out = append(p.out, ']')
				continue
			}
			p.out = append(p.out, '[')
			p.appendNum(c.Display)
			p.out = append(p.out, "]]("...)
			p.out = appendMarkdownURL(p.out, c.Source.URL)
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

// appendMarkdownURL writes u so that it cannot end a markdown link early.
func appendMarkdownURL(b []byte, u string) []byte {
	const hex = "0123456789ABCDEF"
	for k := 0; k < len(u); k++ {
		switch c := u[k]; {
		case c == ' ' || c == '(' || c == ')' || c == '<' || c == '>' || c < 0x20 || c == 0x7F:
			b = append(b, '%', hex[c>>4], hex[c&15])
		case c == '\\':
			b = append(b, '\\', '\\') // a backslash escape would eat the next character
		case c == '&' && entityAt(u[k+1:]):
			b = append(b, "&amp;"...) // "&lt;" would be decoded as an entity
		default:
			b = append(b, c)
		}
	}
	return b
}

// entityAt reports whether s, after a '&', reads as an entity reference:
// [#]alphanumerics then ';'.
func entityAt(s string) bool {
	k := 0
	if k < len(s) && s[k] == '#' {
		k++
	}
	start := k
	for k < len(s) && k-start < 32 && (s[k] >= '0' && s[k] <= '9' || s[k]|0x20 >= 'a' && s[k]|0x20 <= 'z') {
		k++
	}
	return k > start && k < len(s) && s[k] == ';'
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
