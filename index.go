package deepresearch

import (
	"context"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/clock"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/rs/zerolog"
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

// IndexOptions are what Index does beyond reading the folder. The zero
// value builds a full-text index and reports nothing on the way.
type IndexOptions struct {
	// Embedder, when set, embeds the new passages (IndexStats.Embedded
	// counts them) for hybrid search, as a Researcher with Config.Embedder
	// does: its calls are retried DefaultMaxRetries times, and it must
	// name its model (a Name() string method, as NewEmbedder's have), by
	// which the index keeps the vectors.
	Embedder Embedder
	// Progress, when set, is called after each file looked at and after
	// each batch of passages embedded, with the counts so far (Dir,
	// IndexPath, Documents and Skips left out), on the goroutine that
	// indexes, which waits for it: it should be quick.
	Progress func(IndexStats)
}

// Index builds or updates the index of the documents in dir (empty: the
// Go distribution's documentation, written into the user's cache
// directory on first use) in the SQLite file indexPath (empty: the user's
// cache directory), with opts. Only new and changed files are read.
//
// A dir that does not exist fails with ErrNoCorpusFolder; one that leaves
// the index without documents (empty, or all its files skipped) fails with
// ErrEmptyCorpus, and the stats say what was skipped and why.
func Index(ctx context.Context, dir, indexPath string, opts IndexOptions) (IndexStats, error) {
	var copts []corpus.Option
	if opts.Embedder != nil {
		r := &Researcher{cfg: Config{Embedder: opts.Embedder, Clock: clock.Real()}, log: zerolog.Nop()}
		if err := r.setEmbedder(); err != nil {
			return IndexStats{}, &StageError{Stage: events.StageIndex, Err: err}
		}
		copts = r.indexOptions()
	}
	dir, indexPath, err := corpusPaths(ctx, dir, indexPath)
	if err != nil {
		return IndexStats{}, &StageError{Stage: events.StageIndex, Err: err}
	}
	if opts.Progress != nil {
		copts = append(copts, corpus.WithProgress(func(st corpus.SyncStats) { opts.Progress(indexStats("", "", st)) }))
	}
	ix, err := corpus.Open(ctx, indexPath, copts...)
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

// corpusPaths is corpus.Paths, its errors marked as ErrCorpus.
func corpusPaths(ctx context.Context, dir, indexPath string) (string, string, error) {
	dir, indexPath, err := corpus.Paths(ctx, dir, indexPath)
	if err != nil {
		return "", "", corpusError{err}
	}
	return dir, indexPath, nil
}

// localIndex is the Researcher's local corpus index as a search backend,
// opened and synced on first use.
type localIndex struct{ r *Researcher }

func (l localIndex) Search(ctx context.Context, q string, limit int) ([]SearchResult, error) {
	ix, err := l.r.openIndex(ctx)
	if err != nil {
		return nil, err
	}
	return ix.Search(ctx, q, limit)
}

func (l localIndex) Fetch(ctx context.Context, id string) (Document, error) {
	ix, err := l.r.openIndex(ctx)
	if err != nil {
		return Document{}, err
	}
	return ix.Fetch(ctx, id)
}
