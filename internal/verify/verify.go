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
// alone the same way. Beyond them, Check recognises DOIs, author-year
// references ("Smith et al., 2020", "Jones and Lee (2018)", "(Brown,
// 2017)") and file references "[path, L10-20]" / "[path@hash, L10-20]";
// with ScopeAll (and ScopeCorpus) also @-mentions of files
// ("@docs/research/x.md") and REF-123 identifiers, and with ScopeAll
// statistics in sentences that cite nothing and certainty language the
// cited support does not warrant (overclaiming, as GRADE weighs evidence).
//
// Whatever the judge, what a sentence says in so many words is checked
// against the source's text: a quotation (between quotation marks, or a
// block quote) must be in it, blanks, curly quotes, the case of its first
// letter and elisions aside (ProblemMisquote, an error); a quotation found,
// or a sentence that copies the source's words, is supported; a figure the
// source does not state (amounts, percentages, dates and measures
// normalised: see quantities) is ProblemNumber; a name the source never
// names makes the sentence unsupported; a page, row or slide the source
// does not have is ProblemBadLocator. A reference section ("References",
// "Notes", "Sources", …) lists sources, and is not checked, only at the
// end of the report.
//
// A source may come as the passages its citations were checked against
// (each with its SHA-256) rather than its whole text: a report's JSON form
// keeps them, so that the report can be checked again offline.
//
// The package is pure: it reads nothing but what the caller passes in (the
// report, the sources, an fs.FS for file references and @-mentions) and
// calls nothing but the Judge.
package verify

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/deepresearch/deepresearch/source"
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
	// Location is where in the document the cited passage is; two pages
	// of one PDF are two resources, not duplicates. Several sources may
	// share a Number when they are one document at different pages, rows
	// or slides (one reference cited at each): a pinpoint marker ("[2, p.
	// 7]") is checked against its page's text, a plain one against all.
	Location source.Location `json:"location,omitzero"`
	// TextSHA256 is the hex SHA-256 of the text that was read of the
	// source, and Passages the parts of it that citations were checked
	// against (a JSON report's references carry both). A source with
	// passages and no Text is judged against its passages; one with a
	// TextSHA256 was retrieved, even with nothing kept to check against.
	// A passage whose text does not hash to its SHA256 was edited after
	// the check: it is not used, and the report fails.
	TextSHA256 string           `json:"text_sha256,omitempty"`
	Passages   []source.Passage `json:"passages,omitempty"`
	// Grade is the quality of the evidence the source gives, as GRADE
	// rates it: HIGH, MODERATE, LOW or VERY LOW ("" when unrated: then
	// Type may say, e.g. "systematic-review" is HIGH, "blog" LOW).
	// SourcesFromFS reads both from a document's front matter ("grade:",
	// "type:"). Certainty language ("proves", "always") on a claim whose
	// sources are all graded LOW or VERY LOW is an overclaim.
	Grade string `json:"grade,omitempty"`
	Type  string `json:"type,omitempty"`
	// Ref is the identifier the source is cited by in prose ("REF-123";
	// the front matter's "ref:" or "id:").
	Ref string `json:"ref,omitempty"`
}

// Kind is the form a citation takes in the report.
type Kind string

const (
	KindNumber     Kind = "number"      // [1], [1, 2], [[S:1]], [^1] …: one citation per number
	KindRef        Kind = "ref"         // [ref: URL]
	KindDOI        Kind = "doi"         // 10.1234/abc
	KindAuthorYear Kind = "author-year" // Smith et al., 2020
	KindFile       Kind = "file"        // [path, L10-20], [path@hash, L10-20]
	KindMention    Kind = "mention"     // @docs/research/x.md
	KindRefID      Kind = "ref-id"      // REF-123
)

// Status is the verdict on one citation.
type Status string

