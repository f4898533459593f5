package corpus_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/corpus"
)

// TestIndexSaysWhatItDid (issue 32): Index counts every file, lists each
// one it skips with the reason, reports its progress as it goes, and
// fails with ErrNoDocuments, the stats still filled in, when the index is
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
	st, err := corpus.Index(context.Background(), dir, corpus.Options{IndexPath: indexPath})
	if !errors.Is(err, corpus.ErrNoDocuments) || !errors.Is(err, corpus.ErrCorpus) {
		t.Fatalf("Index of a folder of skipped files: %v, want ErrNoDocuments", err)
	}
	want := "corpus: sync " + dir + ": no document to index: 2 files, all skipped (broken.md: contains NUL bytes; photo.png: not a format the index reads (.png))"
	if err.Error() != want {
		t.Errorf("message %q\nwant %q", err, want)
	}
	if st.Scanned != 2 || st.Skipped != 2 || len(st.Skips) != 2 || !st.Skips[1].Unsupported || st.Documents != 0 {
		t.Errorf("stats %+v", st)
	}

	write("cable.md", "# Cable\n\nThe cable ship Monarch.\n")
	s := config.Defaults()
	s.Corpus.Dir, s.Corpus.Index = dir, indexPath
	var seen []corpus.Stats
	st, err = config.Index(context.Background(), s, func(p corpus.Stats) { seen = append(seen, p) })
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

	_, err = corpus.Index(context.Background(), filepath.Join(dir, "missing"), corpus.Options{IndexPath: indexPath})
	if !errors.Is(err, corpus.ErrNoFolder) || !strings.Contains(err.Error(), "missing: no such folder") {
		t.Errorf("Index of a missing folder: %v", err)
	}
}

// TestOpenRefusesAFolderItCannotSearch (issue 32): a corpus folder that
// does not exist, or holds no document the index reads, is refused by
// Open, naming the folder, before any search; it reads no file.
func TestOpenRefusesAFolderItCannotSearch(t *testing.T) {
	base := t.TempDir()
	others := filepath.Join(base, "others")
	if err := os.MkdirAll(others, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(others, "photo.png"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dir  string
		want error
		msg  string
	}{
		{filepath.Join(base, "nope"), corpus.ErrNoFolder, "no such folder"},
		{filepath.Join(base, "empty"), corpus.ErrNoDocuments, "the folder is empty"},
		{others, corpus.ErrNoDocuments, "1 file, of formats the index does not read (photo.png)"},
	} {
		c, err := corpus.Open(tt.dir, corpus.Options{IndexPath: filepath.Join(t.TempDir(), "i.db")})
		if err == nil {
			c.Close()
		}
		if !errors.Is(err, tt.want) || !errors.Is(err, corpus.ErrCorpus) || !strings.Contains(err.Error(), tt.dir) || !strings.HasSuffix(err.Error(), tt.msg) {
			t.Errorf("Open %s: %v, want %v naming the folder, ending %q", tt.dir, err, tt.want, tt.msg)
		}
	}
}

// TestCorpusIndexesOnFirstUse: a Corpus is a search backend that builds
// its index on its first search, finds what a later file adds only after
// Sync, and opens its index again after Close.
func TestCorpusIndexesOnFirstUse(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cable.md", "# Cable\n\nThe cable ship Monarch laid the telegraph line.\n")
	indexPath := filepath.Join(t.TempDir(), "i.db")
	c, err := corpus.Open(dir, corpus.Options{IndexPath: indexPath})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := os.Stat(indexPath); !os.IsNotExist(err) {
		t.Fatalf("Open made the index file (stat: %v); it should wait for the first use", err)
	}
	if c.Dir() != dir || c.Name() != "corpus" || c.Channel() != "corpus" || c.EmbeddingModel() != "" {
		t.Errorf("Dir %q Name %q Channel %q EmbeddingModel %q", c.Dir(), c.Name(), c.Channel(), c.EmbeddingModel())
	}
	ctx := context.Background()
	res, err := c.Search(ctx, "telegraph ship", 5)
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Title+res[0].DocID, "cable") {
		t.Fatalf("first search: %+v, %v; want the cable page", res, err)
	}
	doc, err := c.Fetch(ctx, res[0].DocID)
	if err != nil || !strings.Contains(doc.Text, "Monarch") {
		t.Fatalf("Fetch %s: %+v, %v", res[0].DocID, doc, err)
	}

	write("whale.md", "# Whale\n\nThe sperm whale dives to great depths.\n")
	if res, err := c.Search(ctx, "sperm whale dives", 5); err != nil || len(res) != 0 {
		t.Errorf("a file added after the first use was searched before Sync: %+v, %v", res, err)
	}
	st, err := c.Sync(ctx)
	if err != nil || st.Added != 1 || st.Unchanged != 1 || st.Documents != 2 || st.Dir != dir || st.IndexPath != indexPath {
		t.Fatalf("Sync: %+v, %v; want the new file added", st, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Search(ctx, "sperm whale dives", 5); err != nil || len(res) == 0 {
		t.Errorf("search after Close: %+v, %v; want the index opened again", res, err)
	}
}

// TestCorpusLogsSkippedDocuments: when the index is brought up to date,
// the Logger hears the counts, skipped ones included, and a warning for
// each document skipped (its path and reason), the first ten of them;
// files of formats the index does not read are counted, not warned of.
func TestCorpusLogsSkippedDocuments(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"cable.md": "# Cable\n\nThe cable ship Monarch.\n", "photo.png": "x"}
	for i := range 12 {
		files[fmt.Sprintf("broken%02d.md", i)] = "nul\x00byte"
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var logged bytes.Buffer
	log := zerolog.New(&logged)
	c, err := corpus.Open(dir, corpus.Options{IndexPath: filepath.Join(t.TempDir(), "i.db"), Logger: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Level, Message, Path, Reason string
		Skipped, More                int
	}
	var got []entry
	for line := range bytes.Lines(logged.Bytes()) {
		var e entry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		got = append(got, e)
	}
	if len(got) != 12 || got[0].Message != "corpus indexed" || got[0].Skipped != 13 {
		t.Fatalf("logged %+v, want the counts (13 skipped), ten skipped documents and how many more", got)
	}
	for i, e := range got[1:11] {
		if want := (entry{Level: "warn", Message: "document skipped", Path: fmt.Sprintf("broken%02d.md", i), Reason: "contains NUL bytes"}); e != want {
			t.Errorf("warning %d: %+v, want %+v", i, e, want)
		}
	}
	if e := got[11]; e.Level != "warn" || e.More != 2 {
		t.Errorf("last warning %+v, want 2 more", e)
	}
}
