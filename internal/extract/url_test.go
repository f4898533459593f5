package extract

import "testing"

// TestDeclaredURL checks which URLs a document may declare for itself, in
// Markdown front matter and in an HTML canonical link: only absolute http
// and https ones; anything else leaves the document without a URL.
func TestDeclaredURL(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"yaml.md", "---\ntitle: Bufio\nurl: https://pkg.go.dev/bufio\n---\n\n# Bufio\n\nText.\n", "https://pkg.go.dev/bufio"},
		{"quoted.md", "---\nurl: \"https://pkg.go.dev/cmd/go#hdr-Test_packages\"\n---\n\nText.\n", "https://pkg.go.dev/cmd/go#hdr-Test_packages"},
		{"toml.md", "+++\nurl = 'http://example.com/a'\n+++\n\nText.\n", "http://example.com/a"},
		{"upper-scheme.md", "---\nurl: HTTPS://go.dev/ref/spec\n---\n\nText.\n", "https://go.dev/ref/spec"},
		{"first-wins.md", "---\nurl: https://a.example/\nurl: https://b.example/\n---\n\nText.\n", "https://a.example/"},
		{"javascript.md", "---\nurl: javascript:alert(1)\n---\n\nText.\n", ""},
		{"file.md", "---\nurl: file:///etc/passwd\n---\n\nText.\n", ""},
		{"data.md", "---\nurl: data:text/html,<b>x</b>\n---\n\nText.\n", ""},
		{"relative.md", "---\nurl: /ref/spec\n---\n\nText.\n", ""},
		{"no-host.md", "---\nurl: https:///path\n---\n\nText.\n", ""},
		{"userinfo.md", "---\nurl: https://pkg.go.dev@evil.example/\n---\n\nText.\n", ""},
		{"escape-stripped.md", "---\nurl: https://go.dev/\x1b[31mred\n---\n\nText.\n", "https://go.dev/red"}, // Extract cleans the text first
		{"space.md", "---\nurl: https://go.dev/a b\n---\n\nText.\n", ""},
		{"unclosed.md", "---\nurl: https://go.dev/\n\nText.\n", ""},
		{"not-front-matter.md", "# T\n\nurl: https://go.dev/\n", ""},
		{"canonical.html", `<html><head><link rel="canonical" href="https://go.dev/ref/spec"></head><body><p>x</p></body></html>`, "https://go.dev/ref/spec"},
		{"canonical-tokens.html", `<link href="https://go.dev/ref/mem" rel="Alternate Canonical" /><p>x</p>`, "https://go.dev/ref/mem"},
		{"canonical-js.html", `<link rel="canonical" href="javascript:alert(1)"><p>x</p>`, ""},
		{"stylesheet.html", `<link rel="stylesheet" href="https://go.dev/s.css"><p>x</p>`, ""},
		{"canonical-in-script.html", `<script><link rel="canonical" href="https://evil.example/"></script><p>x</p>`, ""},
		{"text.txt", "url: https://go.dev/\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Extract(tt.name, tt.src, FormatOf(tt.name))
			if d.URL != tt.want {
				t.Errorf("URL = %q, want %q", d.URL, tt.want)
			}
		})
	}
}

func TestDeclaredURLDirect(t *testing.T) {
	for _, s := range []string{"https://go.dev/\x1b[31m", "https://go.dev/\x07", "https://go.dev/a\\b", "ftp://go.dev/", "mailto:a@b.example"} {
		if got := DeclaredURL(s); got != "" {
			t.Errorf("DeclaredURL(%q) = %q, want \"\"", s, got)
		}
	}
}
