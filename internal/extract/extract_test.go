package extract

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/golden"
)

// corpusDir is the test corpus shared with end-to-end tests.
const corpusDir = "../../testdata/corpus"

// render shows a document as the golden files record it.
func render(d *Document, ps []Passage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\n", d.Title)
	for i, p := range ps {
		fmt.Fprintf(&b, "\n--- passage %d (%d bytes)\nlocation: %s\nheading: %s\n\n%s\n", i, len(p.Body), p.Location, p.Heading, p.Body)
	}
	return b.String()
}

// TestExtractGolden extracts and splits every document of the test corpus
// and compares the passages with testdata/passages/*.golden; -update
// rewrites them.
func TestExtractGolden(t *testing.T) {
	err := filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && path != corpusDir {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		f := FormatOf(d.Name())
		if d.IsDir() || f == FormatNone {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !utf8.Valid(src) || strings.ContainsRune(string(src), 0) {
			return nil
		}
		rel, _ := filepath.Rel(corpusDir, path)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			doc := Extract(rel, string(src), f)
			got := render(&doc, Split(&doc))
			golden.Check(t, filepath.Join("passages", strings.ReplaceAll(rel, "/", "__")+".golden"), got)
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// outline shows a document's blocks with their heading paths, one a line.
func outline(d *Document) []string {
	var out []string
	for _, b := range d.blocks {
		kind := ""
		if b.pre {
			kind = "pre "
		}
		out = append(out, fmt.Sprintf("%s[%s] %s%q", lines(b), strings.Join(d.sections[b.sec].path, " › "), kind, b.text))
	}
	return out
}

func lines(b block) string {
	if b.first == 0 {
		return ""
	}
	return fmt.Sprintf("%d-%d ", b.first, b.last)
}

func TestExtractFormats(t *testing.T) {
	tests := []struct {
		name, src string
		title     string
		outline   []string
	}{
		{
			name: "front-matter.md",
			src: "---\ntitle: 'From front matter'\ndraft: true\n---\n\n# Heading One {#one}\n\nIntro <!-- a\ncomment --> text.\n\n" +
				"## Two ##\n\n```go\n# not a heading\n\nfunc f() {}\n```\n\n<style>\np { x: y }\n</style>\n\n\tindented\n\tcode\n",
			title: "From front matter",
			outline: []string{
				`8-9 [Heading One] "Intro\n text."`,
				`14-16 [Heading One › Two] pre "# not a heading\n\nfunc f() {}"`,
				`23-24 [Heading One › Two] pre "\tindented\n\tcode"`,
			},
		},
		{
			name:  "setext.markdown",
			src:   "Main Title\n==========\n\nPara one\ncontinues.\n\nSub\n---\n\n- item one\n- item two\n",
			title: "Main Title",
			outline: []string{
				`4-5 [] "Para one\ncontinues."`,
				`10-11 [Sub] "- item one\n- item two"`,
			},
		},
		{
			name:    "no-title.md",
			src:     "## Only a second-level heading\n\nText.\n",
			title:   "no-title",
			outline: []string{`3-3 [Only a second-level heading] "Text."`},
		},
		{
			name:    "notes.txt",
			src:     "Plain notes\r\n===========\r\n\r\nFirst paragraph\r\nof text.\r\n\r\nSecond.\r\n",
			title:   "Plain notes",
			outline: []string{`4-5 [] "First paragraph\nof text."`, `7-7 [] "Second."`},
		},
		{
			name: "doc.rst",
			src: "=======\n Title\n=======\n\nIntro.\n\nPart A\n======\n\nSection\n-------\n\nBody text.\n\n.. a comment\n\n" +
				"Part B\n======\n\nMore::\n\n    literal\n    block\n",
			title: "Title",
			outline: []string{
				`5-5 [] "Intro."`,
				`13-13 [Part A › Section] "Body text."`,
				`20-20 [Part B] "More::"`,
				`22-23 [Part B] pre "    literal\n    block"`,
			},
		},
		{
			name:  "doc.adoc",
			src:   "= Doc Title\n:toc:\n// comment\n\nPreamble.\n\n== Section A\n\n=== Deeper\n\nText here.\n\n----\n== not a heading\n----\n\n====\nExample.\n====\n",
			title: "Doc Title",
			outline: []string{
				`5-5 [] "Preamble."`,
				`11-11 [Section A › Deeper] "Text here."`,
				`14-14 [Section A › Deeper] pre "== not a heading"`,
				`18-18 [Section A › Deeper] "Example."`,
			},
		},
		{
			name:  "notes.org",
			src:   "#+TITLE: Org Title\n#+OPTIONS: toc:nil\n\n* First :tag:\nText.\n** Second\n#+BEGIN_SRC sh\n* not a heading\n#+END_SRC\n# comment\nEnd.\n",
			title: "Org Title",
			outline: []string{
				`5-5 [First] "Text."`,
				`8-8 [First › Second] pre "* not a heading"`,
				`11-11 [First › Second] "End."`,
			},
		},
		{
			name: "paper.tex",
			src: "\\documentclass{article}\n\\usepackage{x}\n\\title{A \\emph{TeX} Paper}\n\\begin{document}\n\\maketitle\n" +
				"\\section{Intro}\n% a comment\nSome text.\n\\subsection*{Detail}\nMore text.\n\\begin{verbatim}\n\\section{raw}\n\\end{verbatim}\n\\end{document}\n",
			title: "A TeX Paper",
			outline: []string{
				`8-8 [Intro] "Some text."`,
				`10-10 [Intro › Detail] "More text."`,
				`12-12 [Intro › Detail] pre "\\section{raw}"`,
			},
		},
		{
			name: "page.html",
			src: "<!DOCTYPE html><html><head><title>The &amp; Title</title><style>p{}</style></head>\n<body><nav><nav>menu</nav>more menu</nav>\n" +
				"<h1>The &amp; Title</h1><p>One &lt;two&gt;\n  three<br>four<p>Unclosed\n<h2>Sub <code>x</code></h2>\n" +
				"<pre>  keep\n    layout</pre><ul><li>a<li>b</ul><script>var x = 1;</script><footer>foot</footer></body></html>",
			title: "The & Title",
			outline: []string{
				`3-4 [] "One <two> three\nfour"`,
				`4-4 [] "Unclosed"`,
				`6-7 [Sub x] pre "  keep\n    layout"`,
				`7-7 [Sub x] "- a"`,
				`7-7 [Sub x] "- b"`,
			},
		},
		{
			name:    "gomem.html",
			src:     "<!--{\n\t\"Title\": \"From JSON\",\n\t\"Path\": \"/ref/x\"\n}-->\n\n<h2 id=\"a\">Alpha</h2>\n<p>\nText.\n</p>\n<h3>Beta</h3><p>More.</p>\n",
			title:   "From JSON",
			outline: []string{`8-8 [Alpha] "Text."`, `10-10 [Alpha › Beta] "More."`},
		},
		{
			name:    "h1.htm",
			src:     "<h1>Heading Title</h1><p>x</p><h2>Two</h2><p>y</p>",
			title:   "Heading Title",
			outline: []string{`1-1 [] "x"`, `1-1 [Two] "y"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Extract(tt.name, tt.src, FormatOf(tt.name))
			if d.Title != tt.title {
				t.Errorf("title = %q, want %q", d.Title, tt.title)
			}
			got := outline(&d)
			if strings.Join(got, "\n") != strings.Join(tt.outline, "\n") {
				t.Errorf("outline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.outline, "\n"))
			}
		})
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]Format{
		"a.MD": FormatMarkdown, "b.Html": FormatHTML, "c.XHTML": FormatHTML, "d.asciidoc": FormatAsciiDoc,
		"e.text": FormatText, "f.bin": FormatNone, "g": FormatNone, "h.md.bak": FormatNone, "i.tex": FormatTeX,
	} {
		if got := FormatOf(name); got != want {
			t.Errorf("FormatOf(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestHugeTitleBounded: a 2 MB first heading is no title a reference list
// can carry: it is cut at maxDocTitle bytes, on a rune, marked "…".
func TestHugeTitleBounded(t *testing.T) {
	d := Extract("huge.md", "# "+strings.Repeat("é", 1<<20)+"\n\nBody text here.\n", FormatMarkdown)
	if len(d.Title) > maxDocTitle+len("…") || !strings.HasSuffix(d.Title, "…") || !utf8.ValidString(d.Title) {
		t.Errorf("title of %d bytes (%q…)", len(d.Title), d.Title[:min(20, len(d.Title))])
	}
}
