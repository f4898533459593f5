// Package citeproc turns a model's streamed output into text plus citation
// facts.
//
// A Processor is a push-style, goroutine-free transformer: Write chunks of
// any size as they arrive, then Close. It recognises citation markers in the
// dialects models actually produce ([1], [1, 2], [1][2], [[1]], 【1】, ［1］,
// [2-4], [2–4], [[S:1,3]], [[S:2-4]], [^1] and [ref: URL]) and leaves alone
// fenced code blocks, inline code spans, markdown links and images, escaped
// brackets, link reference definitions and brackets that are not citations
// ([a], [1.5]).
//
// The output (the text written to the destination and the sequence of
// facts reported to the hooks, in their relative order) depends only on the
// bytes written, never on how they were split into chunks, including splits
// inside a marker, a code fence or a multi-byte UTF-8 character. Text is
// only ever written on UTF-8 character boundaries. The cost is linear in the
// input: each byte is examined a bounded number of times.
package citeproc

import "github.com/deepresearch/deepresearch/internal/source"

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

// Style is how Link mode renders a citation.
type Style int

const (
	// Markdown renders [[1]](https://example.com/a); a source without a URL
	// renders as [1].
	Markdown Style = iota
	// Plain renders [1] or [1, 2].
	Plain
	// Footnote renders [^1][^2].
	Footnote
	// HTML renders <sup class="cite"><a href="URL" title="Title">[1]</a></sup>.
	HTML
)

// Citation is a fact: the marker numbered Number (as written in the input)
// resolved to Source, shown to readers as Display.
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
// does not hold. Exactly one of Number and URL is set.
type Unknown struct {
	Number int
	URL    string
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
}

// Hooks receive citation facts as they happen. Nil fields are skipped. They
// are called synchronously from Write or Close, and always before any text
// that contains the citation's rendered link has been written.
type Hooks struct {
	// Citation is called the first time each display number is cited.
	Citation func(Citation)
	// Unknown is called the first time each unknown number or URL is seen.
	Unknown func(Unknown)
	// Marker is called for every marker, after its Citation and Unknown
	// facts. Its Numbers slice is reused: copy it to keep it.
	Marker func(Marker)
}
