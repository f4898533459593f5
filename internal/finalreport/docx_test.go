package finalreport

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/docx"
	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/internal/verify"
	"github.com/deepresearch/deepresearch/source"
)

// docxBody is htmlBody with a table, lists, a quote and a rule.
const docxBody = htmlBody + "\n" +
	"## Table\n\n" +
	"| Item | Price |\n|---|---|\n| Bread [1] | **3** |\n\n" +
	"- one\n- two\n  1. sub [2]\n\n" +
	"3. three\n4. four\n\n" +
	"> quoted *words*\n\n---\n\nEnd ~~old~~.\n"

// docxParts unzips a document, checking that every part is well-formed XML
// (docx.Parts).
func docxParts(t *testing.T, b []byte) map[string]string {
	t.Helper()
	p, err := docx.Parts(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// docxVerified is a verification with a problem.
func docxVerified() *Verified {
	return &Verified{
		Summary: verify.Summary{Citations: 5, Supported: 4, Unsupported: 1, Score: 0.8, Warnings: 1},
		Problems: []verify.Problem{{Line: 3, Severity: verify.Severity("warning"), Kind: verify.ProblemUnsupported, Number: 3,
			Message: "[3] does not support the sentence", Fix: "cite another source"}},
		Action: "flag", Judge: "lexical",
	}
}

// A golden structure test: the package's parts, the report's styles, the
// citations' internal links each resolving to a bookmark of the reference
// list, the references with their dates and links, the verification.
func TestDOCXStructure(t *testing.T) {
	r := &Report{Body: docxBody, References: renderRefs()}
	b, err := DOCX("Prices & <wages>", r, docxVerified())
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := DOCX("Prices & <wages>", r, docxVerified()); !bytes.Equal(b, again) {
		t.Errorf("two renderings differ")
	}
	p := docxParts(t, b)
	if ct := p["[Content_Types].xml"]; !strings.Contains(ct, `<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>`) {
		t.Errorf("[Content_Types].xml does not declare the main document:\n%s", ct)
	}
	if !strings.Contains(p["_rels/.rels"], `/officeDocument" Target="word/document.xml"`) {
		t.Errorf("_rels/.rels does not point at the document")
	}
	doc := p["word/document.xml"]
	paras := docxParagraphs(doc)
	want := []string{"Title|Prices & <wages>", "Heading1|Prices", "Heading2|Table", "Heading2|References", "Heading2|Verification"}
	var heads []string
	for _, para := range paras {
		if strings.HasPrefix(para, "Title|") || strings.HasPrefix(para, "Heading") {
			heads = append(heads, para)
		}
	}
	if !slices.Equal(heads, want) {
		t.Errorf("headings %q, want %q", heads, want)
	}
	// Every internal link resolves to a bookmark; every citation is one.
	anchors := regexp.MustCompile(`<w:hyperlink w:anchor="([^"]+)"`).FindAllStringSubmatch(doc, -1)
	marks := map[string]bool{}
	for _, m := range regexp.MustCompile(`<w:bookmarkStart w:id="\d+" w:name="([^"]+)"/>`).FindAllStringSubmatch(doc, -1) {
		marks[m[1]] = true
	}
	if len(marks) != 4 {
		t.Errorf("bookmarks %v, want ref_1..ref_4", marks)
	}
	for _, a := range anchors {
		if !marks[a[1]] {
			t.Errorf("a link to %s, which no bookmark names", a[1])
		}
	}
	// 5 citations in the body, 1 in the table and 1 in the list; none in
	// code, none for the writer's own link or an unknown [9].
	if len(anchors) != 7 {
		t.Errorf("%d internal links, want 7", len(anchors))
	}
	for _, want := range []string{
		"Normal|Prices rose [1]. Wages lagged [2][1]; see also [3] and [4].",
		"Code|literal [1]", "Code|", "Code|still code [2]",
		"Normal|Inline [2] code.",
		"Normal|Raw <script>alert('body')</script> html.",
		"ListParagraph#1.0|one", "ListParagraph#1.0|two", "ListParagraph#2.1|sub [2]",
		"ListParagraph#3.0|three", "Quote|quoted words", "Normal|End old.",
		"Normal|[1] Seven (2024-03-15). https://example.org/seven",
		"Normal|[2] Five [draft] & <more>. https://example.org/five",
		"Normal|[3] Spaced title. https://example.org/a b(c)",
		"Normal|[4] corpus/notes.md",
		"Normal|5 citations checked against the text of their sources (judged by lexical): 4 supported, 1 unsupported, 0 fabricated; support score 80%.",
		"Normal|Unsupported citations are marked \"[unsupported: n]\".",
		"ListParagraph#4.0|Line 3, warning (unsupported): [3] does not support the sentence Fix: cite another source",
	} {
		if !slices.Contains(paras, want) {
			t.Errorf("no paragraph %q in\n%s", want, strings.Join(paras, "\n"))
		}
	}
	for _, want := range []string{
		`<w:tblHeader/>`, `<w:b/></w:rPr><w:t xml:space="preserve">Item</w:t>`, `<w:t xml:space="preserve">Bread </w:t>`,
		`<w:rPr><w:rStyle w:val="CodeChar"/></w:rPr><w:t xml:space="preserve">[2]</w:t>`,
		`<w:rPr><w:strike/></w:rPr><w:t xml:space="preserve">old</w:t>`,
		`<w:pBdr><w:bottom`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document.xml lacks %s", want)
		}
	}
	if !strings.Contains(p["word/numbering.xml"], `<w:num w:numId="3"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="3"/>`) {
		t.Errorf("the list from 3 does not start at 3")
	}
	rels := p["word/_rels/document.xml.rels"]
	if n := strings.Count(rels, `TargetMode="External"`); n != 3 {
		t.Errorf("%d external links, want the three web sources':\n%s", n, rels)
	}
	// Not verified: the document says so.
	b, err = DOCX("Q", &Report{Body: "Nothing [1].\n", References: renderRefs()[:1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if paras := docxParagraphs(docxParts(t, b)["word/document.xml"]); !slices.Contains(paras, "Normal|The citations of this report were not checked against their sources.") {
		t.Errorf("an unverified report does not say so:\n%s", strings.Join(paras, "\n"))
	}
}

// docxParagraphs lists document.xml's paragraphs as "Style|text", a list
// item as "Style#list.level|text" (tabs and breaks as spaces).
func docxParagraphs(doc string) []string {
	var out []string
	dec := xml.NewDecoder(strings.NewReader(doc))
	var style, num, lvl string
	var text strings.Builder
	inText := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		switch e := tok.(type) {
		case xml.StartElement:
			val := ""
			for _, a := range e.Attr {
				if a.Name.Local == "val" {
					val = a.Value
				}
			}
			switch e.Name.Local {
			case "p":
				style, num, lvl = "", "", ""
				text.Reset()
			case "pStyle":
				style = val
			case "numId":
				num = val
			case "ilvl":
				lvl = val
			case "t":
				inText = true
			case "tab", "br":
				text.WriteByte(' ')
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "t":
				inText = false
			case "p":
				s := style
				if num != "" {
					s += "#" + num + "." + lvl
				}
				out = append(out, s+"|"+text.String())
			}
		case xml.CharData:
			if inText {
				text.Write(e)
			}
		}
	}
}

// The repository's own DOCX reader (internal/extract, which reads the
// corpus's Word files) reads the document back: its title, its headings
// in order and at their levels, and its text.
func TestDOCXReadBack(t *testing.T) {
	r := &Report{Body: docxBody, References: renderRefs()}
	b, err := DOCX("Prices & <wages>", r, docxVerified())
	if err != nil {
		t.Fatal(err)
	}
	d, err := extract.ExtractBytes(context.Background(), "report.docx", b, extract.FormatDOCX, extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Prices & <wages>" {
		t.Errorf("title %q", d.Title)
	}
	var heads []string
	for line := range strings.SplitSeq(d.Text, "\n") {
		if strings.HasPrefix(line, "#") {
			heads = append(heads, line)
		}
	}
	if want := []string{"# Prices & <wages>", "# Prices", "## Table", "## References", "## Verification"}; !slices.Equal(heads, want) {
		t.Errorf("headings read back %q, want %q", heads, want)
	}
	for _, want := range []string{
		"Prices rose [1]. Wages lagged [2][1]; see also [3] and [4].",
		"Raw <script>alert('body')</script> html.",
		"literal [1]", "still code [2]", "Inline [2] code.",
		"Item | Price", "Bread [1] | 3",
		"one", "sub [2]", "quoted words", "End old.",
		"[1] Seven (2024-03-15). https://example.org/seven",
		"[4] corpus/notes.md",
		"5 citations checked against the text of their sources (judged by lexical): 4 supported, 1 unsupported, 0 fabricated; support score 80%.",
		"Errors: 0; warnings: 1.",
	} {
		if !strings.Contains(d.Text, want+"\n") {
			t.Errorf("read back, the text lacks %q:\n%s", want, d.Text)
		}
	}
}

// Hostile text (controls XML 1.0 forbids, a CDATA end, markup, invalid
// UTF-8, unlinkable URLs) and other scripts (CJK, Arabic) leave a
// well-formed document that reads back with its text; no link leads
// anywhere but to the web sources.
func TestDOCXHostileAndScripts(t *testing.T) {
	body := "# 报告 \x00\x01\x1b[31m\n\n" +
		"中文的句子引用来源 [1]。\n\n" +
		"هذه جملة عربية تستشهد بمصدر [2].\n\n" +
		"Bad ]]> <script>alert(1)</script> \x7f\u0085\ufffe\uffff \xff end [3].\n\n" +
		"[click](javascript:alert(1)) [file](file:///etc/passwd) <https://example.org/ok>\n\n" +
		"```\n]]>\x08</w:t></w:r>\n```\n"
	refs := []Reference{
		{Number: 1, Source: source.Source{ID: "w1", URL: "https://example.cn/页面", Title: "中文标题"}},
		{Number: 2, Source: source.Source{ID: "w2", URL: "https://example.sa/صفحة", Title: "عنوان عربي"}},
		{Number: 3, Source: source.Source{ID: "w3", URL: "javascript:alert(1)", Title: "]]><w:p>\x00evil</w:p>"}},
	}
	title := "问题 \x00]]> <b>سؤال</b>"
	b, err := DOCX(title, &Report{Body: body, References: refs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := docxParts(t, b)
	rels := p["word/_rels/document.xml.rels"]
	for _, m := range regexp.MustCompile(`Target="([^"]*)" TargetMode="External"`).FindAllStringSubmatch(rels, -1) {
		if !strings.HasPrefix(m[1], "https://example.") {
			t.Errorf("an external relationship to %s", m[1])
		}
	}
	if strings.Contains(rels, "javascript") || strings.Contains(rels, "file:") {
		t.Errorf("relationships:\n%s", rels)
	}
	doc := p["word/document.xml"]
	if !strings.Contains(doc, `<w:bidi/></w:pPr><w:r><w:rPr><w:rtl/></w:rPr><w:t xml:space="preserve">هذه جملة عربية تستشهد بمصدر </w:t>`) {
		t.Errorf("the Arabic paragraph is not right to left")
	}
	d, err := extract.ExtractBytes(context.Background(), "report.docx", b, extract.FormatDOCX, extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# 报告 [31m", "中文的句子引用来源 [1]。", "هذه جملة عربية تستشهد بمصدر [2].",
		"Bad ]]> <script>alert(1)</script>", "end [3].", "click file https://example.org/ok", "]]></w:t></w:r>",
		"[1] 中文标题. https://example.cn/页面", "[3] ]]><w:p>evil</w:p>"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("read back, the text lacks %q:\n%s", want, d.Text)
		}
	}
	if strings.ContainsFunc(d.Text, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f }) {
		t.Errorf("a control character survived:\n%q", d.Text)
	}
}

// python-docx (Debian's python3-docx), a reader other than ours, opens
// the document and finds its title, styles and table. Skipped where it
// is not installed (.ci/run installs it).
func TestDOCXPythonDocx(t *testing.T) {
	py := ""
	for _, cand := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(cand); err == nil && exec.Command(path, "-c", "import docx").Run() == nil {
			py = path
			break
		}
	}
	if py == "" {
		t.Skip("python3-docx is not installed")
	}
	b, err := DOCX("Prices & <wages>", &Report{Body: docxBody, References: renderRefs()}, docxVerified())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.docx")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	const script = `import docx, json, sys
d = docx.Document(sys.argv[1])
print(json.dumps({"title": d.core_properties.title,
  "paras": [[p.style.name, p.text] for p in d.paragraphs],
  "tables": [[[c.text for c in r.cells] for r in t.rows] for t in d.tables]}))`
	out, err := exec.Command(py, "-c", script, file).CombinedOutput()
	if err != nil {
		t.Fatalf("python-docx: %v\n%s", err, out)
	}
	var got struct {
		Title  string
		Paras  [][2]string
		Tables [][][]string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Title != "Prices & <wages>" {
		t.Errorf("title %q", got.Title)
	}
	for _, want := range [][2]string{{"Title", "Prices & <wages>"}, {"Heading 1", "Prices"}, {"Heading 2", "References"},
		{"Code", "still code [2]"}, {"List Paragraph", "one"}, {"Quote", "quoted words"}} {
		if !slices.Contains(got.Paras, want) {
			t.Errorf("python-docx finds no %q paragraph %q: %q", want[0], want[1], got.Paras)
		}
	}
	if len(got.Tables) != 1 || !slices.Equal(got.Tables[0][0], []string{"Item", "Price"}) {
		t.Errorf("tables %q", got.Tables)
	}
}
