package mdtext

import (
	"html"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/deepresearch/deepresearch/internal/canon"
)

// reader parses markdown as the renderers readers use do: CommonMark
// with GitHub's extensions and footnotes (as mdcheck does).
var reader = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote)).Parser()

// maxDefangPasses bounds Defang's passes; text that still holds links or
// HTML to neutralise after them has every '<' and '[' escaped
// (escapeOpeners).
const maxDefangPasses = 8

// Defang returns the markdown md — a model's text, which quotes passages
// of documents and the question — with nothing a reader's renderer would
// turn into raw HTML or into a link a reader should not follow: raw HTML
// (inline or a block, comments included) has its '<' written "&lt;", and
// (but for the tags of a citation in the HTML style, <sup class="cite">
// and <a href> to a URL as below), and a link or image whose destination is not one canon.Link allows (http,
// https, file, doi, arXiv) nor a fragment ("#…") has its '[' escaped, as
// does an autolink its '<', so that each shows as the text it is. What
// is not HTML or such a link — code, emphasis, safe links, citation
// markers — is left byte for byte.
//
// Defang parses md once, and again after each change (neutralising one
// construct can reveal another), at most maxDefangPasses times.
func Defang(md string) string {
	if !strings.ContainsAny(md, "<[") {
		return md
	}
	for range maxDefangPasses {
		at := unsafeAt(md)
		if len(at) == 0 {
			return md
		}
		md = neutralise(md, at)
	}
	if len(unsafeAt(md)) == 0 {
		return md
	}
	return escapeOpeners(md)
}

// escapeOpeners writes every '<' of md as "&lt;" and escapes every '['
// not escaped yet: no link, image, autolink with '<' or HTML is left.
func escapeOpeners(md string) string {
	var b strings.Builder
	b.Grow(len(md) + len(md)/8)
	slashes := 0 // the backslashes just before
	for i := 0; i < len(md); i++ {
		switch c := md[i]; {
		case c == '<':
			b.WriteString("&lt;")
		case c == '[' && slashes%2 == 0:
			b.WriteString(`\[`)
		default:
			b.WriteByte(c)
		}
		if md[i] == '\\' {
			slashes++
		} else {
			slashes = 0
		}
	}
	return b.String()
}

// unsafeAt returns the offsets in md of the '<' or '[' that open raw HTML
// or a link Defang neutralises, in increasing order.
func unsafeAt(md string) []int {
	src := []byte(md)
	doc := reader.Parse(text.NewReader(src))
	var at []int
	// open returns the offset of c at or just after pos (an image's
	// position is its '!'), or -1.
	open := func(pos int, c byte) int {
		for i := pos; i >= 0 && i < len(src) && i <= pos+1; i++ {
			if src[i] == c {
				return i
			}
		}
		return -1
	}
	add := func(i int) {
		if i < 0 {
			i = -2 // a position goldmark did not give: Defang's fallback
		}
		at = append(at, i)
	}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !followable(string(n.Destination)) {
				add(open(n.Pos(), '['))
			}
		case *ast.Image:
			if !followable(string(n.Destination)) {
				add(open(n.Pos(), '['))
			}
		case *ast.AutoLink:
			if n.AutoLinkType == ast.AutoLinkURL && !followable(string(n.URL(src))) {
				if i := open(n.Pos(), '<'); i >= 0 || !strings.HasPrefix(string(n.URL(src)), "www.") {
					add(i) // a bare GFM link has no '<': it is http(s) or www. anyway
				}
			}
		case *ast.RawHTML:
			var tag []byte
			for i := range n.Segments.Len() {
				seg := n.Segments.At(i)
				tag = append(tag, seg.Value(src)...)
			}
			if citationTag(string(tag)) {
				break
			}
			if n.Segments.Len() > 0 {
				add(open(n.Segments.At(0).Start, '<'))
			} else {
				add(-1)
			}
		case *ast.HTMLBlock:
			if n.Lines().Len() > 0 {
				seg := n.Lines().At(0)
				add(strings.IndexByte(string(src[seg.Start:seg.Stop]), '<') + seg.Start)
			} else {
				add(-1)
			}
		}
		return ast.WalkContinue, nil
	})
	slices.Sort(at)
	return slices.Compact(at)
}

// neutralise escapes the openers at offsets at of md: '<' becomes "&lt;",
// '[' "\[". An offset that is not one (-2) makes it escape them all.
func neutralise(md string, at []int) string {
	var b strings.Builder
	b.Grow(len(md) + 4*len(at))
	last := 0
	for _, i := range at {
		if i < 0 || i >= len(md) || md[i] != '<' && md[i] != '[' {
			return escapeOpeners(md)
		}
		b.WriteString(md[last:i])
		if md[i] == '<' {
			b.WriteString("&lt;")
		} else {
			b.WriteString(`\[`)
		}
		last = i + 1
	}
	b.WriteString(md[last:])
	return b.String()
}

// The tags of a citation in the HTML style (internal/citeproc): Defang
// keeps them, with an href a reader may follow.
var (
	citeSup = regexp.MustCompile(`^<sup class="cite" data-sids="[0-9,]*">$`)
	citeA   = regexp.MustCompile(`^<a href="([^"<>]*)"(?: title="[^"<>]*")?>$`)
)

// citationTag reports whether tag is one of the tags of a citation in
// the HTML style.
func citationTag(tag string) bool {
	if tag == "</sup>" || tag == "</a>" || citeSup.MatchString(tag) {
		return true
	}
	m := citeA.FindStringSubmatch(tag)
	return m != nil && followable(html.UnescapeString(m[1]))
}

// followable reports whether a reader may follow a link to dest: one
// canon.Link allows, or a fragment of the page itself.
func followable(dest string) bool {
	return strings.HasPrefix(dest, "#") || canon.Link(dest) != ""
}
