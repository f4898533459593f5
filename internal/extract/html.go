package extract

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// skippedElements are HTML elements whose content is not visible text, or
// is page furniture rather than the document.
var skippedElements = map[string]bool{
	"script": true, "style": true, "nav": true, "noscript": true, "template": true,
	"svg": true, "math": true, "iframe": true, "object": true, "canvas": true,
	"select": true, "button": true, "footer": true,
}

// blockElements start and end a block of text.
var blockElements = map[string]bool{
	"p": true, "div": true, "li": true, "dt": true, "dd": true, "blockquote": true,
	"table": true, "thead": true, "tbody": true, "tfoot": true, "caption": true,
	"section": true, "article": true, "main": true, "header": true, "aside": true,
	"figure": true, "figcaption": true, "ul": true, "ol": true, "dl": true, "hr": true,
	"address": true, "details": true, "summary": true, "form": true, "fieldset": true,
	"legend": true, "body": true, "html": true, "center": true,
}

var headingLevels = map[string]int{"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}

// htmlExtractor turns an HTML token stream into a document: visible text in
// blocks, headings as sections, <title> (or the Go website's JSON metadata
// comment, or the only <h1>) as the title, <link rel="canonical"> as the
// URL.
type htmlExtractor struct {
	b    builder
	z    *html.Tokenizer
	line int // line the current token starts on

	skip      string // element being skipped, "" when not skipping
	skipDepth int

	buf          strings.Builder // current block
	first, last  int             // its source lines
	pendingSpace bool
	pre          int // depth of <pre>

	headLevel int // >0 inside <hN>
	head      strings.Builder
	inTitle   bool
	title     strings.Builder
	jsonTitle string
}

func extractHTML(src, fallback string) Document {
	x := &htmlExtractor{z: html.NewTokenizer(strings.NewReader(src)), line: 1}
	for {
		tt := x.z.Next()
		if tt == html.ErrorToken {
			break // io.EOF: the tokenizer reads from a string
		}
		raw := x.z.Raw()
		start := x.line
		x.line += bytes.Count(raw, []byte{'\n'})
		switch tt {
		case html.TextToken:
			x.text(raw, start)
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := x.z.TagName()
			if string(name) == "link" && hasAttr && x.skip == "" {
				x.link()
			}
			x.startTag(string(name), tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			name, _ := x.z.TagName()
			x.endTag(string(name))
		case html.CommentToken:
			x.comment(x.z.Text())
		}
	}
	x.endHeading()
	x.flush()
	switch t := collapseSpace(x.title.String()); {
	case t != "":
		x.b.metaTitle = t
	case x.jsonTitle != "":
		x.b.metaTitle = x.jsonTitle
	}
	d := x.b.finish(fallback)
	d.Text = squeezeBlankLines(x.b.out.String())
	return d
}

func (x *htmlExtractor) text(raw []byte, line int) {
	if x.skip != "" {
		return
	}
	text := Clean(html.UnescapeString(string(raw)))
	switch {
	case x.inTitle:
		x.title.WriteString(text)
		return
	case x.headLevel > 0:
		x.head.WriteString(text)
		return
	}
	// Source lines of the first and last visible characters.
	if i := strings.IndexFunc(string(raw), notSpace); i >= 0 {
		if x.first == 0 {
			x.first = line + bytes.Count(raw[:i], []byte{'\n'})
		}
		j := bytes.LastIndexFunc(raw, notSpace)
		x.last = line + bytes.Count(raw[:j], []byte{'\n'})
	}
	if x.pre > 0 {
		x.buf.WriteString(text)
		return
	}
	for _, r := range text {
		if unicode.IsSpace(r) {
			x.pendingSpace = true
			continue
		}
		if x.pendingSpace && x.buf.Len() > 0 && !strings.HasSuffix(x.buf.String(), "\n") {
			x.buf.WriteByte(' ')
		}
		x.pendingSpace = false
		x.buf.WriteRune(r)
	}
}

func notSpace(r rune) bool { return !unicode.IsSpace(r) }

func (x *htmlExtractor) startTag(name string, selfClosing bool) {
	if x.skip != "" {
		if name == x.skip && !selfClosing {
			x.skipDepth++
		}
		return
	}
	if skippedElements[name] {
		if !selfClosing {
			x.skip, x.skipDepth = name, 1
		}
		return
	}
	switch {
	case name == "title":
		x.inTitle = !selfClosing
	case headingLevels[name] > 0:
		x.endHeading()
		x.flush()
		x.headLevel = headingLevels[name]
		x.head.Reset()
	case name == "pre":
		x.endHeading()
		x.flush()
		x.pre++
	case name == "br":
		if x.headLevel > 0 {
			x.head.WriteByte(' ')
		} else if x.buf.Len() > 0 {
			x.buf.WriteByte('\n')
			x.pendingSpace = false
		}
	case name == "tr":
		// A table is one block, a row a line, cells separated by " | ".
		x.endHeading()
		if x.buf.Len() > 0 && !strings.HasSuffix(x.buf.String(), "\n") {
			x.buf.WriteByte('\n')
		}
		x.pendingSpace = false
	case name == "td" || name == "th":
		if x.buf.Len() > 0 && !strings.HasSuffix(x.buf.String(), "\n") {
			x.buf.WriteString(" | ")
		}
		x.pendingSpace = false
	case blockElements[name]:
		x.endHeading()
		x.flush()
		if name == "li" {
			x.buf.WriteString("- ")
		}
	}
}

func (x *htmlExtractor) endTag(name string) {
	if x.skip != "" {
		if name == x.skip {
			if x.skipDepth--; x.skipDepth == 0 {
				x.skip = ""
			}
		}
		return
	}
	switch {
	case name == "title":
		x.inTitle = false
	case headingLevels[name] > 0:
		x.endHeading()
	case name == "pre":
		x.flush()
		x.pre = max(x.pre-1, 0)
	case blockElements[name]:
		x.flush()
	}
}

// link reads a <link rel="canonical" href="…">: the first one with a URL
// DeclaredURL accepts is the document's URL.
func (x *htmlExtractor) link() {
	if x.b.metaURL != "" {
		return
	}
	var rel, href string
	for {
		k, v, more := x.z.TagAttr()
		switch string(k) {
		case "rel":
			rel = string(v)
		case "href":
			href = strings.TrimSpace(string(v))
		}
		if !more {
			break
		}
	}
	for _, r := range strings.Fields(rel) {
		if strings.EqualFold(r, "canonical") {
			x.b.metaURL = DeclaredURL(href)
			return
		}
	}
}

// comment reads the JSON metadata comment that opens the Go website's
// pages: <!--{ "Title": "The Go Memory Model", ... }-->.
func (x *htmlExtractor) comment(data []byte) {
	data = bytes.TrimSpace(data)
	if x.jsonTitle != "" || len(data) == 0 || data[0] != '{' {
		return
	}
	var meta struct{ Title string }
	if json.Unmarshal(data, &meta) == nil {
		x.jsonTitle = collapseSpace(Clean(meta.Title))
	}
}

func (x *htmlExtractor) endHeading() {
	if x.headLevel == 0 {
		return
	}
	x.b.heading(x.headLevel, x.head.String())
	x.headLevel = 0
	x.head.Reset()
}

func (x *htmlExtractor) flush() {
	text := x.buf.String()
	x.buf.Reset()
	x.pendingSpace = false
	if text == "-" || text == "- " {
		return // an empty list item
	}
	x.b.block(text, x.pre > 0, x.first, x.last)
	x.first, x.last = 0, 0
}
