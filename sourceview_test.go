package deepresearch_test

import (
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/render"
)

// A reference cited at two pages of a PDF opens as its two pages' texts,
// each with the passages its own citations were checked against: the
// sentence page 4 alone holds is highlighted in page 4's text. The HTML
// fragment links its [n, p. 4] citations as citations, with verdicts.
func TestSourceView(t *testing.T) {
	rep := runOver(t, "What is the default weight value of a glob rule, and what is the maximum weight?")
	var ref render.Reference
	for _, r := range rep.References {
		if r.ID == "mime-spec.pdf" {
			ref = r
		}
	}
	if ref.Number == 0 {
		t.Fatalf("the report does not cite the PDF:\n%s", rep.Markdown())
	}
	if _, ok := rep.SourceView(99, nil); ok {
		t.Error("SourceView(99) found a reference the report lacks")
	}
	v, ok := rep.SourceView(ref.Number, nil)
	if !ok {
		t.Fatalf("SourceView(%d) found nothing", ref.Number)
	}
	const sentence = "The default weight value is 50, and the maximum is 100."
	var page4 *deepresearch.SourcePart
	for i, p := range v.Parts {
		for _, s := range p.Passages {
			if s.Start < 0 || s.End > len(p.Text) || s.Start >= s.End {
				t.Fatalf("part %q: span %+v is not in its text of %d bytes", p.Location, s, len(p.Text))
			}
		}
		if p.Location == "p. 4" {
			page4 = &v.Parts[i]
		}
	}
	if page4 == nil {
		t.Fatalf("no part for page 4: %+v", v.Parts)
	}
	var highlighted []string
	for _, s := range page4.Passages {
		highlighted = append(highlighted, page4.Text[s.Start:s.End])
	}
	if !strings.Contains(strings.Join(highlighted, "\n"), sentence) {
		t.Errorf("page 4's highlighted passages lack %q: %q", sentence, highlighted)
	}
	frag, err := rep.RenderHTMLFragment(render.HTMLOptions{Verdicts: true, SourceHref: func(n int) string { return "/s/" + itoa(n) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<sup class="cite" data-sids="` + itoa(ref.Number) + `" data-loc="p. 4" data-verdict="supported">`,
		`<a class="stored" href="/s/` + itoa(ref.Number) + `">stored text</a>`,
	} {
		if !strings.Contains(string(frag), want) {
			t.Errorf("the fragment lacks %s:\n%s", want, frag)
		}
	}
}
