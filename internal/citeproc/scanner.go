package citeproc

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// The scanner reads CommonMark's block and inline structure as far as
// citations need it (containers, fenced and indented code, code spans,
// HTML regions, autolinks, links and their destinations, definitions) and
// emits tokens to a consumer: prose, code (anything that must pass
// unchanged), and marker candidates with their parse. It is push-style and
// goroutine-free: write appends a chunk and scans as far as the input
// decides; what cannot be decided yet (a marker, a code span, a container
// prefix or a UTF-8 character cut by the chunk boundary) is held, and
// scanning resumes where it stopped. Each byte is examined a bounded number
// of times.

// A consumer receives the scanner's tokens in input order. Byte slices
// point into the scanner's buffer (or the caller's chunk) and are valid
// only during the call.
type consumer interface {
	// text is prose (and the container prefixes of its lines).
	text(b []byte)
	// code is input that must pass unchanged: code blocks and spans, HTML
	// regions, autolinks, link text and destinations, the rest of a
	// definition's line.
	code(b []byte)
	// blank is one space or tab of prose. Blanks come on their own only
	// while the consumer's hold flag is set (see scanner.hold); otherwise
	// they are part of text.
	blank(c byte)
	// delim is a run of emphasis or quote delimiters (* _ ~ " ') in prose,
	// also on its own only while the hold flag is set; closing says that no
	// word character follows the run (so it closes what it delimits).
	delim(run []byte, closing bool)
	// marker is a citation marker candidate.
	marker(c *candidate)
}

// candidate is a citation marker as the scanner found it in prose.
type candidate struct {
	marker        // its parse: form, numbers, the character after it
	raw    []byte // as written
	at     int64  // the offset of its first byte in the input
	// inBrackets says that an opening bracket written as text precedes it
	// on its line and is not yet closed: dropping the marker could join
	// its neighbours into a new one.
	inBrackets bool
	// label says that it is a reference link's label ("[text][1]", read as
	// a marker only in Renumber mode): dropping it would turn the link's
	// text, whose brackets are never read, into text that is.
	label bool
}

type scanner struct {
	out consumer
	// hold points at the consumer's flag saying that it holds a dropped
	// marker whose surroundings the next blanks and delimiter runs decide:
	// while it is set they come as tokens of their own.
	hold *bool
	// relabel: definitions' labels and reference links' labels are marker
	// candidates too (Renumber mode, which relabels definitions to keep
	// merged reports consistent); otherwise they are code.
	relabel bool

	buf []byte // input; buf[pos:] is not yet consumed
	pos int
	off int64 // the absolute offset of buf[0] in the input

	st        state
	lineStart bool // the next text byte begins a line (blanks keep it so)

	fenceChar  byte
	fenceLen   int
	fl         fenceLine
	flRunLen   int
	fenceDepth int  // containers the open fence belongs to
	fenceBOL   bool // at a fence line's start: its container prefix is not yet matched

	// Containers and line state (container.go).
	conts    [maxConts]container // the open containers are conts[:nconts]
	nconts   int
	para     bool // the last line was paragraph text: a lazy continuation may follow
	col      int  // columns consumed on the current line
	base     int  // the column where the current line's innermost container content starts
	prefixed bool // the current line's container prefix has been decided
	content  bool // the current line has content (not only blanks)
	noPara   bool // the current line is no paragraph text (a heading, a thematic break)
	lazyLine bool // the current line continues a paragraph lazily (its containers unmatched)

	// HTML regions (html.go).
	closer     string // the closing tag of the open HTML block or inline element
	closerSeen int    // bytes of closer matched so far; len(closer): seen on this line
	dashes     int    // '-' just before, inside an HTML comment
	blockHTML  bool   // the open comment began a line: an HTML block, whose last line is raw too

	spanLen   int  // backticks in the open code span's opener, at buf[pos:]
	spanScan  int  // where the search for its closer resumes, relative to pos
	spanFence bool // the open code span started a line with 3+ backticks: it may be a fence
	spanTick  bool // a backtick run was seen after that opener on its line
	litTick   byte // inside an over-long run of this fence character: literal text

	linkOpen  int // length of the link opener at buf[pos:]: 1 for '[', 2 for "!["
	lk        linkPass
	destDepth int                 // parenthesis depth inside a link destination
	textOpen  int                 // opening brackets output as text on this line and not yet closed
	defs      map[string]struct{} // labels of the link definitions seen (labelKey), at most maxDefs
	labelOf   int64               // the absolute offset of the last reference link's label
	labelAt   int64               // the absolute offset of the label "![n]" waits for
	labelScan int                 // how far into it the last look went

	c candidate // the marker candidate being emitted
}

