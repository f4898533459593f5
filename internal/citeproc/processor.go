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
	stText      state = iota // prose: markers are recognised
	stFenceInfo              // the rest of a fence's opening line
	stFence                  // inside a fenced code block
	stSpan                   // an inline code span whose end is not yet known
	stLinkText               // a '[' that may open a markdown link's text
	stLinkDest               // a markdown link's (destination)
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
	// base is the input offset of buf[0]: the bytes dropped from buf's front.
	base int64
	out  []byte // output not yet written to dst

	st        state
	lineStart bool // the next text byte begins a line (blanks keep it so)
	last      byte // last output byte; 0 before any, '\n' at line start
	// flushedLast is the last byte written to dst.
	flushedLast byte

	fenceChar byte
	fenceLen  int
	fl        fenceLine
	flRunLen  int

	spanLen  int // backticks in the open code span's opener, at buf[pos:]
	spanScan int // where the search for its closer resumes, relative to pos

	linkOpen  int // length of the link opener at buf[pos:]: 1 for '[', 2 for "!["
	linkScan  int // where the search for the matching ']' resumes, relative to pos
	linkDepth int // bracket depth at linkScan
	destDepth int // parenthesis depth inside a link destination

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
		p.buf, p.pos = b, 0
		p.scan(false)
		p.base += int64(p.pos)
		rest := b[p.pos:]
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
		p.base += int64(p.pos)
		p.buf = p.buf[:0]
		p.pos = 0
	case p.pos > 0 && p.pos >= len(p.buf)/2:
		p.base += int64(p.pos)
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
			ok = p.scanFence()
		case stSpan:
			ok = p.scanSpan(eof)
		case stLinkText:
			ok = p.scanLinkText(eof)
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
	for _, c := range []byte{'[', '`', '\\', '!', '\n', 0xE3, 0xEF} {
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
		if bol {
			switch {
			case c == ' ' || c == '\t':
				if p.mode == Keep {
					p.put(b[i : i+1])
				} else {
					p.blank(c)
				}
				i++
				continue
			case c == '`' || c == '~':
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
					p.fenceChar, p.fenceLen = c, run
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
			p.lineStart = true
			p.textOpen = 0
			i++
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
			n, st := p.m.parse(b[i:], eof, bol, p.mode == Keep || p.mode == Remove)
			switch st {
			case pMore:
				p.pos, p.lineStart = i, bol
				return false
			case pYes:
				p.markerAt = p.base + int64(i)
				p.marker(b[i : i+n])
				i += n
			case pVerbatim:
				p.put(b[i : i+n])
				i += n
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
				n = min(3, len(b)-i) // a whole character: its rest is plain
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

// scanFence copies a fenced block verbatim, watching each line for the
// closing fence. It never needs more input.
func (p *Processor) scanFence() bool {
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
		p.st, p.fl, p.flRunLen = stFence, flIndent, 0
		p.pos = j + 1
		return true
	}
	start := i
	for i < len(b) {
		c := b[i]
		if c == '\n' {
			closed := p.fl == flTrail || (p.fl == flRun && p.flRunLen >= p.fenceLen)
			i++
			p.fl, p.flRunLen = flIndent, 0
			if closed {
				p.put(b[start:i])
				p.st = stText
				p.lineStart = true
				p.pos = i
				return true
			}
			continue
		}
		switch p.fl {
		case flIndent:
			switch {
			case c == ' ' || c == '\t' || c == '\r':
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
		p.fenceChar, p.fenceLen = '`', p.spanLen
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
	p.linkOpen, p.linkScan, p.linkDepth = n, n, 1
}

// maxLinkText bounds how far a possible link's text is looked through.
const maxLinkText = 1024

// scanLinkText looks for the ']' matching the held '[' on the same line.
// If "](" follows, the link text is copied untouched (citations inside a
// link's text are the link's, not ours) and its destination follows;
// otherwise the '[' is plain text and scanning resumes after it.
func (p *Processor) scanLinkText(eof bool) bool {
	b := p.buf[p.pos:]
	i, depth := p.linkScan, p.linkDepth
	for i < len(b) && i < maxLinkText {
		switch b[i] {
		case '\n':
			return p.notLink()
		case '\\':
			i++ // the escaped byte is skipped below
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				if i+1 == len(b) {
					if !eof {
						p.linkScan, p.linkDepth = i, depth+1
						return false
					}
					return p.notLink()
				}
				if b[i+1] != '(' {
					return p.notLink()
				}
				p.put(b[:i+2])
				p.pos += i + 2
				p.st, p.destDepth = stLinkDest, 1
				return true
			}
		}
		i++
	}
	if i < len(b) || i >= maxLinkText || eof {
		return p.notLink()
	}
	p.linkScan, p.linkDepth = i, depth
	return false
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
