package excerpt

import (
	"slices"
	"strings"
	"testing"
)

// FuzzUnits: whatever the text, every unit is a piece of it at its
// offsets (a fenced block's piece, the fences its cut added aside), units come in order without overlapping, and a cut stays near
// its budget and holds only the text's own lines and the cut's markers.
func FuzzUnits(f *testing.F) {
	f.Add("# T\n\nIntro.\n\n## Usage\n\nTo scan:\n\n    echo scan > /sys/kernel/debug/kmemleak\n\n- a\n- b\n\n```\nx\n```\n")
	f.Add("drop_caches\n===========\n\nWriting to this will cause the kernel to drop clean caches.\n\nTo free pagecache::\n\n\techo 1 > /proc/sys/vm/drop_caches\n")
	f.Add(strings.Repeat("word ", 700))
	f.Add("package main\n\nimport (\n\t\"os\"\n)\n\nfunc main() {\n}\n")
	f.Fuzz(func(t *testing.T, text string) {
		prevEnd := 0
		for _, u := range Units(text) {
			if u.Start < prevEnd || u.Start > len(text) || u.End > len(text) || u.Start > u.End {
				t.Fatalf("unit at [%d:%d] after %d, text of %d bytes", u.Start, u.End, prevEnd, len(text))
			}
			// A piece of a fenced block cut for length carries the fences
			// the cut added: its body is the text's.
			body := strings.TrimSpace(u.Text)
			if f := fenceOf(body); u.Kind == Code && f != "" {
				body = strings.TrimSuffix(strings.TrimPrefix(body, f+"\n"), "\n"+f)
			}
			if !strings.Contains(text[u.Start:], body) {
				t.Fatalf("unit %q is not in the text from its offset", u.Text)
			}
			prevEnd = u.Start
		}
		// The context of a unit is units in document order, the unit among
		// them (WithContext and Section).
		us := Units(text)
		for i := range us {
			for _, idx := range [][]int{WithContext(us, i), Section(us, i, 500)} {
				if !slices.Contains(idx, i) || !slices.IsSorted(idx) || len(slices.Compact(slices.Clone(idx))) != len(idx) {
					t.Fatalf("context %v of unit %d of %d", idx, i, len(us))
				}
				if idx[0] < 0 || idx[len(idx)-1] >= len(us) {
					t.Fatalf("context %v of unit %d out of %d units", idx, i, len(us))
				}
			}
		}
		const budget = 300
		cut := Cut(text, "", "scan caches main", budget)
		if len(text) > budget && len(cut) > budget+maxUnit+200 {
			t.Fatalf("cut of %d bytes for a budget of %d", len(cut), budget)
		}
	})
}