func (s *scanner) init(out consumer, relabel bool, hold *bool) {
	s.out, s.relabel, s.hold = out, relabel, hold
	s.lineStart, s.labelOf, s.labelAt = true, -1, -1
}

// bulkMin is the chunk size from which a scanner holding nothing scans the
// caller's bytes in place instead of copying them first.
const bulkMin = 256

// inPlace reports whether write will scan b where it lies.
func (s *scanner) inPlace(b []byte) bool { return s.pos == len(s.buf) && len(b) >= bulkMin }

// write scans the next chunk, which it neither modifies nor retains.
func (s *scanner) write(b []byte) {
	if s.inPlace(b) {
		// Nothing held: scan the input where it lies, then keep only the
		// undecided tail.
		own := s.buf[:0]
		s.off += int64(len(s.buf))
		s.buf, s.pos = b, 0
		s.scan(false)
		rest := b[s.pos:]
		s.off += int64(s.pos)
		s.buf, s.pos = append(own, rest...), 0 // held offsets are relative to pos
		return
	}
	s.buf = append(s.buf, b...)
	s.scan(false)
	s.compact()
}

// close decides whatever is still held as if the text ended there.
func (s *scanner) close() {
	s.scan(true)
	s.buf = s.buf[:0]
	s.pos = 0
}

type state uint8

const (
	stText       state = iota // prose: markers are recognised
	stFenceInfo               // the rest of a fence's opening line
	stFence                   // inside a fenced code block
	stSpan                    // an inline code span whose end is not yet known
	stLinkText                // a '[' that may open a markdown link's text
	stLinkDest                // a markdown link's (destination)
	stIndented                // an indented code block's line
	stComment                 // an HTML comment
	stHTMLBlock               // an HTML block (<pre>, <script>, <style>, <textarea>)
	stHTMLInline              // an inline <code> or <pre> element whose end is not yet known
	stAutolink                // an autolink <scheme:…>
	stRefLabel                // a reference link's [label] after its [text]
)

// Closing-fence recognition, one line at a time.
type fenceLine uint8

const (
	flIndent fenceLine = iota // only blanks so far
	flRun                     // blanks, then fence characters
	flTrail                   // a long enough run, then blanks
	flOther                   // anything else: not a closing fence
)

// compact drops consumed input once it is at least half the buffer, so
// that held input is copied a bounded number of times (amortised O(1) per
// byte).
func (s *scanner) compact() {
	switch {
	case s.pos == len(s.buf):
		s.off += int64(len(s.buf))
		s.buf = s.buf[:0]
		s.pos = 0
	case s.pos > 0 && s.pos >= len(s.buf)/2:
		s.off += int64(s.pos)
		n := copy(s.buf, s.buf[s.pos:])
		s.buf = s.buf[:n]
		s.pos = 0
	}
}

func (s *scanner) scan(eof bool) {
	for s.pos < len(s.buf) {
		var ok bool
		switch s.st {
		case stText:
			ok = s.scanText(eof)
		case stFenceInfo, stFence:
			ok = s.scanFence(eof)
		case stIndented:
			ok = s.scanIndented()
		case stComment:
			ok = s.scanComment()
		case stHTMLBlock:
			ok = s.scanHTMLBlock()
		case stHTMLInline:
			ok = s.scanHTMLInline(eof)
		case stAutolink:
			ok = s.scanAutolink()
		case stSpan:
			ok = s.scanSpan(eof)
		case stLinkText:
			ok = s.scanLinkText(eof)
		case stRefLabel:
			ok = s.scanRefLabel(eof)
		case stLinkDest:
			ok = s.scanLinkDest()
		}
		if !ok {
			return
		}
	}
}

// special marks bytes the text scanner must look at; everything else is
// copied in runs. Blanks are special only right after a dropped marker.
var special, specialKeep [256]bool

func init() {
	for _, c := range []byte{'[', '`', '\\', '!', '\n', '<', 0xE3, 0xEF} {
		specialKeep[c] = true
		special[c] = true
	}
	special[' '] = true
	special['\t'] = true
}

// step says how scanning goes on after a piece of prose was handled.
type step uint8

