package deepresearch

import (
	"fmt"
	"io"
	"strings"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
)

// The citation core a run uses, for programs that bring their own model
// output: Cite and Citer rewrite one text's citation markers as it
// streams; Collapse and Merger put several agents' reports on one
// numbering. `deepresearch cite` and `deepresearch collapse` are these,
// over JSON.

// CiteMode says what Cite does with the citation markers it recognises.
type CiteMode = citeproc.Mode

// Citation modes.
const (
	// CiteKeep passes markers through unchanged and records which sources
	// were cited: the text written is byte for byte the text read.
	CiteKeep = citeproc.Keep
	// CiteLink renders each marker as a link in CiteOptions.Style,
	// numbered 1..K by first citation (one number per resource, whatever
	// URL form the sources use); unknown numbers are dropped.
	CiteLink = citeproc.Link
	// CiteRemove deletes markers, leaving no double spaces.
	CiteRemove = citeproc.Remove
	// CiteRenumber rewrites the numbers of each marker 1..K by first
	// citation, keeping the marker's own bracket style; unknown numbers
	// are dropped.
	CiteRenumber = citeproc.Renumber
)

// ParseCiteMode returns the mode named s: "keep" (or ""), "link",
// "remove" or "renumber".
func ParseCiteMode(s string) (CiteMode, error) {
	switch s {
	case "", "keep":
		return CiteKeep, nil
	case "link":
		return CiteLink, nil
	case "remove":
		return CiteRemove, nil
	case "renumber":
		return CiteRenumber, nil
	}
	return 0, fmt.Errorf("%q is not one of keep, link, remove, renumber", s)
}

type (
	// Citation is a marker's number resolved to its source, with the
	// number a reader sees (Display).
	Citation = citeproc.Citation
	// Unresolved is a marker the sources do not resolve: a number (0 is
	// one), a [ref: URL]'s URL, or (Marker) a bracket of citation-like
	// numbers in no understood form ("[3-1]", "[01]").
	Unresolved = citeproc.Unknown
)

// MaxCitationNumber is the largest number a citation marker may carry.
const MaxCitationNumber = citeproc.MaxNumber

// CiteOptions configure a Citer.
type CiteOptions struct {
	Mode CiteMode
	// Style is how CiteLink renders a citation (default Markdown).
	Style Style
	// Sources maps the text's citation numbers (0 to MaxCitationNumber)
	// to their sources.
	Sources map[int]Source
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

// NewCiter returns a Citer writing to w.
func NewCiter(w io.Writer, opts CiteOptions) (*Citer, error) {
	mp, err := citeproc.MappingOf(opts.Sources, canon.Key)
	if err != nil {
		return nil, fmt.Errorf("deepresearch: cite: %w", err)
	}
	cfg := citeproc.Config{Mode: opts.Mode, Style: opts.Style, Mapping: mp,
		Hooks: citeproc.Hooks{Citation: opts.OnCitation, Unknown: opts.OnUnresolved}}
	if opts.Mode == CiteLink || opts.Mode == CiteRenumber {
		// One number per resource, whatever URL form the sources use.
		cfg.Numberer = citeproc.FirstCitedBy(func(s Source) string { return canon.Key(s.URL) })
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
	Text       string
	Citations  []Citation
	Unresolved []Unresolved
}

// Cite processes a whole text: NewCiter, one Write, Close.
func Cite(text string, opts CiteOptions) (*Cited, error) {
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

type (
	// AgentReport is one agent's report with its own numbering: Mapping
	// maps the numbers its Text cites to their sources.
	AgentReport = collapse.Report
	// Collapsed is several reports on one numbering: each report
	// rewritten, the merged sources, and the citations dropped.
	Collapsed = collapse.Result
	// CollapsedReport is a report rewritten onto the merged numbering.
	CollapsedReport = collapse.MergedReport
	// DroppedCitation is a citation a report made that its mapping could
	// not resolve, dropped from its text rather than left to name another
	// source after renumbering.
	DroppedCitation = collapse.Unknown
	// InvalidURL is a cited source whose URL could not be canonicalised:
	// it is kept under a number of its own.
	InvalidURL = collapse.InvalidURL
	// Merger merges reports one at a time onto one numbering (NewMerger);
	// numbers, once given, never change.
	Merger = collapse.Merger
)

// Collapse merges reports, in the order given (a run's plan order), onto
// one numbering, as a run merges its agents' reports: each distinct source
// (by canonical URL, by ID without one) gets a number the first time a
// report cites it; markers keep their bracket style; code is untouched.
func Collapse(reports []AgentReport) (*Collapsed, error) { return collapse.Merge(reports) }

// NewMerger returns an empty Merger: Collapse, one report at a time.
func NewMerger() *Merger { return collapse.NewMerger() }
