// Package mdcheck reads markdown as the renderers readers use do —
// CommonMark with GitHub's extensions (tables, strikethrough, bare
// autolinks) and footnotes, by goldmark — to tell tests which links and
// raw HTML a rendering holds. It is for tests of the renderers that write
// untrusted text into markdown (see internal/mdtext).
package mdcheck

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/mdtext"
)

var gm = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote))

// Links returns the destinations of md's links, images and autolinks, as
// goldmark's HTML renderer writes them in href and src, and the raw HTML
// md holds.
func Links(md string) (links, html []string) {
	src := []byte(md)
	doc := gm.Parser().Parse(text.NewReader(src))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			links = append(links, string(util.URLEscape(n.Destination, true)))
		case *ast.Image:
			links = append(links, string(util.URLEscape(n.Destination, true)))
		case *ast.AutoLink:
			d := string(util.URLEscape(n.URL(src), false))
			if n.AutoLinkType == ast.AutoLinkEmail {
				d = "mailto:" + d
			}
			links = append(links, d)
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				html = append(html, string(seg.Value(src)))
			}
		case *ast.HTMLBlock:
			html = append(html, "an HTML block")
		}
		return ast.WalkContinue, nil
	})
	return links, html
}

// Foreign returns what in md is not the rendering of a link to u: raw
// HTML, and links whose destination is not u (up to percent-encoding and
// the case of its host, as mdtext.URLText writes it), or any link at all
// when u is not one a reader may follow (canon.Linkable). Nil means md
// can only lead a reader to u.
func Foreign(md, u string) []string {
	links, html := Links(md)
	out := html
	shown := strings.TrimSuffix(strings.TrimPrefix(mdtext.URLText(u), "<"), ">")
	for _, l := range links {
		got := percentDecoded(l)
		if !canon.Linkable(u) || got != percentDecoded(u) && got != percentDecoded(shown) {
			out = append(out, "a link to "+l)
		}
	}
	return out
}

// percentDecoded decodes the valid %XX escapes of s and leaves the rest,
// so that two spellings of one URL compare equal.
func percentDecoded(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func ishex(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}
