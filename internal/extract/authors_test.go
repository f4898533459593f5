package extract

import (
	"context"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

func TestPageAuthor(t *testing.T) {
	page := func(head string) string {
		return "<html><head>" + head + "</head><body><article><p>Text.</p></article></body></html>"
	}
	long := strings.Repeat("x", 300)
	for _, tc := range []struct {
		name, html, want string
	}{
		{"meta author", page(`<meta name="author" content="Jane  Doe">`), "Jane Doe"},
		{"JSON-LD before meta", page(`<meta name="author" content="Site Staff"><script type="application/ld+json">{"@type":"NewsArticle","author":{"@type":"Person","name":"John Roe"}}</script>`), "John Roe"},
		{"JSON-LD list", page(`<script type="application/ld+json">{"author":[{"name":"A. One"},"B. Two",{"url":"https://e.org/c"}]}</script>`), "A. One; B. Two"},
		{"JSON-LD graph", page(`<script type="application/ld+json">{"@graph":[{"@type":"WebSite","name":"S"},{"@type":"BlogPosting","author":"Ann Lee"}]}</script>`), "Ann Lee"},
		{"citation_author, one tag each", page(`<meta name="citation_author" content="Curie, Marie"><meta name="citation_author" content="Curie, Pierre">`), "Curie, Marie; Curie, Pierre"},
		{"a profile URL is no name", page(`<meta property="article:author" content="https://facebook.com/someone">`), ""},
		{"article:author as a name", page(`<meta property="article:author" content="Sam Poe">`), "Sam Poe"},
		{"control characters and a semicolon", page("<meta name=\"author\" content=\"Eve\x1b[31m; Mallory\">"), "Eve[31m, Mallory"},
		{"bounded", page(`<meta name="author" content="` + long + `">`), strings.Repeat("x", 100)},
		{"none", page(`<meta name="description" content="d">`), ""},
		{"broken JSON-LD", page(`<script type="application/ld+json">{"author":</script><meta name="author" content="Fallback Name">`), "Fallback Name"},
	} {
		doc, err := xhtml.Parse(strings.NewReader(tc.html))
		if err != nil {
			t.Fatal(err)
		}
		if got := PageAuthor(doc); got != tc.want {
			t.Errorf("%s: PageAuthor = %q, want %q", tc.name, got, tc.want)
		}
	}
	a, err := ReadableArticle([]byte(strings.Replace(readableArticle, "<title>", `<meta name="author" content="Cable Writer"><title>`, 1)), "https://example.com/cables")
	if err != nil || a.Author != "Cable Writer" {
		t.Errorf("ReadableArticle: author %q, %v", a.Author, err)
	}
}

// A DOCX's core properties name its author (dc:creator).
func TestDOCXAuthor(t *testing.T) {
	docx := zipOf(t, map[string]string{
		"word/document.xml": `<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Cable repair takes a week.</w:t></w:r></w:p></w:body></w:document>`,
		"docProps/core.xml": `<cp:coreProperties xmlns:cp="cp" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Repairs</dc:title><dc:creator>Ada Lovelace; Charles Babbage</dc:creator></cp:coreProperties>`,
	})
	doc, err := ExtractBytes(context.Background(), "repairs.docx", docx, FormatDOCX, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Author != "Ada Lovelace; Charles Babbage" || doc.Title != "Repairs" {
		t.Errorf("author %q, title %q", doc.Author, doc.Title)
	}
}