const (
	stepOn     step = iota // scanning goes on at the returned index
	stepMore               // more input is needed: the scanner holds from pos
	stepState              // the state changed: scanning resumes in it at pos
	stepInline             // at a line start, nothing was decided: scan the byte as inline text
)

// scanText consumes prose. It returns false when it needs more input.
func (s *scanner) scanText(eof bool) bool {
	b := s.buf
	i := s.pos
	for i < len(b) {
		c := b[i]
		if s.litTick != 0 {
			if c == s.litTick {
				run := runOf(b, i, c)
				s.out.text(b[i : i+run])
				i += run
				continue
			}
			s.litTick = 0
		}
		bol := s.lineStart
		if bol {
			j, st := s.lineStartAt(b, i, eof)
			switch st {
			case stepOn:
				i = j
				continue
			case stepMore:
				return false
			case stepState:
				return true
			}
		}
		// Blanks need a look only while the consumer holds a dropped
		// marker; elsewhere they are text.
		table := &specialKeep
		if *s.hold {
			if isDelimiter(c) {
				// The byte after the run decides whether it closes.
				run := runOf(b, i, c)
				if i+run == len(b) && !eof && run <= 8 {
					s.pos, s.lineStart = i, bol
					return false
				}
				s.out.delim(b[i:i+run], i+run == len(b) || !isWordByte(b[i+run]))
				i += run
				continue
			}
			table = &special
		}
		if !table[c] {
			j := i + 1
			for j < len(b) && !table[b[j]] {
				j++
			}
			if j == len(b) && !eof {
				j = completeRunes(b, i, j)
				if j == i {
					s.pos, s.lineStart = i, bol
					return false
				}
			}
			if s.textOpen > 0 {
				s.textOpen = max(0, s.textOpen-bytes.Count(b[i:j], closeSingle))
			}
			s.out.text(b[i:j])
			i = j
			continue
		}
		j, st := s.inline(b, i, eof, bol)
		switch st {
		case stepMore:
			return false
		case stepState:
			return true
		}
		i = j
	}
	s.pos = i
	return true
}

// lineStartAt handles the byte at b[i] at the start of a line (only blanks
// before it, past the container prefix): the container prefix, the
// indentation, and the blocks a line can open (indented code, fences,
// HTML blocks, thematic breaks and setext underlines, which no paragraph
// continues).
func (s *scanner) lineStartAt(b []byte, i int, eof bool) (int, step) {
	c := b[i]
	if !s.prefixed {
		n, st := s.prefix(b[i:], eof)
		if st == pMore {
			s.pos = i
			return i, stepMore
		}
		s.prefixed = true
		if n > 0 {
			s.out.text(b[i : i+n])
		}
		return i + n, stepOn
	}
	switch {
	case c == ' ' || c == '\t':
		s.col = advanceCol(s.col, c)
		if *s.hold {
			s.out.blank(c)
		} else {
			s.out.text(b[i : i+1])
		}
		return i + 1, stepOn
	case c == '\n' || c == '\r':
	case s.col-s.base >= 4 && !s.para:
		s.lineStart, s.content = false, true
		s.st = stIndented
		s.pos = i
		return i, stepState
	case (c == '`' || c == '~') && s.col-s.base < 4:
		if j, st := s.fenceAt(b, i, eof); st != stepInline {
			return j, st
		}
	}
	if c != '\n' {
		s.lineStart = false
	}
	if !isEOL(c) && !s.content {
		s.content, s.noPara = true, c == '#'
		if (c == '-' || c == '*' || c == '_' || c == '=') && s.col-s.base < 4 {
			brk, st := false, pYes
			if c != '=' {
				brk, st = thematicBreak(b, i, c, eof)
			}
			if st == pYes && !brk && s.para && !s.lazyLine && (c == '-' || c == '=') {
				brk, st = setextUnderline(b, i, c, eof)
			}
			if st == pMore {
				s.pos, s.lineStart, s.content = i, true, false
				return i, stepMore
			}
			s.noPara = brk
		}
	}
	if c == '<' && s.col-s.base < 4 {
		t, st := htmlBlockStart(b[i:], eof)
		if st == pMore {
			s.pos, s.lineStart = i, true
			return i, stepMore
		}
		if st == pYes {
			s.out.code(b[i : i+1+len(t)])
			s.st, s.closer, s.closerSeen = stHTMLBlock, "</"+t+">", 0
			s.pos = i + 1 + len(t)
			return i, stepState
		}
	}
	return i, stepInline
}

