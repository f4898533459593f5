package collapse_test

import (
	"testing"

	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
)

// TestSeed: seeded sources take the first numbers, keep their Fixed
// numbers, and are cited under them by a report that retrieved them
// again (under another spelling of the URL, or by [ref: URL]); a new
// source is numbered after them, and seeding after a merge fails.
func TestSeed(t *testing.T) {
	m := collapse.NewMerger()
	err := m.Seed([]collapse.Source{
		{Source: src("a", "https://example.org/a"), Fixed: 4},
		{Source: src("b", "https://example.org/b"), Fixed: 2},
		{Source: src("a2", "https://EXAMPLE.org/a#top"), Fixed: 9}, // the same page as a: not numbered again
		{Source: src("doc.md", ""), Fixed: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	mr, err := m.Add(collapse.Report{Section: "s",
		Text:    "New [1]. Again b [2]. The document [3]. Named [ref: https://example.org/a].",
		Mapping: map[int]source.Source{1: src("new", "https://example.org/new"), 2: src("b2", "https://example.org/b"), 3: src("doc.md", "")}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "New [4]. Again b [2]. The document [3]. Named [1]."; mr.Text != want {
		t.Errorf("merged text %q, want %q", mr.Text, want)
	}
	got := m.Sources()
	type row struct {
		n, fixed int
		id       string
	}
	want := []row{{1, 4, "a"}, {2, 2, "b"}, {3, 3, "doc.md"}, {4, 0, "new"}}
	if len(got) != len(want) {
		t.Fatalf("%d sources, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := (row{got[i].Number, got[i].Fixed, got[i].ID}); g != w {
			t.Errorf("source %d = %+v, want %+v", i+1, g, w)
		}
	}
	if err := m.Seed(nil); err == nil {
		t.Error("a seed after a merge was taken")
	}
}
