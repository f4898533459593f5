package deepresearch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/internal/verify"
)

// RecheckStatus is what re-reading a cited web source found
// (RecheckedSource.Status).
type RecheckStatus string

// The statuses of a re-read source.
const (
	// RecheckUnchanged: the page's text is the text that was read (same
	// SHA-256), or every passage the report's citations were checked
	// against is still where it was.
	RecheckUnchanged RecheckStatus = "unchanged"
	// RecheckChanged: a passage checked moved in the page or is no longer
	// in it (RecheckedSource.Passages names each), or the text changed
	// and no passage was kept to compare.
	RecheckChanged RecheckStatus = "changed"
	// RecheckGone: the page answers 404 or 410, or redirects to another
	// URL whose text no longer holds the passages checked.
	RecheckGone RecheckStatus = "gone"
	// RecheckUnreachable: the page could not be read (a network error, a
	// timeout, another status, a refusal of the SSRF guard or the domain
	// policy): whether it still holds is not known.
	RecheckUnreachable RecheckStatus = "unreachable"
	// RecheckSkipped: not a web page (a corpus document, a file), or no
	// hash of the text read was kept to compare with.
	RecheckSkipped RecheckStatus = "skipped"
)

// PassageStatus says where a checked passage is in a re-read page.
type PassageStatus string

// The places of a passage.
const (
	PassageMoved PassageStatus = "moved" // still in the page, elsewhere (or with other spacing)
	PassageGone  PassageStatus = "gone"  // no longer in the page
)

