package fetch

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"

	"github.com/deepresearch/deepresearch/internal/extract"
)

// content is what toText makes of a body.
type content struct {
	mediaType, title, text string
	published, modified    string // an HTML page's dates (extract.PageDates)
	author                 string // its metadata's author (extract.PageAuthor, a PDF's or DOCX's)
}

// toText turns a body into text according to its media type: HTML to its
// main text (internal/extract) and its dates, text and markdown as they
// are, each decoded from its charset to UTF-8; PDF, office documents and
// EPUB through documentText. Every other type is an ErrContentType, with a
// message an agent can act on.
func toText(ctx context.Context, body []byte, header, pageURL string) (content, error) {
	mediaType, _, perr := mime.ParseMediaType(header)
	if perr != nil || mediaType == "" || mediaType == "application/octet-stream" {
		header = http.DetectContentType(body)
		mediaType, _, _ = mime.ParseMediaType(header)
	}
	c := content{mediaType: strings.ToLower(mediaType)}
	switch {
	case c.mediaType == "text/html" || c.mediaType == "application/xhtml+xml":
		utf8Body, err := decode(body, header)
		if err != nil {
			return c, err
		}
		a, err := extract.ReadableArticle(utf8Body, pageURL)
		c.title, c.published, c.modified, c.author = a.Title, a.Published, a.Modified, a.Author
		if err != nil || strings.TrimSpace(a.Text) == "" {
			return c, fmt.Errorf("%w in the HTML page", ErrNoText)
		}
		c.text = a.Text
		return c, nil
	case strings.HasPrefix(c.mediaType, "text/"):
		utf8Body, err := decode(body, header)
		if err != nil {
			return c, err
		}
		c.text = cleanText(string(utf8Body))
		if strings.TrimSpace(c.text) == "" {
			return c, fmt.Errorf("%w: the page is empty", ErrNoText)
		}
		return c, nil
	case documentFormats[c.mediaType] != extract.FormatNone:
		doc, err := documentText(ctx, body, documentFormats[c.mediaType], pageURL)
		c.title, c.text, c.author = doc.Title, doc.Text, doc.Author
		return c, err
	}
	return c, fmt.Errorf("%w: %s (only HTML, plain text, markdown, PDF, office documents and EPUB can be read)", ErrContentType, c.mediaType)
}

// decode converts body to UTF-8 from the charset its Content-Type header
// declares, or else that a BOM or an HTML meta tag declares, or else UTF-8
// when the body is valid UTF-8 (windows-1252 otherwise).
func decode(body []byte, header string) ([]byte, error) {
	enc, name, _ := charset.DetermineEncoding(body, header)
	if name == "utf-8" {
		body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
		return bytes.ToValidUTF8(body, []byte("\uFFFD")), nil
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), body)
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", name, err)
	}
	return bytes.ToValidUTF8(out, []byte("\uFFFD")), nil
}

// cleanText drops control and invisible format characters other than
// newline and tab, normalises line ends to '\n' and trims trailing spaces.
func cleanText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for line := range strings.Lines(s) {
		line = strings.TrimRightFunc(strings.Map(keepRune, line), unicode.IsSpace)
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

func keepRune(r rune) rune {
	switch {
	case r == '\t':
		return r
	case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r):
		return -1
	}
	return r
}
