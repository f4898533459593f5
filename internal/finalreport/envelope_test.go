package finalreport

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/source"
)

// envelopeReport is a published report over fixtureSources citing 7
// (web, published), 6 (local) and 3 (web, modified), whose usage tags
// name 7 (cited), 5 and 8 (not cited) and 42 (no source).
func envelopeReport(t *testing.T) (*Report, Extra) {
	t.Helper()
	sources := append(fixtureSources(), collapse.Source{Number: 9,
		Source: source.Source{ID: "ops/faults.md", URL: "file:///srv/c/ops/faults.md", Title: "Faults", Channel: "corpus"}})
	draft := "# Cables\n\nPrices rose [7]. The notes agree [6][3].\n\nFaults are logged [9].\n\n[[USAGE:7,5,42,8]]\n"
	rep, err := Publish(draft, sources, citeproc.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("Repeaters amplify the signal every seventy kilometres. ", 12)
	rel := source.Relevance{Objective: 0.8, Reasoning: "matches question terms cable, repair",
		Queries: []source.QueryScore{{QID: "1", Query: "cable repair", Score: 1}, {QID: "2", Query: "cable ships", Score: 0.5}}}
	return rep, Extra{Texts: map[int]string{7: long, 6: "Field\x1b[31m notes\n\nsay so.", 5: "Draft five."},
		Relevance: map[int]source.Relevance{7: rel}, Rounds: 2, Validated: ValidatedPassed}
}

func TestEnvelope(t *testing.T) {
	rep, x := envelopeReport(t)
	doc, err := JSON("Q", rep, x)
	if err != nil {
		t.Fatal(err)
	}
	type short struct {
		SID   int
		URL   string
		Type  string
		Cited bool
		Date  string
	}
	var got []short
	for _, u := range doc.SourcesUsed {
		got = append(got, short{u.SID, u.URL, u.Type, u.Cited, u.Published + "|" + u.Modified})
	}
	want := []short{
		{1, "https://example.org/seven", "web", true, "2024-03-15|"},
		{2, "", "local", true, "|2026-11-20T08:00:00Z"},
		{3, "https://example.org/three?b=2&a=1", "web", true, "|2024-05-01T08:00:00Z"},
		{4, "file:///srv/c/ops/faults.md", "local", true, "|"},
		{5, "https://example.org/five", "web", false, "|"}, // named only by the usage tag, numbered after the references
		{6, "https://example.org/eight", "web", false, "|"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sources_used:\n got %+v\nwant %+v", got, want)
	}
	if want := []int{1, 5, 6}; !reflect.DeepEqual(doc.UsageSIDs, want) {
		t.Errorf("usage_sids = %v, want %v (42 is no source)", doc.UsageSIDs, want)
	}
	if u := doc.SourcesUsed[0]; len(u.Text) > excerptMax || !strings.HasPrefix(u.Text, "Repeaters amplify") || !strings.HasSuffix(u.Text, "…") || u.Title != "Seven" {
		t.Errorf("a long text's excerpt: %+v", u)
	}
	if u := doc.SourcesUsed[0]; u.Relevance == nil || u.Objective != 0.8 || len(u.Queries) != 2 || doc.SourcesUsed[1].Relevance != nil {
		t.Errorf("relevance: %+v, %+v", u.Relevance, doc.SourcesUsed[1].Relevance)
	}
	if u := doc.SourcesUsed[1]; u.Text != "Field[31m notes say so." || u.Title != "Six" {
		t.Errorf("a local source's entry: %+v", u)
	}
	if u := doc.SourcesUsed[4]; u.Text != "Draft five." {
		t.Errorf("a used, uncited source's excerpt: %+v", u)
	}
	if want := []string{"web_search", "corpus", "ops"}; !reflect.DeepEqual(doc.CollectionsUsed, want) {
		t.Errorf("collections_used = %q, want %q", doc.CollectionsUsed, want)
	}
	if want := []string{"web", "local", "web", "local"}; !reflect.DeepEqual(doc.SourceTypes, want) {
		t.Errorf("source_types = %q, want %q", doc.SourceTypes, want)
	}
	if want := []string{"https://example.org/seven", "corpus/six.md", "https://example.org/three?b=2&a=1", "ops/faults.md"}; !reflect.DeepEqual(doc.Sources, want) {
		t.Errorf("sources = %q, want %q", doc.Sources, want)
	}
	if want := []string{"[Seven](https://example.org/seven)", "corpus/six.md — Six", "[Three & &lt;Co&gt;](https://example.org/three?b=2&a=1)", "ops/faults.md — Faults"}; !reflect.DeepEqual(doc.FormattedCitations, want) || doc.CitationFormat != render.CitationMixed {
		t.Errorf("formatted_citations = %q, citation_format %q; want %q, mixed", doc.FormattedCitations, doc.CitationFormat, want)
	}
	if want := (Stats{Rounds: 2, Bytes: len(rep.Body), Citations: "present", Validated: "passed"}); doc.Stats != want {
		t.Errorf("stats = %+v, want %+v", doc.Stats, want)
	}
	if strings.Contains(doc.Text, "USAGE") {
		t.Errorf("the usage tag is left in the text: %q", doc.Text)
	}
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "envelope.json", string(raw)+"\n")
}

// TestYAML: the YAML document decodes to exactly what the JSON document
// decodes to, so its sidecar's JSON Pointers hold; it is block YAML with
// multi-line text as literal blocks.
func TestYAML(t *testing.T) {
	rep, x := envelopeReport(t)
	doc, err := JSON("Q: \"yes\" or no? #1", rep, x)
	if err != nil {
		t.Fatal(err)
	}
	y, err := YAML(doc)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "envelope.yaml", string(y))
	raw := sameAsJSON(t, doc, y)
	checkSidecar(t, raw)
	for _, want := range []string{"\ntext: |", "\n_citations:\n  - path: /blocks/1\n", "\n    published: \"2024-03-15\"\n", "\nusage_sids:\n  - 1\n"} {
		if !strings.Contains(string(y), want) {
			t.Errorf("YAML lacks %q:\n%s", want, y)
		}
	}
}

