package citeproc

import (
	"io"
	"slices"
	"testing"
)

// The Marker hook reports every marker with its input offset, whatever the
// chunking and the mode.
func TestMarkerHook(t *testing.T) {
	in := "A [1] and [2, 4-5].\n```\n[7]\n```\nAgain [1], `[8]`, [x](y) [ref: https://e.com/a] 【3】 [[S:1,2]]."
	want := []struct {
		raw  string
		nums []int
		url  string
	}{
		{"[1]", []int{1}, ""},
		{"[2, 4-5]", []int{2, 4, 5}, ""},
		{"[1]", []int{1}, ""},
		{"[ref: https://e.com/a]", nil, "https://e.com/a"},
		{"【3】", []int{3}, ""},
		{"[[S:1,2]]", []int{1, 2}, ""},
	}
	for _, mode := range []Mode{Keep, Link, Remove, Renumber} {
		for _, size := range []int{len(in), 1, 2, 3} {
			var got []Marker
			p := New(io.Discard, Config{Mode: mode, Hooks: Hooks{Marker: func(m Marker) {
				m.Numbers = slices.Clone(m.Numbers)
				got = append(got, m)
			}}})
			for i := 0; i < len(in); i += size {
				if _, err := p.WriteString(in[i:min(len(in), i+size)]); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("mode %d chunk %d: %d markers, want %d: %+v", mode, size, len(got), len(want), got)
			}
			for i, w := range want {
				g := got[i]
				if raw := in[g.Offset : g.Offset+int64(g.Len)]; raw != w.raw || !slices.Equal(g.Numbers, w.nums) || g.URL != w.url {
					t.Errorf("mode %d chunk %d marker %d: %q %v %q, want %q %v %q", mode, size, i, raw, g.Numbers, g.URL, w.raw, w.nums, w.url)
				}
			}
		}
	}
}
