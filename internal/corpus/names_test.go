package corpus

import (
	"errors"
	"fmt"
	"testing"

	"github.com/deepresearch/deepresearch/search"
)

// namesCorpus is a small documentation tree that names its pages by
// title, path, label, heading and URL.
var namesCorpus = map[string]string{
	"admin-guide/cgroup-v2.rst": ".. _cgroup-v2:\n\n================\nControl Group v2\n================\n\nIntro text.\n\n" +
		".. _cgroup-v2-memory:\n\nMemory Interface Files\n======================\n\nmemory.max is the hard limit.\n",
	"admin-guide/cgroup-v1/index.rst": "=============\nControl Groups\n=============\n\nVersion one.\n",
	"userspace-api/spec_ctrl.rst":     "===================\nSpeculation Control\n===================\n\nPR_GET_SPECULATION_CTRL reads the setting.\n",
	"userspace-api/index.rst":         "=================\nThe userspace API\n=================\n\nSee :doc:`spec_ctrl` and ../admin-guide/cgroup-v2.rst.\n",
	"power/swsusp-and-swap-files.rst": "======================================\nUsing swap files with software suspend\n======================================\n\nSwap text.\n",
	"leds/leds-class.rst":             "========================\nLED handling under Linux\n========================\n\nLED text.\n",
	"guide/index.md":                  "---\nurl: https://example.org/guide/\n---\n\n# The Guide\n\nGuide text.\n",
	"init.rst":                        "====\nInit\n====\n\nInit text.\n",
	"go/bug.md":                       "---\nurl: https://pkg.go.dev/cmd/go#hdr-Start_a_bug_report\n---\n\n# go bug\n\nBug text.\n",
	"go/testflag.md":                  "---\nurl: https://pkg.go.dev/cmd/go#hdr-Testing_flags\n---\n\n# go help testflag\n\nFlags text.\n",
}

func TestResolve(t *testing.T) {
	ix := openIndex(t)
	dir := t.TempDir()
	writeDocs(t, dir, namesCorpus)
	if _, err := ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, from, ref, want string // want "": names nothing
	}{
		{"a relative link", "userspace-api/index.rst", "../admin-guide/cgroup-v2.rst", "admin-guide/cgroup-v2.rst"},
		{"a relative link with a fragment", "userspace-api/index.rst", "../admin-guide/cgroup-v2.rst#memory-interface-files", "admin-guide/cgroup-v2.rst"},
		{"a hyphenated path under a folder the corpus root is", "", "Documentation/userspace-api/spec_ctrl.rst", "userspace-api/spec_ctrl.rst"},
		{"a path without its extension", "", "userspace-api/spec_ctrl", "userspace-api/spec_ctrl.rst"},
		{"a hyphenated file name", "", "power/swsusp-and-swap-files", "power/swsusp-and-swap-files.rst"},
		{"an rst :doc: target, relative", "userspace-api/index.rst", "./spec_ctrl", "userspace-api/spec_ctrl.rst"},
		{"an rst :doc: target from the root", "leds/leds-class.rst", "/admin-guide/cgroup-v2", "admin-guide/cgroup-v2.rst"},
		{"a title", "", "Using swap files with software suspend", "power/swsusp-and-swap-files.rst"},
		{"a title, emphasis and case aside", "", "*led HANDLING under linux*", "leds/leds-class.rst"},
		{"a title before a heading", "", "Control Groups", "admin-guide/cgroup-v1/index.rst"},
		{"an rst label", "", "cgroup-v2-memory", "admin-guide/cgroup-v2.rst"},
		{"a heading", "", "Memory Interface Files", "admin-guide/cgroup-v2.rst"},
		{"a file name", "", "leds-class", "leds/leds-class.rst"},
		{"a declared URL", "", "https://example.org/guide/#install", "guide/index.md"},
		{"a declared URL with its fragment", "", "https://pkg.go.dev/cmd/go#hdr-Testing_flags", "go/testflag.md"},
		{"a URL that only some section's URL starts with", "", "https://pkg.go.dev/cmd/go", ""},
		{"a document's own title", "admin-guide/cgroup-v2.rst", "Control Group v2", ""},
		{"a path whose folders name no document", "", "kernel/init", ""},
		{"an unknown title", "", "Nothing by this name", ""},
		{"a fragment", "userspace-api/index.rst", "#usage", ""},
		{"another scheme", "", "mailto:someone@example.org", ""},
		{"javascript", "", "javascript:alert(1)", ""},
		{"a file URL", "", "file:///etc/passwd", ""},
		{"an unknown URL", "", "https://example.org/other", ""},
		{"empty", "", "  ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ix.Resolve(t.Context(), tt.from, tt.ref)
			switch {
			case tt.want == "" && !errors.Is(err, search.ErrNotFound):
				t.Errorf("Resolve(%q, %q) = %q, %v; want search.ErrNotFound", tt.from, tt.ref, got, err)
			case tt.want != "" && (err != nil || got != tt.want):
				t.Errorf("Resolve(%q, %q) = %q, %v; want %q", tt.from, tt.ref, got, err, tt.want)
			}
		})
	}
}

