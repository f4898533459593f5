package httpapi

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

// The page's workspace: the runs the store keeps, a run's report as the
// HTML report's fragment, and each cited source's text read.

// DefaultListLimit and MaxListLimit bound GET /v1/research's runs.
const (
	DefaultListLimit = 50
	MaxListLimit     = 1000
)

// listedRun is a run of GET /v1/research's list.
type listedRun struct {
	ID       string          `json:"id"`
	Question string          `json:"question"`
	Status   runstore.Status `json:"status"`
	Error    string          `json:"error,omitempty"`
	// Parent is the run a follow-up question was asked of; "" for a run
	// that follows none.
	Parent   string            `json:"parent,omitempty"`
	Created  time.Time         `json:"created"`
	Finished time.Time         `json:"finished,omitzero"`
	Usage    events.Usage      `json:"usage"`
	URLs     map[string]string `json:"urls"`
}

// getRuns lists the store's runs, newest first: GET /v1/research?limit=N.
func (s *Server) getRuns(w http.ResponseWriter, r *http.Request) {
	limit := DefaultListLimit
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxListLimit {
			s.fail(w, badRequest("limit %q is not a number from 1 to %d", v, MaxListLimit))
			return
		}
		limit = n
	}
	runs, err := s.runs.List(r.Context(), limit)
	if err != nil {
		s.fail(w, err)
		return
	}
	out := make([]listedRun, 0, len(runs))
	for _, run := range runs {
		urls := runURLs(run.ID)
		urls["page"] = "/runs/" + run.ID
		out = append(out, listedRun{ID: run.ID, Question: run.Question, Status: run.Status, Error: run.Error, Parent: run.Parent,
			Created: run.Created, Finished: run.Finished, Usage: run.Usage, URLs: urls})
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": out})
}

// storedReport returns the report of the run the path names, or a 404
// or 409 to answer with.
func (s *Server) storedReport(r *http.Request) (runstore.Run, *deepresearch.Report, error) {
	run, err := s.lookup(r)
	if err != nil {
		return run, nil, err
	}
	rep, err := s.runs.Report(r.Context(), run.ID)
	if errors.Is(err, runstore.ErrNotFound) {
		return run, nil, &requestError{http.StatusConflict, typeConflict, fmt.Sprintf("run %s is %s and has no report", run.ID, run.Status)}
	}
	return run, rep, err
}

// sourcePath is where reference n of run id is served.
func sourcePath(id string, n int) string {
	return "/v1/research/" + id + "/sources/" + strconv.Itoa(n)
}

