package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/mdtext/mdcheck"
)

// TestExportLineFormat: citation_export's markdown is the seed's contract,
// "[1] RAG Survey 2026 — arxiv (https://arxiv.org/abs/2501.12345)", one
// line per source.
func TestExportLineFormat(t *testing.T) {
	cs := connect(t, Options{})
	var a createOut
	call(t, cs, "citation_create", map[string]any{}, &a)
	call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://arxiv.org/abs/2501.12345", "title": "RAG Survey 2026", "source": "arxiv"}, nil)
	call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://github.com/user/repo", "title": "rag-toolkit", "source": "github"}, nil)
	var ex exportOut
	call(t, cs, "citation_export", map[string]any{"index_id": a.IndexID}, &ex)
	want := "[1] RAG Survey 2026 — arxiv (https://arxiv.org/abs/2501.12345)\n[2] rag-toolkit — github (https://github.com/user/repo)\n"
	if ex.Markdown != want {
		t.Errorf("markdown:\n got %q\nwant %q", ex.Markdown, want)
	}
}

// TestExportEscapes (issue 18, #4): what a client adds cannot make the
// exported list link anywhere but to each source's URL: a title that
// closes a link and opens another, HTML, bare URLs in titles and
// channels.
func TestExportEscapes(t *testing.T) {
	cs := connect(t, Options{})
	var a createOut
	call(t, cs, "citation_create", map[string]any{}, &a)
	const u = "https://example.org/real"
	for i, title := range []string{`Real Title\](https://evil.example/phish)`, `<img src=x onerror=alert(1)>`, "see https://evil.example and www.evil.example"} {
		call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": fmt.Sprintf("%s/%d", u, i), "title": title, "source": "me@evil.example"}, nil)
	}
	var ex exportOut
	call(t, cs, "citation_export", map[string]any{"index_id": a.IndexID}, &ex)
	for i, line := range strings.Split(strings.TrimSuffix(ex.Markdown, "\n"), "\n") {
		if bad := mdcheck.Foreign(line, fmt.Sprintf("%s/%d", u, i)); len(bad) > 0 {
			t.Errorf("line %q: %q", line, bad)
		}
	}
}

// TestAddChecksURLs (issue 18, #4 and #10): citation_add takes only
// well-formed absolute http, https and file URLs of bounded length.
func TestAddChecksURLs(t *testing.T) {
	cs := connect(t, Options{})
	var a createOut
	call(t, cs, "citation_create", map[string]any{}, &a)
	for _, tc := range []struct{ name, url, want string }{
		{"a link injected after the URL", "https://a.example/x) [evil](javascript:alert(1)", "malformed URL"},
		{"a space", "https://a.example/a b", "malformed URL"},
		{"javascript", "javascript:alert(1)", "malformed URL"},
		{"ftp", "ftp://a.example/x", "malformed URL"},
		{"no host", "https:///x", "malformed URL"},
		{"relative", "/x/y", "malformed URL"},
		{"a control character", "https://a.example/\x00", "malformed URL"},
		{"too long", "https://a.example/" + strings.Repeat("a", 50_000), "at most 2048 bytes"},
	} {
		if got := toolError(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": tc.url}); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q does not say %q", tc.name, got, tc.want)
		}
	}
	for _, ok := range []string{"https://a.example/x?q=1&r=2#f", "http://a.example:8080/", "file:///home/me/notes.md", "https://a.example/%28x%29"} {
		call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": ok}, nil)
	}
}

// TestSectionsBounded (issue 18, #10): an entry records a bounded number
// of sections (a citation in one more is still numbered), and a title a
// bounded length.
func TestSectionsBounded(t *testing.T) {
	cs := connect(t, Options{MaxSections: 3})
	var a createOut
	call(t, cs, "citation_create", map[string]any{}, &a)
	for i := range 3 {
		call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://a.example/", "section": fmt.Sprint("s", i), "title": strings.Repeat("t", 10_000)}, nil)
	}
	for i := 3; i < 50; i++ {
		var out addOut
		call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://a.example/", "section": fmt.Sprint("s", i)}, &out)
		if out.CitationNumber != 1 {
			t.Fatalf("section %d: number %d", i, out.CitationNumber)
		}
	}
	var ex exportOut
	call(t, cs, "citation_export", map[string]any{"index_id": a.IndexID}, &ex)
	if e := ex.Entries[0]; len(e.Title) > maxTitle || e.FirstSeenSection != "s0" || fmt.Sprint(e.UsedInSections) != "[s0 s1 s2]" {
		t.Errorf("entry of a %d-byte title, sections %q then %v", len(e.Title), e.FirstSeenSection, e.UsedInSections)
	}
}
