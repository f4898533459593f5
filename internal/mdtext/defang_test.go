package mdtext_test

import (
	stdhtml "html"
	"regexp"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/mdtext"
	"github.com/deepresearch/deepresearch/internal/mdtext/mdcheck"
)

// hostileMarkdown is what a model's text may carry from a passage it
// quotes, from a page or from the question (issue 29).
var hostileMarkdown = []string{
	"Click [here](javascript:alert(1)) now.",
	"[x](JaVaScRiPt:alert(1)) and [y](&#106;avascript:alert(1)) and [z](java\\script:x)",
	"![pic](javascript:alert(1))",
	"[ref]\n\n[ref]: javascript:alert(1)",
	"<javascript:alert(1)> and <data:text/html,<b>x</b>>",
	"A <img src=x onerror=alert(1)> tag, <!-- a comment -->, <b>bold</b>.",
	"<script>alert(1)</script>\n\ntext",
	"<div>\n<a href=\"javascript:alert(1)\">a</a>\n</div>",
	"[[nested](javascript:a)](javascript:b)",
	"| a | b |\n|---|---|\n| <i>x</i> | [y](vbscript:z) |",
	"<a <b <c <d <e <f <g <h <i <j <k>>>>>>>>>>",
	"> quoted <span>x</span> [q](data:text/html;base64,PHNjcmlwdD4=)",
	"- item [l](file:) <em>x</em>",
	"[^1] footnote\n\n[^1]: <script>x</script> [f](javascript:x)",
	`A <sup class="cite" data-sids="1"><a href="javascript:alert(1)" title="t">[1]</a></sup> and <a href="https://x.example/" onclick="x()">y</a>`,
}

func TestDefang(t *testing.T) {
	for _, md := range hostileMarkdown {
		got := mdtext.Defang(md)
		links, html := mdcheck.Links(got)
		if html = foreignHTML(html); len(html) > 0 {
			t.Errorf("Defang(%q) = %q: raw HTML %q", md, got, html)
		}
		for _, l := range links {
			if !followable(l) {
				t.Errorf("Defang(%q) = %q: a link to %q", md, got, l)
			}
		}
		if again := mdtext.Defang(got); again != got {
			t.Errorf("Defang is not idempotent on %q: %q, then %q", md, got, again)
		}
	}
	// What is safe stays byte for byte.
	for _, md := range []string{
		"# Title\n\nCables [1] were laid [2, 3]. See [the spec](https://example.org/spec) and <https://go.dev/>.",
		"Code: `vector<int> v; [a](javascript:x)` and\n\n```html\n<script>alert(1)</script>\n```\n",
		"    <b>indented code</b>\n",
		"a < b and c > d; 1 <2; [not a link]; x<-ch",
		"Email <someone@example.org>, www.example.org, https://example.org/x, [t](#ref-1), [doi](doi:10.1000/x)",
		"[^1]: [Title](https://example.org/) (2024-03-15)",
		`Rose <sup class="cite" data-sids="2,1"><a href="https://example.org/three?b=2&amp;a=1" title="Three &amp; &lt;Co&gt;">[2]</a>,<a href="https://example.org/seven" title="Seven">[1]</a></sup>, <sup class="cite" data-sids="5">[5]</sup>.`,
	} {
		if got := mdtext.Defang(md); got != md {
			t.Errorf("Defang(%q) = %q; want it unchanged", md, got)
		}
	}
}

// FuzzDefang: whatever the text, Defang leaves no raw HTML and no link a
// reader should not follow, and a second pass changes nothing.
func FuzzDefang(f *testing.F) {
	for _, md := range hostileMarkdown {
		f.Add(md)
	}
	f.Fuzz(func(t *testing.T, md string) {
		got := mdtext.Defang(md)
		links, html := mdcheck.Links(got)
		if html = foreignHTML(html); len(html) > 0 {
			t.Errorf("Defang(%q) = %q: raw HTML %q", md, got, html)
		}
		for _, l := range links {
			if !followable(l) {
				t.Errorf("Defang(%q) = %q: a link to %q", md, got, l)
			}
		}
		if again := mdtext.Defang(got); again != got {
			t.Errorf("Defang is not idempotent on %q: %q, then %q", md, got, again)
		}
	})
}

// followable is what Defang lets a reader follow: a link canon.Link
// allows, a fragment, an e-mail address.
func followable(l string) bool {
	return strings.HasPrefix(l, "#") || strings.HasPrefix(l, "mailto:") || canon.Link(l) != ""
}

// foreignHTML is the raw HTML of html but the tags of a citation in the
// HTML style, to a URL a reader may follow.
func foreignHTML(html []string) []string {
	var out []string
	for _, h := range html {
		if h == "</a>" || h == "</sup>" || regexp.MustCompile(`^<sup class="cite" data-sids="[0-9,]*">$`).MatchString(h) {
			continue
		}
		if m := regexp.MustCompile(`^<a href="([^"<>]*)"(?: title="[^"<>]*")?>$`).FindStringSubmatch(h); m != nil && followable(stdhtml.UnescapeString(m[1])) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// BenchmarkDefang: a 150 KB report of paragraphs with citations, links
// and code, nothing to neutralise (the usual case), and the same with a
// raw HTML tag and a javascript: link in every paragraph.
func BenchmarkDefang(b *testing.B) {
	para := "Cables were laid by ships [1] and repaired at sea [2, 3]; see [the manual](https://example.org/manual) " +
		"and `vector<int>` in code. Faults are located by time-domain reflectometry [4].\n\n"
	hostile := "A <img src=x onerror=alert(1)> tag and [a link](javascript:alert(1)) in a quoted passage.\n\n"
	for _, bc := range []struct{ name, text string }{
		{"clean", strings.Repeat(para, 150<<10/len(para))},
		{"hostile", strings.Repeat(para+hostile, 150<<10/len(para+hostile))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				mdtext.Defang(bc.text)
			}
		})
	}
}
