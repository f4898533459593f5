package citeproc

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/mdtext"
)

// The renderer consumes the scanner's tokens: it passes text and code on,
// acts on each marker candidate according to the mode (keep, link, remove
// or renumber it), reports the citation facts to the hooks, and writes the
// output to the destination. It holds output only to decide the blanks
// around a dropped marker and to write whole UTF-8 characters.
type renderer struct {
	dst     io.Writer
	mode    Mode
	style   Style
	mapping *Mapping
	number  Numberer
	hooks   Hooks

	out  []byte // output not yet written to dst
	last byte   // last output byte; 0 before any, '\n' at line start
	// flushedLast is the last byte written to dst.
	flushedLast byte

	// Non-Keep modes hold trailing blanks (and opening parentheses) in out
	// until the next byte shows whether a dropped marker takes them.
	held      int  // trailing bytes of out that are held: blanks and '('
	removed   bool // a marker was just dropped (the scanner's hold flag)
	swallowed bool // blanks followed the dropped marker
	sep       byte // a ',' or ';' after a dropped marker, held: it goes if another marker is dropped next
	sepBlank  bool // blanks followed the held separator
	lastOpen  bool // the last output character is an opening bracket
	// The display numbers of the last rendered marker, while nothing else
	// has been output since: "[1][2]" for one resource renders once.
	prevShown  []citeKey
	afterShown bool

	c    *candidate // the marker being handled
	nums []int      // scratch: the Marker hook's numbers

	cited      []Citation
	citedIdx   map[int]int     // display number → its first citation in cited
	citedAt    map[citeKey]int // display number and unit → its citation in cited
	unknown    []Unknown
	unknownNum map[int]struct{}
	unknownURL map[string]struct{}
	group      []Citation // scratch: the current marker's resolved citations
	used       []int      // the numbers usage tags named, in order, no repeats
	usedSeen   map[int]struct{}

	err error // the destination's first error
}

// reserve grows an empty output buffer for a large chunk.
func (r *renderer) reserve(n int) {
	if len(r.out) == 0 {
		r.out = slices.Grow(r.out, min(n+n/8, flushAt+flushAt/8))
	}
}

// close settles a dropped marker at the end of the text and writes
// everything held.
func (r *renderer) close() {
	r.settle(nil)
	r.flush(true)
}

// flushAt bounds the output held during one large Write.
const flushAt = 32 << 10

// flush writes pending output. Unless final, it holds back a trailing
// incomplete UTF-8 character, and non-Keep modes hold back trailing blanks
// and opening parentheses: a marker that follows may be dropped and take
// them.
func (r *renderer) flush(final bool) {
	n := len(r.out)
	if !final {
		if r.mode != Keep {
			n -= r.held
		}
		n = completeRunes(r.out, 0, n) // never write half a character
	}
	if n == 0 {
		return
	}
	if r.err == nil {
		if _, err := r.dst.Write(r.out[:n]); err != nil {
			r.err = err
		}
	}
	r.flushedLast = r.out[n-1]
	rest := copy(r.out, r.out[n:])
	r.out = r.out[:rest]
}

// text appends text (never starting with a blank while a dropped marker is
// held) to the output, first settling a dropped marker's surroundings.
func (r *renderer) text(b []byte) {
	if len(b) == 0 {
		return
	}
	if r.removed {
		if r.sep == 0 && (b[0] == ',' || b[0] == ';') {
			r.sep = b[0] // "[1], [2]": kept only if no dropped marker follows
			b = b[1:]
			if len(b) == 0 {
				return
			}
		}
		b = b[r.settle(b):]
		if len(b) == 0 {
			return
		}
	}
	r.out = append(r.out, b...)
	r.afterShown = false
	r.last = b[len(b)-1]
	r.lastOpen = r.last == '[' || (r.last >= 0x90 && (bytes.HasSuffix(b, lenticularOpen) || bytes.HasSuffix(b, fullwidthOpen)))
	k := 0
	for k < len(b) && heldByte(b[len(b)-1-k]) {
		k++
	}
	if k == len(b) {
		r.held += k
	} else {
		r.held = k
	}
	if len(r.out) >= flushAt {
		r.flush(false)
	}
}

// code appends text that must pass unchanged: as text, since only what
// surrounds it may change.
func (r *renderer) code(b []byte) { r.text(b) }

// delim handles a run of emphasis or quote delimiters that follows a
// dropped marker: one that closes ("**claim [1]**.") takes no space
// before it, one that opens ("[1] *Note*") keeps it.
func (r *renderer) delim(run []byte, closing bool) {
	if closing && r.sep == 0 {
		r.settle(closingPunct)
	}
	r.text(run)
}

