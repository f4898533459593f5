package citeproc

import "io"

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

// Processor is a streaming citation processor. It is not safe for
// concurrent use; it starts no goroutines.
type Processor struct {
	dst io.Writer
	cfg Config
}

// New returns a processor that writes its output text to dst.
func New(dst io.Writer, cfg Config) *Processor {
	panic("citeproc: not implemented yet")
}

// Write processes the next chunk. It implements io.Writer: it reports
// len(b) unless dst failed.
func (p *Processor) Write(b []byte) (int, error) { panic("not implemented") }

// WriteString is Write for strings.
func (p *Processor) WriteString(s string) (int, error) { panic("not implemented") }

// Close processes what is still held (an unfinished marker or code span
// is decided as if the text ended there) and flushes it. Calling Write
// after Close is an error.
func (p *Processor) Close() error { panic("not implemented") }

// Cited returns the citations seen so far, one per display number, in order
// of first citation.
func (p *Processor) Cited() []Citation { panic("not implemented") }

// Unknowns returns the unknown numbers and URLs seen so far, in order of
// first appearance.
func (p *Processor) Unknowns() []Unknown { panic("not implemented") }

// FirstCited returns a Numberer that numbers sources 1..K in order of first
// citation, giving the same number to the same source (compared by ID and
// URL) every time.
func FirstCited() Numberer { panic("not implemented") }
