package deepresearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/internal/verify"
)

// What Verify reads and finds. The JSON forms are those of
// `deepresearch verify --json` and the MCP verify tool.
type (
	// SourceText is a source a report may cite: its number in the report,
	// what identifies it, and the text that was read of it. A source with
	// no Text was never retrieved: citing it is a fabricated citation.
	SourceText = verify.Source
	// VerifyResult is what Verify found: every citation with its verdict,
	// each problem with its line and a suggested fix, the counts, and the
	// report rewritten as VerifyOptions.Fix asks. Pass gives the verdict;
	// WriteText writes it all for people.
	VerifyResult = verify.Result
	// VerifySummary counts a report's citations by verdict, its errors and
	// warnings, and scores it: the share of numbered citations supported.
	VerifySummary = verify.Summary
	// CheckedCitation is one citation as it occurs in a report (a marker
	// naming three numbers gives three), with its verdict, score and the
	// source's passage that supports it.
	CheckedCitation = verify.Citation
	// CitationProblem is one thing wrong with a report's citations: where,
	// how bad (an error fails the report; a warning only a strict check),
	// what, and the fix.
	CitationProblem = verify.Problem
	// SidecarProblem is an entry of a JSON report's citation sidecar that
	// does not hold (see CheckSidecar).
	SidecarProblem = verify.SidecarProblem
	// ProblemKind names a kind of CitationProblem (the Problem… constants).
	ProblemKind = verify.ProblemKind
	// Passage is a span of the text read of a source that a citation was
	// checked against, with the SHA-256 of its text and its offsets in
	// the text read. A report's JSON form keeps them with its references
	// (with the text's own hash, "text_sha256"), and a SourceText may
	// carry them instead of its Text: Verify then judges against them, and
	// a passage whose text does not hash to its SHA-256 fails the report.
	Passage = source.Passage
)

// The kinds of CitationProblem. Errors fail a report; warnings only a
// strict check.
const (
	ProblemNoSource     = verify.ProblemNoSource     // error: a number the sources do not hold
	ProblemNotRetrieved = verify.ProblemNotRetrieved // error: a source with no text read (fabricated)
	ProblemUnsupported  = verify.ProblemUnsupported  // warning: the source does not support the sentence
	ProblemDuplicate    = verify.ProblemDuplicate    // warning: one resource under two numbers
	ProblemUnmatched    = verify.ProblemUnmatched    // warning: a DOI or author-year no source carries
	ProblemBadDOI       = verify.ProblemBadDOI       // warning: a malformed DOI no source carries ("10.12/x")
	ProblemFileMissing  = verify.ProblemFileMissing  // error: a file reference or @-mention of no file
	ProblemStale        = verify.ProblemStale        // warning: the file changed since it was cited (content hash)
	ProblemUnversioned  = verify.ProblemUnversioned  // warning: a file reference with no content hash
	ProblemBadLines     = verify.ProblemBadLines     // warning: lines beyond the end of the file
	ProblemUnchecked    = verify.ProblemUnchecked    // warning: nothing to check against (no files; NoSources)
	ProblemWrongLink    = verify.ProblemWrongLink    // warning: a rendered citation links elsewhere than its source
	ProblemUnknownRef   = verify.ProblemUnknownRef   // error: a REF-123 identifier no source carries
	ProblemAltered      = verify.ProblemAltered      // error: a kept passage that is not what was read
	ProblemChanged      = verify.ProblemChanged      // warning: a source whose text lost a passage checked
	ProblemStatistic    = verify.ProblemStatistic    // warning: a statistic in a sentence that cites nothing
	ProblemUncited      = verify.ProblemUncited      // warning: a factual sentence that cites nothing (VerifyOptions.Uncited)
	ProblemOverclaim    = verify.ProblemOverclaim    // warning: certainty language its cited support does not warrant
	ProblemMisquote     = verify.ProblemMisquote     // error: a quotation its cited source does not hold
	ProblemNumber       = verify.ProblemNumber       // warning: a figure its cited source does not state
	ProblemBadLocator   = verify.ProblemBadLocator   // error: a page, row or slide its source does not have
)

