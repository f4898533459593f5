package docx

import (
	"bytes"
	"strings"
	"testing"
)

// parts unzips a document, checking that every part is well-formed XML
// (docx.Parts).
func parts(t *testing.T, b []byte) map[string]string {
	t.Helper()
	p, err := Parts(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\x00b\x01c\x1fd", "abcd"},
		{"tab\tline\nfeed", "tab\tline\nfeed"},
		{"cr\r\nlf\rcr", "cr\nlf\ncr"},
		{"del\x7f c1\u0085\u009b", "del c1"},
		{"nonchars \ufffe\uffff", "nonchars "},
		{"bad \xff utf8", "bad \ufffd utf8"},
		{"中文 مرحبا 😀", "中文 مرحبا 😀"},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBookmarkName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ref_12", "ref_12"},
		{"ref-1", "ref_1"},
		{"1st", "b1st"},
		{"", "b"},
		{"a\"><x", "a___x"},
		{strings.Repeat("x", 50), strings.Repeat("x", 40)},
		{"日本", "b__"},
	} {
		if got := BookmarkName(tc.in); got != tc.want {
			t.Errorf("BookmarkName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Only absolute http and https URLs become relationships; every other
// link is its text alone.
func TestExternalLinks(t *testing.T) {
	d := New("links")
	for _, link := range []string{"https://example.org/a b", "http://example.org/x?q=1&r=2", "javascript:alert(1)", "file:///etc/passwd",
		"/relative", "data:text/html,<script>", "https://user:pw@example.org/", "https://example.org/\x00", "mailto:a@example.org"} {
		d.Add(Paragraph{Runs: []Run{{Text: "link " + link, Link: link}}})
	}
	p := parts(t, mustBytes(t, d))
	rels := p["word/_rels/document.xml.rels"]
	if n := strings.Count(rels, `TargetMode="External"`); n != 2 {
		t.Errorf("%d external relationships, want 2:\n%s", n, rels)
	}
	for _, want := range []string{`Target="https://example.org/a%20b"`, `Target="http://example.org/x?q=1&amp;r=2"`} {
		if !strings.Contains(rels, want) {
			t.Errorf("relationships lack %s:\n%s", want, rels)
		}
	}
	for _, bad := range []string{"javascript", "file:", "data:", "mailto", "user:pw"} {
		if strings.Contains(rels, bad) {
			t.Errorf("relationships hold %s:\n%s", bad, rels)
		}
	}
	if n := strings.Count(p["word/document.xml"], "<w:hyperlink"); n != 2 {
		t.Errorf("%d hyperlinks, want 2", n)
	}
	if !strings.Contains(p["word/document.xml"], "link javascript:alert(1)") {
		t.Errorf("an unlinkable link's text is lost")
	}
}

func TestDocument(t *testing.T) {
	d := New("T \x01<&>")
	d.Add(Paragraph{Style: Title, Runs: []Run{{Text: "T"}}})
	d.Add(Paragraph{Style: Heading(1), Runs: []Run{{Text: "H"}}})
	d.Add(Paragraph{Runs: []Run{{Text: "see "}, {Text: "[1]", Anchor: "ref_1"}, {Text: " and "}, {Text: "x", Bold: true}, {Text: "y", Bold: true}, {Text: "a\tb\nc"}}})
	list := d.List(true, 3)
	d.Add(Paragraph{Style: List, List: list, Runs: []Run{{Text: "item"}}})
	d.Add(Paragraph{Bookmark: "ref_1", Runs: []Run{{Text: "[1] Source"}}})
	d.AddTable(Table{Header: true, Rows: [][][]Run{{{{Text: "h1"}}, {{Text: "h2"}}}, {{{Text: "only"}}}}})
	d.Add(Paragraph{Runs: []Run{{Text: "مرحبا"}}})
	b := mustBytes(t, d)
	if again := mustBytes(t, d); !bytes.Equal(b, again) {
		t.Errorf("two writes of one document differ")
	}
	p := parts(t, b)
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "word/document.xml", "word/styles.xml", "word/numbering.xml", "word/_rels/document.xml.rels", "docProps/core.xml"} {
		if _, ok := p[name]; !ok {
			t.Errorf("no part %s", name)
		}
	}
	doc := p["word/document.xml"]
	for _, want := range []string{
		`<w:pStyle w:val="Title"/>`, `<w:pStyle w:val="Heading1"/>`,
		`<w:hyperlink w:anchor="ref_1" w:history="1"><w:r><w:rPr><w:rStyle w:val="Hyperlink"/></w:rPr><w:t xml:space="preserve">[1]</w:t></w:r></w:hyperlink>`,
		`<w:bookmarkStart w:id="0" w:name="ref_1"/>`, `<w:bookmarkEnd w:id="0"/>`,
		`<w:rPr><w:b/></w:rPr><w:t xml:space="preserve">xy</w:t>`, // neighbouring runs merged
		`<w:t xml:space="preserve">a</w:t><w:tab/><w:t xml:space="preserve">b</w:t><w:br/><w:t xml:space="preserve">c</w:t>`,
		`<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>`,
		`<w:trPr><w:tblHeader/></w:trPr>`,
		`<w:bidi/></w:pPr><w:r><w:rPr><w:rtl/></w:rPr>`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document.xml lacks %s", want)
		}
	}
	// The short row is padded: every row has both cells.
	if n := strings.Count(doc, "<w:tc>"); n != 4 {
		t.Errorf("%d cells, want 4", n)
	}
	if !strings.Contains(p["word/numbering.xml"], `<w:num w:numId="1"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="3"/>`) {
		t.Errorf("the ordered list does not start at 3:\n%s", p["word/numbering.xml"])
	}
	if !strings.Contains(p["docProps/core.xml"], "<dc:title>T &lt;&amp;&gt;</dc:title>") {
		t.Errorf("core title:\n%s", p["docProps/core.xml"])
	}
	for _, style := range []string{`w:styleId="Heading1"><w:name w:val="heading 1"/>`, `w:styleId="Title"><w:name w:val="Title"/>`, `w:styleId="Code"`, `w:ascii="Consolas"`} {
		if !strings.Contains(p["word/styles.xml"], style) {
			t.Errorf("styles.xml lacks %s", style)
		}
	}
}

func mustBytes(t *testing.T, d *Document) []byte {
	t.Helper()
	b, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
