// Package citeproc turns a model's streamed output into text plus citation
// facts.
//
// A Processor is a push-style, goroutine-free transformer: Write chunks of
// any size as they arrive, then Close. It recognises citation markers in the
// dialects models actually produce: [1], [1, 2], [1,2], [1; 2], [1 & 2],
// [1 and 2], [1, 2, and 3], [1][2], [[1]], 【1】, 【【1】】, ［1］, [2-4] (with
// -, –, —, ‐, ‑ or −), [[S:1,3]], [[S:2-4]] (S or s), [S1], [Source 1],
// [^1], [^1, 2], [^1,^2], OpenAI's 【1†source】, 【3:1†source】 and [1†]
// (the first number names the source), a stray separator ([1,], [,2],
// [1, 2,]) and [ref: URL] or [ref: <URL>]. Numbers run from 0 to
// MaxNumber; leading zeros mean nothing ([01] is 1). A marker right after a
// '!' ("grew 40%![1][2]") is a marker too: "![n](…)" is an image, and
// "![n][m]" one only when a link definition for m precedes it (footnote
// definitions define no link; CommonMark also honours definitions that
// come later, which a stream cannot know yet).
//
// In HTML, a <sup class="cite" data-sids="1,3"> tag (the citation
// protocol's HTML form) is a citation: its data-sids value is read like a
// marker, renumbered in Renumber and Link modes (unknown numbers dropped
// from it), emptied in Remove mode, and the rest of the tag is untouched.
//
// A usage telemetry tag, [[USAGE:1,3,5]], names sources a writer used
// without citing them: it is reported to the Usage hook and kept in Used,
// never resolved or renumbered, and removed from the text in every mode but
// Keep.
//
// A bracket that carries citation-like numbers in no understood form (a
// reversed range [3-1], a range wider than 64 [1-70], [1 2], seven digits)
// is a near miss: it is reported as Unknown (with its Marker) and, in every
// mode that changes numbers, dropped like an unknown number, so that no
// number is left naming another source. A negative number ([-1], [1, -2])
// is prose, never a citation: it is left as written.
//
// Never touched, in any mode: fenced code blocks (following CommonMark's
// container rules: a fence inside a list item or a block quote belongs to
// it, its lines carry the container's prefix, a line without it ends the
// block, and a closing fence is indented at most three columns relative to
// the container's content), indented code blocks (four columns past the
// container's content, not continuing a paragraph), inline code spans
// (which do not cross lines here), HTML comments (to their "-->", or the end
// of the text), HTML blocks of raw text (<pre>, <script>, <style>,
// <textarea> at a line start, to the end of the line that closes them),
// inline <code> and <pre> elements closed on their line, autolinks
// (<scheme:…>), markdown links and images, reference links ([text][label])
// and escaped brackets; link and footnote definitions ([1]: …), whose labels
// only Renumber mode relabels (so that merged reports keep definitions
// consistent with their markers); and brackets that are not citations
// ([a], [1.5]).
//
// The output (the text written to the destination and the sequence of
// facts reported to the hooks, in their relative order) depends only on the
// bytes written, never on how they were split into chunks, including splits
// inside a marker, a code fence, a container prefix or a multi-byte UTF-8
// character. Text is only ever written on UTF-8 character boundaries. The
// cost is linear in the input: each byte is examined a bounded number of
// times (brackets that may open links are paired in one pass however many
// are held).
package citeproc

import (
	"errors"
	"fmt"

	"github.com/deepresearch/deepresearch/source"
)

// Source is a citable document (alias of source.Source).
type Source = source.Source

// Mode says what the processor does with the markers it recognises.
type Mode int

const (
	// Keep passes markers through unchanged and records which sources were
	// cited, in order of first citation. The text written is byte for byte
	// the text read.
	Keep Mode = iota
	// Link replaces each marker with links in the configured Style. Numbers
	// that are not in the mapping are dropped from the text and reported.
	Link
	// Remove deletes markers, leaving no double spaces and no space before
	// punctuation. Unknown numbers are reported.
	Remove
	// Renumber rewrites the numbers inside each marker through the Numberer,
	// keeping the marker's own bracket style ([ref: URL] becomes [n]).
	// Unknown numbers are dropped from the text and reported. collapse uses it
	// to move agent reports onto one global numbering.
	Renumber
)

// Style is how Link mode renders a citation. Its text form (JSON, YAML,
// settings, flags) is its name, "markdown", "plain", "footnote" or
// "html"; the zero Style is the default, rendered as Markdown.
type Style string

