package deepresearch

import (
	"context"
	"fmt"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/corpus"
)

// IndexStats reports what Index did. Its JSON form is what `deepresearch
// index --json` prints.
type IndexStats struct {
	Dir       string `json:"dir"`
	IndexPath string `json:"index"`
	// Scanned counts the files of the folder outside hidden files and
	// folders; each is Added, Updated, Unchanged or Skipped.
	Scanned   int `json:"scanned"`
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Removed   int `json:"removed"`
	Unchanged int `json:"unchanged"`
	Skipped   int `json:"skipped"`
	Passages  int `json:"passages"`
	// Embedded counts the passages embedded (Researcher.Index with an
	// Embedder): new text only.
	Embedded int `json:"embedded"`
	// Documents is how many documents the index holds once it is done.
	Documents int `json:"documents"`
	// Skips lists every file not indexed, each with the reason: files of
	// formats the index does not read (IndexSkip.Unsupported), links that
	// leave the corpus folder, special files, oversized, binary,
	// encrypted or malformed documents, gzip bombs.
	Skips []IndexSkip `json:"skips"`
}

// IndexSkip is an entry of the corpus folder that was not indexed.
type IndexSkip = corpus.Skip

// IndexHooks observe an index build. Nil fields are skipped.
type IndexHooks struct {
	// Progress is called after each file looked at and after each batch
	// of passages embedded, with the counts so far (Dir, IndexPath,
	// Documents and Skips left out), on the goroutine that indexes, which
	// waits for it: it should be quick.
	Progress func(IndexStats)
}

// Index builds or updates the full-text index of the documents in dir
// (empty: the Go distribution's documentation, written into the user's
// cache directory on first use) in the SQLite file indexPath (empty: the
// user's cache directory). Only new and changed files are read.
//
// A dir that does not exist fails with ErrNoCorpusFolder; one that leaves
// the index without documents (empty, or all its files skipped) fails with
// ErrEmptyCorpus, and the stats say what was skipped and why.
func Index(ctx context.Context, dir, indexPath string) (IndexStats, error) {
	return index(ctx, dir, indexPath, IndexHooks{})
}

// index is Index with the hooks and the index's options (an embedding
// model).
func index(ctx context.Context, dir, indexPath string, hooks IndexHooks, opts ...corpus.Option) (IndexStats, error) {
	dir, indexPath, err := corpusPaths(ctx, dir, indexPath)
	if err != nil {
		return IndexStats{}, &StageError{Stage: events.StageIndex, Err: err}
	}
	if hooks.Progress != nil {
		opts = append(opts, corpus.WithProgress(func(st corpus.SyncStats) { hooks.Progress(indexStats("", "", st)) }))
	}
	ix, err := corpus.Open(ctx, indexPath, opts...)
	if err != nil {
		return IndexStats{}, &StageError{Stage: events.StageIndex, Err: corpusError{err}}
	}
	defer ix.Close()
	st, err := ix.Sync(ctx, dir)
	if err != nil {
		return IndexStats{}, &StageError{Stage: events.StageIndex, Err: corpusError{err}}
	}
	return indexed(dir, indexPath, st)
}

// indexed is the IndexStats of a Sync of dir into indexPath, with the
// error of an index left without documents.
func indexed(dir, indexPath string, st corpus.SyncStats) (IndexStats, error) {
	out := indexStats(dir, indexPath, st)
	if err := corpus.NoDocuments(st); err != nil {
		return out, &StageError{Stage: events.StageIndex, Err: corpusError{&corpus.Error{Op: "sync", Subject: dir, Err: err}}}
	}
	return out, nil
}

// indexStats is the IndexStats of a corpus.SyncStats.
func indexStats(dir, indexPath string, st corpus.SyncStats) IndexStats {
	return IndexStats{Dir: dir, IndexPath: indexPath, Scanned: st.Scanned, Added: st.Added, Updated: st.Updated,
		Removed: st.Removed, Unchanged: st.Unchanged, Skipped: st.Skipped, Passages: st.Passages, Embedded: st.Embedded,
		Documents: st.Documents, Skips: st.Skips}
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
