// Package cite is the citation core a research run uses, for programs that
// bring their own model output: Cite and Citer rewrite one text's citation
// markers as it streams; Collapse and Merger put several reports on one
// numbering, and Merger.Add numbers one source at a time. `deepresearch
// cite` and `deepresearch collapse` are these, over JSON.
//
// It is a leaf: it links no run store, PDF engine, spreadsheet library or
// model provider (deps_test.go holds it to that), so a program that only
// cites stays small. Nothing in it does I/O but write to the io.Writer a
// Citer is given.
package cite

import (
	"fmt"
	"io"
	"strings"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/source"
)

// Style is how citations are rendered in a text: Markdown, Plain,
// Footnote or HTML. Its text form (a Request's JSON, settings) is its name
// ("markdown", "plain", "footnote", "html"), read by its UnmarshalText,
// which refuses other names with an error wrapping
// ErrStyle; the zero Style is the default.
type Style = citeproc.Style

// ErrStyle reports a citation style Style.UnmarshalText does not know.
var ErrStyle = citeproc.ErrStyle

// Citation styles.
const (
	Markdown = citeproc.Markdown // [[1]](https://…)
	Plain    = citeproc.Plain    // [1]
	Footnote = citeproc.Footnote // [^1]
	HTML     = citeproc.HTML     // <sup><a href="…">[1]</a></sup>
)

// Mode says what Cite does with the citation markers it recognises.
type Mode = citeproc.Mode

// Citation modes.
const (
	// Keep passes markers through unchanged and records which sources
	// were cited: the text written is byte for byte the text read.
	Keep = citeproc.Keep
	// Link renders each marker as a link in Options.Style, numbered 1..K
	// by first citation (one number per resource, whatever URL form the
	// sources use); unknown numbers are dropped.
	Link = citeproc.Link
	// Remove deletes markers, leaving no double spaces.
	Remove = citeproc.Remove
	// Renumber rewrites the numbers of each marker 1..K by first
	// citation, keeping the marker's own bracket style; unknown numbers
	// are dropped.
	Renumber = citeproc.Renumber
)

// ParseMode returns the mode named s: "keep" (or ""), "link", "remove"
// or "renumber".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "keep":
		return Keep, nil
	case "link":
		return Link, nil
	case "remove":
		return Remove, nil
	case "renumber":
		return Renumber, nil
	}
	return 0, fmt.Errorf("%q is not one of keep, link, remove, renumber", s)
}

type (
	// Citation is a marker's number resolved to its source. Its fields:
	// Number int, the number the text used (for a [ref: URL] marker, the
	// number Options.Sources gives that URL); Display int, the number the
	// output shows (Number unless Link or Renumber gave another); Source
	// Source.
	Citation = citeproc.Citation
	// Unresolved is a marker the sources do not resolve. Its fields:
	// Marker string, a bracket of citation-like numbers in no understood
	// form ("[3-1]", "[01]") as written; else URL string, a [ref: URL]'s
	// URL; else Number int, the number (0 is one).
	Unresolved = citeproc.Unknown
)

// MaxNumber is the largest number a citation marker may carry.
const MaxNumber = citeproc.MaxNumber

// Options configure a Citer.
type Options struct {
	// Mode is what is done with the markers (default Keep).
	Mode Mode
	// Style is how Link renders a citation (default Markdown).
	Style Style
	// Sources maps the text's citation numbers (0 to MaxNumber) to their
	// sources.
	Sources map[int]source.Source
	// OnCitation, if set, is called the first time each display number is
	// cited, before the text that cites it is written.
	OnCitation func(Citation)
	// OnUnresolved, if set, is called the first time each unresolved
	// number, URL or marker is seen.
	OnUnresolved func(Unresolved)
}

// Citer is the streaming citation processor every stage of a run uses: a
// push-style, goroutine-free writer. Write the model's output in chunks of
// any size as it arrives, then Close; the text written to the destination
// and the facts reported (OnCitation, OnUnresolved) depend only on the
// bytes written, never on how they were split. It recognises the marker
// dialects models produce ([1], [1, 2], [1-3], 【1】, [^1], [ref: URL], …)
// and never touches code, links or HTML blocks. It is not safe for
// concurrent use.
type Citer struct{ p *citeproc.Processor }

// NewCiter returns a Citer writing to w. It fails when opts.Sources holds
// a number outside 0..MaxNumber.
func NewCiter(w io.Writer, opts Options) (*Citer, error) {
	mp, err := citeproc.MappingOf(opts.Sources, canon.Key)
	if err != nil {
		return nil, fmt.Errorf("cite: %w", err)
	}
	cfg := citeproc.Config{Mode: opts.Mode, Style: opts.Style, Mapping: mp,
		Hooks: citeproc.Hooks{Citation: opts.OnCitation, Unknown: opts.OnUnresolved}}
	if opts.Mode == Link || opts.Mode == Renumber {
		// One number per resource, whatever URL form the sources use.
		cfg.Numberer = citeproc.FirstCitedBy(func(s source.Source) string { return canon.Key(s.URL) })
	}
	return &Citer{p: citeproc.New(w, cfg)}, nil
}

// Write processes the next chunk. It returns an error only when writing
// to the destination failed.
func (c *Citer) Write(b []byte) (int, error) { return c.p.Write(b) }

// WriteString is Write for a string.
func (c *Citer) WriteString(s string) (int, error) { return c.p.WriteString(s) }

// Close processes what is held back (an unfinished marker is text) and
// writes it.
func (c *Citer) Close() error { return c.p.Close() }

// Cited returns the citations so far, in order of first citation.
func (c *Citer) Cited() []Citation { return c.p.Cited() }

// Unresolved returns the unresolved markers so far, in order.
func (c *Citer) Unresolved() []Unresolved { return c.p.Unknowns() }

// Cited is a text Cite rewrote, with its citations in order of first
// citation and its unresolved markers in order.
type Cited struct {
	// Text is the text rewritten.
	Text string
	// Citations are the citations it makes, in order of first citation.
	Citations []Citation
	// Unresolved are the markers no source resolved, in order.
	Unresolved []Unresolved
}

// Cite processes a whole text: NewCiter, one Write, Close.
func Cite(text string, opts Options) (*Cited, error) {
	var b strings.Builder
	c, err := NewCiter(&b, opts)
	if err != nil {
		return nil, err
	}
	c.WriteString(text)
	if err := c.Close(); err != nil {
		return nil, err
	}
	return &Cited{Text: b.String(), Citations: c.Cited(), Unresolved: c.Unresolved()}, nil
}
