// Package verify checks the citations of a markdown report against the
// sources it cites.
//
// For every citation it decides whether the cited number has a source,
// whether that source was really retrieved (a source with no stored text,
// or a number absent from the sources, is fabricated), and whether the
// source supports the sentence that cites it. Support is judged by a Judge:
// Lexical by default (key-term coverage between the citing sentence and the
// best-matching passage of the source, which becomes the evidence quote),
// or an LLM judge when a model is configured (LLMJudge).
//
// Markers are found by internal/citeproc's parser in keep mode, so every
// dialect the pipeline understands is recognised here too and code is left
// alone the same way. Beyond them, Check recognises DOIs, "Author et al.,
// YEAR" and file references "[path, L10-20]" / "[path@hash, L10-20]".
//
// The package is pure: it reads nothing but what the caller passes in (the
// report, the sources, an fs.FS for file references) and calls nothing but
// the Judge.
package verify

import (
	"context"
	"fmt"
	"io/fs"
)

// Source is one source a report may cite.
type Source struct {
	// Number is the citation number the report uses for it.
	Number int    `json:"number"`
	ID     string `json:"id,omitempty"`
	Title  string `json:"title,omitempty"`
	URL    string `json:"url,omitempty"`
	// Text is the source's stored text. Empty means it was never retrieved:
	// citing it is a fabricated citation.
	Text string `json:"text,omitempty"`
}

// Kind is the form a citation takes in the report.
type Kind string

const (
	KindNumber     Kind = "number"      // [1], [1, 2], [[S:1]], [^1] …: one citation per number
	KindRef        Kind = "ref"         // [ref: URL]
	KindDOI        Kind = "doi"         // 10.1234/abc
	KindAuthorYear Kind = "author-year" // Smith et al., 2020
	KindFile       Kind = "file"        // [path, L10-20], [path@hash, L10-20]
)

// Status is the verdict on one citation.
type Status string

const (
	Supported   Status = "supported"   // the source supports the sentence
	Unsupported Status = "unsupported" // the source was retrieved but does not support it
	Fabricated  Status = "fabricated"  // no such source, or it was never retrieved
	Matched     Status = "matched"     // a DOI or author-year that a source carries
	Unmatched   Status = "unmatched"   // a DOI or author-year that no source carries
	Fresh       Status = "fresh"       // a file reference whose content hash matches
	Stale       Status = "stale"       // … whose content hash does not
	Unversioned Status = "unversioned" // … that exists but gives no hash
	Missing     Status = "missing"     // … whose file does not exist
	Unchecked   Status = "unchecked"   // a file reference with no files to check it against
)

// Evidence is the passage of a source that best supports a sentence.
type Evidence struct {
	Quote string `json:"quote"`
	// Start and End are Quote's byte offsets in the source's Text.
	Start int `json:"start"`
	End   int `json:"end"`
}

// Citation is one citation as it occurs in the report: a marker naming
// three numbers gives three Citations.
type Citation struct {
	Kind Kind `json:"kind"`
	// Line is the 1-based line of the report where it occurs; Offset and Len
	// are the bytes of its marker (or DOI, author-year, file reference).
	Line   int    `json:"line"`
	Offset int    `json:"offset"`
	Len    int    `json:"len"`
	Marker string `json:"marker"`
	// Number is the cited number (KindNumber, and KindRef when the URL
	// resolved to a source); 0 otherwise.
	Number int `json:"number,omitempty"`
	// Ref is what a non-numeric citation names: the URL, DOI, "Author YEAR"
	// or file path.
	Ref string `json:"ref,omitempty"`
	// Link is where a rendered citation ([[1]](URL), an HTML superscript)
	// links to.
	Link string `json:"link,omitempty"`
	// Sentence is the citing sentence, markers removed.
	Sentence string `json:"sentence,omitempty"`
	Status   Status `json:"status"`
	// Score is the support score in [0, 1] (KindNumber and KindRef with a
	// retrieved source).
	Score    float64   `json:"score,omitempty"`
	Evidence *Evidence `json:"evidence,omitempty"`
	// Reason is the judge's reason, when it gives one.
	Reason string `json:"reason,omitempty"`
}

// Severity says whether a problem fails a report (Error) or only a strict
// check (Warning).
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// ProblemKind names a kind of problem.
type ProblemKind string