// fenceAt handles a run of backticks or tildes at a line start: a fence
// opens (stepState), a run too long to open anything is text (stepOn), or
// a shorter run goes on as inline text (stepInline).
func (s *scanner) fenceAt(b []byte, i int, eof bool) (int, step) {
	c := b[i]
	run := runOf(b, i, c)
	if run > maxTickRun {
		s.out.text(b[i : i+run]) // too long to open anything: text
		s.litTick, s.lineStart = c, false
		return i + run, stepOn
	}
	if i+run == len(b) && !eof {
		s.pos = i
		return i, stepMore
	}
	switch {
	case run >= 3 && c == '~':
		s.out.code(b[i : i+run])
		s.lineStart = false
		s.st = stFenceInfo
		s.fenceChar, s.fenceLen, s.fenceDepth = c, run, s.nconts
		s.pos = i + run
		return i, stepState
	case run >= 3:
		// A fence, unless a backtick follows on the line ("```x``` is
		// code"): decided by scanSpan.
		s.lineStart = false
		s.st = stSpan
		s.spanLen, s.spanScan = run, run
		s.spanFence, s.spanTick = true, false
		s.pos = i
		return i, stepState
	}
	return i, stepInline
}

// inline handles a byte of prose that may start something: a line break,
// an HTML region, a blank the consumer waits for, an escape, an image, a
// code span, a marker or a link. bol says whether it begins its line.
func (s *scanner) inline(b []byte, i int, eof, bol bool) (int, step) {
	switch c := b[i]; c {
	case '\n':
		s.out.text(b[i : i+1])
		s.endLine()
		return i + 1, stepOn
	case '<':
		s.pos = i
		s.blockHTML = bol && s.col-s.base < 4
		n, st := s.angle(b[i:], eof)
		if st == pMore {
			s.lineStart = bol
			return i, stepMore
		}
		if st == pYes {
			return i, stepState
		}
		s.out.text(b[i : i+n])
		return i + n, stepOn
	case ' ', '\t':
		s.out.blank(c)
		return i + 1, stepOn
	case '\\', '!':
		if i+1 == len(b) && !eof {
			s.pos, s.lineStart = i, bol
			return i, stepMore
		}
		if c == '!' && i+1 < len(b) && b[i+1] == '[' {
			return s.bang(b, i, eof, bol)
		}
		n := 1
		if c == '\\' && i+1 < len(b) && isASCIIPunct(b[i+1]) {
			n = 2
		}
		s.out.text(b[i : i+n])
		return i + n, stepOn
	case '`':
		run := runOf(b, i, '`')
		if run > maxTickRun {
			s.out.text(b[i : i+run])
			s.litTick = '`'
			return i + run, stepOn
		}
		if i+run == len(b) && !eof {
			s.pos, s.lineStart = i, bol
			return i, stepMore
		}
		s.spanFence = false
		s.st = stSpan
		s.spanLen, s.spanScan = run, run
		s.pos = i
		return i, stepState
	}
	return s.bracket(b, i, eof, bol)
}

// bang handles "![" at b[i]. An image's alt text is the image's, not
// ours, but a model writes "grew 40%![1][2]" meaning two citations: when
// a marker follows the '!', it is an image only if a markdown link follows
// ("![1](x.png)") or a reference label whose definition the text has
// given ("![1][2]" after "[2]: x.png" at a line start — CommonMark's rule;
// a definition that comes later is not known yet, and footnote definitions
// ("[^2]: …") define no link). Otherwise the '!' is text and the marker a
// marker.
func (s *scanner) bang(b []byte, i int, eof, bol bool) (int, step) {
	n, st := s.c.parse(b[i+1:], eof, false, !s.relabel)
	switch st {
	case pMore:
		s.pos, s.lineStart = i, bol
		return i, stepMore
	case pYes:
		e := i + 1 + n
		if e == len(b) || b[e] != '[' {
			s.out.text(b[i : i+1])
			return i + 1, stepOn
		}
		from := 1
		if s.labelAt == s.off+int64(e) {
			from = s.labelScan // resume where the last chunk ended
		}
		label, ok, k := refLabel(b[e:], from, eof)
		switch {
		case !ok && label == nil:
			s.labelAt, s.labelScan = s.off+int64(e), k
			s.pos, s.lineStart = i, bol
			return i, stepMore
		case !ok || !s.defined(label):
			s.out.text(b[i : i+1])
			return i + 1, stepOn
		}
	}
	s.startLink(i, 2)
	return i, stepState
}

