package deepresearchtest

import (
	"path/filepath"
	"testing"

	"github.com/deepresearch/deepresearch/corpus"
)

// Corpus opens the corpus of the documents in dir (empty: the Go
// distribution's documentation) with its index in indexPath (empty: a
// file in tb.TempDir()), for deepresearch.Config.Search, and closes it
// when the test ends. A folder that cannot be opened fails the test.
func Corpus(tb testing.TB, dir, indexPath string) *corpus.Corpus {
	tb.Helper()
	if indexPath == "" {
		indexPath = filepath.Join(tb.TempDir(), "index.db")
	}
	c, err := corpus.Open(dir, corpus.Options{IndexPath: indexPath})
	if err != nil {
		tb.Fatalf("opening the corpus %s: %v", dir, err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
