package extract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	readability "github.com/go-shiori/go-readability"
	xhtml "golang.org/x/net/html"
	"golang.org/x/text/unicode/norm"
)

// readableErrEmpty reports a page with no readable text.
var readableErrEmpty = errors.New("no readable text")

// Readable returns the title and main text of an HTML page: the article,
// without navigation, boilerplate, comments, scripts and styles. pageURL
// (optional) is the page's address, used to resolve relative metadata; an
// unparsable or non-http(s) pageURL is ignored.
//
// It uses go-readability (a port of Mozilla's Readability, the reader view
// of Firefox) and does no I/O. go-trafilatura scores a little higher on
// its own benchmark (F1 0.90 against 0.875) but costs every program that
// links it about 0.45 s and 55 MB at start, in go-dateparser's package
// initialisation, whether or not a page is ever read: too much for a
// command line whose citation commands start in milliseconds.
// Paragraphs, headings and list items are separated by blank lines. The
// title and text contain no control characters other than '\n' and '\t'
// (text only; the title is one line), and are valid UTF-8 in NFC. html
// must already be UTF-8: its meta charset tags are ignored
// (internal/fetch decodes pages from their charset first).
//
// The error names pageURL and says why: the HTML could not be parsed, the
// page has no readable text, or the extractor panicked (recovered here).
func Readable(html []byte, pageURL string) (title, text string, err error) {
	a, err := ReadableArticle(html, pageURL)
	return a.Title, a.Text, err
}

// Article is an HTML page's readable text, its dates and its author.
type Article struct {
	Title, Text string
	// Published and Modified are what the page's metadata says, in ISO
	// 8601 (see PageDates); "" when it says nothing readable.
	Published, Modified string
	// Author is who the page's metadata says wrote it (PageAuthor); ""
	// when it names no one.
	Author string
}

// ReadableArticle is Readable with the page's dates (PageDates), which
// are read from the whole page before its text is extracted. The dates
// are returned even when the page has no readable text.
func ReadableArticle(html []byte, pageURL string) (a Article, err error) {
	// The page is untrusted input to a large third-party parser: a panic
	// there is this page's failure, not the caller's.
	defer func() {
		if p := recover(); p != nil {
			a = Article{}
			err = fmt.Errorf("extract: readable text of %q: extractor panicked: %v", pageURL, p)
		}
	}()
	var u *url.URL
	if pu, perr := url.Parse(pageURL); perr == nil && (pu.Scheme == "http" || pu.Scheme == "https") && pu.Host != "" {
		u = pu
	}
	doc, err := xhtml.Parse(bytes.NewReader(norm.NFC.Bytes(html)))
	if err != nil {
		return Article{}, fmt.Errorf("extract: parse HTML of %q: %w", pageURL, err)
	}
	a.Published, a.Modified = PageDates(doc)
	a.Author = PageAuthor(doc)
	art, err := readability.FromDocument(doc, u)
	if err != nil {
		return a, fmt.Errorf("extract: readable text of %q: %w", pageURL, err)
	}
	a.Title = readableOneLine(art.Title)
	if art.Node != nil {
		var b strings.Builder
		readableText(&b, art.Node, false)
		a.Text = readableClean(b.String())
	}
	if a.Text == "" || a.Text == a.Title {
		a.Text = ""
		return a, fmt.Errorf("extract: readable text of %q: %w", pageURL, readableErrEmpty)
	}
	return a, nil
}

// readableBlocks are the elements that start a paragraph of their own.
var readableBlocks = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "main": true, "header": true, "footer": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "li": true, "dt": true, "dd": true,
	"blockquote": true, "pre": true, "table": true, "tr": true, "ul": true, "ol": true, "dl": true,
	"figure": true, "figcaption": true, "hr": true, "address": true, "details": true, "summary": true,
}

// readableText writes n's text: blank lines around blocks, a line break
// for <br>, white space folded except inside <pre>.
func readableText(b *strings.Builder, n *xhtml.Node, pre bool) {
	switch n.Type {
	case xhtml.TextNode:
		if pre {
			b.WriteString(n.Data)
			return
		}
		t := strings.Join(strings.Fields(n.Data), " ")
		if t == "" {
			if n.Data != "" && b.Len() > 0 && !strings.HasSuffix(b.String(), " ") && !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte(' ')
			}
			return
		}
		if unicode.IsSpace(rune(n.Data[0])) && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
		}
		b.WriteString(t)
		if unicode.IsSpace(rune(n.Data[len(n.Data)-1])) {
			b.WriteByte(' ')
		}
		return
	case xhtml.ElementNode:
		switch n.Data {
		case "script", "style", "noscript", "template", "svg":
			return
		case "br":
			b.WriteByte('\n')
			return
		}
	}
	block := n.Type == xhtml.ElementNode && readableBlocks[n.Data]
	if block {
		b.WriteString("\n\n")
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		readableText(b, c, pre || (n.Type == xhtml.ElementNode && n.Data == "pre"))
	}
	if block {
		b.WriteString("\n\n")
	}
}

// readableClean drops control and format characters other than newline and
// tab, invalid UTF-8 and trailing spaces, and collapses runs of blank lines.
func readableClean(s string) string {
	s = strings.ToValidUTF8(s, "")
	var b strings.Builder
	b.Grow(len(s))
	blank := 0
	for line := range strings.Lines(s) {
		line = strings.TrimRightFunc(strings.Map(readableKeep, line), unicode.IsSpace)
		if line == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank > 0 {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(line)
	}
	return b.String()
}

// readableKeep maps a rune to itself, or to -1 (dropped) for control and
// invisible format characters (bidi overrides, zero-width characters) that
// could hide text from a reader. Tabs are kept; '\r' is dropped.
func readableKeep(r rune) rune {
	switch {
	case r == '\t':
		return r
	case r == '\u00a0':
		return ' '
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
		return -1
	}
	return r
}

// readableOneLine cleans s and joins its lines with spaces.
func readableOneLine(s string) string {
	return strings.Join(strings.Fields(strings.Map(readableKeep, strings.ToValidUTF8(s, ""))), " ")
}