// TestResolveNearest: of two documents with one name, the one nearest
// the referring document wins; names follow a document's changes and
// removal.
func TestResolveNearest(t *testing.T) {
	ix := openIndex(t)
	dir := t.TempDir()
	writeDocs(t, dir, map[string]string{
		"a/x/index.md": "# Overview\n\nA's overview.\n",
		"b/x/index.md": "# Overview\n\nB's overview.\n",
		"b/y/page.md":  "# Page\n\nSee *Overview*.\n",
	})
	if _, err := ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	for from, want := range map[string]string{"b/y/page.md": "b/x/index.md", "a/z.md": "a/x/index.md", "": "a/x/index.md"} {
		if got, err := ix.Resolve(t.Context(), from, "Overview"); err != nil || got != want {
			t.Errorf("Resolve(%q, Overview) = %q, %v; want %q", from, got, err, want)
		}
	}

	writeDocs(t, dir, map[string]string{"a/x/index.md": "# Summary of A\n\nA's summary, longer now.\n"})
	if _, err := ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	if got, err := ix.Resolve(t.Context(), "", "Overview"); err != nil || got != "b/x/index.md" {
		t.Errorf("after a/x/index.md's title changed, Overview = %q, %v; want b/x/index.md", got, err)
	}
	if got, err := ix.Resolve(t.Context(), "", "Summary of A"); err != nil || got != "a/x/index.md" {
		t.Errorf("the new title resolves to %q, %v", got, err)
	}
}

// TestResolveManyNamesakes: however many documents go by a name, a title
// still wins over file names, and the nearest document wins over those
// first by path.
func TestResolveManyNamesakes(t *testing.T) {
	ix := openIndex(t)
	dir := t.TempDir()
	docs := map[string]string{
		"zz/guide.md":     "# Notes\n\nThe guide titled Notes.\n",
		"zz/sub/page.md":  "# Page\n\nSee Overview.\n",
		"zz/sub/intro.md": "# Overview\n\nThe nearest overview.\n",
	}
	for i := range 70 {
		docs[fmt.Sprintf("d%02d/notes.md", i)] = fmt.Sprintf("# Folder %d\n\nText %d.\n", i, i)
		docs[fmt.Sprintf("d%02d/over.md", i)] = fmt.Sprintf("# Overview\n\nOverview %d.\n", i)
	}
	writeDocs(t, dir, docs)
	if _, err := ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ from, ref, want string }{
		{"", "Notes", "zz/guide.md"},
		{"zz/sub/page.md", "Overview", "zz/sub/intro.md"},
		{"", "Overview", "d00/over.md"},
		{"zz/sub/intro.md", "Overview", ""},
	} {
		got, err := ix.Resolve(t.Context(), tt.from, tt.ref)
		switch {
		case tt.want == "" && !errors.Is(err, search.ErrNotFound):
			t.Errorf("Resolve(%q, %q) = %q, %v; want search.ErrNotFound", tt.from, tt.ref, got, err)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", tt.from, tt.ref, got, err, tt.want)
		}
	}
}