// VerifyScope selects what Verify checks.
type VerifyScope string

const (
	// ScopeAll (the zero value) checks everything: citations of every
	// form, @-mentions of files, REF identifiers, uncited statistics and
	// overclaiming.
	ScopeAll VerifyScope = ""
	// ScopeCitations checks citations of every form (numbers, [ref: URL],
	// DOIs, author-year, file references) and nothing of the prose: what
	// a run's own verification checks.
	ScopeCitations VerifyScope = "citations"
	// ScopeCorpus checks only what the corpus vouches for: numbered
	// citations, @-mentions and REF identifiers (`verify --corpus-only`).
	ScopeCorpus VerifyScope = "corpus"
	// ScopeRLM checks only file references ("[path@hash, L10-20]";
	// `verify --rlm`); it needs no sources.
	ScopeRLM VerifyScope = "rlm"
)

// ErrScope reports a VerifyScope that is none of the Scope… constants.
var ErrScope = errors.New("deepresearch: unknown verify scope")

// scope is verify's scope for s.
func (s VerifyScope) scope() (verify.Scope, error) {
	switch s {
	case ScopeAll, "all":
		return verify.ScopeAll, nil
	case ScopeCitations:
		return verify.ScopeCitations, nil
	case ScopeCorpus:
		return verify.ScopeCorpus, nil
	case ScopeRLM:
		return verify.ScopeRLM, nil
	}
	return 0, fmt.Errorf("%w %q: want all, citations, corpus or rlm", ErrScope, string(s))
}

// DefaultThreshold is the lexical support score from which a source
// supports a sentence, when VerifyOptions.Threshold is zero.
const DefaultThreshold = verify.DefaultThreshold

// ErrSources reports a list of sources Verify cannot use: numbers that
// are not positive, or that repeat.
var ErrSources = verify.ErrSources

// ErrVerifyTooLarge reports input Verify does not read: a report longer
// than MaxVerifyBytes (16 MiB, as Cite's), with more than
// MaxVerifyCitations citation markers, or whose cited sources hold more
// than MaxVerifyBytes of text. Within them, Verify's memory is linear in
// its input.
var ErrVerifyTooLarge = verify.ErrTooLarge

// The bounds of Verify's input.
const (
	MaxVerifyBytes     = verify.MaxReportBytes
	MaxVerifyCitations = verify.MaxCitations
)

