package deepresearch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/internal/verify"
	"github.com/deepresearch/deepresearch/recheck"
	"github.com/deepresearch/deepresearch/render"
)

// recheckParallel caps the pages a recheck reads at once.
const recheckParallel = 4

// Recheck reads every cited web source of report again, through a page
// fetcher of Config.Fetch (its SSRF guard and limits) under Config.Domains'
// policy, and compares it with what was read when the report was written,
// as the report's JSON form keeps it (each reference's text_sha256 and the
// passages its citations were checked against): hashes first, then the
// passages' presence in the new text. A page answering 404 or 410, or
// redirecting to another page, is gone. A claim whose every cited source
// is gone, or changed so that the passage supporting it is no longer in
// the page, is flagged, and the report no longer holds.
//
// report is a JSON report (Report.JSON; a `run --format json` file
// decoded with encoding/json). A reference without a URL of the web, or without a kept
// hash, is skipped. Pages are read at most recheckParallel at once; the
// result lists the sources in the report's order. Recheck fails only when
// report has no text or ctx is done.
func (r *Researcher) Recheck(ctx context.Context, report *render.Document) (*recheck.Result, error) {
	if report == nil || strings.TrimSpace(report.Text) == "" {
		return nil, fmt.Errorf("deepresearch: recheck: %w", ErrNoReport)
	}
	ctx, err := r.withDomains(ctx, nil)
	if err != nil {
		return nil, err
	}
	pages, err := fetch.New(r.fetcher())
	if err != nil {
		return nil, configErrorf("Fetch: %v", err)
	}
	defer pages.Close()
	res := &recheck.Result{RunID: report.RunID, Question: report.Question, Checked: r.cfg.Clock.Now(),
		Sources: make([]recheck.Source, len(report.References)), Claims: []recheck.Claim{}}
	texts := make([]string, len(report.References)) // the text read now, by reference
	sem := make(chan struct{}, recheckParallel)
	var wg sync.WaitGroup
	for i, ref := range report.References {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				res.Sources[i] = recheck.Source{Number: ref.Number, Title: ref.Title, URL: ref.URL, Status: recheck.Unreachable, Detail: context.Cause(ctx).Error()}
				return
			}
			defer func() { <-sem }()
			res.Sources[i], texts[i] = recheckOne(ctx, pages, ref)
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if res.Claims, err = lostClaims(ctx, report, res.Sources, texts); err != nil {
		return nil, err
	}
	res.Tally()
	return res, nil
}

// recheckOne reads ref's page again and compares it; it returns the page's
// text now ("" when none was read).
func recheckOne(ctx context.Context, pages *fetch.Fetcher, ref render.Reference) (recheck.Source, string) {
	out := recheck.Source{Number: ref.Number, Title: ref.Title, URL: ref.URL}
	if u, err := url.Parse(ref.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		out.Status, out.Detail = recheck.Skipped, "not a web page"
		return out, ""
	}
	if ref.Checked == nil || ref.TextSHA256 == "" {
		out.Status, out.Detail = recheck.Skipped, "no hash of the text read was kept to compare with"
		return out, ""
	}
	out.SHA256 = ref.TextSHA256
	page, err := pages.Fetch(ctx, ref.URL)
	var se *fetch.StatusError
	switch {
	case errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusGone):
		out.Status, out.Detail = recheck.Gone, fmt.Sprintf("%d %s", se.Code, http.StatusText(se.Code))
		return out, ""
	case err != nil:
		out.Status, out.Detail = recheck.Unreachable, err.Error()
		return out, ""
	}
	out.FinalURL = page.FinalURL
	compareText(&out, ref, page.Text)
	if canon.Key(page.FinalURL) != canon.Key(ref.URL) && out.Status == recheck.Changed && (len(out.Passages) == 0 || hasGone(out.Passages)) {
		// A redirect that was there when the report was written leads
		// to the same text; one to another page does not.
		out.Status, out.Detail, out.Passages = recheck.Gone, "redirects to "+page.FinalURL, nil
		return out, ""
	}
	return out, page.Text
}