const (
	ProblemNoSource     ProblemKind = "no-source"     // a number the sources do not hold
	ProblemNotRetrieved ProblemKind = "not-retrieved" // a source with no stored text
	ProblemUnsupported  ProblemKind = "unsupported"   // the source does not support the sentence
	ProblemDuplicate    ProblemKind = "duplicate"     // one resource under two numbers
	ProblemUnmatched    ProblemKind = "unmatched"     // a DOI or author-year no source carries
	ProblemBadDOI       ProblemKind = "bad-doi"       // a DOI that is not well formed
	ProblemFileMissing  ProblemKind = "file-missing"  // a file reference to no file
	ProblemStale        ProblemKind = "stale"         // the file changed since it was cited
	ProblemUnversioned  ProblemKind = "unversioned"   // a file reference with no content hash
	ProblemBadLines     ProblemKind = "bad-lines"     // lines beyond the end of the file
	ProblemUnchecked    ProblemKind = "unchecked"     // a file reference with no files to check
	ProblemWrongLink    ProblemKind = "wrong-link"    // a rendered citation links elsewhere than its source
	ProblemNothing      ProblemKind = "nothing-cited" // the report cites nothing: there was nothing to verify
)

// Problem is one thing wrong with the report, with where it is and what to
// do about it.
type Problem struct {
	Line     int         `json:"line"`
	Severity Severity    `json:"severity"`
	Kind     ProblemKind `json:"kind"`
	// Marker is the citation as written (or, for duplicates, the later
	// number's first marker).
	Marker  string `json:"marker,omitempty"`
	Number  int    `json:"number,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

// Summary counts the citations by verdict.
type Summary struct {
	// Citations counts every citation: each number of each marker, each DOI,
	// author-year and file reference.
	Citations int `json:"citations"`
	// Supported and Unsupported count numbered citations of retrieved
	// sources.
	Supported   int `json:"supported"`
	Unsupported int `json:"unsupported"`
	// Fabricated counts citations of numbers the sources do not hold or of
	// sources never retrieved.
	Fabricated int `json:"fabricated"`
	// Missing counts file references to files that do not exist.
	Missing int `json:"missing"`
	// Duplicates counts numbers that name a resource another number already
	// names (same canonical URL).
	Duplicates int `json:"duplicates"`
	// Unmatched counts DOIs and author-years no source carries.
	Unmatched   int `json:"unmatched"`
	Fresh       int `json:"fresh"`
	Stale       int `json:"stale"`
	Unversioned int `json:"unversioned"`
	// Uncited counts sources the report never cites (not a problem).
	Uncited  int `json:"uncited"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Score is the share of numbered citations that are supported
	// (supported / (supported + unsupported + fabricated)); 1 when there are
	// none but other citations (DOIs, files) were checked, 0 when the
	// report cites nothing at all (a ProblemNothing warning says so).
	Score float64 `json:"score"`
}

// Result is the outcome of Check.
type Result struct {
	Citations []Citation `json:"citations"`
	Problems  []Problem  `json:"problems"`
	Summary   Summary    `json:"summary"`
	// Fixed is the report rewritten as Options.Fix asks; equal to the
	// report when nothing was to be changed.
	Fixed string `json:"-"`
}

// Pass reports whether the report passes: no errors, and under strict no
// warnings either.
func (r *Result) Pass(strict bool) bool {
	return r.Summary.Errors == 0 && (!strict || r.Summary.Warnings == 0)
}

// Action is what a fix does to a citation.
type Action int

const (
	Keep   Action = iota // leave it as written
	Flag                 // keep it and mark it, e.g. "[3] [unsupported]"
	Remove               // delete it (the other numbers of its marker stay)
)

// Fix says which citations to rewrite in Result.Fixed.
type Fix struct {
	// Fabricated acts on citations of sources that do not exist or were
	// never retrieved.
	Fabricated Action
	// Unsupported acts on citations whose source does not support the
	// sentence.
	Unsupported Action
}

// Options configure Check. The zero value judges lexically with the
// default threshold and leaves file references unchecked.
type Options struct {
	// Judge decides support; nil is Lexical{}.
	Judge Judge
	// Files resolves file references' paths (os.Root.FS of the project,
	// say); nil reports them as unchecked.
	Files fs.FS
	// Fix says which citations Result.Fixed rewrites.
	Fix Fix
}

// Check verifies the citations of report (markdown) against sources. The
// sources' numbers must be distinct and positive. It returns an error only
// when the input is unusable or the judge fails; problems with the report
// are in the Result.
func Check(ctx context.Context, report string, sources []Source, opts Options) (*Result, error) {
	if len(report) > MaxReportBytes {
		return nil, fmt.Errorf("%w: the report is %d bytes; at most %d (16 MiB)", ErrTooLarge, len(report), MaxReportBytes)
	}
	c, err := newChecker(report, sources, opts)
	if err != nil {
		return nil, err
	}
	return c.run(ctx)
}
