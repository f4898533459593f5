package citeproc

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// Config configures a Processor. The zero value is Keep mode with an empty
// mapping.
type Config struct {
	Mode Mode
	// Style is the link style in Link mode.
	Style Style
	// Mapping resolves numbers and URLs; nil is an empty mapping.
	Mapping *Mapping
	// Numberer assigns display numbers in Link and Renumber modes; nil shows
	// each citation under its own number. FirstCited numbers 1..K.
	Numberer Numberer
	Hooks    Hooks
}

// Errors of Write and Close.
var (
	// ErrClosed is returned by Write after Close.
	ErrClosed = errors.New("citeproc: write after close")
	// ErrReentrant is returned by Write or Close called from a hook.
	ErrReentrant = errors.New("citeproc: Write or Close called from a hook")
)

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

// Processor is a streaming citation processor: Write chunks, then Close.
// It is not safe for concurrent use and starts no goroutines. Text is
// written to the destination at most once per Write (plus once before each
// citation fact), always on UTF-8 character boundaries.
//
// Cost: linear in the input. Input that cannot be decided yet (a marker,
// a code span or a UTF-8 character cut by the chunk boundary) is held, and
// scanning resumes where it stopped; no byte is rescanned more than a
// bounded number of times.
type Processor struct {
	dst     io.Writer
	mode    Mode
	style   Style
	mapping *Mapping
	number  Numberer
	hooks   Hooks

	buf []byte // input; buf[pos:] is not yet consumed
	pos int
	out []byte // output not yet written to dst

	st        state
	lineStart bool // the next text byte begins a line (blanks keep it so)
	last      byte // last output byte; 0 before any, '\n' at line start
	// flushedLast is the last byte written to dst.
	flushedLast byte

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

	spanLen  int // backticks in the open code span's opener, at buf[pos:]
	spanScan int // where the search for its closer resumes, relative to pos

	linkOpen  int // length of the link opener at buf[pos:]: 1 for '[', 2 for "!["
	lk        linkPass
	off       int64 // the absolute offset of buf[0] in the input
	destDepth int   // parenthesis depth inside a link destination

	// Non-Keep modes hold trailing blanks (and opening parentheses) in out
	// until the next byte shows whether a dropped marker takes them.
	held      int  // trailing bytes of out that are held: blanks and '('
	removed   bool // a marker was just dropped
	swallowed bool // blanks followed the dropped marker
	sep       byte // a ',' or ';' after a dropped marker, held: it goes if another marker is dropped next
	sepBlank  bool // blanks followed the held separator
	lastOpen  bool // the last output character is an opening bracket
	textOpen  int  // opening brackets output as text on this line and not yet closed
	litTick   byte // inside an over-long run of this fence character: literal text
	spanFence bool // the open code span started a line with 3+ backticks: it may be a fence
	spanTick  bool // a backtick run was seen after that opener on its line
	busy      bool // inside Write or Close: hooks must not call back in
	// The display numbers of the last rendered marker, while nothing else
	// has been output since: "[1][2]" for one resource renders once.
	prevShown  []int
	afterShown bool

	m        marker
	markerAt int64 // the input offset of the marker being handled
	nums     []int // scratch: the Marker hook's numbers

	cited      []Citation
	citedIdx   map[int]int
	unknown    []Unknown
	unknownNum map[int]struct{}
	unknownURL map[string]struct{}
	group      []Citation // scratch: the current marker's resolved citations

	closed bool
	err    error
}

// New returns a processor that writes its output text to dst.
func New(dst io.Writer, cfg Config) *Processor {
	mp := cfg.Mapping
	if mp == nil {
		mp = NewMapping(nil)
	}
	return &Processor{
		dst:       dst,
		mode:      cfg.Mode,
		style:     cfg.Style,
		mapping:   mp,
		number:    cfg.Numberer,
		hooks:     cfg.Hooks,
		lineStart: true,
		citedIdx:  make(map[int]int, min(mp.Len(), 64)),
		cited:     make([]Citation, 0, min(mp.Len(), 64)),
	}
}

