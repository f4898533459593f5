package finalreport

import (
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/verify"
	"github.com/deepresearch/deepresearch/source"
)

// The served page's fragment: a pinpoint citation is a citation, each
// citation carries its verdict, and the reference list links to the
// stored text and says each reference's problems, all escaped.
func TestHTMLFragment(t *testing.T) {
	refs := []Reference{
		{Number: 1, Source: source.Source{ID: "mime-spec.pdf", URL: "file:///c/mime-spec.pdf", Title: "", Channel: "corpus"},
			Locations: []source.Location{{Kind: source.LocPage, Value: "4"}, {Kind: source.LocPage, Value: "7"}}},
		{Number: 2, Source: source.Source{ID: "w", URL: "https://example.org/<w>", Title: "Web <b>page</b>", Channel: "web", Author: "Ann <Roe>"}},
	}
	body := "# Globs\n\nThe default weight is 50 [1, p. 4]. Patterns [2].\n\nLines are ordered [1, p. 7]. Also [2].\n"
	v := &Verified{Problems: []verify.Problem{{Line: 5, Kind: verify.ProblemUnsupported, Number: 2, Message: "no <match>"}}}
	frag, err := HTMLFragment(&Report{Body: body, References: refs}, HTMLOptions{
		SourceHref: func(n int) string { return "/v1/research/r\"1/sources/" + string(rune('0'+n)) },
		Verified:   v,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<sup class="cite" data-sids="1" data-loc="p. 4" data-verdict="supported"><a href="#ref-1" title="mime-spec.pdf, pp. 4, 7 — verified: the source supports it">[1, p. 4]</a></sup>`,
		`<sup class="cite" data-sids="1" data-loc="p. 7" data-verdict="supported">`,
		`<sup class="cite" data-sids="2" data-verdict="supported"><a href="#ref-2" title="Web &lt;b&gt;page&lt;/b&gt; — verified: the source supports it">[2]</a></sup>.</p>`,
		`<sup class="cite" data-sids="2" data-verdict="unsupported"><a href="#ref-2" title="Web &lt;b&gt;page&lt;/b&gt; — verified: unsupported">[2]</a></sup>`,
		`<li id="ref-1" value="1"><a href="file:///c/mime-spec.pdf">mime-spec.pdf, pp. 4, 7</a> <span class="channel">corpus</span> <a class="stored" href="/v1/research/r&#34;1/sources/1">stored text</a> <span class="verdict supported">supported</span></li>`,
		`<a href="https://example.org/&lt;w&gt;">Web &lt;b&gt;page&lt;/b&gt;</a> — Ann &lt;Roe&gt; <span class="channel">web</span>`,
		`<li class="verdict unsupported">unsupported, line 5: no &lt;match&gt;</li>`,
	} {
		if !strings.Contains(frag, want) {
			t.Errorf("the fragment lacks %s:\n%s", want, frag)
		}
	}
	if strings.Contains(frag, "<html") || strings.Contains(frag, "<b>") {
		t.Errorf("the fragment is a page, or carries markup from its text:\n%s", frag)
	}
	// The standalone page is the fragment with no options, in a page.
	page, err := HTML("Globs", &Report{Body: body, References: refs})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := HTMLFragment(&Report{Body: body, References: refs}, HTMLOptions{})
	if !strings.Contains(page, plain) || strings.Contains(plain, "data-verdict") || strings.Contains(plain, "stored text") {
		t.Errorf("the standalone page is not the plain fragment:\n%s", page)
	}
}
