package render

import (
	"testing"

	"github.com/deepresearch/deepresearch/internal/mdtext/mdcheck"
	"github.com/deepresearch/deepresearch/source"
)

// markdownForms are the reference line forms that are markdown.
var markdownForms = []struct {
	name string
	form listForm
}{{"markdown", listMarkdown}, {"plain", listPlain}, {"footnote", listFootnote}, {"index", listIndex}}

// renderList renders one reference of title, URL and channel (its author
// too) in form, as a document a reader's renderer sees (a footnote needs
// its reference).
func renderlist(form listForm, title, u, channel string) string {
	md := list([]Reference{{Number: 1, Source: source.Source{ID: "s1", URL: u, Title: title, Channel: channel, Author: channel}}}, form)
	if form == listFootnote {
		md = "Claim.[^1]\n\n" + md
	}
	return md
}

// TestReferenceTitleCannotLink (issue 18, #3 and #4): a source's title,
// channel or URL cannot make a reference line link anywhere but to the
// source's URL, nor carry HTML, in any markdown form.
func TestReferenceTitleCannotLink(t *testing.T) {
	for _, tc := range []struct{ name, title, url string }{
		{"title closes the link", `Real Title\](https://evil.example/phish)`, "https://example.org/real"},
		{"title with a link", `[Real](https://evil.example/phish)`, "https://example.org/real"},
		{"HTML in the title", `<img src=x onerror=alert(1)>`, "https://example.org/real"},
		{"a bare URL in the title", "mirror at https://evil.example/x", "https://example.org/real"},
		{"an address in the title", "write to phish@evil.example", "https://example.org/real"},
		{"a URL that ends its link", "Title", "https://a.example/x) [evil](javascript:alert(1)"},
		{"a URL with a trailing backslash", "Title", `https://a.example/x\`},
		{"a javascript URL", "Title", "javascript:alert(1)"},
	} {
		for _, f := range markdownForms {
			md := renderlist(f.form, tc.title, tc.url, tc.title)
			if bad := mdcheck.Foreign(md, tc.url); len(bad) > 0 {
				t.Errorf("%s, %s form: %q in\n%s", tc.name, f.name, bad, md)
			}
		}
	}
}

// TestAuthorLine: a reference line names the source's authors between its
// title and its date, escaped in every form; the index's export, a
// contract of its own, does not.
func TestAuthorLine(t *testing.T) {
	ref := []Reference{{Number: 1, Source: source.Source{ID: "w", URL: "https://e.org/a", Title: "Cables", Published: "2024-03-15",
		Author: "Jane Doe; <b>[Mallory](https://evil.example)</b>"}}}
	for form, want := range map[listForm]string{
		listMarkdown: "- [1] [Cables](https://e.org/a) — Jane Doe, &lt;b&gt;\\[Mallory\\](https\\://evil.example)&lt;/b&gt; (2024-03-15)\n",
		listHTML:     `<p id="ref-1">[1] <a href="https://e.org/a">Cables</a> — Jane Doe, &lt;b&gt;[Mallory](https://evil.example)&lt;/b&gt; (2024-03-15)</p>` + "\n",
		listIndex:    "[1] Cables (2024-03-15) (https://e.org/a)\n",
	} {
		if got := list(ref, form); got != want {
			t.Errorf("form %d:\n got %q\nwant %q", form, got, want)
		}
	}
}

// TestIndexForm: the citation index's export keeps the line format of its
// contract, "[1] Title — channel (URL)".
func TestIndexForm(t *testing.T) {
	refs := []Reference{
		{Number: 1, Source: source.Source{ID: "a", URL: "https://arxiv.org/abs/2501.12345", Title: "RAG Survey 2026", Channel: "arxiv"}},
		{Number: 2, Source: source.Source{ID: "b", URL: "https://github.com/user/repo", Title: "rag-toolkit", Channel: "github"}},
		{Number: 3, Source: source.Source{ID: "c", URL: "https://example.org/x", Title: "No channel"}},
		{Number: 4, Source: source.Source{ID: "d", URL: "https://a.example/x) [evil](javascript:alert(1)", Title: "[evil](https://evil.example)", Channel: "web"}},
	}
	want := "[1] RAG Survey 2026 — arxiv (https://arxiv.org/abs/2501.12345)\n" +
		"[2] rag-toolkit — github (https://github.com/user/repo)\n" +
		"[3] No channel (https://example.org/x)\n" +
		"[4] \\[evil\\](https\\://evil.example) — web (https://a.example/x%29%20%5Bevil%5D%28javascript:alert%281%29)\n"
	if got := list(refs, listIndex); got != want {
		t.Errorf("list(listIndex):\n got %q\nwant %q", got, want)
	}
}

// FuzzReferenceLinks: no title, URL or channel makes a reference line, in
// any markdown form, link anywhere but to the source's URL or carry HTML.
func FuzzReferenceLinks(f *testing.F) {
	f.Add(`Real Title\](https://evil.example/phish)`, "https://a.example/x) [evil](javascript:alert(1)", "arxiv")
	f.Add("<img src=x onerror=alert(1)>", "https://example.org/", "www.evil.example")
	f.Add("t", "https://0.A0", "me@evil.example")
	f.Fuzz(func(t *testing.T, title, u, channel string) {
		for _, form := range markdownForms {
			md := renderlist(form.form, title, u, channel)
			if bad := mdcheck.Foreign(md, u); len(bad) > 0 {
				t.Errorf("%s form: title %q, URL %q, channel %q: %q in\n%s", form.name, title, u, channel, bad, md)
			}
		}
	})
}
