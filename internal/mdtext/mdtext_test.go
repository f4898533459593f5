package mdtext_test

import (
	"testing"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/mdtext"
	"github.com/deepresearch/deepresearch/internal/mdtext/mdcheck"
)

// forms are the shapes the renderers write a title and a URL in.
var forms = []struct {
	name   string
	render func(title, u string) string
}{
	{"markdown list", func(title, u string) string { return "- [1] " + mdtext.Link(title, u) + "\n" }},
	{"footnote", func(title, u string) string { return "Text.[^1]\n\n[^1]: " + mdtext.Link(title, u) + "\n" }},
	{"plain", func(title, u string) string { return "[1] " + mdtext.Escape(title) + ". " + mdtext.URLText(u) + "  \n" }},
	{"index", func(title, u string) string {
		return "[1] " + mdtext.Escape(title) + " — " + mdtext.Escape(title) + " (" + mdtext.URLText(u) + ")\n"
	}},
	{"citation", func(_, u string) string { // as internal/citeproc links a marker
		if !canon.Linkable(u) {
			return "Claim [1] and more.\n"
		}
		return "Claim [[1]](" + mdtext.Destination(u) + ") and more.\n"
	}},
}

// checkLinks fails when md (rendered from title and u) holds raw HTML or a
// link whose destination is not u: the escaper's promise.
func checkLinks(t *testing.T, form, title, u, md string) {
	t.Helper()
	if bad := mdcheck.Foreign(md, u); len(bad) > 0 {
		t.Errorf("%s: title %q, URL %q (linkable %v): %q in\n%s", form, title, u, canon.Linkable(u), bad, md)
	}
}

// TestTitleCannotLink: the attacks of issue 18 and their kin, in every
// form: a title cannot close the link and open another, nor carry HTML, an
// autolink or a bare URL; a URL cannot end its link early.
func TestTitleCannotLink(t *testing.T) {
	titles := []string{
		`Real Title\](https://evil.example/phish)`,
		`Real Title](https://evil.example/phish)`,
		`Real Title\\](https://evil.example/phish)`,
		`<img src=x onerror=alert(1)>`,
		`<a href="https://evil.example">x</a>`,
		"see https://evil.example/x and www.evil.example",
		"mail me@evil.example",
		"<https://evil.example>",
		"`code](https://evil.example)`",
		"![img](https://evil.example/i.png)",
		"[x][evil]\n\n[evil]: https://evil.example",
		"&lt;script&gt; &#91;x&#93;(https://evil.example)",
		"line\nbreak [x](https://evil.example)",
		"Go | The Go Programming Language",
	}
	urls := []string{
		"https://example.org/page",
		"https://a.example/x) [evil](javascript:alert(1)",
		"https://a.example/x\\",
		"https://a.example/a b(c)<d>",
		"https://A.Example.COM/Path?q=1&b=2",
		"https://a.example/&amp;x",
		"javascript:alert(1)",
		"ftp://evil.example/x",
		"http://[::1]:8080/x",
		"https://de.wikipedia.org/wiki/Müller_(Name)",
		"",
	}
	for _, f := range forms {
		for _, title := range titles {
			for _, u := range urls {
				checkLinks(t, f.name, title, u, f.render(title, u))
			}
		}
	}
}

// TestEscapeShowsText: escaped text renders as the text itself.
func TestEscapeShowsText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`Real Title\](https://evil.example/phish)`, `Real Title\\\](https\://evil.example/phish)`},
		{"Five [draft] & <more>", `Five \[draft\] & &lt;more&gt;`},
		{"AT&T &amp; co", `AT&T \&amp; co`},
		{"see http://x.example", `see http\://x.example`},
		{"WWW.example.org", `WWW\.example.org`},
		{"a_b*c`d~e@f", "a\\_b\\*c\\`d\\~e\\@f"},
		{"two\nlines", "two lines"},
	} {
		if got := mdtext.Escape(tc.in); got != tc.want {
			t.Errorf("mdtext.Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"https://example.org/a", "https://example.org/a"},
		{"https://a.example/x) [evil](javascript:alert(1)", "https://a.example/x%29%20%5Bevil%5D%28javascript:alert%281%29"},
		{"HTTPS://User:PW@A.Example/P?q=1&r=2", "<https://User:PW@a.example/P?q=1&r=2>"},
		{"http://[::1]:8080/[x]", "<http://[::1]:8080/%5Bx%5D>"},
		{"https://go.dev/doc/", "https://go.dev/doc/"},
		{"https://example.org/x.", "<https://example.org/x.>"},
		{"javascript:alert(1)", "javascript:alert(1)"},
		{"https://a.s://a.ex`b", "<https://a.s://a.ex%60b>"},
	} {
		if got := mdtext.URLText(tc.in); got != tc.want {
			t.Errorf("URLText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzNoForeignLink: no title and no URL make a link whose destination is
// not the source's URL (nor raw HTML), in any form a renderer writes.
func FuzzNoForeignLink(f *testing.F) {
	f.Add(`Real Title\](https://evil.example/phish)`, "https://a.example/x) [evil](javascript:alert(1)")
	f.Add("<img src=x onerror=alert(1)>", "https://example.org/")
	f.Add("www.evil.example", "http://[::1]/")
	f.Add("`a](https://evil.example)`", "https://a.example/`b")
	f.Fuzz(func(t *testing.T, title, u string) {
		for _, form := range forms {
			checkLinks(t, form.name, title, u, form.render(title, u))
		}
	})
}