var closingPunct = []byte{'.'}

func heldByte(c byte) bool { return c == ' ' || c == '\t' || c == '(' }

// rendered records output appended directly by a renderer.
func (r *renderer) rendered() {
	r.last = r.out[len(r.out)-1]
	r.lastOpen, r.held = false, 0
}

// blank handles a space or tab in non-Keep modes.
func (r *renderer) blank(c byte) {
	if r.removed {
		if r.sep != 0 {
			r.sepBlank = true
		} else {
			r.swallowed = true
		}
		return
	}
	r.out = append(r.out, c)
	r.last, r.lastOpen = c, false
	r.afterShown = false
	r.held++
}

// trimBlanks drops the held blanks at the end of the output.
func (r *renderer) trimBlanks() {
	for len(r.out) > 0 && r.held > 0 && isBlank(r.out[len(r.out)-1]) {
		r.out = r.out[:len(r.out)-1]
		r.held--
	}
	if len(r.out) > 0 {
		r.last = r.out[len(r.out)-1]
	} else {
		r.last = r.flushedLast
	}
}

// settle decides the surroundings of a dropped marker now that the next
// text is known (next is nil at the end of the text), and returns how many
// bytes of next it consumed. Before punctuation, a line end or the end, the
// blanks before the marker go; otherwise one run of blanks stays (those
// before the marker, or one space if only blanks after it separated two
// words). A separator between dropped markers goes with them; parentheses
// left empty go too.
func (r *renderer) settle(next []byte) int {
	if !r.removed {
		return 0
	}
	if r.sep != 0 {
		sep, sepBlank := r.sep, r.sepBlank
		r.sep, r.sepBlank = 0, false
		r.settle([]byte{sep})
		r.out = append(r.out, sep)
		r.last, r.lastOpen, r.held = sep, false, 0
		if sepBlank && len(next) > 0 && next[0] != '\n' && next[0] != '\r' && !isClosingPunct(next) {
			r.out = append(r.out, ' ')
			r.last, r.held = ' ', 1
		}
		return 0
	}
	r.removed = false
	swallowed := r.swallowed
	r.swallowed = false
	trailing := len(r.out) > 0 && r.held > 0 && isBlank(r.out[len(r.out)-1])
	if len(next) == 0 || next[0] == '\n' || next[0] == '\r' || isClosingPunct(next) {
		r.trimBlanks()
		if len(next) > 0 && next[0] == ')' && len(r.out) > 0 && r.held > 0 && r.out[len(r.out)-1] == '(' {
			// "claim ([1])." loses the parentheses with the marker.
			r.out = r.out[:len(r.out)-1]
			r.held--
			r.last = r.flushedLast
			if len(r.out) > 0 {
				r.last = r.out[len(r.out)-1]
			}
			r.removed = true
			return 1
		}
		if len(next) > 0 && next[0] == ':' && r.last == ']' {
			r.out = append(r.out, ' ') // "[1][9]: x" must not become a definition
			r.last, r.held = ' ', 1
		}
		return 0
	}
	switch {
	case !trailing && r.last == next[0] && (next[0] == '`' || next[0] == '*' || next[0] == '_' || next[0] == '~'):
		// "`a`[1]`b`" must not become one code span, nor "**a**[1]**b**"
		// one run of delimiters.
		r.out = append(r.out, ' ')
		r.last, r.held = ' ', 1
	case r.last == ']' && next[0] == '(':
		r.out = append(r.out, ' ') // "[1][9](x)" must not become a link
		r.last, r.held = ' ', 1
	case !trailing && swallowed && r.last != 0 && r.last != '\n':
		r.out = append(r.out, ' ')
		r.last, r.held = ' ', 1
	}
	return 0
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isDelimiter(c byte) bool { return c == '*' || c == '_' || c == '~' || c == '"' || c == '\'' }

func isWordByte(c byte) bool {
	return c >= utf8.RuneSelf || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isClosingPunct(b []byte) bool {
	switch b[0] {
	case '!':
		return len(b) == 1 || b[1] != '[' // "![" opens an image
	case '.', ',', ';', ':', '?', ')', ']', '}':
		return true
	}
	if b[0] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRune(b)
	switch r {
	case '。', '，', '；', '：', '！', '？', '）', '、', '…', '”', '’', '»', '」', '』', '》', '〉':
		return true
	}
	return false
}

// marker acts on a marker candidate according to the mode. Facts are
// reported before any text of the marker is output.
func (r *renderer) marker(c *candidate) {
	r.c = c
	m, raw := c, c.raw
	if m.kind == kUsage {
		r.usage()
		return
	}
	r.group = r.group[:0]
	switch m.kind {
	case kNear:
		r.reportUnknown(Unknown{Marker: string(raw)})
	case kRef:
		if n, src, ok := r.mapping.LookupURL(string(m.url)); ok {
			r.resolve(n, src)
		} else {
			r.reportUnknown(Unknown{URL: string(m.url)})
		}
	default:
		for _, it := range m.items {
			for v := it.lo; v <= it.hi; v++ {
				src, ok := r.mapping.Lookup(v)
				if !m.loc.IsZero() {
					src, ok = r.mapping.LookupAt(v, m.loc)
				}
				if ok {
					r.resolve(v, src)
				} else {
					r.reportUnknown(Unknown{Number: v})
				}
			}
		}
	}
	if r.hooks.Marker != nil {
		r.markerFact(raw)
	}
	if m.kind == kSids {
		r.renderSids()
		return
	}
	switch {
	case r.mode == Keep:
		r.text(raw)
	case r.mode == Remove || len(r.group) == 0:
		r.drop(raw)
	case r.afterShown && r.repeatsShown():
		// "[1][2]" where both are one resource: shown once already.
	case r.mode == Link:
		r.renderLink()
		r.noteShown()
	default:
		r.renderRenumbered()
		r.noteShown()
	}
}

// usage handles a usage tag ([[USAGE:1,3,5]]): its numbers are reported
// and kept (Used), never resolved or renumbered; the tag is text in Keep
// mode and removed, like a dropped marker, in every other.
func (r *renderer) usage() {
	c := r.c
	r.nums = r.nums[:0]
	for _, it := range c.items {
		for v := it.lo; v <= it.hi; v++ {
			r.nums = append(r.nums, v)
			if _, seen := r.usedSeen[v]; !seen {
				if r.usedSeen == nil {
					r.usedSeen = map[int]struct{}{}
				}
				r.usedSeen[v] = struct{}{}
				r.used = append(r.used, v)
			}
		}
	}
	if r.hooks.Usage != nil {
		r.flush(false)
		r.hooks.Usage(Usage{Offset: c.at, Len: len(c.raw), Numbers: r.nums})
	}
	if r.mode == Keep {
		r.text(c.raw)
		return
	}
	r.drop(c.raw)
}

// markerFact reports the marker being handled to the Marker hook.
func (r *renderer) markerFact(raw []byte) {
	m := r.c
	f := Marker{Offset: r.c.at, Len: len(raw), Locator: m.loc}
	if m.kind == kRef {
		f.URL = string(m.url)
	} else {
		r.nums = r.nums[:0]
		for _, it := range m.items {
			for v := it.lo; v <= it.hi; v++ {
				r.nums = append(r.nums, v)
			}
		}
		f.Numbers = r.nums
	}
	r.flush(false)
	r.hooks.Marker(f)
}

// resolve records that number v resolved to src and adds it to the
// current group, once per display number.
func (r *renderer) resolve(v int, src Source) {
	d := v
	if r.number != nil && r.mode != Keep {
		d = r.number.Display(v, src)
	}
	c := Citation{Number: v, Display: d, Source: src}
	if k, seen := r.citedIdx[d]; seen {
		// One display number shows one source (and so one URL)
		// everywhere: in the text, the facts and the lists; only where
		// in it a citation points (a page, a row, a slide) may differ.
		c.Source = r.cited[k].Source
		c.Source.Location = src.Location
	}
	for _, g := range r.group {
		if keyOf(g) == keyOf(c) {
			return
		}
	}
	r.group = append(r.group, c)
	if _, seen := r.citedAt[keyOf(c)]; seen {
		return
	}
	if _, seen := r.citedIdx[d]; !seen {
		r.citedIdx[d] = len(r.cited)
	}
	if r.citedAt == nil {
		r.citedAt = map[citeKey]int{}
	}
	r.citedAt[keyOf(c)] = len(r.cited)
	r.cited = append(r.cited, c)
	if r.hooks.Citation != nil {
		r.flush(false)
		r.hooks.Citation(c)
	}
}

func (r *renderer) reportUnknown(u Unknown) {
	switch {
	case u.Marker != "":
		if _, seen := r.unknownURL["\x00"+u.Marker]; seen {
			return
		}
		if r.unknownURL == nil {
			r.unknownURL = map[string]struct{}{}
		}
		r.unknownURL["\x00"+u.Marker] = struct{}{}
	case u.URL != "":
		if _, seen := r.unknownURL[u.URL]; seen {
			return
		}
		if r.unknownURL == nil {
			r.unknownURL = map[string]struct{}{}
		}
		r.unknownURL[u.URL] = struct{}{}
	default:
		if _, seen := r.unknownNum[u.Number]; seen {
			return
		}
		if r.unknownNum == nil {
			r.unknownNum = map[int]struct{}{}
		}
		r.unknownNum[u.Number] = struct{}{}
	}
	r.unknown = append(r.unknown, u)
	if r.hooks.Unknown != nil {
		r.flush(false)
		r.hooks.Unknown(u)
	}
}

// drop removes a marker from the text. Inside brackets ("[[9]1]",
// "[5[9]]", "[1[9]0]") removing it could join its neighbours into a new
// marker, so in Link and Renumber modes (whose output is read again) it is
// written with escaped brackets instead: visible, and never a citation.
func (r *renderer) drop(raw []byte) {
	if r.removed && r.sep != 0 {
		r.sep, r.sepBlank = 0, false // "[1], [2]": the separator goes too
	}
	if r.mode != Remove && r.c.label {
		// "[text][9]": an empty label keeps the text a reference link's.
		if r.removed {
			r.settle([]byte{'['})
		}
		r.out = append(r.out, "[]"...)
		r.rendered()
		return
	}
	if r.mode != Remove && (r.lastOpen || r.c.inBrackets || isCloseBracket(r.c.next) || r.c.def) {
		inner := raw[len(r.c.open) : len(raw)-len(r.c.close)]
		if r.c.kind == kUsage {
			inner = raw[1 : len(raw)-1] // `\[[USAGE:1]\]`: still no citation, and still says what it is
		}
		if r.removed {
			r.settle([]byte{'\\'})
		}
		r.out = append(r.out, `\[`...)
		r.out = append(r.out, inner...)
		r.out = append(r.out, `\]`...)
		r.rendered()
		return
	}
	r.removed = true
}

// repeatsShown reports whether the current group cites nothing the marker
// just before it did not.
func (r *renderer) repeatsShown() bool {
	for _, c := range r.group {
		if !slices.Contains(r.prevShown, keyOf(c)) {
			return false
		}
	}
	return true
}

func (r *renderer) noteShown() {
	r.prevShown = r.prevShown[:0]
	for _, c := range r.group {
		r.prevShown = append(r.prevShown, keyOf(c))
	}
	r.afterShown = true
}

func isCloseBracket(next []byte) bool {
	return len(next) > 0 && (next[0] == ']' || bytes.Equal(next, lenticularClose) || bytes.Equal(next, fullwidthClose))
}

// begin settles a dropped marker's blanks before rendered output starts
// with c. After '!' or '\\' a space keeps the rendering from reading as an
// image or an escaped bracket.
func (r *renderer) begin(c byte) {
	if r.removed {
		r.settle([]byte{c})
	}
	if c == '[' && (r.last == '!' || r.last == '\\') {
		r.out = append(r.out, ' ')
		r.last, r.held = ' ', 0
	}
}

// outLineStart reports whether only blanks precede the output's end on its
// line. Non-Keep modes hold trailing blanks, so what precedes them is the
// last byte before the held run (or the last byte written).
func (r *renderer) outLineStart() bool {
	k := len(r.out)
	for k > 0 && isBlank(r.out[k-1]) {
		k--
	}
	prev := r.flushedLast
	if k > 0 {
		prev = r.out[k-1]
	}
	return prev == 0 || prev == '\n'
}

// guardAfter keeps a rendered marker from joining what follows into new
// markdown: "[1](…)" would be a link, and "[1]:" at the start of a line a
// definition.
func (r *renderer) guardAfter(lineStart bool) {
	if r.last != ']' || len(r.c.next) == 0 {
		return
	}
	if c := r.c.next[0]; c == '(' || (c == ':' && lineStart && !r.c.def) {
		r.out = append(r.out, ' ')
		r.last, r.held = ' ', 1
	}
}

func (r *renderer) appendNum(d int) {
	r.out = strconv.AppendInt(r.out, int64(d), 10)
}

// appendPlain writes [1] or [1, 2]; with pinpoints, [1, p. 7] or
// [1][2, p. 7].
func (r *renderer) appendPlain(g []Citation) {
	if r.pinned(g) {
		for _, c := range g {
			r.out = append(r.out, '[')
			r.appendNum(c.Display)
			r.appendPin(c)
			r.out = append(r.out, ']')
		}
		return
	}
	r.out = append(r.out, '[')
	for k, c := range g {
		if k > 0 {
			r.out = append(r.out, ", "...)
		}
		r.appendNum(c.Display)
	}
	r.out = append(r.out, ']')
}

// appendFootnotes writes [^1][^2].
func (r *renderer) appendFootnotes(g []Citation) {
	for _, c := range g {
		r.out = append(r.out, "[^"...)
		r.appendNum(c.Display)
		r.out = append(r.out, ']')
	}
}

// link returns the URL the source shown under c's display number is linked
// under, or "" (decided once per mapping number).
func (r *renderer) link(c Citation) string {
	return r.mapping.link(r.cited[r.citedIdx[c.Display]].Number)
}

func (r *renderer) renderLink() {
	g := r.group
	lineStart := r.outLineStart()
	switch r.style {
	case Plain:
		r.begin('[')
		r.appendPlain(g)
	case Footnote:
		r.begin('[')
		r.appendFootnotes(g)
	case HTML:
		r.begin('<')
		r.out = append(r.out, `<sup class="cite" data-sids="`...)
		for k, c := range g {
			if k > 0 {
				r.out = append(r.out, ',')
			}
			r.appendNum(c.Display)
		}
		r.out = append(r.out, `">`...)
		for k, c := range g {
			if k > 0 {
				r.out = append(r.out, ',')
			}
			link := r.link(c)
			if link == "" {
				r.out = append(r.out, '[')
				r.appendNum(c.Display)
				r.appendPin(c)
				r.out = append(r.out, ']')
				continue
			}
			r.out = append(r.out, `<a href="`...)
			r.out = appendHTMLAttr(r.out, link)
			if c.Source.Title != "" {
				r.out = append(r.out, `" title="`...)
				r.out = appendHTMLAttr(r.out, c.Source.Title)
			}
			r.out = append(r.out, `">[`...)
			r.appendNum(c.Display)
			r.appendPin(c)
			r.out = append(r.out, "]</a>"...)
		}
		r.out = append(r.out, "</sup>"...)
	default: // Markdown
		r.begin('[')
		for _, c := range g {
			r.out = append(r.out, '[')
			link := r.link(c)
			if link == "" {
				r.appendNum(c.Display) // no URL, or one that must not be followed
				r.appendPin(c)
				r.out = append(r.out, ']')
				continue
			}
			r.out = append(r.out, '[')
			r.appendNum(c.Display)
			r.appendPin(c)
			r.out = append(r.out, "]]("...)
			r.out = mdtext.AppendDestination(r.out, link)
			r.out = append(r.out, ')')
		}
	}
	r.rendered()
	r.guardAfter(lineStart)
}

// renderRenumbered writes the group in the marker's own dialect.
func (r *renderer) renderRenumbered() {
	m := r.c
	g := r.group
	r.begin('[')
	lineStart := r.outLineStart()
	switch m.kind {
	case kRef:
		r.appendPlain(g)
	case kFootnote:
		r.appendFootnotes(g)
	default:
		r.out = append(r.out, m.open...)
		r.appendList(g)
		if len(g) == 1 {
			r.appendPin(g[0]) // "[2, p. 7]" stays pinned
		}
		r.out = append(r.out, m.close...)
	}
	r.rendered()
	r.guardAfter(lineStart)
}

// appendList writes the group's numbers as the marker wrote its own: a
// range if it wrote one and they are contiguous, else with its separator.
func (r *renderer) appendList(g []Citation) {
	m := r.c
	if m.ranged && len(g) > 1 && contiguous(g) {
		r.appendNum(g[0].Display)
		r.out = append(r.out, m.dash...)
		r.appendNum(g[len(g)-1].Display)
		return
	}
	sep := m.sep
	if sep == nil {
		sep = []byte(defaultSep(m.kind))
	}
	for k, c := range g {
		if k > 0 {
			r.out = append(r.out, sep...)
		}
		r.appendNum(c.Display)
	}
}

// renderSids writes the value of a <sup class="cite"> tag's data-sids
// attribute: as written in Keep mode, empty in Remove mode (its markers
// go), else the display numbers of what resolved (unknown numbers are
// dropped from it, as from any marker), never a link inside an attribute.
func (r *renderer) renderSids() {
	switch r.mode {
	case Keep:
		r.text(r.c.raw)
	case Remove:
	default:
		n := len(r.out)
		r.appendList(r.group)
		if len(r.out) > n {
			r.rendered()
		}
	}
}

func defaultSep(k markerKind) string {
	switch k {
	case kProto, kProtoDouble:
		return ","
	case kLenticular, kFullwidth:
		return "，"
	case kSids:
		return ","
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
