package deepresearch

import (
	"context"
	"fmt"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/events"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/verify"
	"github.com/rs/zerolog"
)

// What the verification stage does with a citation whose source does not
// support the sentence that cites it (Config.Unsupported).
const (
	UnsupportedKeep   = "keep"   // leave it; the report's Verification lists it
	UnsupportedFlag   = "flag"   // keep it, marked "[unsupported: n]"
	UnsupportedRemove = "remove" // drop it from the report
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
	Action string `json:"action"`
}

// Pass reports whether the report has no errors (fabricated citations,
// unknown sources) and, under strict, no warnings either.
func (v *Verification) Pass(strict bool) bool {
	return v.Summary.Errors == 0 && (!strict || v.Summary.Warnings == 0)
}

// sourceTexts gathers, by merged number, the text the agents were shown
// of each merged source.
func sourceTexts(outcomes []agentOutcome, sources []MergedSource) map[int]string {
	byKey := map[string]string{}
	for _, o := range outcomes {
		if o.res == nil {
			continue
		}
		for n, src := range o.res.Sources {
			if t := o.res.Texts[n]; t != "" {
				k := sourceKey(src)
				if len(t) > len(byKey[k]) {
					byKey[k] = t
				}
			}
		}
	}
	out := make(map[int]string, len(sources))
	for _, s := range sources {
		if t := byKey[sourceKey(s.Source)]; t != "" {
			out[s.Number] = t
		}
	}
	return out
}

func sourceKey(s Source) string {
	if k := canon.Key(s.URL); s.URL != "" && k != "" {
		return k + s.Location.Key()
	}
	return "id:" + s.ID + s.Location.Key()
}

// verifyReport checks rep's citations against texts and, as action says,
// rewrites the draft and publishes it again.
func (r *Researcher) verifyReport(ctx context.Context, rep *Report, style Style, texts map[int]string, action string) error {
	fix := verify.Keep
	switch action {
	case UnsupportedFlag:
		fix = verify.Flag
	case UnsupportedRemove:
		fix = verify.Remove
	}
	// The problems are told in the reader's numbering: Body and its
	// references.
	byNumber := map[int]string{}
	for _, s := range rep.Sources {
		byNumber[s.Number] = texts[s.Number]
	}
	var refs []verify.Source
	for _, ref := range rep.References {
		refs = append(refs, verify.Source{Number: ref.Number, ID: ref.ID, Title: ref.Title, URL: ref.URL, Location: ref.Location, Text: textOf(rep, ref, texts)})
	}
	var judge verify.Judge
	if r.verifyModel != nil {
		judge = fallbackJudge{primary: &verify.LLMJudge{Model: r.verifyModel}, log: r.log}
	}
	res, err := verify.Check(ctx, rep.Body, refs, verify.Options{Judge: judge})
	if err != nil {
		return err
	}
	rep.Verification = &Verification{Summary: res.Summary, Problems: res.Problems, Action: action}
	if fix == verify.Keep || res.Summary.Unsupported == 0 {
		return nil
	}
	// The fix is made to the draft, which stays the report's one source
	// of truth, and published again.
	var merged []verify.Source
	for _, s := range rep.Sources {
		merged = append(merged, verify.Source{Number: s.Number, ID: s.ID, Title: s.Title, URL: s.URL, Location: s.Location, Text: byNumber[s.Number]})
	}
	fixed, err := verify.Check(ctx, rep.Draft, merged, verify.Options{Judge: judge, Fix: verify.Fix{Unsupported: fix}})
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

// fallbackJudge asks a model whether each citing sentence is supported,
// and when the model's answer is unusable (a model that cannot answer in
// the strict JSON asked for, a failed call) judges lexically instead: a
// run is never failed by its verification.
type fallbackJudge struct {
	primary verify.Judge
	log     zerolog.Logger
}

func (j fallbackJudge) Judge(ctx context.Context, claims []verify.Claim) ([]verify.Verdict, error) {
	v, err := j.primary.Judge(ctx, claims)
	if err == nil || ctx.Err() != nil {
		return v, err
	}
	j.log.Warn().Err(err).Msg("the model could not judge the citations; judging them lexically")
	return verify.Lexical{}.Judge(ctx, claims)
}

// textOf is the text of the merged source a reference names.
func textOf(rep *Report, ref Reference, texts map[int]string) string {
	for _, s := range rep.Sources {
		if s.ID == ref.ID && s.URL == ref.URL && s.Location == ref.Location {
			return texts[s.Number]
		}
	}
	return ""
}

func verifiedData(v *Verification, revised string) events.VerifiedData {
	d := events.VerifiedData{
		Citations: v.Summary.Citations, Supported: v.Summary.Supported, Unsupported: v.Summary.Unsupported,
		Fabricated: v.Summary.Fabricated, Duplicates: v.Summary.Duplicates, Score: v.Summary.Score, Action: v.Action,
		Revised: revised,
	}
	for _, p := range v.Problems {
		d.Problems = append(d.Problems, events.VerifyProblem{Line: p.Line, Severity: string(p.Severity), Kind: string(p.Kind),
			Number: p.Number, Message: p.Message})
	}
	return d
}

func checkUnsupported(action string) error {
	switch action {
	case "", UnsupportedKeep, UnsupportedFlag, UnsupportedRemove:
		return nil
	}
	return fmt.Errorf("unsupported citations: %q is not keep, flag or remove", action)
}