// refLabel reads a reference label "[label]" at the start of b, looking
// from b[from] (bytes before it hold none of '[', ']', a line break): on
// its line, within maxLinkText bytes, without unescaped brackets inside.
// It returns the label and true; or nil, false and where to resume when
// more input is needed; or a non-nil slice and false when b holds no
// label.
func refLabel(b []byte, from int, eof bool) ([]byte, bool, int) {
	k := from
scan:
	for ; k < len(b) && k < maxLinkText; k++ {
		switch b[k] {
		case ']':
			return b[1:k], true, k
		case '[', '\n':
			return b[:0], false, k
		case '\\':
			if k+1 == len(b) {
				break scan // the escaped byte is still to come: resume at the backslash
			}
			k++
		}
	}
	if k < maxLinkText && !eof {
		return nil, false, k
	}
	return b[:0], false, k
}

// maxDefs bounds how many link definitions' labels the scanner keeps.
const maxDefs = 1024

// define notes the label of a definition ("[2]: …") that starts with the
// bracket raw; footnote definitions ("[^2]: …") define no link.
func (s *scanner) define(raw []byte) {
	if len(raw) < 2 || raw[0] != '[' || raw[1] == '^' || len(s.defs) >= maxDefs {
		return
	}
	if s.defs == nil {
		s.defs = map[string]struct{}{}
	}
	s.defs[labelKey(raw[1:len(raw)-1])] = struct{}{}
}

// defined reports whether a definition of label has been seen.
func (s *scanner) defined(label []byte) bool {
	if len(s.defs) == 0 {
		return false
	}
	_, ok := s.defs[labelKey(label)]
	return ok
}

// labelKey normalises a link label as CommonMark matches them: case
// folded (ASCII here), blanks and line breaks collapsed, trimmed.
func labelKey(label []byte) string {
	out := make([]byte, 0, len(label))
	blank := false
	for _, c := range label {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, ' ')
			blank = false
		}
		out = append(out, lower(c))
	}
	return string(out)
}

// bracket handles a '[' or the lead byte of 【 or ［: a marker candidate,
// a definition, a link, or text.
func (s *scanner) bracket(b []byte, i int, eof, bol bool) (int, step) {
	n, st := s.c.parse(b[i:], eof, bol, !s.relabel)
	switch st {
	case pMore:
		s.pos, s.lineStart = i, bol
		return i, stepMore
	case pYes:
		s.c.raw, s.c.at, s.c.inBrackets = b[i:i+n], s.off+int64(i), s.textOpen > 0
		s.c.label = s.c.at == s.labelOf
		s.out.marker(&s.c)
		if s.c.def {
			s.define(b[i : i+n])
		}
		i += n
		if s.c.def {
			// The rest of a definition is its destination and title:
			// never touched.
			s.st, s.pos = stIndented, i
			return i, stepState
		}
		return i, stepOn
	case pVerbatim:
		s.out.code(b[i : i+n])
		if s.c.def {
			s.define(b[i : i+n])
		}
		i += n
		if s.c.def {
			s.st, s.pos = stIndented, i
			return i, stepState
		}
		if i < len(b) && b[i] == '(' {
			s.out.code(b[i : i+1])
			s.st, s.destDepth, s.pos = stLinkDest, 1, i+1
			return i, stepState
		}
		return i, stepOn
	}
	if b[i] == '[' {
		if bol {
			// "[label]: …" defines a link: note its label, for "![n][label]".
			label, ok, _ := refLabel(b[i:], 1, eof)
			e := i + len(label) + 2
			if (label == nil && !ok) || (ok && e == len(b) && !eof) {
				s.pos, s.lineStart = i, bol
				return i, stepMore
			}
			if ok && e < len(b) && b[e] == ':' {
				s.define(b[i:e])
			}
		}
		s.startLink(i, 1)
		return i, stepState
	}
	// A whole character: its rest is plain. Only continuation bytes
	// belong to it: in invalid UTF-8 the next byte may be a '[' that must
	// still be seen.
	n = 1
	for n < 3 && i+n < len(b) && b[i+n]&0xC0 == 0x80 {
		n++
	}
	switch ch := b[i : i+n]; {
	case bytes.Equal(ch, lenticularOpen) || bytes.Equal(ch, fullwidthOpen):
		s.textOpen++
	case s.textOpen > 0 && (bytes.Equal(ch, lenticularClose) || bytes.Equal(ch, fullwidthClose)):
		s.textOpen--
	}
	s.out.text(b[i : i+n])
	return i + n, stepOn
}