// VerifyOptions configure Verify. The zero value makes every check
// (ScopeAll), judges support lexically and changes nothing.
type VerifyOptions struct {
	// Model judges whether each cited source supports its sentence, as a
	// run's verification does with Config.VerifyModel; nil judges
	// lexically (offline). A model whose answer is unusable is replaced by
	// the lexical judge.
	Model llms.Model
	// Threshold is the lexical support score from which a sentence is
	// supported, in (0, 1]; 0 means DefaultThreshold.
	Threshold float64
	// Files resolves the paths of file references ("[path, L10-20]",
	// "[path@hash, L10-20]") and @-mentions ("@docs/research/x.md"),
	// relative to the project: os.Root.FS of the project, say. Nil reports
	// them unchecked.
	Files fs.FS
	// Fix rewrites the report in VerifyResult.Fixed, annotating rather
	// than deleting silently: a citation of a source that does not exist
	// or was never retrieved (or of a file that does not exist) is
	// removed and leaves an HTML comment saying why ("<!-- verify:
	// removed [9]: no source 9 among the sources -->"); citations whose
	// source does not support them are treated as Unsupported says; a
	// stale file reference gets "[STALE: hash mismatch]", an @-mention of
	// a missing file "[MISSING: no such file]", a DOI, author-year or REF
	// identifier no source carries "[TODO: verify source]", a sentence
	// needing a source (an uncited statistic; with Uncited any uncited
	// factual sentence) "[TODO: cite a source]"; an overclaim's certainty
	// words are replaced by the suggested hedge ("proves" → "suggests"),
	// with a comment naming what was replaced. Fixing a fixed report adds
	// no second note.
	Fix bool
	// Unsupported is what Fix does with unsupported citations:
	// UnsupportedKeep, UnsupportedFlag or UnsupportedRemove ("" is
	// UnsupportedFlag, as everywhere).
	Unsupported Action
	// Scope selects the checks (ScopeAll when empty).
	Scope VerifyScope
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
// sentence that copies a sentence of the source is supported, a figure the
// source does not state is ProblemNumber (figures normalised: "$1,499"
// meets "1499.0"), and a page, row or slide the source does not have is
// ProblemBadLocator (an error). Of the prose it flags statistics in sentences
// that cite nothing (and with opts.Uncited every uncited factual
// sentence), and overclaiming: certainty language ("proves", "always",
// "all studies") on a claim that cites no source, only sources graded LOW
// (SourceText.Grade, else its Type), or a single source not graded HIGH
// whose passage does not say it as certainly; the problem suggests a
// hedge. opts.Scope narrows the checks. It returns an error only when the
// input is unusable (ErrSources, an unknown Unsupported action or Scope)
// or ctx is done; what is wrong with the report is in the result. It is
// what `deepresearch verify` and the MCP verify tool do; the last stage
// of every run does its ScopeCitations part.
func Verify(ctx context.Context, report string, sources []SourceText, opts VerifyOptions) (*VerifyResult, error) {
	scope, err := opts.Scope.scope()
	if err != nil {
		return nil, err
	}
	vo := verify.Options{Files: opts.Files, Scope: scope, Uncited: opts.Uncited, NoSources: opts.NoSources}
	if opts.Fix {
		a, err := ParseAction(string(opts.Unsupported))
		if err != nil {
			return nil, err
		}
		vo.Fix = verify.Fix{Fabricated: verify.Remove, Unsupported: fixOf(a), Annotate: true}
	}
	lexical := verify.Lexical{Threshold: opts.Threshold}
	vo.Judge = lexical
	if opts.Model != nil {
		vo.Judge = &fallbackJudge{primary: &verify.LLMJudge{Model: opts.Model}, lexical: lexical, log: zerolog.Nop()}
	}
	return verify.Check(ctx, report, sources, vo)
}

// fixOf is verify's action for a.
func fixOf(a Action) verify.Action {
	switch a {
	case UnsupportedFlag:
		return verify.Flag
	case UnsupportedRemove:
		return verify.Remove
	}
	return verify.Keep
}

// ParseSources reads the sources of a report from JSON: a list of
// {"number", "title", "url", "text"} (also "id", "grade", "type", "ref",
// "text_sha256", "passages"), or a whole JSON report: its "references",
// which carry no text but the passages its citations were checked
// against, with their hashes (see Passage): enough to check the report
// again. SourcesFromFS and DocumentText read sources' texts from files.
func ParseSources(data []byte) ([]SourceText, error) { return verify.ParseSources(data) }

// SourcesFromFS reads a folder of documents as sources (.md .txt .html …,
// HTML reduced to its text), numbered by a leading number in their names
// ("3-intro.md") when all have one, else 1..N in path order. A document's
// YAML front matter gives its title, grade (HIGH, MODERATE, LOW, VERY
// LOW), type and ref (a REF-123 identifier).
func SourcesFromFS(fsys fs.FS) ([]SourceText, error) { return verify.SourcesFromFS(fsys) }

// DocumentText returns the text and title of a document as a source's
// text: HTML reduced to its text, markdown's first heading as its title;
// name's extension says which.
func DocumentText(name string, data []byte) (text, title string) {
	return verify.DocumentText(name, data)
}

// CheckSidecar checks the citation sidecar of a JSON report (the array at
// JSON Pointer pointer, "/_citations" in Render's FormatJSON): every entry
// must point at a string that cites exactly the reference numbers it
// lists. It returns an error when data is not JSON or has no sidecar.
func CheckSidecar(data []byte, pointer string) ([]SidecarProblem, error) {
	return verify.CheckSidecar(data, pointer)
}

// SidecarMarkdown returns the claims of a JSON document's citation
// sidecar (the array at JSON Pointer pointer, "/_citations") as a markdown
// report Verify checks: entry i on line i+1, its string followed by a
// marker citing the sids it does not cite inline ("The CPU is 2.5x faster
// [3, 5]"). It is how a document that is not ours, whose claims live in
// its sidecar alone (the citation protocol's JSON form), is verified. It
// returns an error when data is not JSON.
func SidecarMarkdown(data []byte, pointer string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return "", fmt.Errorf("deepresearch: the sidecar's document is not JSON: %w", err)
	}
	return verify.SidecarMarkdown(doc, pointer), nil
}

