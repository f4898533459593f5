package citeproc

import (
	"errors"
	"io"
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

// Processor is a streaming citation processor: Write chunks, then Close.
// It is not safe for concurrent use and starts no goroutines. Text is
// written to the destination at most once per Write (plus once before each
// citation fact), always on UTF-8 character boundaries.
//
// It joins the package's two ideas: a scanner (scanner.go, container.go,
// html.go, marker.go), which reads CommonMark's blocks and inlines as far
// as citations need them and emits tokens (prose, code, marker
// candidates), and a renderer (render.go), which consumes them: it keeps,
// links, removes or renumbers each marker, reports the facts and writes
// the text.
//
// Cost: linear in the input. Input that cannot be decided yet (a marker,
// a code span or a UTF-8 character cut by the chunk boundary) is held, and
// scanning resumes where it stopped; no byte is rescanned more than a
// bounded number of times.
type Processor struct {
	s      scanner
	r      renderer
	busy   bool // inside Write or Close: hooks must not call back in
	closed bool
}

// New returns a processor that writes its output text to dst.
func New(dst io.Writer, cfg Config) *Processor {
	mp := cfg.Mapping
	if mp == nil {
		mp = NewMapping(nil)
	}
	p := &Processor{r: renderer{
		dst: dst, mode: cfg.Mode, style: cfg.Style, mapping: mp, number: cfg.Numberer, hooks: cfg.Hooks,
		citedIdx: make(map[int]int, min(mp.Len(), 64)),
		cited:    make([]Citation, 0, min(mp.Len(), 64)),
	}}
	p.s.init(&p.r, cfg.Mode == Renumber, &p.r.removed)
	return p
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

// write scans b, which it must neither modify nor retain.
func (p *Processor) write(b []byte) error {
	switch {
	case p.busy:
		return ErrReentrant
	case p.closed:
		return ErrClosed
	case p.r.err != nil:
		return p.r.err
	}
	p.busy = true
	defer func() { p.busy = false }()
	if p.s.inPlace(b) {
		p.r.reserve(len(b))
	}
	p.s.write(b)
	p.r.flush(false)
	return p.r.err
}

// Close decides whatever is still held as if the text ended there (an
// unfinished marker is text; an unclosed code span's backticks are
// literal) and flushes it. Close is idempotent.
func (p *Processor) Close() error {
	if p.busy {
		return ErrReentrant
	}
	if p.closed {
		return p.r.err
	}
	p.closed = true
	if p.r.err != nil {
		return p.r.err
	}
	p.s.close()
	p.r.close()
	return p.r.err
}

// Cited returns the citations seen so far, one per display number (and
// unit of its document: see Citation), in
// order of first citation.
func (p *Processor) Cited() []Citation {
	return append([]Citation(nil), p.r.cited...)
}

// Unknowns returns the unknown numbers and URLs seen so far, in order of
// first appearance.
func (p *Processor) Unknowns() []Unknown {
	return append([]Unknown(nil), p.r.unknown...)
}

// Used returns the numbers usage tags ([[USAGE:1,3,5]]) named so far, in
// order of first appearance.
func (p *Processor) Used() []int {
	return append([]int(nil), p.r.used...)
}