// completeRunes returns the end of the longest prefix of b[i:j] that does
// not stop inside a UTF-8 character.
func completeRunes(b []byte, i, j int) int {
	k := j
	for n := 0; k > i && n < utf8.UTFMax; n++ {
		k--
		if utf8.RuneStart(b[k]) {
			if utf8.FullRune(b[k:j]) {
				return j
			}
			return k
		}
	}
	return j
}

func runOf(b []byte, i int, c byte) int {
	j := i
	for j < len(b) && b[j] == c {
		j++
	}
	return j - i
}

func isASCIIPunct(c byte) bool {
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')
}

// endLine resets the line state after a line break in prose.
func (s *scanner) endLine() {
	s.lineStart = true
	s.textOpen = 0
	s.prefixed = false
	s.para = s.content && !s.noPara
	s.content, s.noPara = false, false
	s.col, s.base = 0, 0
}

// endBlock resets the line state after a code or HTML block's last line.
func (s *scanner) endBlock() {
	s.endLine()
	s.para = false
}

// scanIndented copies an indented code block's line verbatim.
func (s *scanner) scanIndented() bool {
	if s.codeLine() {
		s.st = stText
		s.endBlock()
	}
	return true
}

// codeLine passes the rest of the line at pos on as code and reports
// whether it ended (with its line break).
func (s *scanner) codeLine() bool {
	b := s.buf
	i := s.pos
	j := indexByte(b, i, '\n')
	if j < 0 {
		s.out.code(b[i:])
		s.pos = len(b)
		return false
	}
	s.out.code(b[i : j+1])
	s.pos = j + 1
	return true
}

// scanFence copies a fenced block verbatim, watching each line for the
// container prefix it belongs to (a line without it ends the block) and
// for the closing fence. It needs more input only to decide a line's
// container prefix.
func (s *scanner) scanFence(eof bool) bool {
	b := s.buf
	i := s.pos
	if s.st == stFenceInfo {
		if s.codeLine() {
			s.st, s.fl, s.flRunLen, s.fenceBOL = stFence, flIndent, 0, true
		}
		return true
	}
	start := i
	for i < len(b) {
		if s.fenceBOL {
			n, st := s.fencePrefix(b[i:], eof)
			if st != stepOn {
				s.out.code(b[start:i])
				s.pos = i
				if st == stepState {
					// The container ends, and the block with it; the line
					// is read afresh.
					s.st = stText
					s.endBlock()
				}
				return st == stepState
			}
			i += n
			continue
		}
		c := b[i]
		switch {
		case c == '\n':
			closed := s.fl == flTrail || (s.fl == flRun && s.flRunLen >= s.fenceLen)
			i++
			s.fl, s.flRunLen, s.fenceBOL = flIndent, 0, true
			if closed {
				s.out.code(b[start:i])
				s.st = stText
				s.endBlock()
				s.pos = i
				return true
			}
		case s.fl == flOther:
			if j := indexByte(b, i, '\n'); j >= 0 {
				i = j
			} else {
				i = len(b)
			}
		default:
			s.closingFence(c)
			i++
		}
	}
	s.out.code(b[start:i])
	s.pos = i
	return true
}

// fencePrefix matches the container prefix of a line inside a fenced block
// opened in containers: stepOn and its length when the line carries it,
// stepState when it does not (the containers and the block end there), or
// stepMore.
func (s *scanner) fencePrefix(b []byte, eof bool) (int, step) {
	s.col, s.base = 0, 0
	n := 0
	if s.fenceDepth > 0 {
		k, col, base, matched, st := matchConts(s.conts[:s.fenceDepth], b, eof)
		if st == pMore {
			return 0, stepMore
		}
		if matched < s.fenceDepth {
			s.nconts = matched
			return 0, stepState
		}
		n = k
		s.col, s.base = col, base
	}
	s.fenceBOL = false
	return n, stepOn
}

