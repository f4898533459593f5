package source

import "testing"

func TestLabel(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  Source
		want string
	}{
		{"title", Source{ID: "w1", URL: "https://e.org/a", Title: "  Spaced\n title "}, "Spaced title"},
		{"no title", Source{ID: "corpus/a.md"}, "corpus/a.md"},
		{"no url names the id", Source{ID: "corpus/notes.md", Title: "Field notes"}, "Field notes. corpus/notes.md"},
		{"title equals id", Source{ID: "notes", Title: "notes"}, "notes"},
		{"escape sequences", Source{ID: "x", URL: "https://e.org", Title: "Red\x1b[31m text\u009b"}, "Red[31m text"},
	} {
		if got := tc.src.Label(); got != tc.want {
			t.Errorf("%s: Label() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