const (
	Supported   Status = "supported"   // the source supports the sentence
	Unsupported Status = "unsupported" // the source was retrieved but does not support it
	Fabricated  Status = "fabricated"  // no such source, or it was never retrieved
	Matched     Status = "matched"     // a DOI, author-year or REF id that a source carries; an @-mention of a file that exists
	Unmatched   Status = "unmatched"   // a DOI, author-year or REF id that no source carries
	Fresh       Status = "fresh"       // a file reference whose content hash matches
	Stale       Status = "stale"       // … whose content hash does not
	Unversioned Status = "unversioned" // … that exists but gives no hash
	Missing     Status = "missing"     // a file reference or @-mention whose file does not exist
	Unchecked   Status = "unchecked"   // a file reference or @-mention with no files to check it against; a number with no sources (Options.NoSources)
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
	// Location is the page, row or slide of the source the citation was
	// checked against: its pinpoint ("[2, p. 7]"), or the source's own.
	Location source.Location `json:"location,omitzero"`
	// Ref is what a non-numeric citation names: the URL, DOI, "Author YEAR"
	// (the first author's surname), file path or REF identifier.
	Ref string `json:"ref,omitempty"`
	// Hash is the current content hash of a file reference's file (see
	// ContentHash): what a stale or unversioned reference should carry.
	Hash string `json:"hash,omitempty"`
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
	ProblemUnknownRef   ProblemKind = "unknown-ref"   // a REF identifier no source carries
	ProblemAltered      ProblemKind = "altered"       // a kept passage that does not hash to its SHA-256
	ProblemChanged      ProblemKind = "changed"       // a source whose text no longer holds a passage that was checked
	ProblemStatistic    ProblemKind = "statistic"     // a statistic in a sentence that cites nothing
	ProblemUncited      ProblemKind = "uncited"       // a factual sentence that cites nothing (Options.Uncited)
	ProblemOverclaim    ProblemKind = "overclaim"     // certainty language its cited support does not warrant
	ProblemNothing      ProblemKind = "nothing-cited" // the report cites nothing: there was nothing to verify
	ProblemMisquote     ProblemKind = "misquote"      // a quotation its cited source does not hold
	ProblemNumber       ProblemKind = "number"        // a figure its cited source does not state
	ProblemBadLocator   ProblemKind = "bad-locator"   // a page, row, slide or section its source does not have
)

// Problem is one thing wrong with the report, with where it is and what to
// do about it.
type Problem struct {
	Line     int         `json:"line"`
	Severity Severity    `json:"severity"`
	Kind     ProblemKind `json:"kind"`
	// Marker is the citation as written (or, for duplicates, the later
	// number's first marker; for a statistic, the figures; for an
	// overclaim, the certainty words).
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
	Uncited int `json:"uncited"`
	// Mentions counts @-mentions of files (those of missing files are
	// counted in Missing too).
	Mentions int `json:"mentions,omitempty"`
	// Statistics counts sentences that state figures and cite nothing;
	// UncitedClaims other factual sentences that cite nothing (with
	// Options.Uncited); Overclaims sentences whose certainty their support
	// does not warrant.
	Statistics    int `json:"statistics,omitempty"`
	UncitedClaims int `json:"uncited_claims,omitempty"`
	Overclaims    int `json:"overclaims,omitempty"`
	Errors        int `json:"errors"`
	Warnings      int `json:"warnings"`
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
	// never retrieved, and on file references to files that do not exist.
	Fabricated Action
	// Unsupported acts on citations whose source does not support the
	// sentence.
	Unsupported Action
	// Annotate leaves a note wherever the fix changes or doubts the
	// report, so that nothing is deleted silently: a removed citation
	// leaves an HTML comment saying why ("<!-- verify: removed [9]: no
	// source 9 -->"); a stale file reference gets "[STALE: hash
	// mismatch]" and an @-mention of a missing file "[MISSING: no such
	// file]"; a DOI, author-year or REF identifier no source carries gets
	// "[TODO: verify source]"; a sentence needing a source (a statistic,
	// or with Options.Uncited any factual one) gets "[TODO: cite a
	// source]"; an overclaim's certainty words are replaced by the
	// suggested hedge, followed by a comment naming the words replaced.
	// Notes already there are not added again.
	Annotate bool
}

// Scope selects the checks Check makes.
type Scope int

const (
	// ScopeCitations, the zero value, checks citations of every form:
	// numbers, [ref: URL], DOIs, author-year references and file
	// references. It is what a run's verification checks.
	ScopeCitations Scope = iota
	// ScopeAll checks citations, @-mentions of files and REF identifiers,
	// and the prose: uncited statistics (and with Options.Uncited every
	// uncited factual sentence) and overclaiming.
	ScopeAll
	// ScopeCorpus checks only what the corpus can vouch for: numbered
	// citations, @-mentions and REF identifiers (no DOIs, author-year or
	// file references, no prose checks).
	ScopeCorpus
	// ScopeRLM checks only file references ("[path@hash, L10-20]"); it
	// needs no sources.
	ScopeRLM
)

// Options configure Check. The zero value judges lexically with the
// default threshold, checks citations (ScopeCitations) and leaves file
// references unchecked.
type Options struct {
	// Judge decides support; nil is Lexical{}.
	Judge Judge
	// Files resolves the paths of file references and @-mentions (an
	// os.Root's FS of the project, say); nil reports them as unchecked.
	Files fs.FS
	// Fix says which citations Result.Fixed rewrites.
	Fix Fix
	// Scope selects the checks.
	Scope Scope
	// Uncited reports every factual sentence that cites nothing (a
	// declarative sentence of six words or more in a paragraph or list
	// item), not only those stating figures (ScopeAll).
	Uncited bool
	// NoSources says there are no sources to check numbered citations
	// against: they are unchecked (one warning says how many), not
	// fabricated.
	NoSources bool
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