// closingFence advances the recognition of a closing fence by the byte c
// of a fenced block's line (not its line break).
func (s *scanner) closingFence(c byte) {
	switch s.fl {
	case flIndent:
		switch {
		case c == ' ' || c == '\t':
			s.col = advanceCol(s.col, c)
			if s.col-s.base >= 4 {
				s.fl = flOther // indented four or more: not a closing fence
			}
		case c == '\r':
		case c == s.fenceChar:
			s.fl, s.flRunLen = flRun, 1
		default:
			s.fl = flOther
		}
	case flRun:
		switch {
		case c == s.fenceChar:
			s.flRunLen++
		case (c == ' ' || c == '\t' || c == '\r') && s.flRunLen >= s.fenceLen:
			s.fl = flTrail
		default:
			s.fl = flOther
		}
	case flTrail:
		if c != ' ' && c != '\t' && c != '\r' {
			s.fl = flOther
		}
	}
}

// scanSpan looks for the closer of the inline code span opened at pos: a
// run of exactly as many backticks on the same line. Code spans do not
// cross lines here (models do not write them so, and it bounds what is
// held); without a closer the opener is literal text and scanning resumes
// after it.
func (s *scanner) scanSpan(eof bool) bool {
	b := s.buf[s.pos:]
	i := s.spanScan
	for i < len(b) {
		c := b[i]
		if c == '\n' {
			break
		}
		if c != '`' {
			i++
			continue
		}
		run := runOf(b, i, '`')
		if i+run == len(b) && !eof && run <= s.spanLen {
			s.spanScan = i // the run may yet be the closer
			return false
		}
		if run == s.spanLen {
			s.out.code(b[:i+run])
			s.pos += i + run
			s.st, s.spanFence = stText, false
			return true
		}
		s.spanTick = true
		i += run
	}
	if i == len(b) && !eof {
		s.spanScan = i
		return false
	}
	if s.spanFence && !s.spanTick {
		// No backtick after the opener on its line: a fence.
		s.spanFence = false
		s.fenceChar, s.fenceLen, s.fenceDepth, s.fenceBOL = '`', s.spanLen, s.nconts, true
		if i == len(b) { // the text ends on the opening line
			s.out.code(b)
			s.pos += len(b)
			s.st = stFenceInfo
			return true
		}
		s.out.code(b[:i+1])
		s.pos += i + 1
		s.st, s.fl, s.flRunLen = stFence, flIndent, 0
		return true
	}
	s.spanFence = false
	s.out.text(b[:s.spanLen]) // no closer: the opener is literal
	s.pos += s.spanLen
	s.st = stText
	return true
}

// maxTickRun is the longest run of backticks or tildes that can open a
// code span or fence; a longer run is text. It bounds what is held.
const maxTickRun = 16

// startLink holds the '[' (or "![") at buf[i] until it is known whether a
// markdown link or image starts there.
func (s *scanner) startLink(i, n int) {
	s.st = stLinkText
	s.pos = i
	s.linkOpen = n
}

// maxLinkText bounds how far a possible link's text is looked through.
const maxLinkText = 1024

// linkPass pairs brackets on a line once, for every '[' that may open a
// link: each input byte is looked at once however many '[' are held, so a
// flood of '[' costs linear time. Offsets are absolute (Processor.off).
type linkPass struct {
	end   int64           // bytes before end have been paired
	stack []int64         // '[' not yet closed, oldest first, from head
	head  int             // stack[:head] have expired
	found map[int64]int64 // '[' → its ']', where "](" or "][" follows
}

// Link-pass outcomes.
const (
	lkMore = iota // more input needed
	lkNot         // not a link
	lkLink        // a link or reference link: its ']' is at the returned offset
)

