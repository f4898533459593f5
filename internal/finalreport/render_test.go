package finalreport

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
)

// renderRefs are references as Write publishes them: with URLs, a
// publication date, a title with brackets and HTML specials, a URL with a
// space and parentheses, and a source with neither title nor URL.
func renderRefs() []Reference {
	return []Reference{
		{Number: 1, Source: source.Source{ID: "w7", URL: "https://example.org/seven", Title: "Seven", Published: "2024-03-15T10:00:00+01:00"}, CanonicalURL: "https://example.org/seven"},
		{Number: 2, Source: source.Source{ID: "w5", URL: "https://example.org/five", Title: "Five [draft] & <more>"}, CanonicalURL: "https://example.org/five"},
		{Number: 3, Source: source.Source{ID: "w9", URL: "https://example.org/a b(c)", Title: "  Spaced\n title "}},
		{Number: 4, Source: source.Source{ID: "corpus/notes.md"}},
	}
}

func TestMarkdown(t *testing.T) {
	const text = "# Title\n\nClaim [1]. Other [2][3]. Notes [4].\n\n\n"
	for _, tc := range []struct {
		style citeproc.Style
		refs  string
	}{
		{citeproc.Markdown, "" +
			"- [1] [Seven](https://example.org/seven) (2024-03-15)\n" +
			"- [2] [Five \\[draft\\] & &lt;more&gt;](https://example.org/five)\n" +
			"- [3] [Spaced title](https://example.org/a%20b%28c%29)\n" +
			"- [4] corpus/notes.md\n"},
		{citeproc.Plain, "" +
			"[1] Seven (2024-03-15). https://example.org/seven  \n" +
			"[2] Five \\[draft\\] & &lt;more&gt;. https://example.org/five  \n" +
			"[3] Spaced title. https://example.org/a%20b%28c%29  \n" +
			"[4] corpus/notes.md  \n"},
		{citeproc.Footnote, "" +
			"[^1]: [Seven](https://example.org/seven) (2024-03-15)\n" +
			"[^2]: [Five \\[draft\\] & &lt;more&gt;](https://example.org/five)\n" +
			"[^3]: [Spaced title](https://example.org/a%20b%28c%29)\n" +
			"[^4]: corpus/notes.md\n"},
		{citeproc.HTML, "" +
			`<p id="ref-1">[1] <a href="https://example.org/seven">Seven</a> (2024-03-15)</p>` + "\n" +
			`<p id="ref-2">[2] <a href="https://example.org/five">Five [draft] &amp; &lt;more&gt;</a></p>` + "\n" +
			`<p id="ref-3">[3] <a href="https://example.org/a b(c)">Spaced title</a></p>` + "\n" +
			`<p id="ref-4">[4] corpus/notes.md</p>` + "\n"},
	} {
		t.Run(string(tc.style), func(t *testing.T) {
			r := &Report{Text: text, References: renderRefs()}
			want := "# Title\n\nClaim [1]. Other [2][3]. Notes [4].\n\n## References\n\n" + tc.refs
			if got := Markdown(r, tc.style); got != want {
				t.Errorf("Markdown:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestMarkdownNoReferences(t *testing.T) {
	for _, st := range allStyles {
		for _, text := range []string{"", "Nothing cited.", "Nothing cited.\n\n"} {
			got := Markdown(&Report{Text: text}, st.style)
			want := strings.TrimRight(text, "\n") + "\n"
			if got != want {
				t.Errorf("%s: Markdown(%q) = %q, want %q", st.name, text, got, want)
			}
		}
	}
}

// TestReferenceWithoutURLNamesID: a source without a URL (a corpus
// document) is found by its ID, so its reference names the ID even when it
// has a title, as the writer's "[n] Title — ID" source lines do.
func TestReferenceWithoutURLNamesID(t *testing.T) {
	r := &Report{
		Text:       "Notes [1].\n",
		Body:       "Notes [1].\n",
		References: []Reference{{Number: 1, Source: source.Source{ID: "corpus/notes.md", Title: "Field notes"}}},
	}
	for _, st := range allStyles {
		md := Markdown(r, st.style)
		_, refs, _ := strings.Cut(md, "## References")
		if !strings.Contains(refs, "Field notes") || !strings.Contains(refs, "corpus/notes.md") {
			t.Errorf("%s: reference list %q does not name both the title and the ID", st.name, refs)
		}
	}
	page, err := HTML("q", r)
	if err != nil {
		t.Fatal(err)
	}
	_, refs, _ := strings.Cut(page, `<ol class="references">`)
	if !strings.Contains(refs, "Field notes") || !strings.Contains(refs, "corpus/notes.md") {
		t.Errorf("HTML reference list %q does not name both the title and the ID", refs)
	}
}

const htmlBody = "# Prices\n" +
	"\n" +
	"Prices rose [1]. Wages lagged [2][1]; see also [3] and [4].\n" +
	"\n" +
	"Raw <script>alert('body')</script> html.\n" +
	"\n" +
	"```\n" +
	"literal [1]\n" +
	"\n" +
	"still code [2]\n" +
	"```\n" +
	"\n" +
	"Inline `[2]` code.\n" +
	"\n" +
	"A [link of its own](#ref-1) and a [[9]](#ref-9) stay links.\n"

func TestHTML(t *testing.T) {
	r := &Report{Body: htmlBody, References: renderRefs()}
	page, err := HTML("<script>alert(1)</script> & prices", r)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.html", page)

	if !strings.HasPrefix(page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">") {
		t.Errorf("not a standalone page: %q…", page[:min(80, len(page))])
	}
	if !strings.HasSuffix(page, "</body>\n</html>\n") {
		t.Errorf("page does not end with </body></html>")
	}
	for _, want := range []string{
		"<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; prices</title>",
		`<sup class="cite" data-sids="1"><a href="#ref-1" title="Seven">[1]</a></sup>`,
		`<sup class="cite" data-sids="2"><a href="#ref-2" title="Five [draft] &amp; &lt;more&gt;">[2]</a></sup><sup class="cite" data-sids="1"><a href="#ref-1" title="Seven">[1]</a></sup>`,
		`<sup class="cite" data-sids="3"><a href="#ref-3" title="Spaced title">[3]</a></sup>`,
		`<sup class="cite" data-sids="4"><a href="#ref-4" title="corpus/notes.md">[4]</a></sup>`,
		`<a href="#ref-1">link of its own</a>`,
		"<pre><code>literal [1]\n\nstill code [2]\n</code></pre>",
		"<code>[2]</code>",
		`<li id="ref-1" value="1"><a href="https://example.org/seven">Seven</a> (2024-03-15)</li>`,
		`<li id="ref-2" value="2"><a href="https://example.org/five">Five [draft] &amp; &lt;more&gt;</a></li>`,
		`<li id="ref-3" value="3"><a href="https://example.org/a b(c)">Spaced title</a></li>`,
		`<li id="ref-4" value="4">corpus/notes.md</li>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") {
		t.Errorf("page contains a raw <script>")
	}
	if n := strings.Count(page, `<sup class="cite"`); n != 5 {
		t.Errorf("%d citations, want 5 (none in code, none for a link of the writer's own)", n)
	}
}

func TestHTMLNoReferences(t *testing.T) {
	page, err := HTML("Q", &Report{Body: "Nothing [1] cited.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page, "<section>") || strings.Contains(page, "References") {
		t.Errorf("a page without references has a reference list")
	}
	if strings.Contains(page, `href="#ref-`) {
		t.Errorf("a citation of no reference became a link")
	}
}

func TestHTMLDuplicateReference(t *testing.T) {
	refs := renderRefs()
	refs = append(refs, Reference{Number: 1, Source: source.Source{ID: "other", URL: "https://example.org/other"}})
	if _, err := HTML("Q", &Report{Body: "x [1]", References: refs}); err == nil {
		t.Errorf("two references numbered 1: no error")
	}
}

func TestBlocks(t *testing.T) {
	for _, tc := range []struct {
		name string
		md   string
		want []string
	}{
		{"empty", "", []string{}},
		{"blank lines only", "\n\n  \n\t\n", []string{}},
		{"one", "a\nb", []string{"a\nb"}},
		{"paragraphs", "\n# T\n\npara one\nline two\n\n\n\npara two\n", []string{"# T", "para one\nline two", "para two"}},
		{"whitespace line splits", "a\n   \nb", []string{"a", "b"}},
		{"crlf", "a\r\n\r\nb\r\n", []string{"a\r", "b\r"}},
		{"fence with blank lines", "before\n\n```go\nx := 1\n\n\ny := 2 // [1]\n```\n\nafter", []string{"before", "```go\nx := 1\n\n\ny := 2 // [1]\n```", "after"}},
		{"fence right after text", "text\n```\na\n\nb\n```\nmore\n\nend", []string{"text\n```\na\n\nb\n```\nmore", "end"}},
		{"tilde fence", "~~~\na\n\n```\n\nb\n~~~\n\nc", []string{"~~~\na\n\n```\n\nb\n~~~", "c"}},
		{"info string is not a close", "```\na\n```go\n\nb\n```\n\nc", []string{"```\na\n```go\n\nb\n```", "c"}},
		{"unclosed fence", "a\n\n```\nb\n\nc", []string{"a", "```\nb\n\nc"}},
		{"longer fence", "````md\n```\n\n[1]\n```\n````\n\nafter [2]", []string{"````md\n```\n\n[1]\n```\n````", "after [2]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Blocks(tc.md); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Blocks(%q):\n got %q\nwant %q", tc.md, got, tc.want)
			}
		})
	}
}

const jsonBody = "# Prices\n" +
	"\n" +
	"Prices rose [1]. Wages lagged [2][1].\n" +
	"\n" +
	"Nothing cited here.\n" +
	"\n" +
	"```\n" +
	"code [1]\n" +
	"\n" +
	"more code [2]\n" +
	"```\n" +
	"\n" +
	"Rents [3] and an orphan [9].\n" +
	"\n" +
	"Only an orphan [9] and `[1]` in code.\n"

func TestJSON(t *testing.T) {
	refs := renderRefs()[:3]
	doc, err := JSON("How did prices change?", &Report{Body: jsonBody, Text: "styled text", References: refs}, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	wantBlocks := []string{
		"# Prices",
		"Prices rose [1]. Wages lagged [2][1].",
		"Nothing cited here.",
		"```\ncode [1]\n\nmore code [2]\n```",
		"Rents [3] and an orphan [9].",
		"Only an orphan [9] and `[1]` in code.",
	}
	if !reflect.DeepEqual(doc.Blocks, wantBlocks) {
		t.Errorf("Blocks:\n got %q\nwant %q", doc.Blocks, wantBlocks)
	}
	wantClaims := []Claim{
		{Path: "/blocks/1", SIDs: []int{1, 2}}, // in order of first citation
		{Path: "/blocks/4", SIDs: []int{3}},    // [9] is no reference
	}
	if !reflect.DeepEqual(doc.Citations, wantClaims) {
		t.Errorf("Citations = %+v, want %+v", doc.Citations, wantClaims)
	}
	if doc.Question != "How did prices change?" || doc.Text != jsonBody {
		t.Errorf("Question %q, Text %q: want the question and the plain-marker Body", doc.Question, doc.Text)
	}
	if !reflect.DeepEqual(doc.References, refs) {
		t.Errorf("References = %+v", doc.References)
	}

	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", string(raw)+"\n")
	checkSidecar(t, raw)
}

// checkSidecar resolves every sidecar path as a JSON Pointer in the
// marshalled document and checks that the string there cites each SID,
// and that every SID is a reference number.
func checkSidecar(t *testing.T, raw []byte) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	refs := map[int]bool{}
	for _, r := range doc["references"].([]any) {
		refs[int(r.(map[string]any)["number"].(float64))] = true
	}
	claims, ok := doc["_citations"].([]any)
	if !ok {
		t.Fatalf("_citations is %T, want an array", doc["_citations"])
	}
	for _, c := range claims {
		c := c.(map[string]any)
		path := c["path"].(string)
		s, ok := resolvePointer(doc, path).(string)
		if !ok {
			t.Errorf("sidecar path %q does not point to a string", path)
			continue
		}
		for _, sid := range c["sids"].([]any) {
			n := int(sid.(float64))
			if !refs[n] {
				t.Errorf("sidecar %q cites %d, which is not a reference", path, n)
			}
			if !citedRe(n).MatchString(s) {
				t.Errorf("sidecar %q says it cites %d, but it is %q", path, n, s)
			}
		}
	}
}

// resolvePointer resolves an RFC 6901 JSON Pointer.
func resolvePointer(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	if ptr[0] != '/' {
		return nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func TestJSONEmpty(t *testing.T) {
	doc, err := JSON("Q", &Report{}, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"question":"Q","text":"","blocks":[],"references":[],"sources_used":[],"usage_sids":[],"sources":[],"collections_used":[],"source_types":[],"citation_format":"","formatted_citations":[],` +
		`"stats":{"rounds":0,"bytes":0,"citations":"absent","validated":"none"},"_citations":[],` +
		`"ok":true,"content":"","format":"markdown","finished":true,"retries":0,"reason":""}`; string(raw) != want {
		t.Errorf("JSON = %s, want %s", raw, want)
	}
}

// TestJSONLongerFence: a block inside a ```` fence is code; the sidecar
// must not say it cites anything (the published text does not cite there).
func TestJSONLongerFence(t *testing.T) {
	body := "Intro [1].\n\n````md\n```\n\nliteral [2]\n```\n````\n\nEnd.\n"
	refs := renderRefs()[:2]
	doc, err := JSON("Q", &Report{Body: body, References: refs}, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Claim{{Path: "/blocks/0", SIDs: []int{1}}}
	if !reflect.DeepEqual(doc.Citations, want) {
		t.Errorf("Citations = %+v, want %+v (blocks %q)", doc.Citations, want, doc.Blocks)
	}
}

// TestRenderWrittenReport publishes the Write fixture through every
// renderer: Markdown in the report's own style, HTML and JSON.
func TestRenderWrittenReport(t *testing.T) {
	for _, st := range allStyles {
		t.Run(st.name, func(t *testing.T) {
			in := fixtureInput()
			in.Missing = []Missing{{Section: "Wages", Reason: "timeout"}}
			rep, _ := writeReport(t, &scripted{Text: fixtureText, Split: bytesOf(3)}, st.style, in)
			golden(t, "fixture_"+st.name+".md", Markdown(rep, st.style))
			page, err := HTML(in.Question, rep)
			if err != nil {
				t.Fatal(err)
			}
			if n, k := strings.Count(page, `<li id="ref-`), len(rep.References); n != k {
				t.Errorf("%d reference entries, want %d", n, k)
			}
			for _, ref := range rep.References {
				if n := strconv.Itoa(ref.Number); !strings.Contains(page, `<sup class="cite" data-sids="`+n+`"><a href="#ref-`+n+`" title="`) {
					t.Errorf("no citation links to reference %d", ref.Number)
				}
			}
			doc, err := JSON(in.Question, rep, Extra{})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(doc)
			checkSidecar(t, raw)
			var sids []int
			seen := map[int]bool{}
			for _, c := range doc.Citations {
				for _, n := range c.SIDs {
					if !seen[n] {
						seen[n] = true
						sids = append(sids, n)
					}
				}
			}
			if want := oneToK(len(rep.References)); !reflect.DeepEqual(sids, want) {
				t.Errorf("the sidecar cites %v in order, want %v", sids, want)
			}
		})
	}
}

func TestJSONDuplicateReference(t *testing.T) {
	refs := append(renderRefs(), Reference{Number: 2, Source: source.Source{ID: "other", URL: "https://example.org/other"}})
	if _, err := JSON("Q", &Report{Body: "x [2]", References: refs}, Extra{}); err == nil {
		t.Errorf("two references numbered 2: no error")
	}
}

// A doi: or arxiv: source is linked under its https form, in the text and
// in the reference list, in every format (issue 17).
func TestIdentifierSourcesAreLinked(t *testing.T) {
	sources := []collapse.Source{
		{Number: 1, Source: source.Source{ID: "p", URL: "doi:10.1000/XYZ", Title: "Paper"}},
		{Number: 2, Source: source.Source{ID: "q", URL: "arxiv:2401.12345v2", Title: "Preprint"}},
	}
	rep, err := Publish("Claim [1] and [2].", sources, citeproc.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	md := Markdown(rep, citeproc.Markdown)
	for _, want := range []string{"[[1]](https://doi.org/10.1000/xyz)", "[[2]](https://arxiv.org/abs/2401.12345)", "[Paper](https://doi.org/10.1000/xyz)", "[Preprint](https://arxiv.org/abs/2401.12345)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %s:\n%s", want, md)
		}
	}
	page, err := HTML("q", rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<a href="https://doi.org/10.1000/xyz">Paper</a>`, `<a href="https://arxiv.org/abs/2401.12345">Preprint</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %s:\n%s", want, page)
		}
	}
}
