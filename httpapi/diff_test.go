package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/diff"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/source"
)

// TestDiffEndpoint (issue 33): GET /v1/research/{id}/diff/{other} serves
// diff.Result as JSON for two stored runs — the page whose text
// changed, the one gone, the claim that lost its support — and says 404
// for a run the store lacks, 409 for one with no report.
func TestDiffEndpoint(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := t.Context()
	store := func(id, draft string, urls, texts []string) {
		t.Helper()
		rep := deepresearch.Report{Version: render.Version, RunID: id, Question: "What do alpha widgets do?",
			Style: cite.Markdown, Draft: draft, SourceTexts: map[int]string{}}
		for i, u := range urls {
			rep.Sources = append(rep.Sources, cite.MergedSource{Number: i + 1,
				Source: source.Source{ID: u, Title: "Page " + u, URL: u}})
			rep.SourceTexts[i+1] = texts[i]
		}
		data, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.Create(ctx, runstore.Run{ID: id, Question: rep.Question}); err != nil {
			t.Fatal(err)
		}
		if err := e.store.PutReport(ctx, id, data); err != nil {
			t.Fatal(err)
		}
		if err := e.store.Finish(ctx, id, runstore.Finished, events.Usage{}, ""); err != nil {
			t.Fatal(err)
		}
	}
	claim := "Alpha widgets reduce heat loss by forty percent in cold climates"
	store("run-a", "## Findings\n\n"+claim+" [1].\n\nBeta gadgets came from Lisbon in 1921 [2].\n",
		[]string{"https://example.org/alpha", "https://example.org/beta"},
		[]string{claim + ", field trials found.", "Beta gadgets came from Lisbon in 1921, a clockmaker's work."})
	store("run-b", "## Findings\n\n"+claim+" [1].\n",
		[]string{"https://example.org/alpha"},
		[]string{"Alpha widgets were withdrawn from sale after a recall."})

	res := e.do("GET", "/v1/research/run-a/diff/run-b", "")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET diff: %s %q", res.Status, res.Header.Get("Content-Type"))
	}
	var d diff.Result
	readJSON(t, res, &d)
	if d.RunA != "run-a" || d.RunB != "run-b" || len(d.Sources.Changed) != 1 || d.Sources.Changed[0].URL != "https://example.org/alpha" ||
		len(d.Sources.Dropped) != 1 || d.Sources.Dropped[0].URL != "https://example.org/beta" || len(d.Sources.Added) != 0 {
		t.Errorf("sources %+v", d.Sources)
	}
	if len(d.Claims) != 2 || d.Claims[0].Change != diff.LostSupport || d.Claims[1].Change != diff.SourceChanged {
		t.Errorf("claims %+v; want the alpha claim's support lost, the beta claim's source gone", d.Claims)
	}

	checkError(t, e.do("GET", "/v1/research/run-a/diff/nope", ""), http.StatusNotFound, typeNotFound, `no run "nope"`)
	checkError(t, e.do("GET", "/v1/research/nope/diff/run-b", ""), http.StatusNotFound, typeNotFound, `no run "nope"`)
	if err := e.store.Create(ctx, runstore.Run{ID: "run-c", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	checkError(t, e.do("GET", "/v1/research/run-a/diff/run-c", ""), http.StatusConflict, typeConflict, "run run-c is queued and has no report")
}
