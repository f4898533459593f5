package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/recheck"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

// TestRecheckEndpoint (issue 33): GET /v1/research/{id}/recheck reads a
// stored run's cited pages again and serves recheck.Result:
// the page that went (410) is gone and the claim it alone supported is
// flagged; 404 for a run the store lacks.
func TestRecheckEndpoint(t *testing.T) {
	web, err := deepresearchtest.NewWebServer(
		search.Document{DocID: "alpha", Title: "Alpha", Text: "Alpha widgets reduce heat loss by forty percent."},
		search.Document{DocID: "beta", Title: "Beta", Text: "Beta gadgets came from Lisbon in 1921."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	e := newEnv(t, envOpts{fetchAllow: []string{strings.TrimPrefix(web.URL, "http://")}})
	ctx := t.Context()
	rep := deepresearch.Report{Version: render.Version, RunID: "run-a", Question: "What do widgets and gadgets do?",
		Style: cite.Markdown, Draft: "## Findings\n\nAlpha widgets reduce heat loss by forty percent [1].\n\nBeta gadgets came from Lisbon in 1921 [2].\n",
		Sources: []cite.MergedSource{
			{Number: 1, Source: source.Source{ID: "a", Title: "Alpha", URL: web.URL + "/pages/alpha"}},
			{Number: 2, Source: source.Source{ID: "b", Title: "Beta", URL: web.URL + "/pages/beta"}},
		},
		SourceTexts: map[int]string{1: "Alpha widgets reduce heat loss by forty percent.", 2: "Beta gadgets came from Lisbon in 1921."}}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.Create(ctx, runstore.Run{ID: "run-a", Question: rep.Question}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.PutReport(ctx, "run-a", data); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Finish(ctx, "run-a", runstore.Finished, events.Usage{}, ""); err != nil {
		t.Fatal(err)
	}
	web.Remove("beta", http.StatusGone)

	res := e.do("GET", "/v1/research/run-a/recheck", "")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET recheck: %s %q", res.Status, res.Header.Get("Content-Type"))
	}
	var rc recheck.Result
	readJSON(t, res, &rc)
	if rc.RunID != "run-a" || len(rc.Sources) != 2 || rc.Sources[1].Status != recheck.Gone || rc.Sources[1].Detail != "410 Gone" {
		t.Fatalf("recheck %+v", rc)
	}
	if rc.Holds || len(rc.Claims) != 1 || !strings.Contains(rc.Claims[0].Sentence, "Lisbon") {
		t.Errorf("claims %+v, holds %v; want the beta claim flagged", rc.Claims, rc.Holds)
	}
	checkError(t, e.do("GET", "/v1/research/nope/recheck", ""), http.StatusNotFound, typeNotFound, `no run "nope"`)

	// The re-check is kept with the run: GET /v1/research/{id} says when
	// it was made and that the report no longer holds.
	var v struct {
		Recheck *struct {
			CheckedAt string          `json:"checked_at"`
			Holds     bool            `json:"holds"`
			Summary   recheck.Summary `json:"summary"`
			Claims    []recheck.Claim `json:"claims"`
		} `json:"recheck"`
	}
	readJSON(t, e.do("GET", "/v1/research/run-a", ""), &v)
	if v.Recheck == nil || v.Recheck.Holds || v.Recheck.CheckedAt == "" || v.Recheck.Summary.Gone != 1 || v.Recheck.Summary.Claims != 1 ||
		len(v.Recheck.Claims) != 1 || !strings.Contains(v.Recheck.Claims[0].Sentence, "Lisbon") {
		t.Errorf("GET /v1/research/run-a's recheck = %+v; want the re-check kept, not holding", v.Recheck)
	}
}
