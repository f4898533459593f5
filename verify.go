package deepresearch

import (
	"context"
	"io/fs"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"

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
)

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

// VerifyOptions configure Verify. The zero value judges support lexically
// and changes nothing.
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
	// "[path@hash, L10-20]"): os.Root.FS of the project, say. Nil reports
	// them unchecked.
	Files fs.FS
	// Fix rewrites the report in VerifyResult.Fixed: citations of sources
	// that do not exist or were never retrieved are removed, and citations
	// whose source does not support them are treated as Unsupported says.
	Fix bool
	// Unsupported is what Fix does with unsupported citations:
	// UnsupportedKeep, UnsupportedFlag or UnsupportedRemove ("" is
	// UnsupportedFlag, as everywhere).
	Unsupported Action
}

// Verify checks every citation of report (markdown, in any citation
// dialect a run understands; code is left alone) against sources: does
// the cited number have a source, was that source really retrieved, and
// does it support the sentence that cites it. It also checks DOIs and
// "Author et al., YEAR" against the sources, file references against
// opts.Files, and reports two numbers of one resource as duplicates. It
// returns an error only when the input is unusable (ErrSources, an unknown
// Unsupported action) or ctx is done; what is wrong with the report is in
// the result. It is what the last stage of every run does, and what
// `deepresearch verify` and the MCP verify tool do.
func Verify(ctx context.Context, report string, sources []SourceText, opts VerifyOptions) (*VerifyResult, error) {
	vo := verify.Options{Files: opts.Files}
	if opts.Fix {
		a, err := ParseAction(string(opts.Unsupported))
		if err != nil {
			return nil, err
		}
		vo.Fix = verify.Fix{Fabricated: verify.Remove, Unsupported: fixOf(a)}
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
// {"number", "title", "url", "text"}, or a whole JSON report (its
// "references", which carry no text: see SourcesFromFS and DocumentText
// to fill it in).
func ParseSources(data []byte) ([]SourceText, error) { return verify.ParseSources(data) }

// SourcesFromFS reads a folder of documents as sources (.md .txt .html …,
// HTML reduced to its text), numbered by a leading number in their names
// ("3-intro.md") when all have one, else 1..N in path order.
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

// CitedSources returns the sources the report cites, numbered as its
// References, each with the text its agents read (SourceTexts), else the
// text kept in kept (a Store's Sources of the run; nil for none): what a
// run's Body is verified against, then and later.
func (r *Report) CitedSources(kept []StoredSource) []SourceText {
	read := map[string]string{}
	for _, s := range r.Sources {
		read[s.ID+"\x00"+s.URL] = r.SourceTexts[s.Number]
	}
	for _, k := range kept {
		if key := k.ID + "\x00" + k.URL; read[key] == "" {
			read[key] = k.Text
		}
	}
	out := make([]SourceText, 0, len(r.References))
	for _, ref := range r.References {
		out = append(out, SourceText{Number: ref.Number, ID: ref.ID, Title: ref.Title, URL: ref.URL, Text: read[ref.ID+"\x00"+ref.URL]})
	}
	return out
}
