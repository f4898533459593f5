package mcpsource

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// candidate is one document a search tool's result names.
type candidate struct {
	loc, title, snippet string
	text                string
	hasText             bool
}

// Field names read from a structured result's items.
var (
	locFields     = []string{"url", "uri", "path", "link", "file", "id"}
	titleFields   = []string{"title", "name"}
	textFields    = []string{"text", "content", "body"}
	snippetFields = []string{"snippet", "description", "summary", "excerpt"}
)

// candidates reads the documents a search result names: the items of its
// structured content (a list, or an object's results, items or
// documents), its resource links and embedded resources, and its text:
// JSON of the same shapes, a list of locators (one path or URI a line),
// or else a document of its own, located at synthetic.
func candidates(res *mcp.CallToolResult, synthetic string, maxText int) []candidate {
	if cs := structured(res.StructuredContent); len(cs) > 0 {
		return cs
	}
	var out []candidate
	var texts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			var v any
			if json.Unmarshal([]byte(c.Text), &v) == nil {
				if cs := structured(v); len(cs) > 0 {
					out = append(out, cs...)
					continue
				}
			}
			if locs, ok := locatorLines(c.Text); ok {
				for _, l := range locs {
					out = append(out, candidate{loc: l})
				}
				continue
			}
			texts = append(texts, c.Text)
		case *mcp.ResourceLink:
			out = append(out, candidate{loc: c.URI, title: firstOf(c.Title, c.Name), snippet: c.Description})
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.URI != "" {
				if text, ok := resourceText(c.Resource); ok {
					out = append(out, candidate{loc: c.Resource.URI, text: text, hasText: true})
				} else {
					out = append(out, candidate{loc: c.Resource.URI})
				}
			}
		}
	}
	if len(texts) > 0 && len(out) == 0 {
		out = append(out, candidate{loc: synthetic, text: bound(strings.Join(texts, "\n\n"), maxText), hasText: true})
	}
	return out
}

// structured reads a list of documents from a structured value: a list
// of objects, or an object holding one under results, items or
// documents. Items without a locator are skipped.
func structured(v any) []candidate {
	var list []any
	switch v := v.(type) {
	case []any:
		list = v
	case map[string]any:
		for _, k := range []string{"results", "items", "documents"} {
			if l, ok := v[k].([]any); ok {
				list = l
				break
			}
		}
	}
	var out []candidate
	for _, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			continue
		}
		c := candidate{loc: field(obj, locFields), title: field(obj, titleFields), snippet: field(obj, snippetFields)}
		if t := field(obj, textFields); t != "" {
			c.text, c.hasText = t, true
		}
		if c.loc != "" {
			out = append(out, c)
		}
	}
	return out
}

func field(obj map[string]any, names []string) string {
	for _, n := range names {
		switch x := obj[n].(type) {
		case string:
			if strings.TrimSpace(x) != "" {
				return x
			}
		case float64:
			return fmt.Sprint(x)
		}
	}
	return ""
}

// locatorLines returns text's lines when every non-empty one is a
// locator: an absolute path or a URI.
func locatorLines(text string) ([]string, bool) {
	var out []string
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		if !isLocator(l) {
			return nil, false
		}
		out = append(out, l)
	}
	return out, len(out) > 0
}

// isLocator reports whether s is an absolute path or a URI (a scheme and
// more, no white space), without control characters.
func isLocator(s string) bool {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return false
	}
	if strings.HasPrefix(s, "/") {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "" || u.Path != "") && !strings.ContainsAny(s, " \t")
}

// resourceText is a resource's text: its text, or a blob of a text
// media type.
func resourceText(r *mcp.ResourceContents) (string, bool) {
	if r.Text != "" {
		return r.Text, true
	}
	if len(r.Blob) > 0 && (strings.HasPrefix(r.MIMEType, "text/") || r.MIMEType == "application/json") {
		return string(r.Blob), true
	}
	return "", false
}

// resultText joins a result's texts and text resources, bounded at max
// bytes.
func resultText(res *mcp.CallToolResult, max int) string {
	var b strings.Builder
	for _, c := range res.Content {
		var t string
		switch c := c.(type) {
		case *mcp.TextContent:
			t = c.Text
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				t, _ = resourceText(c.Resource)
			}
		}
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
		if b.Len() > max {
			break
		}
	}
	if b.Len() == 0 {
		if s, ok := res.StructuredContent.(map[string]any); ok {
			return bound(field(s, append(textFields, "result")), max)
		}
	}
	return bound(b.String(), max)
}

// boundNote is room for the note bound adds to a text it cuts.
const boundNote = 100

// bound cuts s to at most max bytes, at a rune, and says so at the end.
func bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n\n[… cut: the result was %d bytes; the first %d are kept]", len(s), cut)
}

// cleanLine is s as one clean line (sourcetext.Clean) of at most n bytes.
func cleanLine(s string, n int) string {
	if len(s) > 4*n {
		s = s[:4*n]
	}
	s = sourcetext.Clean(extract.Clean(strings.ToValidUTF8(s, "")))
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// firstOf returns the first non-blank of ss.
func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// urlOf is a locator's URL: a file: URL for a path, the URI itself
// otherwise.
func urlOf(loc string) string {
	if strings.HasPrefix(loc, "/") {
		return (&url.URL{Scheme: "file", Path: loc}).String()
	}
	return loc
}

// docName is the file name a locator ends in, which tells its format.
func docName(loc string) string {
	if u, err := url.Parse(loc); err == nil && u.Scheme != "" {
		loc = u.Path
	}
	return path.Base(loc)
}

// read turns a tool's or a resource's untrusted text into a document's
// title and text: bounded at maxText, cleaned and read as its file name
// says (markdown, HTML, text), as a corpus file is (extract.Extract).
func readText(loc, raw, title string, maxText int) (string, string) {
	name := docName(loc)
	f := extract.FormatOf(name)
	switch f {
	case extract.FormatPDF, extract.FormatDOCX, extract.FormatPPTX, extract.FormatEPUB, extract.FormatXLSX, extract.FormatODS, extract.FormatODT:
		f = extract.FormatText // a tool answers in text, whatever the file's format
	}
	// Invalid bytes become U+FFFD (three bytes each) before the bound, not
	// after it, and the extracted text is bounded again: cleaning may not
	// grow a bounded text past its bound.
	d := extract.Extract(name, bound(strings.ToValidUTF8(raw, "\uFFFD"), maxText), f)
	t := cleanLine(firstOf(title, d.Title, loc), 300)
	return t, bound(d.Text, maxText+boundNote)
}
