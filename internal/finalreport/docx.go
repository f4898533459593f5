package finalreport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/docx"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/internal/verify"
)

// Verified is what a document tells of its report's verification: the
// counts, the problems, what was done with unsupported citations and
// what judged them.
type Verified struct {
	Summary  verify.Summary
	Problems []verify.Problem
	Action   string
	Judge    string
}

// DOCX returns the report as a Word document (.docx): title as its
// Title, the report's headings, paragraphs, lists, tables, quotes and
// code blocks (monospace) in their styles, each citation an internal
// hyperlink to its entry in the reference list (a bookmark "ref_N"),
// the reference list with each source's locators, authors, date and
// link, and a "Verification" section telling what checking the
// citations found (v; nil: that the report was not verified). It is
// rendered from the same anchored markdown as HTML. Raw HTML in the
// report is kept as text (a Word document runs none), links are made
// only to http and https URLs, and all text is cleaned of what XML 1.0
// cannot carry (see internal/docx).
func DOCX(title string, r *Report, v *Verified) ([]byte, error) {
	md, err := r.anchored()
	if err != nil {
		return nil, fmt.Errorf("finalreport: docx: %w", err)
	}
	src := []byte(md)
	root := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	w := &docxWriter{doc: docx.New(title), src: src, titles: map[int]string{}}
	for _, ref := range r.References {
		w.titles[ref.Number] = ref.Label()
	}
	w.doc.Add(docx.Paragraph{Style: docx.Title, Runs: []docx.Run{{Text: title}}})
	w.blocks(root, blockContext{})
	if len(r.References) > 0 {
		w.doc.Add(docx.Paragraph{Style: docx.Heading(2), Runs: []docx.Run{{Text: "References"}}})
		for _, ref := range r.References {
			w.doc.Add(docx.Paragraph{Bookmark: refBookmark(ref.Number), Runs: referenceRuns(ref)})
		}
	}
	w.doc.Add(docx.Paragraph{Style: docx.Heading(2), Runs: []docx.Run{{Text: "Verification"}}})
	w.verification(v)
	b, err := w.doc.Bytes()
	if err != nil {
		return nil, fmt.Errorf("finalreport: docx: %w", err)
	}
	return b, nil
}

// refBookmark names reference n's entry as a link target.
func refBookmark(n int) string { return "ref_" + strconv.Itoa(n) }

// referenceRuns is a reference's entry: "[1] Label — Authors (date).
// URL", its URL shown and linked when it is an http or https one (a
// printed page keeps it).
func referenceRuns(ref Reference) []docx.Run {
	runs := []docx.Run{{Text: "[" + strconv.Itoa(ref.Number) + "] "}, {Text: ref.Label()}}
	if a := strings.Join(ref.Authors(), ", "); a != "" {
		runs = append(runs, docx.Run{Text: " — " + a})
	}
	if d := ref.Dated(); d != "" {
		runs = append(runs, docx.Run{Text: " (" + d + ")"})
	}
	if t := sourcetext.Clean(ref.Tier); t != "" {
		runs = append(runs, docx.Run{Text: " (tier: " + t + ")"})
	}
	if link := canon.Link(ref.URL); strings.HasPrefix(link, "http://") || strings.HasPrefix(link, "https://") {
		runs = append(runs, docx.Run{Text: ". "}, docx.Run{Text: link, Link: link})
	}
	return runs
}

// verification writes what checking the citations found.
func (w *docxWriter) verification(v *Verified) {
	paras, problems := verificationText(v)
	for _, p := range paras {
		w.para(p)
	}
	if len(problems) == 0 {
		return
	}
	list := w.doc.List(false, 1)
	for _, line := range problems {
		w.doc.Add(docx.Paragraph{Style: docx.List, List: list, Runs: []docx.Run{{Text: line}}})
	}
}

// verificationText is what a document's Verification section says of v:
// paragraphs (the counts, what was done with unsupported citations) and
// one line for each problem found; nil v says the report was not
// verified. The DOCX and printed (PDF) reports tell the same.
func verificationText(v *Verified) (paras, problems []string) {
	if v == nil {
		return []string{"The citations of this report were not checked against their sources."}, nil
	}
	s := v.Summary
	judge := ""
	if v.Judge != "" {
		judge = " (judged by " + v.Judge + ")"
	}
	paras = append(paras, fmt.Sprintf("%d citations checked against the text of their sources%s: %d supported, %d unsupported, %d fabricated; support score %.0f%%.",
		s.Citations, judge, s.Supported, s.Unsupported, s.Fabricated, 100*s.Score))
	switch v.Action {
	case "keep":
		paras = append(paras, "Unsupported citations were kept as written.")
	case "flag":
		paras = append(paras, "Unsupported citations are marked \"[unsupported: n]\".")
	case "remove":
		paras = append(paras, "Unsupported citations were removed.")
	}
	paras = append(paras, fmt.Sprintf("Errors: %d; warnings: %d.", s.Errors, s.Warnings))
	for _, p := range v.Problems {
		line := fmt.Sprintf("Line %d, %s (%s): %s", p.Line, p.Severity, p.Kind, p.Message)
		if p.Fix != "" {
			line += " Fix: " + p.Fix
		}
		problems = append(problems, line)
	}
	return paras, problems
}

