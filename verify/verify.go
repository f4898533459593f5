// Package verify checks a report's citations against its sources, for
// programs that have a report and the texts it cites: Verify judges every
// citation (does the cited source exist, was it read, does it support
// the sentence), checks DOIs, author-year references, REF identifiers,
// file references and the prose, and can rewrite the report as it finds.
// ParseSources and SourcesFromFS read sources; CheckSidecar and its kin
// check the citation sidecar of a JSON or YAML report. `deepresearch
// verify` and the MCP verify tool are these; the last stage of every run
// does Verify's ScopeCitations part.
//
// It is a leaf: it links no run store, PDF engine, spreadsheet library,
// search backend or model provider (deps_test.go holds it to that); a model judges support
// only when Options.Model is one the caller built. Nothing in it does I/O
// but read the fs.FS it is given and call that model.
package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/output"
	iverify "github.com/deepresearch/deepresearch/internal/verify"
)

// What Verify reads and finds. The JSON forms are those of
// `deepresearch verify --json` and the MCP verify tool. (go doc does not
// show the fields of these aliases; each comment does.)
type (
	// Source is a source a report may cite: its Number in the report,
	// what identifies it (ID, Title, URL, and Location: the page, row or
	// slide it is), and the Text that was read of it. A source with no
	// Text was never retrieved: citing it is a fabricated citation. A
	// source may carry instead the Passages (source.Passage) a JSON
	// report kept of it, with TextSHA256, the hash of the text they were
	// read from. Grade (HIGH, MODERATE, LOW, VERY LOW), else Type
	// ("blog", "journal" …), weighs overclaiming; Ref is its REF-123
	// identifier.
	Source = iverify.Source
	// Result is what Verify found: Citations, every citation with its
	// verdict; Problems, each with its line and a suggested fix; Summary,
	// the counts; and Fixed, the report rewritten as Options.Fix asks.
	// Pass gives the verdict; WriteText writes it all for people.
	Result = iverify.Result
	// Summary counts a report's citations: Citations (every one: each
	// number of each marker, DOI, author-year, file reference);
	// Supported and Unsupported (numbered citations of retrieved
	// sources); Fabricated (numbers no source holds, or sources never
	// retrieved); Missing (references to files that do not exist);
	// Duplicates (numbers naming a resource another names); Unmatched
	// (DOIs and author-years no source carries); Fresh, Stale and
	// Unversioned (file references by content hash); Uncited (sources
	// never cited, not a problem); Mentions (@-mentions of files);
	// Statistics, UncitedClaims and Overclaims (of the prose); Errors and
	// Warnings; and Score, the share of numbered citations supported.
	Summary = iverify.Summary
	// Citation is one citation as it occurs in a report (a marker naming
	// three numbers gives three): its Kind; Line (1-based), Offset and
	// Len of its Marker; the Number cited; the Location (page, row,
	// slide) it was checked against; Ref, what a non-numeric citation
	// names (URL, DOI, "Author YEAR", path, REF id); Hash, a cited file's
	// current content hash; Link, where a rendered citation links;
	// Sentence, the citing sentence; its Status, Score in [0, 1],
	// Evidence (the passage that supports it) and the judge's Reason.
	Citation = iverify.Citation
	// Evidence is the passage of a source that supports a citation (or
	// comes closest): Quote, and its byte offsets Start and End in the
	// source's Text.
	Evidence = iverify.Evidence
	// Problem is one thing wrong with a report's citations: its Line, its
	// Severity (an error fails the report; a warning only a strict
	// check), its Kind, the Marker and Number concerned, the Message and
	// the Fix suggested.
	Problem = iverify.Problem
	// ProblemKind names a kind of Problem (the Problem… constants).
	ProblemKind = iverify.ProblemKind
	// Severity says whether a Problem fails a report (Error) or only a
	// strict check (Warning).
	Severity = iverify.Severity
	// Status is a Citation's verdict (the Status… constants).
	Status = iverify.Status
	// Kind is a Citation's form (the Kind… constants).
	Kind = iverify.Kind
	// SidecarProblem is an entry of a JSON report's citation sidecar that
	// does not hold (see CheckSidecar): its Index in the sidecar (-1: the
	// sidecar itself), the Path it points at and the Message.
	SidecarProblem = iverify.SidecarProblem
	// Action is what Options.Fix does with a citation its source does not
	// support: Keep, Flag or Remove. Its text form is its name ("keep",
	// "flag", "remove"); deepresearch.Config.Unsupported is one.
	Action = output.Action
)

