package engine

import "testing"

// TestDocKey: follow compares web pages by canonical URL, so a link to a
// page already read (with a fragment, a tracking parameter, an upper-case
// host) is not read again; corpus IDs are compared as they are.
func TestDocKey(t *testing.T) {
	same := [][2]string{
		{"https://Example.com/guide#install", "https://example.com/guide"},
		{"https://example.com/guide?utm_source=x", "https://example.com/guide"},
	}
	for _, p := range same {
		if docKey(p[0]) != docKey(p[1]) {
			t.Errorf("docKey(%q) = %q, docKey(%q) = %q; want one page", p[0], docKey(p[0]), p[1], docKey(p[1]))
		}
	}
	if docKey("docs/Guide.md") != "docs/Guide.md" || docKey("https://example.com/a") == docKey("https://example.com/b") {
		t.Error("docKey merges documents that differ")
	}
}