// compareText sets out's status from the text read now of ref's page.
func compareText(out *recheck.Source, ref render.Reference, text string) {
	out.NewSHA256 = sourcetext.SHA256(text)
	if out.NewSHA256 == ref.TextSHA256 {
		out.Status, out.Detail = recheck.Unchanged, "the same text"
		return
	}
	if len(ref.Passages) == 0 {
		out.Status, out.Detail = recheck.Changed, "the text changed; no passage was kept to compare"
		return
	}
	flat := flatten(text)
	gone := 0
	for _, p := range ref.Passages {
		at := strings.Index(text, p.Text)
		switch {
		case at == p.Start:
			continue
		case at >= 0:
		case strings.Contains(flat, flatten(p.Text)):
			at = -1
		default:
			gone++
			out.Passages = append(out.Passages, recheck.Passage{Status: recheck.PassageGone, Text: p.Text, SHA256: p.SHA256, Start: p.Start, End: p.End, NewStart: -1})
			continue
		}
		out.Passages = append(out.Passages, recheck.Passage{Status: recheck.PassageMoved, Text: p.Text, SHA256: p.SHA256, Start: p.Start, End: p.End, NewStart: at})
	}
	switch {
	case len(out.Passages) == 0:
		out.Status, out.Detail = recheck.Unchanged, fmt.Sprintf("the text changed elsewhere; the %s checked %s where %s", plural(len(ref.Passages), "passage"), isAre(len(ref.Passages)), itThey(len(ref.Passages)))
	case gone > 0:
		out.Status, out.Detail = recheck.Changed, fmt.Sprintf("%d of %s checked %s no longer in the page", gone, plural(len(ref.Passages), "passage"), isAre(gone))
	default:
		out.Status, out.Detail = recheck.Changed, fmt.Sprintf("%d of %s checked moved", len(out.Passages), plural(len(ref.Passages), "passage"))
	}
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThey(n int) string {
	if n == 1 {
		return "it was"
	}
	return "they were"
}

// flatten is s with its runs of white space made one space, for a
// comparison that ignores spacing.
func flatten(s string) string { return strings.Join(strings.Fields(s), " ") }

// lostClaims finds the cited sentences of report whose every cited source
// is gone, or changed so that the passage supporting the sentence (the
// evidence its check quoted; any passage, when it quoted none) is not in
// the page now. A source skipped or unreachable still counts as support:
// whether it changed is not known.
func lostClaims(ctx context.Context, report *render.Document, sources []recheck.Source, texts []string) ([]recheck.Claim, error) {
	byNumber := map[int]int{}
	kept := make([]verify.Source, 0, len(report.References))
	for i, ref := range report.References {
		if _, ok := byNumber[ref.Number]; !ok {
			byNumber[ref.Number] = i
		}
		st := verify.Source{Number: ref.Number, ID: ref.ID, Title: ref.Title, URL: ref.URL, Location: ref.Location}
		if ref.Checked != nil {
			st.TextSHA256, st.Passages = ref.TextSHA256, ref.Passages
		}
		kept = append(kept, st)
	}
	res, err := verify.Check(ctx, report.Text, kept, verify.Options{Scope: verify.ScopeCitations})
	if err != nil {
		return nil, fmt.Errorf("deepresearch: recheck: %w", err)
	}
	type claim struct {
		recheck.Claim
		supported bool // some cited source still supports it
	}
	var order []string
	claims := map[string]*claim{}
	for _, c := range res.Citations {
		if c.Kind != verify.KindNumber || c.Sentence == "" {
			continue
		}
		key := claimKey(c.Sentence)
		cl, ok := claims[key]
		if !ok {
			cl = &claim{Claim: recheck.Claim{Line: c.Line, Sentence: oneLineText(c.Sentence)}}
			claims[key] = cl
			order = append(order, key)
		}
		cl.Cites = append(cl.Cites, c.Number)
		i, ok := byNumber[c.Number]
		if !ok || cl.supported {
			continue
		}
		s := sources[i]
		switch s.Status {
		case recheck.Gone:
		case recheck.Changed:
			if c.Evidence != nil && strings.TrimSpace(c.Evidence.Quote) != "" {
				cl.supported = strings.Contains(flatten(texts[i]), flatten(c.Evidence.Quote))
			} else {
				cl.supported = len(s.Passages) == 0 || !hasGone(s.Passages)
			}
		default:
			cl.supported = true
		}
	}
	out := []recheck.Claim{}
	for _, k := range order {
		if cl := claims[k]; !cl.supported {
			out = append(out, cl.Claim)
		}
	}
	return out, nil
}

func hasGone(ps []recheck.Passage) bool {
	for _, p := range ps {
		if p.Status == recheck.PassageGone {
			return true
		}
	}
	return false
}

// RecheckRun rechecks the report of the run id that st holds (as
// Researcher.Recheck does, over the run's JSON form). A run st does not
// hold is a *RunsError wrapping runstore.ErrNotFound; one with no report, a
// *RunsError wrapping ErrNoReport.
func (r *Researcher) RecheckRun(ctx context.Context, st Store, id string) (*recheck.Result, error) {
	rep, _, err := storedReport(ctx, st, id)
	if err != nil {
		return nil, err
	}
	doc, err := rep.JSON()
	if err != nil {
		return nil, fmt.Errorf("deepresearch: run %s: %w", id, err)
	}
	return r.Recheck(ctx, doc)
}

// Rechecker is what Runs.Recheck needs of its RunRecorder; *Researcher is
// one.
type Rechecker interface {
	RecheckRun(ctx context.Context, st Store, id string) (*recheck.Result, error)
}

// ErrNoRecheck reports a Runs whose RunRecorder cannot recheck reports.
var ErrNoRecheck = errors.New("deepresearch: this server's researcher cannot recheck reports")

// Recheck rechecks the report of the stored run id, as RecheckRun does
// over the Runs' store, with the Runs' researcher (ErrNoRecheck when it is
// no Rechecker), and keeps the result as the run's last re-check
// (LastRecheck) when it read a web page.
func (rs *Runs) Recheck(ctx context.Context, id string) (*recheck.Result, error) {
	rc, ok := rs.rec.(Rechecker)
	if !ok {
		return nil, ErrNoRecheck
	}
	res, err := rc.RecheckRun(ctx, rs.st, id)
	if err != nil {
		return nil, err
	}
	if err := rs.keepRecheck(context.WithoutCancel(ctx), id, res); err != nil {
		rs.log.Error().Err(err).Str("run", id).Msg("storing a re-check")
	}
	return res, nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