// ErrAction reports an action ParseAction does not know.
var ErrAction = output.ErrAction

// ParseAction returns the action named s: "keep", "flag" or "remove"; ""
// is Flag, the default. Other names are an error wrapping ErrAction.
func ParseAction(s string) (Action, error) { return output.ParseAction(s) }

// The severities of a Problem.
const (
	Error   = iverify.Error   // "error": fails the report
	Warning = iverify.Warning // "warning": fails only a strict check
)

// The verdicts of a Citation.
const (
	StatusSupported   = iverify.Supported   // the source supports the sentence
	StatusUnsupported = iverify.Unsupported // the source was retrieved but does not support it
	StatusFabricated  = iverify.Fabricated  // no such source, or it was never retrieved
	StatusMatched     = iverify.Matched     // a DOI, author-year or REF id a source carries; an @-mention of a file that exists
	StatusUnmatched   = iverify.Unmatched   // a DOI, author-year or REF id no source carries
	StatusFresh       = iverify.Fresh       // a file reference whose content hash matches
	StatusStale       = iverify.Stale       // … whose content hash does not
	StatusUnversioned = iverify.Unversioned // … that exists but gives no hash
	StatusMissing     = iverify.Missing     // a file reference or @-mention whose file does not exist
	StatusUnchecked   = iverify.Unchecked   // nothing to check it against (no files; Options.NoSources)
)

// The forms of a Citation.
const (
	KindNumber     = iverify.KindNumber     // [1], [1, 2], [[S:1]], [^1] …: one citation per number
	KindRef        = iverify.KindRef        // [ref: URL]
	KindDOI        = iverify.KindDOI        // 10.1234/abc
	KindAuthorYear = iverify.KindAuthorYear // Smith et al., 2020
	KindFile       = iverify.KindFile       // [path, L10-20], [path@hash, L10-20]
	KindMention    = iverify.KindMention    // @docs/research/x.md
	KindRefID      = iverify.KindRefID      // REF-123
)

// The kinds of Problem. Errors fail a report; warnings only a strict
// check.
const (
	ProblemNoSource     = iverify.ProblemNoSource     // error: a number the sources do not hold
	ProblemNotRetrieved = iverify.ProblemNotRetrieved // error: a source with no text read (fabricated)
	ProblemUnsupported  = iverify.ProblemUnsupported  // warning: the source does not support the sentence
	ProblemDuplicate    = iverify.ProblemDuplicate    // warning: one resource under two numbers
	ProblemUnmatched    = iverify.ProblemUnmatched    // warning: a DOI or author-year no source carries
	ProblemBadDOI       = iverify.ProblemBadDOI       // warning: a malformed DOI no source carries ("10.12/x")
	ProblemFileMissing  = iverify.ProblemFileMissing  // error: a file reference or @-mention of no file
	ProblemStale        = iverify.ProblemStale        // warning: the file changed since it was cited (content hash)
	ProblemUnversioned  = iverify.ProblemUnversioned  // warning: a file reference with no content hash
	ProblemBadLines     = iverify.ProblemBadLines     // warning: lines beyond the end of the file
	ProblemUnchecked    = iverify.ProblemUnchecked    // warning: nothing to check against (no files; NoSources)
	ProblemWrongLink    = iverify.ProblemWrongLink    // warning: a rendered citation links elsewhere than its source
	ProblemUnknownRef   = iverify.ProblemUnknownRef   // error: a REF-123 identifier no source carries
	ProblemAltered      = iverify.ProblemAltered      // error: a kept passage that is not what was read
	ProblemChanged      = iverify.ProblemChanged      // warning: a source whose text lost a passage checked
	ProblemStatistic    = iverify.ProblemStatistic    // warning: a statistic in a sentence that cites nothing
	ProblemUncited      = iverify.ProblemUncited      // warning: a factual sentence that cites nothing (Options.Uncited)
	ProblemOverclaim    = iverify.ProblemOverclaim    // warning: certainty language its cited support does not warrant
	ProblemMisquote     = iverify.ProblemMisquote     // error: a quotation its cited source does not hold
	ProblemNumber       = iverify.ProblemNumber       // warning: a figure its cited source does not state
	ProblemBadLocator   = iverify.ProblemBadLocator   // error: a page, row or slide its source does not have
)

