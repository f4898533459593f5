package deepresearch

import (
	"context"
	"fmt"

	"github.com/deepresearch/deepresearch/internal/corpus"
)

// IndexStats reports what Index did.
type IndexStats struct {
	Dir, IndexPath                                       string
	Scanned, Added, Updated, Removed, Unchanged, Skipped int
	Passages                                             int
	// Embedded counts the passages embedded (Researcher.Index with an
	// Embedder): new text only.
	Embedded int
	// Skips lists the entries not indexed, each with the reason: links
	// that leave the corpus folder, special files, oversized or binary
	// files.
	Skips []IndexSkip
}

// IndexSkip is an entry of the corpus folder that was not indexed.
type IndexSkip = corpus.Skip

// Index builds or updates the full-text index of the documents in dir
// (empty: the Go distribution's documentation, written into the user's
// cache directory on first use) in the SQLite file indexPath (empty: the
// user's cache directory). Only new and changed files are read.
func Index(ctx context.Context, dir, indexPath string) (IndexStats, error) {
	return index(ctx, dir, indexPath)
}

// index is Index with the index's options (an embedding model).
func index(ctx context.Context, dir, indexPath string, opts ...corpus.Option) (IndexStats, error) {
	dir, indexPath, err := corpusPaths(ctx, dir, indexPath)
	if err != nil {
		return IndexStats{}, &StageError{Stage: StageIndex, Err: err}
	}
	ix, err := corpus.Open(ctx, indexPath, opts...)
	if err != nil {
		return IndexStats{}, &StageError{Stage: StageIndex, Err: corpusError{err}}
	}
	defer ix.Close()
	st, err := ix.Sync(ctx, dir)
	if err != nil {
		return IndexStats{}, &StageError{Stage: StageIndex, Err: corpusError{err}}
	}
	return IndexStats{Dir: dir, IndexPath: indexPath, Scanned: st.Scanned, Added: st.Added, Updated: st.Updated,
		Removed: st.Removed, Unchanged: st.Unchanged, Skipped: st.Skipped, Passages: st.Passages, Embedded: st.Embedded, Skips: st.Skips}, nil
}

// corpusPaths fills in the defaults: the Go distribution's documentation
// for an empty dir (corpus.DefaultCorpus, which writes it into the user's
// cache directory the first time), a file in the user's cache directory
// for an empty indexPath.
func corpusPaths(ctx context.Context, dir, indexPath string) (string, string, error) {
	if dir == "" {
		d, err := corpus.DefaultCorpus(ctx)
		if err != nil {
			return "", "", corpusError{fmt.Errorf("no corpus configured and %w", err)}
		}
		dir = d
	}
	if indexPath == "" {
		p, err := corpus.DefaultPath(dir)
		if err != nil {
			return "", "", corpusError{err}
		}
		indexPath = p
	}
	return dir, indexPath, nil
}