const (
	// Markdown renders [[1]](https://example.com/a); a source without a URL,
	// or whose URL may not be followed (only http, https and file URLs, as
	// canon.Linkable decides, and in-page anchors such as "#ref-1" are
	// linked; a doi: or arxiv: identifier is linked under its https form,
	// canon.Link), renders as [1].
	Markdown Style = "markdown"
	// Plain renders [1] or [1, 2].
	Plain Style = "plain"
	// Footnote renders [^1][^2].
	Footnote Style = "footnote"
	// HTML renders <sup class="cite" data-sids="1,3"><a href="URL"
	// title="Title">[1]</a>,<a …>[3]</a></sup> (data-sids lists the display
	// numbers, as the citation protocol's HTML form does); a source without
	// a linkable URL renders as [1] inside the <sup>.
	HTML Style = "html"
)

// Styles lists the citation styles, in the order messages name them.
var Styles = []Style{Markdown, Plain, Footnote, HTML}

// ErrStyle reports a citation style that is none of Styles.
var ErrStyle = errors.New("unknown citation style")

// ParseStyle returns the style named s: "markdown", "plain", "footnote",
// "html", or "" (the zero Style, the default). Other names are an error
// wrapping ErrStyle that lists the names it knows.
func ParseStyle(s string) (Style, error) {
	switch st := Style(s); st {
	case "", Markdown, Plain, Footnote, HTML:
		return st, nil
	}
	return "", fmt.Errorf("%w %q: want markdown, plain, footnote or html", ErrStyle, s)
}

// MarshalText is the style's name.
func (s Style) MarshalText() ([]byte, error) { return []byte(s), nil }

// UnmarshalText sets s to the style named text, as ParseStyle reads it.
func (s *Style) UnmarshalText(text []byte) error {
	st, err := ParseStyle(string(text))
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// Citation is a fact: the marker numbered Number (as written in the input)
// resolved to Source, shown to readers as Display. Source.Location is
// where in the document this citation points (a page, a row, a slide):
// when a Numberer gives one display number to one document at several
// units, each is a Citation of its own, and Link mode writes its pinpoint
// ("[2, p. 7]").
type Citation struct {
	// Number is the number the input used (for [ref: URL] markers, the
	// mapping number of that URL).
	Number int
	// Display is the number the output shows: equal to Number unless a
	// Numberer assigned another.
	Display int
	Source  Source
}

// Unknown is a fact: a marker cited a number (or URL) that the mapping
// does not hold, or a bracket carried citation-like numbers in no form
// this package understands ("[3-1]", "[1-70]"). When Marker is set
// it is the bracket as written (and Number is 0); else when URL is set it
// is a [ref: URL] marker's URL; else Number is the number (0 is one).
type Unknown struct {
	Number int
	URL    string
	Marker string
}

// Numberer assigns the number a reader sees to a resolved citation. It is
// called once per marker number, in order of appearance; it must return
// the same number for the same source every time.
type Numberer interface {
	Display(number int, src Source) int
}

// NumbererFunc adapts a function to Numberer.
type NumbererFunc func(number int, src Source) int

// Display calls f.
func (f NumbererFunc) Display(number int, src Source) int { return f(number, src) }

// Marker is a fact: one recognised marker, every time it occurs.
type Marker struct {
	// Offset is the marker's first byte in the input (counting every byte
	// written to the processor); Len is its length in bytes.
	Offset int64
	Len    int
	// Numbers are the numbers it names, ranges expanded, in the order
	// written (repeats kept); nil for a [ref: URL] marker.
	Numbers []int
	// URL is a [ref: URL] marker's URL.
	URL string
	// Locator is the marker's pinpoint, "[2, p. 7]": the page, row or
	// slide it cites its one number at; zero when it has none.
	Locator source.Location
}

// Usage is a fact: a usage telemetry tag, [[USAGE:1,3,5]] (seed 001's
// citation protocol: "usage" in any case, numbers and ranges as in any
// marker), with which a writer names the sources it used without citing
// them inline. It is no citation: its numbers are neither resolved nor
// renumbered (they are the writer's own, which the caller's mapping
// resolves), and every mode but Keep removes the tag from the text.
type Usage struct {
	// Offset is the tag's first byte in the input; Len its length.
	Offset int64
	Len    int
	// Numbers are the numbers it names, ranges expanded, in the order
	// written (repeats kept). The slice is reused: copy it to keep it.
	Numbers []int
}

// Hooks receive citation facts as they happen. Nil fields are skipped. They
// are called synchronously from Write or Close, and always before any text
// that contains the citation's rendered link has been written.
type Hooks struct {
	// Citation is called the first time each display number is cited at
	// each unit of its document (once per display number, unless a
	// Numberer numbers one document's pages as one).
	Citation func(Citation)
	// Unknown is called the first time each unknown number or URL is seen.
	Unknown func(Unknown)
	// Marker is called for every marker, after its Citation and Unknown
	// facts. Its Numbers slice is reused: copy it to keep it.
	Marker func(Marker)
	// Usage is called for every usage tag.
	Usage func(Usage)
}