// RecheckedPassage is a passage a citation was checked against that is
// not where it was when the report was written.
type RecheckedPassage struct {
	Status PassageStatus `json:"status"`
	// Text and SHA256 are the passage as it was read; Start and End its
	// byte offsets in the text then read.
	Text   string `json:"text"`
	SHA256 string `json:"sha256"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	// NewStart is the passage's offset in the page's text now (-1 when
	// gone, or found only with other spacing).
	NewStart int `json:"new_start"`
}

// RecheckedSource is one cited web source, read again.
type RecheckedSource struct {
	// Number is its number in the report; Title and URL are as the report
	// gives them.
	Number int           `json:"number"`
	Title  string        `json:"title,omitempty"`
	URL    string        `json:"url,omitempty"`
	Status RecheckStatus `json:"status"`
	// Detail says why, in a phrase ("410 Gone", "redirects to …", "2 of 3
	// passages are no longer in the page").
	Detail string `json:"detail"`
	// FinalURL is where the page was read from now, after redirects.
	FinalURL string `json:"final_url,omitempty"`
	// SHA256 is the hash of the text read when the report was written,
	// NewSHA256 of the text read now ("" when none was read).
	SHA256    string `json:"text_sha256,omitempty"`
	NewSHA256 string `json:"new_text_sha256,omitempty"`
	// Passages are the passages checked that moved or went.
	Passages []RecheckedPassage `json:"passages,omitempty"`
}

// RecheckedClaim is a cited sentence of the report whose every cited web
// source changed (its supporting passage moved out of the page) or went.
type RecheckedClaim struct {
	// Line is the report line it is on (1-based).
	Line     int    `json:"line"`
	Sentence string `json:"sentence"`
	// Cites are the numbers it cites, in order.
	Cites []int `json:"cites"`
}

// RecheckSummary counts a recheck's sources by status, and its flagged
// claims.
type RecheckSummary struct {
	Unchanged   int `json:"unchanged"`
	Changed     int `json:"changed"`
	Gone        int `json:"gone"`
	Unreachable int `json:"unreachable"`
	Skipped     int `json:"skipped"`
	Claims      int `json:"claims_flagged"`
}

// RecheckResult is a report checked against today's web: each cited web
// source read again and compared with what was read when the report was
// written, and the claims that lost their support. Its JSON form is that
// of `deepresearch recheck --json` and GET /v1/research/{id}/recheck;
// WriteText writes it for people.
type RecheckResult struct {
	RunID    string    `json:"run_id,omitempty"`
	Question string    `json:"question,omitempty"`
	Checked  time.Time `json:"checked"`
	// Holds is false when a claim lost its support (Claims).
	Holds   bool              `json:"holds"`
	Summary RecheckSummary    `json:"summary"`
	Sources []RecheckedSource `json:"sources"`
	Claims  []RecheckedClaim  `json:"claims"`
}

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
func (r *Researcher) Recheck(ctx context.Context, report *JSONReport) (*RecheckResult, error) {
	if report == nil || strings.TrimSpace(report.Text) == "" {
		return nil, fmt.Errorf("deepresearch: recheck: %w", ErrNoReport)
	}
	ctx, err := r.withDomains(ctx, nil)
	if err != nil {
		return nil, err
	}
	pages, err := fetch.New(r.cfg.Fetch)
	if err != nil {
		return nil, configErrorf("Fetch: %v", err)
	}
	defer pages.Close()
	res := &RecheckResult{RunID: report.RunID, Question: report.Question, Checked: r.cfg.Clock.Now(),
		Sources: make([]RecheckedSource, len(report.References)), Claims: []RecheckedClaim{}}
	texts := make([]string, len(report.References)) // the text read now, by reference
	sem := make(chan struct{}, recheckParallel)
	var wg sync.WaitGroup
	for i, ref := range report.References {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				res.Sources[i] = RecheckedSource{Number: ref.Number, Title: ref.Title, URL: ref.URL, Status: RecheckUnreachable, Detail: context.Cause(ctx).Error()}
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
	for _, s := range res.Sources {
		switch s.Status {
		case RecheckUnchanged:
			res.Summary.Unchanged++
		case RecheckChanged:
			res.Summary.Changed++
		case RecheckGone:
			res.Summary.Gone++
		case RecheckUnreachable:
			res.Summary.Unreachable++
		default:
			res.Summary.Skipped++
		}
	}
	if res.Claims, err = lostClaims(ctx, report, res.Sources, texts); err != nil {
		return nil, err
	}
	res.Summary.Claims = len(res.Claims)
	res.Holds = len(res.Claims) == 0
	return res, nil
}

// recheckOne reads ref's page again and compares it; it returns the page's
// text now ("" when none was read).
func recheckOne(ctx context.Context, pages *fetch.Fetcher, ref Reference) (RecheckedSource, string) {
	out := RecheckedSource{Number: ref.Number, Title: ref.Title, URL: ref.URL}
	if u, err := url.Parse(ref.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		out.Status, out.Detail = RecheckSkipped, "not a web page"
		return out, ""
	}
	if ref.Checked == nil || ref.TextSHA256 == "" {
		out.Status, out.Detail = RecheckSkipped, "no hash of the text read was kept to compare with"
		return out, ""
	}
	out.SHA256 = ref.TextSHA256
	page, err := pages.Fetch(ctx, ref.URL)
	var se *fetch.StatusError
	switch {
	case errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusGone):
		out.Status, out.Detail = RecheckGone, fmt.Sprintf("%d %s", se.Code, http.StatusText(se.Code))
		return out, ""
	case err != nil:
		out.Status, out.Detail = RecheckUnreachable, err.Error()
		return out, ""
	}
	out.FinalURL = page.FinalURL
	out.compare(ref, page.Text)
	if canon.Key(page.FinalURL) != canon.Key(ref.URL) && out.Status == RecheckChanged && (len(out.Passages) == 0 || hasGone(out.Passages)) {
		// A redirect that was there when the report was written leads
		// to the same text; one to another page does not.
		out.Status, out.Detail, out.Passages = RecheckGone, "redirects to "+page.FinalURL, nil
		return out, ""
	}
	return out, page.Text
}

// compare sets out's status from the text read now of ref's page.
func (out *RecheckedSource) compare(ref Reference, text string) {
	out.NewSHA256 = source.SHA256(text)
	if out.NewSHA256 == ref.TextSHA256 {
		out.Status, out.Detail = RecheckUnchanged, "the same text"
		return
	}
	if len(ref.Passages) == 0 {
		out.Status, out.Detail = RecheckChanged, "the text changed; no passage was kept to compare"
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
			out.Passages = append(out.Passages, RecheckedPassage{Status: PassageGone, Text: p.Text, SHA256: p.SHA256, Start: p.Start, End: p.End, NewStart: -1})
			continue
		}
		out.Passages = append(out.Passages, RecheckedPassage{Status: PassageMoved, Text: p.Text, SHA256: p.SHA256, Start: p.Start, End: p.End, NewStart: at})
	}
	switch {
	case len(out.Passages) == 0:
		out.Status, out.Detail = RecheckUnchanged, fmt.Sprintf("the text changed elsewhere; the %s checked %s where %s", plural(len(ref.Passages), "passage"), isAre(len(ref.Passages)), itThey(len(ref.Passages)))
	case gone > 0:
		out.Status, out.Detail = RecheckChanged, fmt.Sprintf("%d of %s checked %s no longer in the page", gone, plural(len(ref.Passages), "passage"), isAre(gone))
	default:
		out.Status, out.Detail = RecheckChanged, fmt.Sprintf("%d of %s checked moved", len(out.Passages), plural(len(ref.Passages), "passage"))
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
func lostClaims(ctx context.Context, report *JSONReport, sources []RecheckedSource, texts []string) ([]RecheckedClaim, error) {
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
		RecheckedClaim
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
			cl = &claim{RecheckedClaim: RecheckedClaim{Line: c.Line, Sentence: oneLineText(c.Sentence)}}
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
		case RecheckGone:
		case RecheckChanged:
			if c.Evidence != nil && strings.TrimSpace(c.Evidence.Quote) != "" {
				cl.supported = strings.Contains(flatten(texts[i]), flatten(c.Evidence.Quote))
			} else {
				cl.supported = len(s.Passages) == 0 || !hasGone(s.Passages)
			}
		default:
			cl.supported = true
		}
	}
	out := []RecheckedClaim{}
	for _, k := range order {
		if cl := claims[k]; !cl.supported {
			out = append(out, cl.RecheckedClaim)
		}
	}
	return out, nil
}

func hasGone(ps []RecheckedPassage) bool {
	for _, p := range ps {
		if p.Status == PassageGone {
			return true
		}
	}
	return false
}

// RecheckRun rechecks the report of the run id that st holds (as
// Researcher.Recheck does, over the run's JSON form). A run st does not
// hold is a *RunsError wrapping ErrRunNotFound; one with no report, a
// *RunsError wrapping ErrNoReport.
func (r *Researcher) RecheckRun(ctx context.Context, st Store, id string) (*RecheckResult, error) {
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
	RecheckRun(ctx context.Context, st Store, id string) (*RecheckResult, error)
}

// ErrNoRecheck reports a Runs whose RunRecorder cannot recheck reports.
var ErrNoRecheck = errors.New("deepresearch: this server's researcher cannot recheck reports")

// Recheck rechecks the report of the stored run id, as RecheckRun does
// over the Runs' store, with the Runs' researcher (ErrNoRecheck when it is
// no Rechecker), and keeps the result as the run's last re-check
// (LastRecheck) when it read a web page.
func (rs *Runs) Recheck(ctx context.Context, id string) (*RecheckResult, error) {
	rc, ok := rs.rec.(Rechecker)
	if !ok {
		return nil, ErrNoRecheck
	}
	if err := rs.unkept(id); err != nil {
		return nil, err
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

// WriteText writes the recheck for people: each source's status with its
// detail and the passages that moved or went, the claims that lost their
// support, and whether the report still holds. Passages and sentences are
// quoted on one line each; the caller makes them safe for its terminal.
func (res *RecheckResult) WriteText(w io.Writer) error {
	var b strings.Builder
	if res.RunID != "" {
		fmt.Fprintf(&b, "Run %s", res.RunID)
		if res.Question != "" {
			fmt.Fprintf(&b, ": %s", oneLineText(res.Question))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Sources read again %s\n\n", res.Checked.UTC().Format(time.RFC3339))
	for _, s := range res.Sources {
		fmt.Fprintf(&b, "[%d] %-11s %s", s.Number, strings.ToUpper(string(s.Status)), oneLineText(s.Title))
		if s.URL != "" {
			fmt.Fprintf(&b, " <%s>", s.URL)
		}
		fmt.Fprintf(&b, "\n      %s\n", oneLineText(s.Detail))
		for _, p := range s.Passages {
			fmt.Fprintf(&b, "      %s: %q\n", p.Status, clip(oneLineText(p.Text), 200))
		}
	}
	sum := res.Summary
	fmt.Fprintf(&b, "\n%d unchanged, %d changed, %d gone, %d unreachable, %d skipped\n", sum.Unchanged, sum.Changed, sum.Gone, sum.Unreachable, sum.Skipped)
	if len(res.Claims) > 0 {
		fmt.Fprintf(&b, "\n%s lost their support:\n", plural(len(res.Claims), "claim"))
		for _, c := range res.Claims {
			fmt.Fprintf(&b, "  line %d %v: %s\n", c.Line, c.Cites, clip(oneLineText(c.Sentence), 300))
		}
	}
	if res.Holds {
		b.WriteString("\nHOLDS: every claim still has its support.\n")
	} else {
		b.WriteString("\nNO LONGER HOLDS: a claim's only support changed or went.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