// CheckYAMLSidecar is CheckSidecar for a YAML report (Render's
// FormatYAML): the same checks on the document the YAML decodes to.
func CheckYAMLSidecar(data []byte, pointer string) ([]SidecarProblem, error) {
	return verify.CheckYAMLSidecar(data, pointer)
}

// CheckSidecarValue checks the citation sidecar of a document already
// decoded, as CheckSidecar does for JSON: a JSON document decoded into
// any, or a YAML report decoded by go.yaml.in/yaml/v3, whose "_citations"
// sidecar has the same shape.
func CheckSidecarValue(doc any, pointer string) []SidecarProblem {
	return verify.CheckSidecarValue(doc, pointer)
}

// CitedSources returns the sources the report cites, numbered as its
// References, each with the text its agents read (SourceTexts), else the
// text kept in kept (a Store's Sources of the run; nil for none): what a
// run's Body is verified against, then and later.
func (r *Report) CitedSources(kept []StoredSource) []SourceText {
	// A page, row or slide of a document is a source of its own: its
	// location is part of the key. What a store kept is keyed by document,
	// so it fills in only what the report's own texts lack.
	read, keptText := map[string]string{}, map[string]string{}
	for _, s := range r.Sources {
		read[s.ID+"\x00"+s.URL+"\x00"+s.Location.Key()] = r.SourceTexts[s.Number]
	}
	for _, k := range kept {
		if key := k.ID + "\x00" + k.URL; keptText[key] == "" {
			keptText[key] = k.Text
		}
	}
	out := make([]SourceText, 0, len(r.References))
	for _, ref := range r.References {
		doc := ref.ID + "\x00" + ref.URL
		// A reference cited at several pages is checked page by page:
		// one SourceText per page, under its number.
		locs := ref.Locations
		if len(locs) == 0 {
			locs = []source.Location{ref.Location}
		}
		for _, loc := range locs {
			text := read[doc+"\x00"+loc.Key()]
			if text == "" {
				text = keptText[doc]
			}
			out = append(out, SourceText{Number: ref.Number, ID: ref.ID, Title: ref.Title, URL: ref.URL, Location: loc, Text: text})
		}
	}
	return out
}

// JSONReportText is the text to verify of a JSON report, and what
// checking its citation sidecar ("/_citations") found: a report of
// Render's FormatJSON is verified by its "text"; another's document with
// a sidecar and no "text" (the citation protocol's JSON form) by its
// sidecar's claims, one a line (line n is entry n-1), which fromSidecar
// then says. It returns an error when data is not such a document.
func JSONReportText(data []byte) (text string, fromSidecar bool, sidecar []SidecarProblem, err error) {
	var doc struct {
		Text      *string         `json:"text"`
		Citations json.RawMessage `json:"_citations"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Text == nil && doc.Citations == nil {
		if err == nil {
			err = errors.New("it has neither")
		}
		return "", false, nil, fmt.Errorf("deepresearch: a JSON report needs a \"text\" field, or a \"_citations\" sidecar of its claims (%v)", err)
	}
	if sidecar, err = CheckSidecar(data, "/_citations"); err != nil {
		return "", false, nil, err
	}
	if doc.Text != nil {
		return *doc.Text, false, sidecar, nil
	}
	text, err = SidecarMarkdown(data, "/_citations")
	return text, true, sidecar, err
}
