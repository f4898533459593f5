package httpapi

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
)

// body reads a response's body, checking its status and media type.
func body(t *testing.T, res *http.Response, status int, ctype string) string {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status || !strings.HasPrefix(res.Header.Get("Content-Type"), ctype) {
		t.Fatalf("%s %s: %s %s, want %d %s:\n%s", res.Request.Method, res.Request.URL, res.Status, res.Header.Get("Content-Type"), status, ctype, b)
	}
	return string(b)
}

// The page's workspace over a finished run: the runs list, the page at
// /runs/{id}, the report's fragment with its citations and verdicts, and
// each reference's stored text as JSON and HTML with its checked
// passages highlighted.
func TestWorkspace(t *testing.T) {
	e := newEnv(t, envOpts{})
	first := e.start("How are undersea cables repaired?")
	e.ended(first.ID)
	second := e.start("What limits the capacity of a fibre link?")
	e.ended(second.ID)

	var list struct {
		Runs []struct {
			ID, Question, Status string
			URLs                 map[string]string
		}
	}
	readJSON(t, e.do("GET", "/v1/research", ""), &list)
	if len(list.Runs) != 2 || list.Runs[0].ID != second.ID || list.Runs[1].ID != first.ID {
		t.Fatalf("the list is not the two runs, newest first: %+v", list.Runs)
	}
	if r := list.Runs[1]; r.Question != "How are undersea cables repaired?" || r.Status != "finished" || r.URLs["page"] != "/runs/"+first.ID {
		t.Errorf("listed run %+v", r)
	}
	readJSON(t, e.do("GET", "/v1/research?limit=1", ""), &list)
	if len(list.Runs) != 1 || list.Runs[0].ID != second.ID {
		t.Errorf("?limit=1 listed %+v", list.Runs)
	}
	checkError(t, e.do("GET", "/v1/research?limit=0", ""), http.StatusBadRequest, typeInvalid, "limit")

	var pageCfg map[string]bool
	readJSON(t, e.do("GET", "/page.json", ""), &pageCfg)
	if pageCfg["token_required"] {
		t.Errorf("/page.json says a server without a token requires one: %v", pageCfg)
	}
	page := body(t, e.do("GET", "/runs/"+first.ID, ""), http.StatusOK, "text/html")
	if !strings.Contains(page, `<script src="/app.js"`) {
		t.Errorf("/runs/{id} is not the page:\n%s", page)
	}

	res := e.do("GET", "/v1/research/"+first.ID+"/fragment", "")
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script") {
		t.Errorf("the fragment's policy: %q", csp)
	}
	frag := body(t, res, http.StatusOK, "text/html")
	cite := regexp.MustCompile(`<sup class="cite" data-sids="(\d+)"[^>]* data-verdict="(supported|unsupported)"><a href="#ref-(\d+)"`)
	if !cite.MatchString(frag) {
		t.Fatalf("the fragment has no citation with a verdict:\n%s", frag)
	}
	if strings.Contains(frag, "<html") || strings.Contains(frag, "<script") {
		t.Errorf("the fragment is a page or holds script:\n%s", frag)
	}
	stored := regexp.MustCompile(`<a class="stored" href="(/v1/research/` + first.ID + `/sources/(\d+))">`).FindStringSubmatch(frag)
	if stored == nil {
		t.Fatalf("no reference links to its stored text:\n%s", frag)
	}

	var src struct {
		RunID     string `json:"run_id"`
		Number    int
		Reference struct{ ID string }
		Parts     []struct {
			Text     string
			Passages []struct{ Start, End int }
		}
	}
	readJSON(t, e.do("GET", stored[1], "", "Accept", "application/json"), &src)
	if src.RunID != first.ID || src.Number == 0 || src.Reference.ID == "" || len(src.Parts) == 0 || src.Parts[0].Text == "" {
		t.Fatalf("the source's JSON: %+v", src)
	}
	var marked []string
	for _, p := range src.Parts {
		for _, s := range p.Passages {
			marked = append(marked, p.Text[s.Start:s.End])
		}
	}
	if len(marked) == 0 {
		t.Fatalf("no passage of the source is marked as checked: %+v", src)
	}
	res = e.do("GET", stored[1], "")
	if csp := res.Header.Get("Content-Security-Policy"); strings.Contains(csp, "script") {
		t.Errorf("the source page's policy: %q", csp)
	}
	html := body(t, res, http.StatusOK, "text/html")
	if !strings.Contains(html, `<mark id="passage-1">`) || !strings.Contains(html, `href="/runs/`+first.ID+`#ref-`+stored[2]+`"`) {
		t.Errorf("the source page marks no passage or has no way back:\n%s", html)
	}

	checkError(t, e.do("GET", "/v1/research/"+first.ID+"/sources/99", ""), http.StatusNotFound, typeNotFound, "no reference [99]")
	checkError(t, e.do("GET", "/v1/research/"+first.ID+"/sources/x", ""), http.StatusBadRequest, typeInvalid, "reference number")
	checkError(t, e.do("GET", "/v1/research/nope/sources/1", ""), http.StatusNotFound, typeNotFound, "nope")
	checkError(t, e.do("GET", "/v1/research/nope/fragment", ""), http.StatusNotFound, typeNotFound, "nope")
}

// A source's page escapes the text read and shows its control
// characters as U+FFFD.
func TestSourcePageEscapes(t *testing.T) {
	if got := printable("a\x00b\x1b[31m\nc\td\x7f"); got != "a\uFFFDb\uFFFD[31m\nc\td\uFFFD" {
		t.Errorf("printable = %q", got)
	}
	if got := locationAnchor("p. 4"); got != "loc-p-4" {
		t.Errorf("locationAnchor = %q", got)
	}
	var b strings.Builder
	a := sourceAnswer{RunID: "r1", Number: 2, SourceView: &deepresearch.SourceView{Link: "https://example.org/?a=1&b=<2>"}}
	data := sourcePageData(a, "why <script>?")
	data["Parts"] = []pagePart{{Location: "p. <4>", Anchor: "loc-p-4", Pieces: []piece{{Text: "<b>bold</b>"}, {Text: "</pre><script>x()</script>", Marked: true, ID: "passage-1"}}}}
	data["Label"] = "<i>label</i>"
	if err := sourcePage.Execute(&b, data); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"<b>", "<script>", "<i>", "<4>"} {
		if strings.Contains(out, bad) {
			t.Errorf("the page carries %s from its data:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, `<mark id="passage-1">&lt;/pre&gt;&lt;script&gt;x()&lt;/script&gt;</mark>`) {
		t.Errorf("the marked passage is not escaped text:\n%s", out)
	}
}
