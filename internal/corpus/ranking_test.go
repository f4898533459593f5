package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rankingCorpus writes docs (name → Markdown) into a new folder, with
// enough unrelated documents that every query word is rare, and returns
// an index of it.
func rankingCorpus(t *testing.T, docs map[string]string) *Index {
	t.Helper()
	dir := t.TempDir()
	filler := func(i int) string {
		var b strings.Builder
		for j := range 60 {
			fmt.Fprintf(&b, "word%d ", (i*7+j)%97)
		}
		return b.String()
	}
	for i := range 40 {
		docs[fmt.Sprintf("filler/%02d.md", i)] = fmt.Sprintf("# Filler %d\n\n%s\n", i, filler(i))
	}
	for name, text := range docs {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := openIndex(t)
	if _, err := ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestRankingSignals checks each ranking signal on documents that differ
// in that signal only: a match in the title beats one in a heading, which
// beats one in the body; the query's words as a phrase beat the same words
// nearby, which beat the same words far apart.
func TestRankingSignals(t *testing.T) {
	pad := "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor " // 12 words
	tests := []struct {
		name  string
		query string
		docs  map[string]string
		order []string // best first
	}{
		{
			name:  "title, heading, body",
			query: "quokka",
			docs: map[string]string{
				"title.md":   "# Quokka\n\n## Habitat\n\n" + pad + pad + "\n",
				"heading.md": "# Marsupials\n\n## Quokka\n\n" + pad + pad + "\n",
				"body.md":    "# Marsupials\n\n## Habitat\n\n" + pad + "quokka " + pad + "\n",
			},
			order: []string{"title.md", "heading.md", "body.md"},
		},
		{
			name:  "phrase, near, scattered",
			query: "memory model",
			docs: map[string]string{
				"phrase.md":      "# Notes\n\n" + pad + "the memory model of " + pad + pad + pad + "\n",
				"z-near.md":      "# Notes\n\n" + pad + "the model of memory " + pad + pad + pad + "\n",
				"a-scattered.md": "# Notes\n\n" + pad + "the memory " + pad + pad + "model of " + pad + "\n",
			},
			order: []string{"phrase.md", "z-near.md", "a-scattered.md"},
		},
		{
			name:  "near beats scattered across stop words and words between",
			query: "happens before relation",
			docs: map[string]string{
				"z-near.md":      "# Notes\n\n" + pad + "a relation that happens just before " + pad + pad + "\n",
				"a-scattered.md": "# Notes\n\n" + "happens a " + pad + pad + "before that " + pad + "just relation\n",
			},
			order: []string{"z-near.md", "a-scattered.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := rankingCorpus(t, tt.docs)
			res, err := ix.Search(t.Context(), tt.query, 10)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res {
				got = append(got, r.DocID)
			}
			if strings.Join(got, " ") != strings.Join(tt.order, " ") {
				var all []string
				for _, r := range res {
					all = append(all, fmt.Sprintf("%.3f %s", r.Score, r.DocID))
				}
				t.Errorf("Search(%q) order %v, want %v\n%s", tt.query, got, tt.order, strings.Join(all, "\n"))
			}
		})
	}
}
