package main

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/extractive"
)

// TestRunDatedWebSources runs `run --provider openai --search searxng`
// over pages dated two ways — half by the search results' publishedDate
// (SearXNG's isoformat), half only by their page's article:published_time
// — and checks that the references carry the dates in every format: the
// markdown reference list ("[Title](URL) (2024-03-01)"), the JSON report
// (references and sources_used), CSL-JSON issued and BibTeX year/date.
// The pages dated by their metadata also name their author (meta
// author), which every format shows: the markdown line ("— Ada
// Lovelace"), the JSON reference's author, CSL-JSON's author (family and
// given) and BibTeX's.
// The writer's usage tag ([[USAGE:…]]) leaves the text and names entries
// of sources_used.
func TestRunDatedWebSources(t *testing.T) {
	index := isolate(t)
	docs := corpusDocs(t)
	want := map[string]string{} // page URL path → the date its reference must show
	pageDated := map[string]bool{}
	authors := map[string][2]string{} // page URL path → its author's given and family names
	names := [][2]string{{"Ada", "Lovelace"}, {"Grace", "Hopper"}, {"Alan", "Turing"}, {"Barbara", "Liskov"}}
	for i := range docs {
		if i%2 == 0 {
			docs[i].Published = fmt.Sprintf("2024-03-%02d", i+1)
		}
	}
	web, err := deepresearchtest.NewWebServer(docs...)
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	for i, d := range docs {
		path := "/pages/" + d.DocID
		if i%2 == 0 {
			want[path] = d.Published
			continue
		}
		// Undated in the search results: only the page says when.
		date := fmt.Sprintf("2023-%02d-15T09:30:00+02:00", i+1)
		want[path], pageDated[path] = date[:10], true
		authors[path] = names[i%len(names)]
		var b strings.Builder
		fmt.Fprintf(&b, `<!DOCTYPE html><html><head><title>%s</title><meta property="article:published_time" content="%s"><meta name="author" content="%s %s"></head><body><article><h1>%s</h1>`,
			html.EscapeString(d.Title), date, authors[path][0], authors[path][1], html.EscapeString(d.Title))
		for _, p := range strings.Split(d.Text, "\n\n") {
			if p = strings.TrimSpace(p); p != "" {
				b.WriteString("<p>" + html.EscapeString(p) + "</p>")
			}
		}
		b.WriteString("</article></body></html>")
		web.ServeAs(d.DocID, "text/html; charset=utf-8", []byte(b.String()))
	}
	// The model also names the sources it used in the seed's usage tag.
	usage := func(text string) string {
		if !markerRe.MatchString(text) {
			return text
		}
		return text + "\n\n[[USAGE:1,2,3]]\n"
	}
	r, _ := runOverWeb(t, web, index, deepresearchtest.OpenAIOptions{Rewrite: usage})
	var doc struct {
		References []struct {
			Number    int    `json:"number"`
			URL       string `json:"url"`
			Title     string `json:"title"`
			Published string `json:"published"`
			Author    string `json:"author"`
		} `json:"references"`
		SourcesUsed []struct {
			SID       int    `json:"sid"`
			Published string `json:"published"`
			Type      string `json:"type"`
		} `json:"sources_used"`
		UsageSIDs       []int    `json:"usage_sids"`
		SourceTypes     []string `json:"source_types"`
		CollectionsUsed []string `json:"collections_used"`
		Text            string   `json:"text"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	fetched := map[string]bool{}
	for _, u := range web.Fetched() {
		fetched[strings.TrimPrefix(u, web.URL)] = true
	}
	dated := map[string]string{}    // reference number → its day, for the other formats
	wrote := map[string][2]string{} // reference number → its author, for the other formats
	byPage, bySearch := 0, 0
	for i, ref := range doc.References {
		path := strings.TrimPrefix(ref.URL, web.URL)
		day := want[path]
		switch {
		case day == "":
			t.Errorf("reference %+v is no page of the web stand-in", ref)
			continue
		case pageDated[path] && !fetched[path]:
			// Read as a search snippet only: its page was never fetched, so
			// nothing dates it.
			if ref.Published != "" {
				t.Errorf("reference %+v: dated, though its page was never read", ref)
			}
			continue
		case !strings.HasPrefix(ref.Published, day):
			t.Errorf("reference %+v: published %q, want %s", ref, ref.Published, day)
			continue
		case pageDated[path]:
			byPage++
			a := authors[path]
			if ref.Author != a[0]+" "+a[1] {
				t.Errorf("reference %+v: author %q, want %s %s (its page's meta author)", ref, ref.Author, a[0], a[1])
			}
			wrote[fmt.Sprint(ref.Number)] = a
		default:
			bySearch++
		}
		dated[fmt.Sprint(ref.Number)] = day
		if i >= len(doc.SourcesUsed) || doc.SourcesUsed[i].Published != ref.Published || doc.SourcesUsed[i].Type != "web" || doc.SourceTypes[i] != "web" {
			t.Errorf("sources_used / source_types do not carry reference %d's date and kind: %+v %q", ref.Number, doc.SourcesUsed, doc.SourceTypes)
		}
	}
	if byPage == 0 || bySearch == 0 || len(wrote) == 0 {
		t.Fatalf("%d references dated by their page, %d by the search results; want some of each:\n%s", byPage, bySearch, r.stdout)
	}
	if len(doc.CollectionsUsed) != 1 || doc.CollectionsUsed[0] != "web_search" {
		t.Errorf("collections_used = %q, want [web_search]", doc.CollectionsUsed)
	}
	// The writer's usage tag is gone from the text and names sources used.
	if strings.Contains(doc.Text, "USAGE") || len(doc.UsageSIDs) == 0 {
		t.Errorf("usage_sids %v; text:\n%s", doc.UsageSIDs, doc.Text)
	}
	for _, sid := range doc.UsageSIDs {
		if sid < 1 || sid > len(doc.SourcesUsed) || doc.SourcesUsed[sid-1].SID != sid {
			t.Errorf("usage sid %d is no entry of sources_used %+v", sid, doc.SourcesUsed)
		}
	}

	// The same run, stored, in the other formats.
	runs := cli(t, "", "runs", "--json")
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(runs.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("runs: %v\n%s", err, runs.stdout)
	}
	show := func(format string) string {
		t.Helper()
		r := cli(t, "", "show", list[0].ID, "--format", format)
		if r.code != 0 {
			t.Fatalf("show --format %s: exit %d: %s", format, r.code, r.stderr)
		}
		return r.stdout
	}
	md := show("md")
	_, refs, _ := strings.Cut(md, "## References")
	for n, day := range dated {
		line := regexp.MustCompile(`(?m)^- \[` + n + `\] \[[^\n]*\]\(` + regexp.QuoteMeta(web.URL) + `/pages/[^)\s]+\)(?: — ([^(\n]+))? \((\S+)\)$`).FindStringSubmatch(refs)
		if line == nil || line[2] != day {
			t.Errorf("markdown reference [%s] is not linked and dated %s:\n%s", n, day, refs)
			continue
		}
		if a, ok := wrote[n]; ok && line[1] != a[0]+" "+a[1] || !ok && line[1] != "" {
			t.Errorf("markdown reference [%s] names %q as its author, want %q:\n%s", n, line[1], a, refs)
		}
	}
	var csl []struct {
		CitationNumber int `json:"citation-number"`
		Issued         struct {
			DateParts [][]int `json:"date-parts"`
		} `json:"issued"`
		Author []struct {
			Family string `json:"family"`
			Given  string `json:"given"`
		} `json:"author"`
	}
	if err := json.Unmarshal([]byte(show("csl-json")), &csl); err != nil {
		t.Fatal(err)
	}
	for _, it := range csl {
		if a, ok := wrote[fmt.Sprint(it.CitationNumber)]; ok && (len(it.Author) != 1 || it.Author[0].Given != a[0] || it.Author[0].Family != a[1]) {
			t.Errorf("CSL-JSON item %d: author %+v, want %q", it.CitationNumber, it.Author, a)
		}
		day, ok := dated[fmt.Sprint(it.CitationNumber)]
		if !ok {
			continue
		}
		if p := it.Issued.DateParts; len(p) != 1 || fmt.Sprintf("%04d-%02d-%02d", p[0][0], p[0][1], p[0][2]) != day {
			t.Errorf("CSL-JSON item %d issued %v, want %s", it.CitationNumber, p, day)
		}
	}
	bib := show("bibtex")
	for n, day := range dated {
		entry := regexp.MustCompile(`(?s)@misc\{[^@]*note = \{Reference \[` + n + `\]\},\n\}`).FindString(bib)
		if !strings.Contains(entry, "year = {"+day[:4]+"}") || !strings.Contains(entry, "date = {"+day+"}") {
			t.Errorf("BibTeX entry of reference [%s] lacks year and date %s:\n%s", n, day, entry)
		}
		if a, ok := wrote[n]; ok && !strings.Contains(entry, "author = {"+a[1]+", "+a[0]+"}") {
			t.Errorf("BibTeX entry of reference [%s] lacks its author %q:\n%s", n, a, entry)
		}
	}
	if y := show("yaml"); !strings.Contains(y, "\n_citations:\n") || !strings.Contains(y, "published: ") {
		t.Errorf("YAML report:\n%s", y)
	}
}

// runOverWeb runs `run --provider openai --search searxng --format json`
// on the question, the offline model answering through a local
// OpenAI-compatible server (with opts), the web stand-in searched and its
// pages fetched; the run must succeed. It returns the result and the
// model server, closed when the test ends.
func runOverWeb(t *testing.T, web *deepresearchtest.WebServer, index string, opts deepresearchtest.OpenAIOptions) (result, *deepresearchtest.OpenAIServer) {
	t.Helper()
	model := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}), opts)
	t.Cleanup(model.Close)
	t.Setenv("SEARXNG_URL", web.URL)
	host := strings.TrimPrefix(web.URL, "http://")
	r := cli(t, "", "run", "--provider", "openai", "--model", "extractive", "--base-url", model.URL+"/v1",
		"--search", "searxng", "--fetch-allow", host, "--index", index, "--progress", "never", "--format", "json", question)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	return r, model
}
