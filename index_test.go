package deepresearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
)

// TestIndexSaysWhatItDid (issue 32): Index counts every file, lists each
// one it skips with the reason, reports its progress as it goes, and
// fails with ErrEmptyCorpus, the stats still filled in, when the index is
// left without documents.
func TestIndexSaysWhatItDid(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("broken.md", "nul\x00byte")
	write("photo.png", "x")
	indexPath := filepath.Join(t.TempDir(), "i.db")
	st, err := deepresearch.Index(context.Background(), dir, indexPath, deepresearch.IndexOptions{})
	if !errors.Is(err, deepresearch.ErrEmptyCorpus) || !errors.Is(err, deepresearch.ErrCorpus) {
		t.Fatalf("Index of a folder of skipped files: %v, want ErrEmptyCorpus", err)
	}
	want := "deepresearch: index: corpus: sync " + dir + ": no document to index: 2 files, all skipped (broken.md: contains NUL bytes; photo.png: not a format the index reads (.png))"
	if err.Error() != want {
		t.Errorf("message %q\nwant %q", err, want)
	}
	if st.Scanned != 2 || st.Skipped != 2 || len(st.Skips) != 2 || !st.Skips[1].Unsupported || st.Documents != 0 {
		t.Errorf("stats %+v", st)
	}

	write("cable.md", "# Cable\n\nThe cable ship Monarch.\n")
	s := config.Defaults()
	s.Corpus.Dir, s.Corpus.Index = dir, indexPath
	var seen []deepresearch.IndexStats
	st, err = config.Index(context.Background(), s, func(p deepresearch.IndexStats) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 1 || st.Skipped != 2 || st.Documents != 1 || st.Dir != dir || st.IndexPath != indexPath {
		t.Errorf("stats %+v", st)
	}
	if len(seen) != 3 || seen[2].Scanned != 3 || seen[2].Added != 1 || seen[2].Skips != nil {
		t.Errorf("progress %+v", seen)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"scanned":3`, `"skipped":2`, `"documents":1`, `"path":"photo.png","reason":"not a format the index reads (.png)","unsupported":true`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("JSON %s lacks %s", b, field)
		}
	}

	_, err = deepresearch.Index(context.Background(), filepath.Join(dir, "missing"), indexPath, deepresearch.IndexOptions{})
	if !errors.Is(err, deepresearch.ErrNoCorpusFolder) || !strings.Contains(err.Error(), "missing: no such folder") {
		t.Errorf("Index of a missing folder: %v", err)
	}
}