// sameAsJSON checks that the YAML y decodes to what doc's JSON decodes
// to, and returns that as JSON.
func sameAsJSON(t *testing.T, doc *Document, y []byte) []byte {
	t.Helper()
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML any
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(y, &v); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, y)
	}
	back, err := json.Marshal(v) // YAML's ints and JSON's numbers meet as JSON numbers
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(back, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, fromYAML) {
		t.Fatalf("YAML decodes to\n%s\nJSON to\n%s", back, js)
	}
	return back
}

// FuzzYAML: whatever the text of a report and its sources' titles (YAML
// keywords, numbers, dates, comments, indicators, control characters,
// line separators, trailing spaces), the YAML document decodes to what
// the JSON document does.
func FuzzYAML(f *testing.F) {
	for _, s := range []string{"yes", "- a: b", "  lead\n\ntrail  \n", "#x [1]", "2024-03-15", "null", "~", "0x1F", "1e3", "'q' \"q\"",
		"line\u2028sep\u0085nel", "tab\there", "\x00\x1b[31m", "key: value\n- item", "|\n  literal", "\r\nwin\r", "…é€😀", "%YAML 1.2\n---\n...", "!!str x", "&a *a", "\ufeffbom\u007fdel\u0080c1\ufffe", "a: b\u0085- c"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, text, title string) {
		src := collapse.Source{Number: 1, Source: source.Source{ID: "w1", URL: "https://example.org/" + title, Title: title, Channel: "web", Published: "2024-03-15"}}
		rep, err := Publish(text+" [1]\n\n"+title+"\n", []collapse.Source{src}, citeproc.Markdown)
		if err != nil {
			t.Skip()
		}
		doc, err := JSON(text, rep, Extra{Texts: map[int]string{1: text}})
		if err != nil {
			t.Fatal(err)
		}
		y, err := YAML(doc)
		if err != nil {
			t.Fatal(err)
		}
		sameAsJSON(t, doc, y)
	})
}

// TestSeed003Examples: seed 003's three examples of its citation output —
// knowledge-base records only, web pages only, and both — with a second
// row of the catalog, which is the same reference (one file, two rows).
func TestSeed003Examples(t *testing.T) {
	catalog := source.Source{ID: "chroma:catalog/techmart_catalog.csv", Title: "chroma:catalog/techmart_catalog.csv", Channel: "chroma",
		Location: source.Location{Kind: source.LocRow, Value: "2"}}
	catalog2 := catalog
	catalog2.Location.Value = "5"
	faq := source.Source{ID: "chroma:faq/techmart_faq.csv", Title: "chroma:faq/techmart_faq.csv", Channel: "chroma",
		Location: source.Location{Kind: source.LocRow, Value: "3"}}
	web := func(u, title string) source.Source { return source.Source{ID: u, URL: u, Title: title, Channel: "web"} }
	type want struct {
		sources, collections, types []string
		format                      string
		formatted                   []string
	}
	for _, tc := range []struct {
		name string
		srcs []source.Source
		want want
	}{
		{"knowledge base", []source.Source{catalog, faq, catalog2}, want{
			[]string{"techmart_catalog.csv", "techmart_faq.csv"}, []string{"catalog", "faq"}, []string{"chromadb", "chromadb"},
			"internal_kb", []string{"Product Catalog", "FAQ"}}},
		{"web", []source.Source{web("https://techradar.com/best-laptops", "Best Gaming Laptops 2024"), web("https://pcmag.com/laptop-review", "Gaming Laptop Reviews")}, want{
			[]string{"https://techradar.com/best-laptops", "https://pcmag.com/laptop-review"}, []string{"web_search"}, []string{"web", "web"},
			"web_urls", []string{"[Best Gaming Laptops 2024](https://techradar.com/best-laptops)", "[Gaming Laptop Reviews](https://pcmag.com/laptop-review)"}}},
		{"mixed", []source.Source{catalog, web("https://example.com/article", "External Review")}, want{
			[]string{"techmart_catalog.csv", "https://example.com/article"}, []string{"catalog", "web_search"}, []string{"chromadb", "web"},
			"mixed", []string{"Product Catalog", "[External Review](https://example.com/article)"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var merged []collapse.Source
			var draft strings.Builder
			for i, s := range tc.srcs {
				merged = append(merged, collapse.Source{Number: i + 1, Source: s})
				fmt.Fprintf(&draft, "Claim %d [%d].\n\n", i+1, i+1)
			}
			rep, err := Publish(draft.String(), merged, citeproc.Markdown)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := JSON("Q", rep, Extra{})
			if err != nil {
				t.Fatal(err)
			}
			got := want{doc.Sources, doc.CollectionsUsed, doc.SourceTypes, doc.CitationFormat, doc.FormattedCitations}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			y, err := YAML(doc)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(y), "citation_format: "+tc.want.format+"\n") {
				t.Errorf("YAML has no citation_format %s:\n%s", tc.want.format, y)
			}
		})
	}
}
