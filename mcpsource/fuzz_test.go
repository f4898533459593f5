package mcpsource

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzResult holds what becomes of any tool output to its invariants:
// every title and snippet line is valid UTF-8 without control characters
// and bounded, every document's text bounded and without control
// characters but tab and newline, whatever the text, its JSON shapes or
// locator lines hold.
func FuzzResult(f *testing.F) {
	for _, s := range []string{
		"Echo: hello",
		"/docs/a.md\n/docs/b.md\n",
		`{"results": [{"path": "/a\u001b[31m.md", "title": "T\u0007", "text": "x\u009b2J"}]}`,
		`[{"uri": "demo://r/1", "snippet": "s"}]`,
		"\x1b]0;title\x07\xff\xfe" + strings.Repeat("é", 3000),
	} {
		f.Add(s, "/docs/x.md")
	}
	f.Fuzz(func(t *testing.T, text, loc string) {
		const limit = 4096
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		for _, c := range candidates(res, "mcp://s/t?q=x", limit) {
			title, body := readText(cmpLoc(c.loc, loc), c.text, c.title, limit)
			line := cleanLine(c.snippet, maxSnippet)
			for _, s := range []string{title, line} {
				if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
					t.Fatalf("line %q is not clean", s)
				}
			}
			if len(title) > 300+len("…") || len(line) > maxSnippet+len("…") {
				t.Fatalf("a line of %d bytes", max(len(title), len(line)))
			}
			if len(body) > limit+200 || strings.ContainsFunc(body, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r == 0x7f }) {
				t.Fatalf("text of %d bytes, or with control characters: %q", len(body), body)
			}
		}
	})
}

func cmpLoc(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