// What Options.Fix does with a citation its source does not support.
const (
	Keep   = output.Keep   // "keep": leave it; the Result lists it
	Flag   = output.Flag   // "flag": keep it, marked "[unsupported: n]"
	Remove = output.Remove // "remove": delete it
)

// Scope selects what Verify checks. Its text form is its value; "all" is
// ScopeAll too.
type Scope string

const (
	// ScopeAll (the zero value) checks everything: citations of every
	// form, @-mentions of files, REF identifiers, uncited statistics and
	// overclaiming.
	ScopeAll Scope = ""
	// ScopeCitations checks citations of every form (numbers, [ref: URL],
	// DOIs, author-year, file references) and nothing of the prose: what
	// a run's own verification checks.
	ScopeCitations Scope = "citations"
	// ScopeCorpus checks only what the corpus vouches for: numbered
	// citations, @-mentions and REF identifiers (`verify --corpus-only`).
	ScopeCorpus Scope = "corpus"
	// ScopeRLM checks only file references ("[path@hash, L10-20]";
	// `verify --rlm`); it needs no sources.
	ScopeRLM Scope = "rlm"
)

// ErrScope reports a Scope that is none of the Scope… constants.
var ErrScope = errors.New("verify: unknown scope")

// scope is the internal scope for s.
func (s Scope) scope() (iverify.Scope, error) {
	switch s {
	case ScopeAll, "all":
		return iverify.ScopeAll, nil
	case ScopeCitations:
		return iverify.ScopeCitations, nil
	case ScopeCorpus:
		return iverify.ScopeCorpus, nil
	case ScopeRLM:
		return iverify.ScopeRLM, nil
	}
	return 0, fmt.Errorf("%w %q: want all, citations, corpus or rlm", ErrScope, string(s))
}

// DefaultThreshold is the lexical support score from which a source
// supports a sentence, when Options.Threshold is zero.
const DefaultThreshold = iverify.DefaultThreshold

// ErrSources reports a list of sources Verify cannot use: numbers that
// are not positive, or that repeat.
var ErrSources = iverify.ErrSources

// ErrTooLarge reports input Verify does not read: a report longer than
// MaxBytes (16 MiB, as cite.Cite's), with more than MaxCitations citation
// markers, or whose cited sources hold more than MaxBytes of text. Within
// them, Verify's memory is linear in its input.
var ErrTooLarge = iverify.ErrTooLarge

// The bounds of Verify's input.
const (
	MaxBytes     = iverify.MaxReportBytes
	MaxCitations = iverify.MaxCitations
)

