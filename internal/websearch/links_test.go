package websearch_test

import (
	"errors"
	"testing"

	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/search"
)

// TestResolveLinks: a web page's links name the pages they point to,
// relative ones against the page's URL, without fragments; never a page
// on an internal or loopback address, another scheme, or the page itself.
func TestResolveLinks(t *testing.T) {
	e, err := websearch.New("searxng", websearch.Config{SearXNGURL: "http://searx.example.org:8888"})
	if err != nil {
		t.Fatal(err)
	}
	const from = "https://docs.example.org/guide/cgroups/index.html#intro"
	tests := []struct{ ref, want string }{
		{"../memory/limits.html#max", "https://docs.example.org/guide/memory/limits.html"},
		{"spec-ctrl.html", "https://docs.example.org/guide/cgroups/spec-ctrl.html"},
		{"/kernel/userspace-api/spec_ctrl.html", "https://docs.example.org/kernel/userspace-api/spec_ctrl.html"},
		{"https://other.example.net/page?q=1", "https://other.example.net/page?q=1"},
		{"#usage", ""},
		{"index.html", ""},
		{"http://127.0.0.1:8080/admin", ""},
		{"http://[::1]/", ""},
		{"http://10.1.2.3/", ""},
		{"http://169.254.169.254/latest/meta-data/", ""},
		{"http://localhost:6060/debug/pprof/", ""},
		{"http://printer.local/", ""},
		{"http://metadata.google.internal/", ""},
		{"http://intranet/", ""},
		{"https://user:pass@docs.example.org/", ""},
		{"javascript:alert(1)", ""},
		{"mailto:someone@example.org", ""},
		{"file:///etc/passwd", ""},
		// What "see …" points to, a link's words, an rst label: names,
		// not links, which no page's address is made of.
		{"Control Groups", ""},
		{"Using swap files with software suspend", ""},
		{"cgroup-v2", ""},
	}
	for _, tt := range tests {
		got, err := e.Resolve(t.Context(), from, tt.ref)
		switch {
		case tt.want == "" && !errors.Is(err, search.ErrNotFound):
			t.Errorf("Resolve(%q) = %q, %v; want search.ErrNotFound", tt.ref, got, err)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
		}
	}
	c, err := websearch.Combine(websearch.Hooks{}, websearch.Member{Name: "searxng", Backend: e})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Resolve(t.Context(), from, "spec-ctrl.html"); err != nil || got != "https://docs.example.org/guide/cgroups/spec-ctrl.html" {
		t.Errorf("Combined.Resolve = %q, %v", got, err)
	}
}
