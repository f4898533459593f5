package finalreport

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
)

// Two pages of one PDF, merged as two citation targets, are published as
// one reference listing both pages; each marker says its page, in every
// rendering, and the reference is announced once.
func TestOneReferenceSeveralPages(t *testing.T) {
	page := func(n int, p string) collapse.Source {
		return collapse.Source{Number: n, Source: source.Source{ID: "spec.pdf", URL: "file:///c/spec.pdf", Title: "spec.pdf",
			Location: source.Location{Kind: source.LocPage, Value: p}}}
	}
	sources := []collapse.Source{
		page(1, "7"),
		{Number: 2, Source: source.Source{ID: "faq.md", URL: "file:///c/faq.md", Title: "faq.md"}},
		page(3, "4"),
	}
	draft := "Magic comes first [1]. Returns take a week [2].\n\nWeights go to 100 [3]. Both pages [1, 3].\n"
	var announced []int
	pub, err := newPublisher(sources, citeproc.Markdown, Hooks{Citation: func(n int, _ source.Source) { announced = append(announced, n) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range strings.SplitAfter(draft, "") { // byte by byte
		pub.write(c)
	}
	rep, err := pub.close()
	if err != nil {
		t.Fatal(err)
	}
	if want := "Magic comes first [1, p. 7]. Returns take a week [2].\n\nWeights go to 100 [1, p. 4]. Both pages [1, p. 7][1, p. 4].\n"; rep.Body != want {
		t.Errorf("Body %q\nwant %q", rep.Body, want)
	}
	if want := "Magic comes first [[1, p. 7]](file:///c/spec.pdf). Returns take a week [[2]](file:///c/faq.md).\n\nWeights go to 100 [[1, p. 4]](file:///c/spec.pdf). Both pages [[1, p. 7]](file:///c/spec.pdf)[[1, p. 4]](file:///c/spec.pdf).\n"; rep.Text != want {
		t.Errorf("Text %q\nwant %q", rep.Text, want)
	}
	if len(rep.References) != 2 || rep.References[0].Label() != "spec.pdf, pp. 4, 7" || rep.References[1].Label() != "faq.md" {
		t.Fatalf("references %+v", rep.References)
	}
	if got := References(rep.References, citeproc.Markdown); got != "- [1] [spec.pdf, pp. 4, 7](file:///c/spec.pdf)\n- [2] [faq.md](file:///c/faq.md)\n" {
		t.Errorf("reference list %q", got)
	}
	if len(announced) != 2 || announced[0] != 1 || announced[1] != 2 {
		t.Errorf("announced %v, want [1 2]", announced)
	}
	// Stored and reloaded, it renders the same; the JSON sidecar cites the
	// reference once per block.
	again, err := Publish(rep.Draft, rep.Sources, citeproc.Markdown)
	if err != nil || again.Body != rep.Body || again.References[0].Label() != "spec.pdf, pp. 4, 7" {
		t.Fatalf("republished: %+v %v", again, err)
	}
	doc, err := JSON("q", rep, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc.Citations)
	if string(b) != `[{"path":"/blocks/0","sids":[1,2]},{"path":"/blocks/1","sids":[1]}]` {
		t.Errorf("sidecar %s", b)
	}
	if b, _ := json.Marshal(rep.References[0]); !strings.Contains(string(b), `"locations":[{"kind":"page","value":"7"},{"kind":"page","value":"4"}]`) {
		t.Errorf("JSON reference %s", b)
	}
	html, err := HTML("q", rep)
	if err != nil || !strings.Contains(html, "spec.pdf, pp. 4, 7") || !strings.Contains(html, "[1, p. 4]") {
		t.Errorf("HTML: %v\n%s", err, html)
	}
}
