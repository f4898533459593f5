package extract

import (
	"encoding/json"
	"strings"

	xhtml "golang.org/x/net/html"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// authorMeta are the <meta> names of a page's authors, in the order they
// are believed: the plain author, Highwire's citation_author (one tag per
// author), Dublin Core's creator, Open Graph's article:author (a name; a
// profile URL is passed over).
var authorMeta = []string{"author", "citation_author", "dc.creator", "dcterms.creator", "article:author"}

// maxHead bounds the bytes of a page HeadAuthor parses.
const maxHead = 64 << 10

// HeadAuthor returns the authors an HTML page's <head> names (PageAuthor
// of the page up to its "</head>", at most maxHead bytes): what a corpus
// reads of a page's authors without building the whole page's tree.
func HeadAuthor(src string) string {
	head := src[:min(len(src), maxHead)]
	if i := strings.Index(strings.ToLower(head), "</head>"); i >= 0 {
		head = head[:i]
	}
	doc, err := xhtml.Parse(strings.NewReader(head))
	if err != nil {
		return ""
	}
	return PageAuthor(doc)
}

// PageAuthor returns an HTML page's authors, joined by sourcetext.JoinAuthors
// (at most ten, each bounded), or "" when it names none: JSON-LD's author
// (a name, an object with a name, or a list of them; of the first object
// that has one) first, else the <meta> tags of authorMeta, the first name
// that has any. A URL is not a name.
func PageAuthor(doc *xhtml.Node) string {
	var ld []string
	meta := map[string][]string{}
	var walk func(n *xhtml.Node, depth int)
	walk = func(n *xhtml.Node, depth int) {
		if depth > 512 {
			return
		}
		if n.Type == xhtml.ElementNode {
			switch n.Data {
			case "meta":
				for _, key := range []string{"name", "property", "itemprop"} {
					k := strings.ToLower(strings.TrimSpace(htmlAttr(n, key)))
					if v := htmlAttr(n, "content"); k != "" && isName(v) && len(meta[k]) < 16 {
						meta[k] = append(meta[k], v)
					}
				}
			case "script":
				if len(ld) == 0 && strings.EqualFold(strings.TrimSpace(htmlAttr(n, "type")), "application/ld+json") && n.FirstChild != nil {
					var v any
					if json.Unmarshal([]byte(n.FirstChild.Data), &v) == nil {
						ld = ldAuthors(v, 0)
					}
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	if len(ld) > 0 {
		return sourcetext.JoinAuthors(ld...)
	}
	for _, k := range authorMeta {
		if len(meta[k]) > 0 {
			return sourcetext.JoinAuthors(meta[k]...)
		}
	}
	return ""
}

// ldAuthors finds the authors of the first JSON-LD object that names
// any: an object, an array of them, or a @graph.
func ldAuthors(v any, depth int) []string {
	if depth > 8 {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		if a, ok := v["author"]; ok {
			if names := ldNames(a, 0); len(names) > 0 {
				return names
			}
		}
		if g, ok := v["@graph"]; ok {
			return ldAuthors(g, depth+1)
		}
	case []any:
		for _, e := range v {
			if names := ldAuthors(e, depth+1); len(names) > 0 {
				return names
			}
		}
	}
	return nil
}

// ldNames reads a JSON-LD author: a name, a Person or Organization with a
// name, or a list of them.
func ldNames(v any, depth int) []string {
	switch v := v.(type) {
	case string:
		if isName(v) {
			return []string{v}
		}
	case map[string]any:
		if n, _ := v["name"].(string); isName(n) {
			return []string{n}
		}
	case []any:
		if depth > 0 {
			return nil
		}
		var out []string
		for _, e := range v {
			out = append(out, ldNames(e, depth+1)...)
		}
		return out
	}
	return nil
}

// isName reports whether s can be an author's name: some text that is not
// a URL.
func isName(s string) bool {
	s = strings.TrimSpace(s)
	l := strings.ToLower(s)
	return s != "" && !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "//")
}
