package extract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	trafilatura "github.com/markusmobius/go-trafilatura"
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
// It uses go-trafilatura with its readability and DOM-distiller fallbacks,
// and does no I/O. A 1 KB article costs about 1 ms. Linking it in costs
// every program that does about 190 ms and 78 MB of allocation at start,
// in go-dateparser's package initialisation (pulled in by go-trafilatura
// through go-htmldate), whether or not a page is ever extracted. Paragraphs are separated by newlines. The title and text
// contain no control characters other than '\n' and '\t' (text only; the
// title is one line), and are valid UTF-8 in NFC. html must already be
// UTF-8: its meta charset tags are ignored (internal/fetch decodes pages
// from their charset first).
//
// The error names pageURL and says why: the HTML could not be parsed, the
// page has no readable text, or the extractor panicked (recovered here).
func Readable(html []byte, pageURL string) (title, text string, err error) {
	// The page is untrusted input to a large third-party parser: a panic
	// there is this page's failure, not the caller's.
	defer func() {
		if p := recover(); p != nil {
			title, text = "", ""
			err = fmt.Errorf("extract: readable text of %q: extractor panicked: %v", pageURL, p)
		}
	}()
	opts := trafilatura.Options{
		EnableFallback:  true,
		ExcludeComments: true,
		HtmlDateMode:    trafilatura.Disabled,
	}
	if u, perr := url.Parse(pageURL); perr == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		opts.OriginalURL = u
	}
	// Parse here rather than in trafilatura.Extract, which guesses the
	// charset again and would decode UTF-8 a second time when a meta tag
	// names the charset the page had before it was decoded.
	doc, err := xhtml.Parse(bytes.NewReader(norm.NFC.Bytes(html)))
	if err != nil {
		return "", "", fmt.Errorf("extract: parse HTML of %q: %w", pageURL, err)
	}
	res, err := trafilatura.ExtractDocument(doc, opts)
	if err != nil {
		return "", "", fmt.Errorf("extract: readable text of %q: %w", pageURL, err)
	}
	title = readableOneLine(res.Metadata.Title)
	text = readableClean(res.ContentText)
	if text == "" || text == title {
		// Trafilatura's last resort is the whole document's text, which for
		// a page without a body is its title alone.
		return title, "", fmt.Errorf("extract: readable text of %q: %w", pageURL, readableErrEmpty)
	}
	return title, text, nil
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
