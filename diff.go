package deepresearch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/deepresearch/deepresearch/diff"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/internal/verify"
	"github.com/deepresearch/deepresearch/runstore"
)

// Diff compares report a with report b (the older run first); keptA and
// keptB are the documents a run store kept of each run (Store.Sources;
// nil for none), whose text stands in for a source text a report lacks.
// It reads only the reports: it fetches nothing and asks no model. It
// fails when either report has nothing to render (ErrNoReport) or ctx is
// done.
func Diff(ctx context.Context, a, b *Report, keptA, keptB []runstore.Source) (*diff.Result, error) {
	ra, err := diffRunOf(ctx, a, keptA)
	if err != nil {
		return nil, fmt.Errorf("deepresearch: diff: run %s: %w", a.RunID, err)
	}
	rb, err := diffRunOf(ctx, b, keptB)
	if err != nil {
		return nil, fmt.Errorf("deepresearch: diff: run %s: %w", b.RunID, err)
	}
	return diff.Runs(ra, rb), nil
}

// DiffRuns compares the reports of the runs idA and idB that st holds, as
// Diff does, with the documents st kept of each. A run st does not hold
// is a *RunsError wrapping runstore.ErrNotFound; a run with no report (one in
// progress, or that failed before its research) a *RunsError wrapping
// ErrNoReport.
func DiffRuns(ctx context.Context, st Store, idA, idB string) (*diff.Result, error) {
	a, keptA, err := storedReport(ctx, st, idA)
	if err != nil {
		return nil, err
	}
	b, keptB, err := storedReport(ctx, st, idB)
	if err != nil {
		return nil, err
	}
	return Diff(ctx, a, b, keptA, keptB)
}

// Diff compares the reports of the stored runs idA and idB, as DiffRuns
// does over the Runs' store.
func (rs *Runs) Diff(ctx context.Context, idA, idB string) (*diff.Result, error) {
	return DiffRuns(ctx, rs.st, idA, idB)
}

// storedReport loads run id's report from st, with the documents st kept
// of it.
func storedReport(ctx context.Context, st Store, id string) (*Report, []runstore.Source, error) {
	run, err := st.Get(ctx, id)
	if errors.Is(err, runstore.ErrNotFound) {
		return nil, nil, noRun(id)
	} else if err != nil {
		return nil, nil, err
	}
	noReport := func() error {
		msg := fmt.Sprintf("run %s is %s and has no report", id, run.Status)
		if run.Error != "" {
			msg += ": " + run.Error
		}
		return &RunsError{Run: id, Err: ErrNoReport, Problem: msg}
	}
	b, err := st.Report(ctx, id)
	if errors.Is(err, runstore.ErrNotFound) {
		return nil, nil, noReport()
	} else if err != nil {
		return nil, nil, err
	}
	rep, err := LoadReport(b)
	if err != nil {
		return nil, nil, fmt.Errorf("deepresearch: run %s: %w", id, err)
	}
	if _, err := rep.published(); err != nil {
		return nil, nil, noReport() // nothing to render: no agent reported
	}
	kept, err := st.Sources(ctx, id)
	if err != nil {
		return nil, nil, fmt.Errorf("deepresearch: run %s: sources: %w", id, err)
	}
	return rep, kept, nil
}

// diffRunOf is what Diff compares of report r: its sources, with the
// hash of the text read of each (kept's when the report lacks it), its
// numbered citations judged lexically, and its headings.
func diffRunOf(ctx context.Context, r *Report, kept []runstore.Source) (diff.Run, error) {
	pub, err := r.published()
	if err != nil {
		return diff.Run{}, err
	}
	keptText := keptTexts(kept)
	run := diff.Run{ID: r.RunID, Question: r.Question}
	for _, s := range r.Sources {
		text := r.SourceTexts[s.Number]
		if text == "" {
			text = keptText[s.ID+"\x00"+s.URL]
		}
		rs := diff.RunSource{Key: engine.SourceKey(s.Source), Title: s.Title, URL: s.URL, ID: s.ID, Number: s.Number}
		if text != "" {
			rs.SHA256 = sourcetext.SHA256(text)
		}
		run.Sources = append(run.Sources, rs)
	}
	// The claims are judged in what Render shows: the final report, or
	// the findings when the writer failed.
	c := *r
	c.Body, c.References = pub.Body, pub.References
	cited := c.CitedSources(kept)
	res, err := verify.Check(ctx, c.Body, cited, verify.Options{Scope: verify.ScopeCitations})
	if err != nil {
		return diff.Run{}, err
	}
	refKey := map[int]string{}
	for _, ref := range pub.References {
		refKey[ref.Number] = engine.SourceKey(ref.Source)
	}
	for _, cit := range res.Citations {
		if cit.Kind != verify.KindNumber || cit.Sentence == "" {
			continue
		}
		run.Citations = append(run.Citations, diff.Citation{Sentence: cit.Sentence, Source: refKey[cit.Number], Supported: cit.Status == verify.Supported})
	}
	run.Headings = headings(c.Body)
	return run, nil
}

// keptTexts are the texts a run store kept of a run's sources (the first
// of each), by ID and URL (ID + "\x00" + URL).
func keptTexts(kept []runstore.Source) map[string]string {
	out := map[string]string{}
	for _, k := range kept {
		if key := k.ID + "\x00" + k.URL; out[key] == "" {
			out[key] = k.Text
		}
	}
	return out
}

// claimKey is what makes two sentences the same claim: their words,
// folded to lower case.
func claimKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// headings returns the text of md's ATX headings, in order, each once;
// fenced code is skipped.
func headings(md string) []string {
	var out []string
	fence := ""
	for line := range strings.Lines(md) {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		n := len(t) - len(strings.TrimLeft(t, "#"))
		if n == 0 || n > 6 || (len(t) > n && t[n] != ' ' && t[n] != '\t') {
			continue
		}
		h := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[n:]), "#"))
		if h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// oneLineText is s on one line, its runs of spaces and newlines made one
// space.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
