package finalreport

import (
	"html"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The standalone page writes each citation in the citation protocol's HTML
// form, <sup class="cite" data-sids="N"><a href="#ref-N" title="…">[N]</a></sup>,
// as --style html and cite do, so a program reading the page finds its
// citations the same way. Goldmark stays in safe mode (raw HTML in the
// report is omitted): the tag comes from an AST node this file adds, not
// from HTML in the text.

// kindCite is the AST kind of a citation's <sup> wrapper.
var kindCite = ast.NewNodeKind("Citation")

// citeNode wraps the link of citation Number: its pinpoint (Loc, "p. 4")
// and what verification found of it (Verdict, "" when not said).
type citeNode struct {
	ast.BaseInline
	Number       int
	Loc, Verdict string
}

func (n *citeNode) Kind() ast.NodeKind { return kindCite }

func (n *citeNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Number": strconv.Itoa(n.Number)}, nil)
}

// citeHTML is the goldmark extension: a transformer that wraps each
// citation link and a renderer for the wrapper. titles gives a reference
// number's title, for the link's tooltip; verdicts, when set, what
// verification found of each citation of a number, in order (see
// citationVerdicts).
type citeHTML struct {
	titles   map[int]string
	verdicts map[int][]string
}

func (e citeHTML) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(citeTransformer(e), 500)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(citeRenderer{}, 500)))
}

type citeTransformer citeHTML

// Transform wraps every link that is a citation: one whose destination is
// "#ref-N" for a reference N of the page and whose text is "[N]". A link
// the writer made itself to "#ref-N" with other text stays a plain link.
func (t citeTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var links []*ast.Link
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering {
			links = append(links, l)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	type cite struct {
		link *ast.Link
		num  int
		loc  string
	}
	var cites []cite
	count := map[int]int{}
	for _, l := range links {
		num, loc, ok := citation(l, src, t.titles)
		if ok {
			cites = append(cites, cite{l, num, loc})
			count[num]++
		}
	}
	seen := map[int]int{}
	for _, c := range cites {
		sup := &citeNode{Number: c.num, Loc: c.loc}
		title := t.titles[c.num]
		// The verdicts are the citations of Body's; used only when there
		// are as many as the page has of the number.
		if v := t.verdicts[c.num]; len(v) == count[c.num] {
			sup.Verdict = v[seen[c.num]]
			title += " — " + verdictWords(sup.Verdict)
		}
		seen[c.num]++
		c.link.Title = []byte(title)
		parent := c.link.Parent()
		parent.ReplaceChild(parent, c.link, sup)
		sup.AppendChild(sup, c.link)
	}
}

// verdictWords says a citation's verdict in a link's title.
func verdictWords(v string) string {
	if v == "supported" {
		return "verified: the source supports it"
	}
	return "verified: " + v
}

// citation returns the reference number l cites, and its pinpoint, when
// it is a citation: a link whose destination is "#ref-N" for a reference
// N of titles and whose text is "[N]" or "[N, PINPOINT]" ("[1, p. 4]").
// A link the writer made itself to "#ref-N" with other text is none.
func citation(l *ast.Link, src []byte, titles map[int]string) (int, string, bool) {
	dest, ok := strings.CutPrefix(string(l.Destination), "#ref-")
	if !ok {
		return 0, "", false
	}
	num, err := strconv.Atoi(dest)
	_, known := titles[num]
	if err != nil || !known || strconv.Itoa(num) != dest {
		return 0, "", false
	}
	text := linkText(l, src)
	if text == "["+dest+"]" {
		return num, "", true
	}
	loc, ok := strings.CutPrefix(text, "["+dest+", ")
	if !ok || !strings.HasSuffix(loc, "]") || strings.TrimSpace(loc[:len(loc)-1]) == "" || strings.ContainsAny(loc[:len(loc)-1], "[]") {
		return 0, "", false
	}
	return num, strings.TrimSpace(loc[:len(loc)-1]), true
}

// linkText is the text of l's children.
func linkText(l *ast.Link, src []byte) string {
	var b strings.Builder
	for c := l.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok {
			return ""
		}
		b.Write(t.Segment.Value(src))
	}
	return b.String()
}

type citeRenderer struct{}

func (citeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindCite, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			c := n.(*citeNode)
			w.WriteString(`<sup class="cite" data-sids="` + strconv.Itoa(c.Number) + `"`)
			if c.Loc != "" {
				w.WriteString(` data-loc="` + html.EscapeString(c.Loc) + `"`)
			}
			if c.Verdict != "" {
				w.WriteString(` data-verdict="` + html.EscapeString(c.Verdict) + `"`)
			}
			w.WriteString(">")
		} else {
			w.WriteString("</sup>")
		}
		return ast.WalkContinue, nil
	})
}