// getFragment serves the run's report as the HTML report's fragment
// (deepresearch.Report.RenderHTMLFragment): each citation with its
// verdict, each reference linking to its stored text. The page puts it
// in place; it holds no script, and the policy allows none.
func (s *Server) getFragment(w http.ResponseWriter, r *http.Request) {
	run, rep, err := s.storedReport(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	kept, err := s.runs.Sources(r.Context(), run.ID)
	if err != nil {
		s.fail(w, err)
		return
	}
	views := map[int]bool{}
	for _, ref := range rep.References {
		if v, ok := rep.SourceView(ref.Number, kept); ok && len(v.Parts) > 0 {
			views[ref.Number] = true
		}
	}
	frag, err := rep.RenderHTMLFragment(render.HTMLOptions{Verdicts: true, SourceHref: func(n int) string {
		if !views[n] {
			return ""
		}
		return sourcePath(run.ID, n)
	}})
	if errors.Is(err, deepresearch.ErrNoReport) {
		s.fail(w, &requestError{http.StatusConflict, typeConflict, fmt.Sprintf("run %s is %s and has no report", run.ID, run.Status)})
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", reportCSP)
	w.Write(frag)
}

// sourceAnswer is GET /v1/research/{id}/sources/{n}'s JSON.
type sourceAnswer struct {
	RunID  string `json:"run_id"`
	Number int    `json:"number"`
	*deepresearch.SourceView
}

// getSource serves reference n of the run's report with the text read of
// it and the passages its citations were checked against: as an HTML
// page (no script), or as JSON for Accept: application/json.
func (s *Server) getSource(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || strconv.Itoa(n) != r.PathValue("n") {
		s.fail(w, badRequest("%q is not a reference number", r.PathValue("n")))
		return
	}
	run, rep, err := s.storedReport(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	kept, err := s.runs.Sources(r.Context(), run.ID)
	if err != nil {
		s.fail(w, err)
		return
	}
	v, ok := rep.SourceView(n, kept)
	if !ok {
		s.fail(w, &requestError{http.StatusNotFound, typeNotFound, fmt.Sprintf("run %s's report has no reference [%d]", run.ID, n)})
		return
	}
	if len(v.Parts) == 0 {
		s.fail(w, &requestError{http.StatusNotFound, typeNotFound, fmt.Sprintf("run %s keeps no text of reference [%d]", run.ID, n)})
		return
	}
	ans := sourceAnswer{RunID: run.ID, Number: n, SourceView: v}
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		writeJSON(w, http.StatusOK, ans)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", reportCSP)
	if err := sourcePage.Execute(w, sourcePageData(ans, run.Question)); err != nil {
		s.log.Error().Err(err).Str("run", run.ID).Msg("rendering a source's page")
	}
}

// pagePart is a part of a source's page: its heading, an anchor, and its
// text cut into plain and highlighted pieces.
type pagePart struct {
	Location, Anchor string
	Pieces           []piece
}

type piece struct {
	Text   string
	Marked bool
	ID     string
}

func sourcePageData(a sourceAnswer, question string) map[string]any {
	parts := make([]pagePart, 0, len(a.Parts))
	marks := 0
	for _, p := range a.Parts {
		pp := pagePart{Location: p.Location, Anchor: locationAnchor(p.Location)}
		at := 0
		for _, sp := range p.Passages {
			if sp.Start > at {
				pp.Pieces = append(pp.Pieces, piece{Text: printable(p.Text[at:sp.Start])})
			}
			marks++
			pp.Pieces = append(pp.Pieces, piece{Text: printable(p.Text[sp.Start:sp.End]), Marked: true, ID: "passage-" + strconv.Itoa(marks)})
			at = sp.End
		}
		pp.Pieces = append(pp.Pieces, piece{Text: printable(p.Text[at:])})
		parts = append(parts, pp)
	}
	return map[string]any{"A": a, "Label": a.Reference.Label(), "Question": question, "Parts": parts, "Marks": marks,
		"Back": "/runs/" + a.RunID + "#ref-" + strconv.Itoa(a.Number)}
}

// printable is text with its control characters other than newlines and
// tabs shown as U+FFFD.
func printable(text string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, text)
}

// locationAnchor is the id of a location's part: "p. 4" → "loc-p-4".
func locationAnchor(loc string) string {
	var b strings.Builder
	b.WriteString("loc")
	dash := true
	for _, r := range strings.ToLower(loc) {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			if dash {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// sourcePage is a source's page. html/template escapes every value; the
// text read is the source's, untrusted.
var sourcePage = template.Must(template.New("source").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>[{{.A.Number}}] {{.Label}}</title>
<style>
body{max-width:52rem;margin:0 auto;padding:1rem;font:16px/1.5 system-ui,sans-serif;color:#1b1b1b;overflow-wrap:anywhere}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.75rem;font-size:.9rem}
mark{background:#ffe066;color:#000;outline:1px solid #c9a000}
a{color:#0645ad}
</style>
</head>
<body>
<nav><a href="{{.Back}}">Back to the report</a></nav>
<header>
<h1>[{{.A.Number}}] {{.Label}}</h1>
<p>Cited by the report on “{{.Question}}”.{{if .A.Link}} The source: <a href="{{.A.Link}}" rel="noopener noreferrer">{{.A.Link}}</a>.{{end}}</p>
<p>{{if .Marks}}{{.Marks}} highlighted passages are what the report's citations were checked against.{{else}}No passage is highlighted: the report was not verified, or the passages checked are not in this text.{{end}}</p>
</header>
<main>
{{range .Parts}}<section id="{{.Anchor}}">
<h2>{{if .Location}}{{.Location}}{{else}}The text read{{end}}</h2>
<pre>{{range .Pieces}}{{if .Marked}}<mark id="{{.ID}}">{{.Text}}</mark>{{else}}{{.Text}}{{end}}{{end}}</pre>
</section>
{{end}}</main>
</body>
</html>
`))
