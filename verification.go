package deepresearch

import (
	"context"
	"slices"

	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	iverify "github.com/deepresearch/deepresearch/internal/verify"
	"github.com/deepresearch/deepresearch/source"
	"github.com/deepresearch/deepresearch/verify"
)

// Verification is what the last stage of a run found when it checked every
// citation of the final report against the text of the source it cites,
// as the agents read it: counts, a score, and each problem with its line
// and a suggested fix. Numbers and lines are those of Report.Body.
type Verification struct {
	Summary  verify.Summary   `json:"summary"`
	Problems []verify.Problem `json:"problems"`
	// Action is what was done with unsupported citations: keep, flag or
	// remove.
	Action verify.Action `json:"action"`
	// Judge names what decided support: "lexical", "llm" (the
	// Config.Judges.Verify), or "lexical (llm failed: …)" when the model's
	// answer was unusable.
	Judge string `json:"judge,omitempty"`
	// Passages are the passages of each cited source's text (as the
	// agents read it) that its citations were checked against, by the
	// source's merged number (Report.Sources). The report's JSON form
	// carries them with its references, so that `deepresearch verify`
	// can check the report again without its sources.
	Passages []SourcePassages `json:"passages,omitempty"`
}

// SourcePassages are the passages of one source that a run's
// verification checked citations against.
type SourcePassages struct {
	// Source is the merged number (Report.Sources).
	Source   int              `json:"source"`
	Passages []source.Passage `json:"passages"`
}

// Pass reports whether the report has no errors (fabricated citations,
// unknown sources) and, under strict, no warnings either.
func (v *Verification) Pass(strict bool) bool {
	return v.Summary.Errors == 0 && (!strict || v.Summary.Warnings == 0)
}

// verifyReport checks rep's citations against texts and, as action says,
// rewrites the draft and publishes it again.
func (r *Researcher) verifyReport(ctx context.Context, rep *Report, style cite.Style, action verify.Action) (err error) {
	ctx, span := telemetry.Start(ctx, telemetry.SpanVerify, trace.SpanKindInternal)
	defer func() {
		if v := rep.Verification; v != nil {
			span.SetAttributes(telemetry.Checked.Int(v.Summary.Citations), telemetry.Unsupported.Int(v.Summary.Unsupported))
		}
		observeCitations(ctx, rep.Verification)
		telemetry.End(span, err)
	}()
	fix := iverify.ActionOf(action)
	var judge iverify.Judge
	var fallback *iverify.Fallback
	if r.verifyModel != nil {
		fallback = &iverify.Fallback{Primary: &iverify.LLMJudge{Model: r.verifyModel}, OnFail: func(err error) {
			r.log.Warn().Err(err).Msg("the model could not judge the citations; judging them lexically")
		}}
		judge = fallback
	}
	// The problems are told in the reader's numbering: Body and its
	// references.
	cited := rep.CitedSources(nil)
	res, err := iverify.Check(ctx, rep.Body, cited, iverify.Options{Judge: judge})
	if err != nil {
		return err
	}
	rep.Verification = &Verification{Summary: res.Summary, Problems: res.Problems, Action: action, Judge: fallback.Name(),
		Passages: mergedPassages(res.PassagesBySource(cited), cited, rep.Sources)}
	if fix == iverify.Keep || res.Summary.Unsupported == 0 {
		return nil
	}
	// The fix is made to the draft, which stays the report's one source
	// of truth, and published again.
	var merged []iverify.Source
	for _, s := range rep.Sources {
		merged = append(merged, iverify.Source{Number: s.Number, ID: s.ID, Title: s.Title, URL: s.URL, Location: s.Location, Text: rep.SourceTexts[s.Number]})
	}
	fixed, err := iverify.Check(ctx, rep.Draft, merged, iverify.Options{Judge: judge, Fix: iverify.Fix{Unsupported: fix}})
	if err != nil {
		return err
	}
	pub, err := finalreport.Publish(fixed.Fixed, rep.Sources, style)
	if err != nil {
		return err
	}
	rep.Draft, rep.Text, rep.Body, rep.References = pub.Draft, pub.Text, pub.Body, pub.References
	return nil
}

// mergedPassages turns the passages of each of cited (in Body's
// numbering; a reference cited at two pages is two of them) into passages
// by merged number (of sources), which a fix that renumbers the
// references leaves as they are; in merged order.
func mergedPassages(bySource [][]source.Passage, cited []iverify.Source, sources []cite.MergedSource) []SourcePassages {
	merged := map[string]int{}
	for _, s := range sources {
		merged[s.ID+"\x00"+s.URL+"\x00"+s.Location.Key()] = s.Number
	}
	var out []SourcePassages
	for i, c := range cited {
		if ps := bySource[i]; len(ps) > 0 {
			if n, ok := merged[c.ID+"\x00"+c.URL+"\x00"+c.Location.Key()]; ok {
				out = append(out, SourcePassages{Source: n, Passages: ps})
			}
		}
	}
	slices.SortFunc(out, func(a, b SourcePassages) int { return a.Source - b.Source })
	return out
}

func verifiedData(v *Verification, revised string) events.VerifiedData {
	d := events.VerifiedData{
		Citations: v.Summary.Citations, Supported: v.Summary.Supported, Unsupported: v.Summary.Unsupported,
		Fabricated: v.Summary.Fabricated, Duplicates: v.Summary.Duplicates, Score: v.Summary.Score, Action: string(v.Action),
		Judge: v.Judge, Revised: revised,
	}
	for _, p := range v.Problems {
		d.Problems = append(d.Problems, events.VerifyProblem{Line: p.Line, Severity: string(p.Severity), Kind: string(p.Kind),
			Number: p.Number, Message: p.Message})
	}
	return d
}