// pair decides whether the '[' at absolute offset open opens a link.
func (s *scanner) pair(open int64, eof bool) (int, int64) {
	lk := &s.lk
	switch {
	case open >= lk.end:
		lk.stack, lk.head, lk.end = append(lk.stack[:0], open), 0, open+1
	default:
		if c, ok := lk.found[open]; ok {
			delete(lk.found, open)
			return lkLink, c
		}
		if lk.head == len(lk.stack) || (lk.stack[lk.head] != open && !inStack(lk.stack[lk.head:], open)) {
			return lkNot, 0
		}
	}
	b := s.buf
	for i := int(lk.end - s.off); i < len(b); i++ {
		at := s.off + int64(i)
		for lk.head < len(lk.stack) && at-lk.stack[lk.head] >= maxLinkText {
			lk.head++
			if lk.stack[lk.head-1] == open {
				lk.end = at
				return lkNot, 0
			}
		}
		switch b[i] {
		case '\n':
			lk.stack, lk.head, lk.end = lk.stack[:0], 0, at+1
			return lkNot, 0
		case '\\':
			if i+1 == len(b) && !eof {
				lk.end = at
				return lkMore, 0
			}
			i++
		case '[':
			if lk.head > 0 && lk.head >= len(lk.stack)/2 {
				lk.stack = lk.stack[:copy(lk.stack, lk.stack[lk.head:])]
				lk.head = 0
			}
			lk.stack = append(lk.stack, at)
		case ']':
			if lk.head == len(lk.stack) {
				continue
			}
			if i+1 == len(b) && !eof {
				lk.end = at
				return lkMore, 0
			}
			t := lk.stack[len(lk.stack)-1]
			lk.stack = lk.stack[:len(lk.stack)-1]
			link := i+1 < len(b) && (b[i+1] == '(' || b[i+1] == '[')
			if t == open {
				lk.end = at + 1
				if link {
					return lkLink, at
				}
				return lkNot, 0
			}
			if link {
				if lk.found == nil {
					lk.found = map[int64]int64{}
				}
				lk.found[t] = at
			}
		}
	}
	lk.end = s.off + int64(len(b))
	if eof {
		return lkNot, 0
	}
	return lkMore, 0
}

func inStack(stack []int64, s int64) bool {
	_, ok := slices.BinarySearch(stack, s)
	return ok
}

// scanLinkText decides whether the held '[' opens a link on its line. If
// "](" follows its matching ']', the link text is copied untouched
// (citations inside a link's text are the link's, not ours) and its
// destination follows; if "][" follows, it is a reference link whose label
// is copied untouched too (in Renumber mode the label is read as a marker,
// since definitions are relabelled there); otherwise the '[' is plain text
// and scanning resumes after it.
func (s *scanner) scanLinkText(eof bool) bool {
	open := s.off + int64(s.pos+s.linkOpen-1)
	res, c := s.pair(open, eof)
	switch res {
	case lkMore:
		return false
	case lkNot:
		return s.notLink()
	}
	i := int(c - s.off) // the ']'
	b := s.buf
	s.out.code(b[s.pos : i+1])
	s.pos = i + 1
	if b[i+1] == '(' {
		s.out.code(b[i+1 : i+2])
		s.pos++
		s.st, s.destDepth = stLinkDest, 1
		return true
	}
	s.st = stText
	if !s.relabel {
		s.st, s.spanScan = stRefLabel, 1
	}
	s.labelOf = c + 1
	return true
}

// scanRefLabel copies a reference link's label ("[label]" after "[text]")
// untouched if it closes on its line without brackets inside; otherwise
// scanning goes on as text.
func (s *scanner) scanRefLabel(eof bool) bool {
	b := s.buf[s.pos:]
	i := s.spanScan
	for ; i < len(b) && i < maxLinkText; i++ {
		switch b[i] {
		case ']':
			s.out.code(b[:i+1])
			s.pos += i + 1
			s.st = stText
			return true
		case '[', '\n':
			s.st = stText
			return true
		case '\\':
			i++
		}
	}
	if i >= len(b) && i < maxLinkText && !eof {
		s.spanScan = i
		return false
	}
	s.st = stText
	return true
}

func (s *scanner) notLink() bool {
	// Only the '!' of "![" that opens no image: the '[' may start a marker
	// ("It works![1]").
	n := 1
	if s.buf[s.pos] == '[' {
		s.textOpen++
	}
	s.out.text(s.buf[s.pos : s.pos+n])
	s.pos += n
	s.st = stText
	return true
}

// scanLinkDest copies a link destination up to its closing parenthesis
// (or the end of the line) untouched.
func (s *scanner) scanLinkDest() bool {
	b := s.buf
	i := s.pos
	for i < len(b) {
		switch b[i] {
		case '(':
			s.destDepth++
		case ')':
			s.destDepth--
		case '\n':
			s.destDepth = 0
			i-- // the newline is text
		}
		i++
		if s.destDepth == 0 {
			s.st = stText
			break
		}
	}
	s.out.code(b[s.pos:i])
	s.pos = i
	return true
}

func indexByte(b []byte, i int, c byte) int {
	j := bytes.IndexByte(b[i:], c)
	if j < 0 {
		return -1
	}
	return i + j
}