// Write processes the next chunk. It implements io.Writer: it reports
// len(b) unless dst failed or the processor is closed. The processor does
// not retain b.
func (p *Processor) Write(b []byte) (int, error) {
	if err := p.write(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// WriteString is Write for strings.
func (p *Processor) WriteString(s string) (int, error) {
	if err := p.write(unsafe.Slice(unsafe.StringData(s), len(s))); err != nil {
		return 0, err
	}
	return len(s), nil
}

// bulkMin is the chunk size from which an empty processor scans the
// caller's bytes in place instead of copying them first.
const bulkMin = 256

// write scans b, which it must neither modify nor retain.
func (p *Processor) write(b []byte) error {
	switch {
	case p.busy:
		return ErrReentrant
	case p.closed:
		return ErrClosed
	case p.err != nil:
		return p.err
	}
	p.busy = true
	defer func() { p.busy = false }()
	if p.pos == len(p.buf) && len(b) >= bulkMin {
		// Nothing held: scan the input where it lies, then keep only the
		// undecided tail.
		own := p.buf[:0]
		if len(p.out) == 0 {
			p.out = slices.Grow(p.out, min(len(b)+len(b)/8, flushAt+flushAt/8))
		}
		p.off += int64(len(p.buf))
		p.buf, p.pos = b, 0
		p.scan(false)
		rest := b[p.pos:]
		p.off += int64(p.pos)
		p.buf, p.pos = append(own, rest...), 0 // held offsets are relative to pos
	} else {
		p.buf = append(p.buf, b...)
		p.scan(false)
		p.compact()
	}
	p.flush(false)
	return p.err
}

// Close decides whatever is still held as if the text ended there (an
// unfinished marker is text; an unclosed code span's backticks are
// literal) and flushes it. Close is idempotent.
func (p *Processor) Close() error {
	if p.busy {
		return ErrReentrant
	}
	if p.closed {
		return p.err
	}
	p.closed = true
	if p.err != nil {
		return p.err
	}
	p.scan(true)
	p.settle(nil)
	p.flush(true)
	p.buf = p.buf[:0]
	p.pos = 0
	return p.err
}

// Cited returns the citations seen so far, one per display number, in
// order of first citation.
func (p *Processor) Cited() []Citation {
	return append([]Citation(nil), p.cited...)
}

// Unknowns returns the unknown numbers and URLs seen so far, in order of
// first appearance.
func (p *Processor) Unknowns() []Unknown {
	return append([]Unknown(nil), p.unknown...)
}

// compact drops consumed input once it is at least half the buffer, so
// that held input is copied a bounded number of times (amortised O(1) per
// byte).
func (p *Processor) compact() {
	switch {
	case p.pos == len(p.buf):
		p.off += int64(len(p.buf))
		p.buf = p.buf[:0]
		p.pos = 0
	case p.pos > 0 && p.pos >= len(p.buf)/2:
		p.off += int64(p.pos)
		n := copy(p.buf, p.buf[p.pos:])
		p.buf = p.buf[:n]
		p.pos = 0
	}
}

// flush writes pending output. Unless final, it holds back a trailing
// incomplete UTF-8 character, and non-Keep modes hold back trailing blanks
// and opening parentheses: a marker that follows may be dropped and take
// them.
func (p *Processor) flush(final bool) {
	n := len(p.out)
	if !final {
		if p.mode != Keep {
			n -= p.held
		}
		n = completeRunes(p.out, 0, n) // never write half a character
	}
	if n == 0 {
		return
	}
	if p.err == nil {
		if _, err := p.dst.Write(p.out[:n]); err != nil {
			p.err = err
		}
	}
	p.flushedLast = p.out[n-1]
	rest := copy(p.out, p.out[n:])
	p.out = p.out[:rest]
}

func (p *Processor) scan(eof bool) {
	for p.pos < len(p.buf) {
		var ok bool
		switch p.st {
		case stText:
			ok = p.scanText(eof)
		case stFenceInfo, stFence:
			ok = p.scanFence(eof)
		case stIndented:
			ok = p.scanIndented()
		case stComment:
			ok = p.scanComment()
		case stHTMLBlock:
			ok = p.scanHTMLBlock()
		case stHTMLInline:
			ok = p.scanHTMLInline(eof)
		case stAutolink:
			ok = p.scanAutolink()
		case stSpan:
			ok = p.scanSpan(eof)
		case stLinkText:
			ok = p.scanLinkText(eof)
		case stRefLabel:
			ok = p.scanRefLabel(eof)
		case stLinkDest:
			ok = p.scanLinkDest()
		}
		if !ok {
			return
		}
	}
}

// put appends text (never starting with a blank in non-Keep modes) to the
// output, first settling a dropped marker's surroundings.
func (p *Processor) put(b []byte) {
	if len(b) == 0 {
		return
	}
	if p.removed {
		if p.sep == 0 && (b[0] == ',' || b[0] == ';') {
			p.sep = b[0] // "[1], [2]": kept only if no dropped marker follows
			b = b[1:]
			if len(b) == 0 {
				return
			}
		}
		b = b[p.settle(b):]
		if len(b) == 0 {
			return
		}
	}
	p.out = append(p.out, b...)
	p.afterShown = false
	p.last = b[len(b)-1]
	p.lastOpen = p.last == '[' || (p.last >= 0x90 && (bytes.HasSuffix(b, lenticularOpen) || bytes.HasSuffix(b, fullwidthOpen)))
	k := 0
	for k < len(b) && heldByte(b[len(b)-1-k]) {
		k++
	}
	if k == len(b) {
		p.held += k
	} else {
		p.held = k
	}
	if len(p.out) >= flushAt {
		p.flush(false)
	}
}

func heldByte(c byte) bool { return c == ' ' || c == '\t' || c == '(' }

// rendered records output appended directly by a renderer.
func (p *Processor) rendered() {
	p.last = p.out[len(p.out)-1]
	p.lastOpen, p.held = false, 0
}

// blank handles a space or tab in non-Keep modes.
func (p *Processor) blank(c byte) {
	if p.removed {
		if p.sep != 0 {
			p.sepBlank = true
		} else {
			p.swallowed = true
		}
		return
	}
	p.out = append(p.out, c)
	p.last, p.lastOpen = c, false
	p.afterShown = false
	p.held++
}

// trimBlanks drops the held blanks at the end of the output.
func (p *Processor) trimBlanks() {
	for len(p.out) > 0 && p.held > 0 && isBlank(p.out[len(p.out)-1]) {
		p.out = p.out[:len(p.out)-1]
		p.held--
	}
	if len(p.out) > 0 {
		p.last = p.out[len(p.out)-1]
	} else {
		p.last = p.flushedLast
	}
}

// settle decides the surroundings of a dropped marker now that the next
// text is known (next is nil at the end of the text), and returns how many
// bytes of next it consumed. Before punctuation, a line end or the end, the
// blanks before the marker go; otherwise one run of blanks stays (those
// before the marker, or one space if only blanks after it separated two
// words). A separator between dropped markers goes with them; parentheses
// left empty go too.
func (p *Processor) settle(next []byte) int {
	if !p.removed {
		return 0
	}
	if p.sep != 0 {
		sep, sepBlank := p.sep, p.sepBlank
		p.sep, p.sepBlank = 0, false
		p.settle([]byte{sep})
		p.out = append(p.out, sep)
		p.last, p.lastOpen, p.held = sep, false, 0
		if sepBlank && len(next) > 0 && next[0] != '\n' && next[0] != '\r' && !isClosingPunct(next) {
			p.out = append(p.out, ' ')
			p.last, p.held = ' ', 1
		}
		return 0
	}
	p.removed = false
	swallowed := p.swallowed
	p.swallowed = false
	trailing := len(p.out) > 0 && p.held > 0 && isBlank(p.out[len(p.out)-1])
	if len(next) == 0 || next[0] == '\n' || next[0] == '\r' || isClosingPunct(next) {
		p.trimBlanks()
		if len(next) > 0 && next[0] == ')' && len(p.out) > 0 && p.held > 0 && p.out[len(p.out)-1] == '(' {
			// "claim ([1])." loses the parentheses with the marker.
			p.out = p.out[:len(p.out)-1]
			p.held--
			p.last = p.flushedLast
			if len(p.out) > 0 {
				p.last = p.out[len(p.out)-1]
			}
			p.removed = true
			return 1
		}
		if len(next) > 0 && next[0] == ':' && p.last == ']' {
			p.out = append(p.out, ' ') // "[1][9]: x" must not become a definition
			p.last, p.held = ' ', 1
		}
		return 0
	}
	switch {
	case !trailing && p.last == next[0] && (next[0] == '`' || next[0] == '*' || next[0] == '_' || next[0] == '~'):
		// "`a`[1]`b`" must not become one code span, nor "**a**[1]**b**"
		// one run of delimiters.
		p.out = append(p.out, ' ')
		p.last, p.held = ' ', 1
	case p.last == ']' && next[0] == '(':
		p.out = append(p.out, ' ') // "[1][9](x)" must not become a link
		p.last, p.held = ' ', 1
	case !trailing && swallowed && p.last != 0 && p.last != '\n':
		p.out = append(p.out, ' ')
		p.last, p.held = ' ', 1
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

// scanText consumes prose. It returns false when it needs more input.
func (p *Processor) scanText(eof bool) bool {
	b := p.buf
	i := p.pos
	for i < len(b) {
		c := b[i]
		// Blanks need a look only right after a dropped marker; elsewhere
		// they are text, and put counts the trailing ones it holds.
		table := &specialKeep
		if p.removed {
			table = &special
		}
		if p.litTick != 0 {
			if c == p.litTick {
				run := runOf(b, i, c)
				p.put(b[i : i+run])
				i += run
				continue
			}
			p.litTick = 0
		}
		bol := p.lineStart
		if bol && !p.prefixed {
			n, st := p.prefix(b[i:], eof)
			if st == pMore {
				p.pos = i
				return false
			}
			p.prefixed = true
			if n > 0 {
				p.put(b[i : i+n])
				i += n
			}
			continue
		}
		if bol {
			switch {
			case c == ' ' || c == '\t':
				p.col = advanceCol(p.col, c)
				if p.mode == Keep {
					p.put(b[i : i+1])
				} else {
					p.blank(c)
				}
				i++
				continue
			case c == '\n' || c == '\r':
			case p.col-p.base >= 4 && !p.para:
				p.lineStart, p.content = false, true
				p.st = stIndented
				p.pos = i
				return true
			case (c == '`' || c == '~') && p.col-p.base < 4:
				run := runOf(b, i, c)
				if run > maxTickRun {
					p.put(b[i : i+run]) // too long to open anything: text
					p.litTick, p.lineStart = c, false
					i += run
					continue
				}
				if i+run == len(b) && !eof {
					p.pos, p.lineStart = i, bol
					return false
				}
				switch {
				case run >= 3 && c == '~':
					p.put(b[i : i+run])
					p.lineStart = false
					p.st = stFenceInfo
					p.fenceChar, p.fenceLen, p.fenceDepth = c, run, p.nconts
					p.pos = i + run
					return true
				case run >= 3:
					// A fence, unless a backtick follows on the line
					// ("```x``` is code"): decided by scanSpan.
					p.lineStart = false
					p.st = stSpan
					p.spanLen, p.spanScan = run, run
					p.spanFence, p.spanTick = true, false
					p.pos = i
					return true
				}
			}
			if c != '\n' {
				p.lineStart = false
			}
			if !isEOL(c) && !p.content {
				p.content, p.noPara = true, c == '#'
				if (c == '-' || c == '*' || c == '_' || c == '=') && p.col-p.base < 4 {
					brk, st := false, pYes
					if c != '=' {
						brk, st = thematicBreak(b, i, c, eof)
					}
					if st == pYes && !brk && p.para && !p.lazyLine && (c == '-' || c == '=') {
						brk, st = setextUnderline(b, i, c, eof)
					}
					if st == pMore {
						p.pos, p.lineStart, p.content = i, bol, false
						return false
					}
					p.noPara = brk
				}
			}
			if c == '<' && p.col-p.base < 4 {
				t, st := htmlBlockStart(b[i:], eof)
				if st == pMore {
					p.pos, p.lineStart = i, bol
					return false
				}
				if st == pYes {
					p.put(b[i : i+1+len(t)])
					p.st, p.closer, p.closerSeen = stHTMLBlock, "</"+t+">", 0
					p.pos = i + 1 + len(t)
					return true
				}
			}
		}
		if p.removed && p.sep == 0 && isDelimiter(c) {
			// After a dropped marker, emphasis or a quote that closes
			// ("**claim [1]**.") takes no space before it; one that opens
			// ("[1] *Note*") keeps it. The byte after the run decides.
			run := runOf(b, i, c)
			if i+run == len(b) && !eof && run <= 8 {
				p.pos, p.lineStart = i, bol
				return false
			}
			if i+run == len(b) || !isWordByte(b[i+run]) {
				p.settle([]byte{'.'})
			}
			p.put(b[i : i+run])
			i += run
			continue
		}
		if !table[c] {
			j := i + 1
			for j < len(b) && !table[b[j]] {
				j++
			}
			if j == len(b) && !eof {
				j = completeRunes(b, i, j)
				if j == i {
					p.pos, p.lineStart = i, bol
					return false
				}
			}
			if p.textOpen > 0 {
				p.textOpen = max(0, p.textOpen-bytes.Count(b[i:j], closeSingle))
			}
			p.put(b[i:j])
			i = j
			continue
		}
		switch c {
		case '\n':
			p.put(b[i : i+1])
			p.endLine()
			i++
		case '<':
			p.pos = i
			p.blockHTML = bol && p.col-p.base < 4
			n, st := p.angle(b[i:], eof)
			if st == pMore {
				p.lineStart = bol
				return false
			}
			if st == pYes {
				return true
			}
			p.put(b[i : i+n])
			i += n
		case ' ', '\t':
			p.blank(c)
			i++
		case '\\', '!':
			if i+1 == len(b) && !eof {
				p.pos, p.lineStart = i, bol
				return false
			}
			if c == '!' && i+1 < len(b) && b[i+1] == '[' {
				p.startLink(i, 2)
				return true
			}
			n := 1
			if c == '\\' && i+1 < len(b) && isASCIIPunct(b[i+1]) {
				n = 2
			}
			p.put(b[i : i+n])
			i += n
		case '`':
			run := runOf(b, i, '`')
			if run > maxTickRun {
				p.put(b[i : i+run])
				p.litTick = '`'
				i += run
				continue
			}
			if i+run == len(b) && !eof {
				p.pos, p.lineStart = i, bol
				return false
			}
			p.spanFence = false
			p.st = stSpan
			p.spanLen, p.spanScan = run, run
			p.pos = i
			return true
		default: // '[', or the lead byte of 【 or ［
			n, st := p.m.parse(b[i:], eof, bol, p.mode != Renumber)
			switch st {
			case pMore:
				p.pos, p.lineStart = i, bol
				return false
			case pYes:
				p.markerAt = p.off + int64(i)
				p.marker(b[i : i+n])
				i += n
				if p.m.def {
					// The rest of a definition is its destination and
					// title: never touched.
					p.st, p.pos = stIndented, i
					return true
				}
			case pVerbatim:
				p.put(b[i : i+n])
				i += n
				if p.m.def {
					p.st, p.pos = stIndented, i
					return true
				}
				if i < len(b) && b[i] == '(' {
					p.put(b[i : i+1])
					p.st, p.destDepth, p.pos = stLinkDest, 1, i+1
					return true
				}
			default:
				if c == '[' {
					p.startLink(i, 1)
					return true
				}
				// A whole character: its rest is plain. Only continuation
				// bytes belong to it: in invalid UTF-8 the next byte may
				// be a '[' that must still be seen.
				n = 1
				for n < 3 && i+n < len(b) && b[i+n]&0xC0 == 0x80 {
					n++
				}
				switch ch := b[i : i+n]; {
				case bytes.Equal(ch, lenticularOpen) || bytes.Equal(ch, fullwidthOpen):
					p.textOpen++
				case p.textOpen > 0 && (bytes.Equal(ch, lenticularClose) || bytes.Equal(ch, fullwidthClose)):
					p.textOpen--
				}
				p.put(b[i : i+n])
				i += n
			}
		}
	}
	p.pos = i
	return true
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
func (p *Processor) endLine() {
	p.lineStart = true
	p.textOpen = 0
	p.prefixed = false
	p.para = p.content && !p.noPara
	p.content, p.noPara = false, false
	p.col, p.base = 0, 0
}

// endBlock resets the line state after a code or HTML block's last line.
func (p *Processor) endBlock() {
	p.endLine()
	p.para = false
}

// scanIndented copies an indented code block's line verbatim.
func (p *Processor) scanIndented() bool {
	b := p.buf
	i := p.pos
	j := indexByte(b, i, '\n')
	if j < 0 {
		p.put(b[i:])
		p.pos = len(b)
		return true
	}
	p.put(b[i : j+1])
	p.pos = j + 1
	p.st = stText
	p.endBlock()
	return true
}

// scanFence copies a fenced block verbatim, watching each line for the
// container prefix it belongs to (a line without it ends the block) and
// for the closing fence. It needs more input only to decide a line's
// container prefix.
func (p *Processor) scanFence(eof bool) bool {
	b := p.buf
	i := p.pos
	if p.removed {
		p.settle(b[i:])
	}
	if p.st == stFenceInfo {
		j := indexByte(b, i, '\n')
		if j < 0 {
			p.put(b[i:])
			p.pos = len(b)
			return true
		}
		p.put(b[i : j+1])
		p.st, p.fl, p.flRunLen, p.fenceBOL = stFence, flIndent, 0, true
		p.pos = j + 1
		return true
	}
	start := i
	for i < len(b) {
		if p.fenceBOL {
			p.col, p.base = 0, 0
			if p.fenceDepth > 0 {
				n, col, base, matched, st := matchConts(p.conts[:p.fenceDepth], b[i:], eof)
				if st == pMore {
					p.put(b[start:i])
					p.pos = i
					return false
				}
				if matched < p.fenceDepth {
					// The container ends, and the block with it; the line
					// is read afresh.
					p.put(b[start:i])
					p.pos = i
					p.nconts = matched
					p.st = stText
					p.endBlock()
					return true
				}
				i += n
				p.col, p.base = col, base
			}
			p.fenceBOL = false
			continue
		}
		c := b[i]
		if c == '\n' {
			closed := p.fl == flTrail || (p.fl == flRun && p.flRunLen >= p.fenceLen)
			i++
			p.fl, p.flRunLen, p.fenceBOL = flIndent, 0, true
			if closed {
				p.put(b[start:i])
				p.st = stText
				p.endBlock()
				p.pos = i
				return true
			}
			continue
		}
		switch p.fl {
		case flIndent:
			switch {
			case c == ' ' || c == '\t':
				p.col = advanceCol(p.col, c)
				if p.col-p.base >= 4 {
					p.fl = flOther // indented four or more: not a closing fence
				}
			case c == '\r':
			case c == p.fenceChar:
				p.fl, p.flRunLen = flRun, 1
			default:
				p.fl = flOther
			}
		case flRun:
			switch {
			case c == p.fenceChar:
				p.flRunLen++
			case (c == ' ' || c == '\t' || c == '\r') && p.flRunLen >= p.fenceLen:
				p.fl = flTrail
			default:
				p.fl = flOther
			}
		case flTrail:
			if c != ' ' && c != '\t' && c != '\r' {
				p.fl = flOther
			}
		case flOther:
			j := indexByte(b, i, '\n')
			if j < 0 {
				i = len(b)
				continue
			}
			i = j
			continue
		}
		i++
	}
	p.put(b[start:i])
	p.pos = i
	return true
}

// scanSpan looks for the closer of the inline code span opened at pos: a
// run of exactly as many backticks on the same line. Code spans do not
// cross lines here (models do not write them so, and it bounds what is
// held); without a closer the opener is literal text and scanning resumes
// after it.
func (p *Processor) scanSpan(eof bool) bool {
	b := p.buf[p.pos:]
	i := p.spanScan
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
		if i+run == len(b) && !eof && run <= p.spanLen {
			p.spanScan = i // the run may yet be the closer
			return false
		}
		if run == p.spanLen {
			p.put(b[:i+run])
			p.pos += i + run
			p.st, p.spanFence = stText, false
			return true
		}
		p.spanTick = true
		i += run
	}
	if i == len(b) && !eof {
		p.spanScan = i
		return false
	}
	if p.spanFence && !p.spanTick {
		// No backtick after the opener on its line: a fence.
		p.spanFence = false
		p.fenceChar, p.fenceLen, p.fenceDepth, p.fenceBOL = '`', p.spanLen, p.nconts, true
		if i == len(b) { // the text ends on the opening line
			p.put(b)
			p.pos += len(b)
			p.st = stFenceInfo
			return true
		}
		p.put(b[:i+1])
		p.pos += i + 1
		p.st, p.fl, p.flRunLen = stFence, flIndent, 0
		return true
	}
	p.spanFence = false
	p.put(b[:p.spanLen])
	p.pos += p.spanLen
	p.st = stText
	return true
}

// maxTickRun is the longest run of backticks or tildes that can open a
// code span or fence; a longer run is text. It bounds what is held.
const maxTickRun = 16

// startLink holds the '[' (or "![") at buf[i] until it is known whether a
// markdown link or image starts there.
func (p *Processor) startLink(i, n int) {
	p.st = stLinkText
	p.pos = i
	p.linkOpen = n
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

// pair decides whether the '[' at absolute offset s opens a link.
func (p *Processor) pair(s int64, eof bool) (int, int64) {
	lk := &p.lk
	switch {
	case s >= lk.end:
		lk.stack, lk.head, lk.end = append(lk.stack[:0], s), 0, s+1
	default:
		if c, ok := lk.found[s]; ok {
			delete(lk.found, s)
			return lkLink, c
		}
		if lk.head == len(lk.stack) || (lk.stack[lk.head] != s && !inStack(lk.stack[lk.head:], s)) {
			return lkNot, 0
		}
	}
	b := p.buf
	for i := int(lk.end - p.off); i < len(b); i++ {
		at := p.off + int64(i)
		for lk.head < len(lk.stack) && at-lk.stack[lk.head] >= maxLinkText {
			lk.head++
			if lk.stack[lk.head-1] == s {
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
			if t == s {
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
	lk.end = p.off + int64(len(b))
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
func (p *Processor) scanLinkText(eof bool) bool {
	s := p.off + int64(p.pos+p.linkOpen-1)
	res, c := p.pair(s, eof)
	switch res {
	case lkMore:
		return false
	case lkNot:
		return p.notLink()
	}
	i := int(c - p.off) // the ']'
	b := p.buf
	p.put(b[p.pos : i+1])
	p.pos = i + 1
	if b[i+1] == '(' {
		p.put(b[i+1 : i+2])
		p.pos++
		p.st, p.destDepth = stLinkDest, 1
		return true
	}
	p.st = stText
	if p.mode != Renumber {
		p.st, p.spanScan = stRefLabel, 1
	}
	return true
}

// scanRefLabel copies a reference link's label ("[label]" after "[text]")
// untouched if it closes on its line without brackets inside; otherwise
// scanning goes on as text.
func (p *Processor) scanRefLabel(eof bool) bool {
	b := p.buf[p.pos:]
	i := p.spanScan
	for ; i < len(b) && i < maxLinkText; i++ {
		switch b[i] {
		case ']':
			p.put(b[:i+1])
			p.pos += i + 1
			p.st = stText
			return true
		case '[', '\n':
			p.st = stText
			return true
		case '\\':
			i++
		}
	}
	if i >= len(b) && i < maxLinkText && !eof {
		p.spanScan = i
		return false
	}
	p.st = stText
	return true
}

func (p *Processor) notLink() bool {
	// Only the '!' of "![" that opens no image: the '[' may start a marker
	// ("It works![1]").
	n := 1
	if p.buf[p.pos] == '[' {
		p.textOpen++
	}
	p.put(p.buf[p.pos : p.pos+n])
	p.pos += n
	p.st = stText
	return true
}

// scanLinkDest copies a link destination up to its closing parenthesis
// (or the end of the line) untouched.
func (p *Processor) scanLinkDest() bool {
	b := p.buf
	i := p.pos
	for i < len(b) {
		switch b[i] {
		case '(':
			p.destDepth++
		case ')':
			p.destDepth--
		case '\n':
			p.destDepth = 0
			i-- // the newline is text
		}
		i++
		if p.destDepth == 0 {
			p.st = stText
			break
		}
	}
	p.put(b[p.pos:i])
	p.pos = i
	return true
}

func indexByte(b []byte, i int, c byte) int {
	j := bytes.IndexByte(b[i:], c)
	if j < 0 {
		return -1
	}
	return i + j
}

// flushAt bounds the output held during one large Write.
const flushAt = 32 << 10