// Options configure Verify. The zero value makes every check (ScopeAll),
// judges support lexically and changes nothing.
type Options struct {
	// Model judges whether each cited source supports its sentence, as a
	// run's verification does with its verify model; nil judges lexically
	// (offline). A model whose answer is unusable is replaced by the
	// lexical judge.
	Model llms.Model
	// Threshold is the lexical support score from which a sentence is
	// supported, in (0, 1]; 0 means DefaultThreshold.
	Threshold float64
	// Files resolves the paths of file references ("[path, L10-20]",
	// "[path@hash, L10-20]") and @-mentions ("@docs/research/x.md"),
	// relative to the project: os.Root.FS of the project, say. Nil reports
	// them unchecked.
	Files fs.FS
	// Fix rewrites the report in Result.Fixed, annotating rather than
	// deleting silently: a citation of a source that does not exist or
	// was never retrieved (or of a file that does not exist) is removed
	// and leaves an HTML comment saying why ("<!-- verify: removed [9]:
	// no source 9 among the sources -->"); citations whose source does
	// not support them are treated as Unsupported says; a stale file
	// reference gets "[STALE: hash mismatch]", an @-mention of a missing
	// file "[MISSING: no such file]", a DOI, author-year or REF
	// identifier no source carries "[TODO: verify source]", a sentence
	// needing a source (an uncited statistic; with Uncited any uncited
	// factual sentence) "[TODO: cite a source]"; an overclaim's certainty
	// words are replaced by the suggested hedge ("proves" → "suggests"),
	// with a comment naming what was replaced. Fixing a fixed report adds
	// no second note.
	Fix bool
	// Unsupported is what Fix does with unsupported citations: Keep, Flag
	// or Remove ("" is Flag, as everywhere).
	Unsupported Action
	// Scope selects the checks (ScopeAll when empty).
	Scope Scope
	// Uncited reports every factual sentence that cites nothing (a
	// declarative sentence of six words or more in a paragraph or list
	// item; not questions, headings or sentences about the report), not
	// only those that state figures.
	Uncited bool
	// NoSources says the report comes without sources: its numbered
	// citations (and REF identifiers) are unchecked, one warning says how
	// many, instead of each being fabricated. What needs no sources (file
	// references, @-mentions, the prose) is checked as usual.
	NoSources bool
}

// Verify checks every citation of report (markdown, in any citation
// dialect a run understands; code is left alone) against sources: does
// the cited number have a source, was that source really retrieved, and
// does it support the sentence that cites it (against its Text, or the
// Passages a JSON report kept of it). It also checks DOIs, author-year
// references ("Smith et al., 2020", "Jones and Lee (2018)", "(Brown,
// 2017)") and REF-123 identifiers against the sources, file references
// and @-mentions against opts.Files, and reports two numbers of one
// resource as duplicates. Whatever judges support, a quotation must be in
// its cited source (ProblemMisquote, an error), a quotation found or a
// sentence that copies a sentence of the source is supported, a figure
// the source does not state is ProblemNumber (figures normalised:
// "$1,499" meets "1499.0"), and a page, row or slide the source does not
// have is ProblemBadLocator (an error). Of the prose it flags statistics
// in sentences that cite nothing (and with opts.Uncited every uncited
// factual sentence), and overclaiming: certainty language ("proves",
// "always", "all studies") on a claim that cites no source, only sources
// graded LOW (Source.Grade, else its Type), or a single source not graded
// HIGH whose passage does not say it as certainly; the problem suggests a
// hedge. opts.Scope narrows the checks. It returns an error only when the
// input is unusable (ErrSources, ErrTooLarge, an unknown Unsupported
// action or Scope) or ctx is done; what is wrong with the report is in
// the result.
func Verify(ctx context.Context, report string, sources []Source, opts Options) (*Result, error) {
	scope, err := opts.Scope.scope()
	if err != nil {
		return nil, err
	}
	vo := iverify.Options{Files: opts.Files, Scope: scope, Uncited: opts.Uncited, NoSources: opts.NoSources}
	if opts.Fix {
		a, err := output.ParseAction(string(opts.Unsupported))
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		vo.Fix = iverify.Fix{Fabricated: iverify.Remove, Unsupported: iverify.ActionOf(a), Annotate: true}
	}
	lexical := iverify.Lexical{Threshold: opts.Threshold}
	vo.Judge = lexical
	if opts.Model != nil {
		vo.Judge = &iverify.Fallback{Primary: &iverify.LLMJudge{Model: opts.Model}, Lexical: lexical}
	}
	return iverify.Check(ctx, report, sources, vo)
}