// docxWriter turns the report's markdown, parsed by goldmark, into a
// docx.Document.
type docxWriter struct {
	doc    *docx.Document
	src    []byte
	titles map[int]string // reference number → label: the citations' targets
}

// blockContext is where a block stands: its paragraph style, and in a
// list item, the list and its depth.
type blockContext struct {
	style docx.Style
	list  int // the list of the item whose first paragraph this is; 0: none
	depth int // enclosing lists
}

func (w *docxWriter) para(s string) { w.doc.Add(docx.Paragraph{Runs: []docx.Run{{Text: s}}}) }

// blocks writes parent's block children.
func (w *docxWriter) blocks(parent ast.Node, c blockContext) {
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			w.doc.Add(docx.Paragraph{Style: docx.Heading(n.Level), Runs: w.inlines(n, docx.Run{})})
		case *ast.Paragraph, *ast.TextBlock:
			p := docx.Paragraph{Style: c.style, Runs: w.inlines(n, docx.Run{})}
			if c.depth > 0 && c.style == "" {
				p.Style = docx.List
			}
			if c.list > 0 {
				p.List, p.Level = c.list, c.depth-1
				c.list = 0 // the item's later paragraphs are not numbered again
			}
			w.doc.Add(p)
		case *ast.List:
			list := w.doc.List(n.IsOrdered(), n.Start)
			for item := n.FirstChild(); item != nil; item = item.NextSibling() {
				w.blocks(item, blockContext{style: c.style, list: list, depth: c.depth + 1})
			}
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := n.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				line := strings.TrimRight(string(seg.Value(w.src)), "\r\n")
				w.doc.Add(docx.Paragraph{Style: docx.Code, Runs: []docx.Run{{Text: line}}})
			}
		case *ast.HTMLBlock:
			// Kept as text: a Word document runs no HTML.
			var b strings.Builder
			lines := n.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				b.Write(seg.Value(w.src))
			}
			if n.HasClosure() {
				b.Write(n.ClosureLine.Value(w.src))
			}
			w.doc.Add(docx.Paragraph{Style: c.style, Runs: []docx.Run{{Text: strings.TrimRight(b.String(), "\n")}}})
		case *ast.Blockquote:
			w.blocks(n, blockContext{style: docx.Quote, depth: c.depth})
		case *ast.ThematicBreak:
			w.doc.Add(docx.Paragraph{Rule: true})
		case *east.Table:
			var t docx.Table
			for row := n.FirstChild(); row != nil; row = row.NextSibling() {
				var cells [][]docx.Run
				for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
					cells = append(cells, w.inlines(cell, docx.Run{}))
				}
				if _, ok := row.(*east.TableHeader); ok {
					t.Header = true
				}
				t.Rows = append(t.Rows, cells)
			}
			w.doc.AddTable(t)
		default:
			w.blocks(n, c)
		}
	}
}

// inlines returns parent's inline children as runs, each formatted as f
// and by the nodes around it.
func (w *docxWriter) inlines(parent ast.Node, f docx.Run) []docx.Run {
	var runs []docx.Run
	add := func(s string, g docx.Run) {
		if s == "" {
			return
		}
		g.Text = s
		runs = append(runs, g)
	}
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Text:
			s := unescape(n.Segment.Value(w.src))
			switch {
			case n.HardLineBreak():
				s += "\n"
			case n.SoftLineBreak():
				s += " "
			}
			add(s, f)
		case *ast.String:
			add(string(n.Value), f)
		case *ast.CodeSpan:
			g := f
			g.Code = true
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(w.src))
				}
			}
			add(b.String(), g)
		case *ast.Emphasis:
			g := f
			if n.Level == 1 {
				g.Italic = true
			} else {
				g.Bold = true
			}
			runs = append(runs, w.inlines(n, g)...)
		case *east.Strikethrough:
			g := f
			g.Strike = true
			runs = append(runs, w.inlines(n, g)...)
		case *ast.Link:
			g := f
			if num, _, ok := citation(n, w.src, w.titles); ok {
				g.Anchor = refBookmark(num)
			} else if !strings.HasPrefix(string(n.Destination), "#") {
				g.Link = canon.Link(string(n.Destination)) // docx links only http and https
			}
			runs = append(runs, w.inlines(n, g)...)
		case *ast.AutoLink:
			g := f
			if n.AutoLinkType == ast.AutoLinkURL {
				g.Link = canon.Link(string(n.URL(w.src)))
			}
			add(string(n.Label(w.src)), g)
		case *ast.RawHTML:
			// Kept as text, as an HTML block is.
			for i := range n.Segments.Len() {
				seg := n.Segments.At(i)
				add(string(seg.Value(w.src)), f)
			}
		case *east.TaskCheckBox:
			if n.IsChecked {
				add("☒ ", f)
			} else {
				add("☐ ", f)
			}
		default:
			// An image is its alternative text; other inlines their
			// children.
			runs = append(runs, w.inlines(n, f)...)
		}
	}
	return runs
}

// unescape is a text segment of markdown as it reads: backslash escapes
// and character references resolved, as goldmark's HTML writer does.
func unescape(b []byte) string {
	return string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(b))))
}
