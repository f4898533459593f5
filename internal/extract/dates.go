package extract

import (
	"cmp"
	"encoding/json"
	"strings"

	xhtml "golang.org/x/net/html"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// Metadata names of a page's publication and modification dates, in the
// order they are believed: Open Graph's article tags first, then
// schema.org microdata, Dublin Core and the common ad-hoc names.
var (
	publishedMeta = []string{"article:published_time", "og:article:published_time", "datepublished",
		"dcterms.issued", "dcterms.created", "dc.date.issued", "dc.date", "citation_publication_date",
		"publication_date", "publish-date", "publish_date", "pubdate", "date"}
	modifiedMeta = []string{"article:modified_time", "og:updated_time", "og:article:modified_time",
		"datemodified", "dcterms.modified", "last-modified", "lastmod"}
	dateMeta = func() map[string]bool {
		m := map[string]bool{}
		for _, k := range append(publishedMeta, modifiedMeta...) {
			m[k] = true
		}
		return m
	}()
)

// PageDates returns an HTML page's publication and modification dates, in
// ISO 8601 (sourcetext.ParseDate), or "" where the page states none that can
// be read. It believes, in this order: JSON-LD (datePublished,
// dateModified), <meta> tags (article:published_time,
// article:modified_time, og:updated_time, itemprop datePublished and
// dateModified, Dublin Core, date), a <time> marked as the publication
// date (itemprop="datePublished" or pubdate), then the first <time
// datetime> of the page's <article> (of the page, when it has none) as
// its publication date. A value that is not a date is passed over for the
// next.
func PageDates(doc *xhtml.Node) (published, modified string) {
	meta := map[string]string{} // by known name, lower-cased: its first readable date
	var ldPublished, ldModified, marked, inArticle, anyTime string
	var walk func(n *xhtml.Node, article bool, depth int)
	walk = func(n *xhtml.Node, article bool, depth int) {
		if depth > 512 {
			return
		}
		if n.Type == xhtml.ElementNode {
			switch n.Data {
			case "meta":
				for _, key := range []string{"property", "name", "itemprop"} {
					// The first readable date of each known name counts.
					if k := strings.ToLower(strings.TrimSpace(htmlAttr(n, key))); dateMeta[k] && meta[k] == "" {
						meta[k] = sourcetext.ParseDate(htmlAttr(n, "content"))
					}
				}
			case "script":
				if strings.EqualFold(strings.TrimSpace(htmlAttr(n, "type")), "application/ld+json") && n.FirstChild != nil {
					var v any
					if json.Unmarshal([]byte(n.FirstChild.Data), &v) == nil {
						p, m := ldDates(v, 0)
						ldPublished, ldModified = cmp.Or(ldPublished, p), cmp.Or(ldModified, m)
					}
				}
				return
			case "article":
				article = true
			case "time":
				d := sourcetext.ParseDate(htmlAttr(n, "datetime"))
				if d == "" {
					d = sourcetext.ParseDate(textOf(n))
				}
				prop := strings.ToLower(htmlAttr(n, "itemprop"))
				switch {
				case d == "":
				case prop == "datemodified":
					meta[prop] = cmp.Or(meta[prop], d)
				case prop == "datepublished" || hasAttr(n, "pubdate"):
					marked = cmp.Or(marked, d)
				case article:
					inArticle = cmp.Or(inArticle, d)
				default:
					anyTime = cmp.Or(anyTime, d)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, article, depth+1)
		}
	}
	walk(doc, false, 0)
	published = ldPublished
	for _, k := range publishedMeta {
		published = cmp.Or(published, meta[k])
	}
	modified = ldModified
	for _, k := range modifiedMeta {
		modified = cmp.Or(modified, meta[k])
	}
	return cmp.Or(published, marked, inArticle, anyTime), modified
}

// ldDates finds the first datePublished and dateModified of a JSON-LD
// value: an object, an array of them, or a @graph.
func ldDates(v any, depth int) (published, modified string) {
	if depth > 8 {
		return "", ""
	}
	switch v := v.(type) {
	case map[string]any:
		p, _ := v["datePublished"].(string)
		m, _ := v["dateModified"].(string)
		published, modified = sourcetext.ParseDate(p), sourcetext.ParseDate(m)
		if published != "" || modified != "" {
			return published, modified
		}
		if g, ok := v["@graph"]; ok {
			return ldDates(g, depth+1)
		}
	case []any:
		for _, e := range v {
			p, m := ldDates(e, depth+1)
			published, modified = cmp.Or(published, p), cmp.Or(modified, m)
		}
	}
	return published, modified
}

func htmlAttr(n *xhtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *xhtml.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// textOf is the text of n's children, up to 64 bytes: enough for a date.
func textOf(n *xhtml.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil && b.Len() <= 64; c = c.NextSibling {
		if c.Type == xhtml.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}
