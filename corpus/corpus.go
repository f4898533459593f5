// Package corpus is the built-in search backend: a full-text index of a
// folder of documents (Markdown, text, HTML, PDF, office documents,
// spreadsheets, man pages, …) kept in an SQLite file, searched with BM25
// over passages and fused with vector similarity when an embedding model
// is given.
//
// Open returns a *Corpus, a search.Backend for deepresearch.Config.Search
// that builds or updates its index on first use; Index does the same ahead
// of time, once. Only new and changed files are read each time. A Corpus
// of the empty folder is the Go distribution's documentation (its standard
// library's packages with their examples, the go command's help and
// $(go env GOROOT)/doc), written into the user's cache directory the first
// time: the offline default.
package corpus

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/embeddings"

	icorpus "github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/retry"
	"github.com/deepresearch/deepresearch/internal/vector"
	"github.com/deepresearch/deepresearch/search"
)

// Channel is the channel of a corpus's results (search.Result.Channel,
// and so a source's).
const Channel = "corpus"

var (
	// ErrCorpus marks every error of a Corpus and of Index: a folder or
	// an index file that could not be opened, read or written.
	ErrCorpus = errors.New("corpus")
	// ErrNoFolder reports a corpus folder that does not exist or is not a
	// folder; the error matches ErrCorpus too.
	ErrNoFolder = icorpus.ErrNoFolder
	// ErrNoDocuments reports a corpus folder that leaves the index without
	// documents: empty, only files of formats the index does not read, or
	// only documents that were skipped. The error matches ErrCorpus too,
	// and says what was found.
	ErrNoDocuments = icorpus.ErrNoDocuments
)

// Options configure a Corpus. The zero value indexes for full-text search
// only, in a file of the user's cache directory, and logs nothing.
type Options struct {
	// IndexPath is the index's SQLite file. Empty means a file in the
	// user's cache directory, one per corpus folder.
	IndexPath string
	// Embedder, when set, embeds the passages as they are indexed
	// (incrementally, in batches; the vectors are kept in the index file
	// by EmbeddingModel and content hash), and searches fuse BM25 with
	// vector similarity. deepresearch.NewEmbedder builds a provider's.
	// Failed calls are retried MaxRetries times.
	Embedder embeddings.Embedder
	// EmbeddingModel names Embedder's model ("openai:text-embedding-3-small"),
	// under which the index keeps its vectors, so that another model's are
	// never compared with them. Empty means the Embedder's own Name()
	// (deepresearch.NewEmbedder's have one); an Embedder without one needs
	// it.
	EmbeddingModel string
	// MaxRetries is how many times a failed embedding call is tried again,
	// with exponential backoff from half a second (0: 2, as for the
	// Researcher's model calls; negative: never).
	MaxRetries int
	// Progress, when set, is called after each file looked at and after
	// each batch of passages embedded, with the counts so far (Dir,
	// IndexPath, Documents and Skips left out), on the goroutine that
	// indexes, which waits for it: it should be quick.
	Progress func(Stats)
	// Logger, when set, hears of each time the index is brought up to date
	// (with its counts) and of each embedding call retried.
	Logger *zerolog.Logger
}

// Stats reports what a Sync or Index did. Its JSON form is what
// `deepresearch index --json` prints.
type Stats struct {
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
	// Embedded counts the passages embedded (with Options.Embedder): new
	// text only.
	Embedded int `json:"embedded"`
	// Documents is how many documents the index holds once it is done.
	Documents int `json:"documents"`
	// Skips lists every file not indexed, each with the reason: files of
	// formats the index does not read (Skip.Unsupported), links that
	// leave the corpus folder, special files, oversized, binary,
	// encrypted or malformed documents, gzip bombs, documents the index
	// could not take in the memory it had, and the file an index that
	// died (out of memory, killed) was reading. One such file costs only
	// itself; it is read again once it changes.
	Skips []Skip `json:"skips"`
}

// Skip is an entry of the corpus folder that was not indexed.
type Skip struct {
	// Path is slash-separated, relative to the corpus folder; Go-quoted
	// when it has control characters.
	Path string `json:"path"`
	// Reason is for people: "symbolic link to /etc/passwd, outside the
	// corpus folder".
	Reason string `json:"reason"`
	// Unsupported is true when the file was not read because the index
	// reads no file of its extension ("not a format the index reads
	// (.png)").
	Unsupported bool `json:"unsupported,omitempty"`
}

// Corpus is a folder of documents and its index as a search.Backend (and
// search.Resolver: it finds the document a link, path, title or heading
// names). The index is opened and brought up to date on first use, once;
// Sync does it again. It is safe for concurrent use; Close releases the
// index file until the next use.
type Corpus struct {
	given          string // the folder as given to Open, made absolute
	dir, indexPath string // as given, or the defaults, found on first use
	opts           Options
	embedder       vector.Embedder // Options.Embedder, named and retried; nil: none

	mu     sync.Mutex // guards ix and synced; held while opening and syncing
	ix     *icorpus.Index
	synced bool
}

var (
	_ search.Backend  = (*Corpus)(nil)
	_ search.Resolver = (*Corpus)(nil)
)

// Open returns the Corpus of the documents in dir (empty: the Go
// distribution's documentation). It reads dir's listing and no file: a
// folder that does not exist fails with ErrNoFolder, one with no file of
// a format the index reads with ErrNoDocuments.
func Open(dir string, opts Options) (*Corpus, error) {
	c := &Corpus{dir: dir, indexPath: opts.IndexPath, opts: opts}
	if dir != "" {
		c.given = dir
		if abs, err := filepath.Abs(dir); err == nil {
			c.given = abs
		}
		if err := icorpus.CheckFolder(dir); err != nil {
			return nil, marked(err)
		}
	}
	if err := c.setEmbedder(); err != nil {
		return nil, err
	}
	return c, nil
}

// setEmbedder names Options.Embedder and wraps it in retries.
func (c *Corpus) setEmbedder() error {
	e := c.opts.Embedder
	if e == nil {
		if c.opts.EmbeddingModel != "" {
			return fmt.Errorf("corpus: EmbeddingModel %q is set but Embedder is nil", c.opts.EmbeddingModel)
		}
		return nil
	}
	name := c.opts.EmbeddingModel
	if n, ok := e.(interface{ Name() string }); ok && name == "" {
		name = n.Name()
	}
	if name == "" {
		return errors.New("corpus: EmbeddingModel must name the Embedder's model: the index keeps vectors by it")
	}
	retries := c.opts.MaxRetries
	switch {
	case retries == 0:
		retries = defaults.MaxRetries
	case retries < 0:
		retries = 0
	}
	policy := retry.Policy{Retries: retries, Backoff: 500 * time.Millisecond}
	if log := c.opts.Logger; log != nil {
		policy.OnRetry = func(attempt int, err error) {
			log.Warn().Err(err).Int("attempt", attempt).Str("embeddings", name).Msg("embedding call failed; retrying")
		}
	}
	c.embedder = vector.Named(&retry.Embedder{Embedder: e, Policy: policy}, name)
	return nil
}

// Dir is the corpus folder as given to Open, made absolute; empty for the
// Go distribution's documentation.
func (c *Corpus) Dir() string { return c.given }

// EmbeddingModel names the model the index keeps vectors of; empty
// without an Embedder.
func (c *Corpus) EmbeddingModel() string {
	if c.embedder == nil {
		return ""
	}
	return c.embedder.Name()
}

// Name is "corpus", the corpus's name among combined backends.
func (c *Corpus) Name() string { return Channel }

// Channel is "corpus", the channel of its results.
func (c *Corpus) Channel() string { return Channel }

// Load opens the index and brings it up to date, unless that was done:
// what the first Search does, for a caller that wants its failure (and
// the time it takes) apart from the search's.
func (c *Corpus) Load(ctx context.Context) error {
	_, err := c.index(ctx, nil)
	return err
}

// Sync brings the index up to date now, even when it was already, and
// says what it did. An index left without documents fails with
// ErrNoDocuments, the stats still filled in.
func (c *Corpus) Sync(ctx context.Context) (Stats, error) {
	var st icorpus.SyncStats
	c.mu.Lock()
	c.synced = false
	c.mu.Unlock()
	if _, err := c.index(ctx, &st); err != nil {
		return Stats{}, err
	}
	c.mu.Lock()
	dir, path := c.dir, c.indexPath
	c.mu.Unlock()
	return result(dir, path, st)
}

// Search returns at most limit passages for query, best first, bringing
// the index up to date first when it was not yet.
func (c *Corpus) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	ix, err := c.index(ctx, nil)
	if err != nil {
		return nil, err
	}
	return ix.Search(ctx, query, limit)
}

// Fetch returns the document with the given id, or an error wrapping
// search.ErrNotFound.
func (c *Corpus) Fetch(ctx context.Context, docID string) (search.Document, error) {
	ix, err := c.index(ctx, nil)
	if err != nil {
		return search.Document{}, err
	}
	return ix.Fetch(ctx, docID)
}

// Resolve returns the DocID of the document ref names (a link target, a
// path, a title or a heading), read in the document from.
func (c *Corpus) Resolve(ctx context.Context, from, ref string) (string, error) {
	ix, err := c.index(ctx, nil)
	if err != nil {
		return "", err
	}
	return ix.Resolve(ctx, from, ref)
}

// Close releases the index file; a later call opens it again (and brings
// it up to date). Close is idempotent.
func (c *Corpus) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.synced = false
	if c.ix == nil {
		return nil
	}
	err := c.ix.Close()
	c.ix = nil
	return err
}

// index returns the open index, opening it and syncing it when it was not
// yet; the stats of the sync it made (if any) go into st, when not nil.
func (c *Corpus) index(ctx context.Context, st *icorpus.SyncStats) (*icorpus.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != nil && c.synced {
		return c.ix, nil
	}
	dir, path, err := icorpus.Paths(ctx, c.dir, c.indexPath)
	if err != nil {
		return nil, marked(err)
	}
	c.dir, c.indexPath = dir, path
	if c.ix == nil {
		ix, err := icorpus.Open(ctx, path, c.options()...)
		if err != nil {
			return nil, marked(err)
		}
		c.ix = ix
	}
	start := time.Now()
	s, err := c.ix.Sync(ctx, dir)
	if err != nil {
		return nil, marked(err)
	}
	c.synced = true
	if st != nil {
		*st = s
	}
	if log := c.opts.Logger; log != nil {
		log.Info().Str("corpus", dir).Int("added", s.Added).Int("updated", s.Updated).Int("removed", s.Removed).
			Int("unchanged", s.Unchanged).Int("skipped", s.Skipped).Int("passages", s.Passages).Int("embedded", s.Embedded).
			Dur("took", time.Since(start)).Msg("corpus indexed")
		logSkips(log, dir, s.Skips)
	}
	return c.ix, nil
}

// maxLoggedSkips is how many skipped documents logSkips names one by one.
const maxLoggedSkips = 10

// logSkips warns of the documents of the corpus folder dir that the index
// could not take (files of formats it does not read are left out: they
// are expected), each with its path and reason, the first maxLoggedSkips
// of them, then how many more there are.
func logSkips(log *zerolog.Logger, dir string, skips []icorpus.Skip) {
	n := 0
	for _, s := range skips {
		if s.Unsupported {
			continue
		}
		if n++; n <= maxLoggedSkips {
			log.Warn().Str("corpus", dir).Str("path", s.Path).Str("reason", s.Reason).Msg("document skipped")
		}
	}
	if n > maxLoggedSkips {
		log.Warn().Str("corpus", dir).Int("more", n-maxLoggedSkips).Msg("more documents skipped (deepresearch index lists them)")
	}
}

// options are the index's options: its embedding model and progress.
func (c *Corpus) options() []icorpus.Option {
	var out []icorpus.Option
	if c.embedder != nil {
		out = append(out, icorpus.WithEmbedder(c.embedder))
	}
	if p := c.opts.Progress; p != nil {
		out = append(out, icorpus.WithProgress(func(st icorpus.SyncStats) { p(stats("", "", st)) }))
	}
	return out
}

// Index builds or updates the index of the documents in dir (empty: the
// Go distribution's documentation) as opts say, and closes it: Open, Sync
// and Close at once, what `deepresearch index` does. A dir that does not
// exist fails with ErrNoFolder; one that leaves the index without
// documents (empty, or all its files skipped) with ErrNoDocuments, the
// stats saying what was skipped and why.
func Index(ctx context.Context, dir string, opts Options) (_ Stats, err error) {
	c, err := Open(dir, opts)
	if err != nil {
		return Stats{}, err
	}
	defer func() {
		if cerr := c.Close(); err == nil && cerr != nil {
			err = marked(cerr)
		}
	}()
	return c.Sync(ctx)
}

// result is the Stats of a Sync of dir into path, with the error of an
// index left without documents.
func result(dir, path string, st icorpus.SyncStats) (Stats, error) {
	out := stats(dir, path, st)
	if err := icorpus.NoDocuments(st); err != nil {
		return out, marked(&icorpus.Error{Op: "sync", Subject: dir, Err: err})
	}
	return out, nil
}

// stats is the Stats of an icorpus.SyncStats.
func stats(dir, path string, st icorpus.SyncStats) Stats {
	out := Stats{Dir: dir, IndexPath: path, Scanned: st.Scanned, Added: st.Added, Updated: st.Updated,
		Removed: st.Removed, Unchanged: st.Unchanged, Skipped: st.Skipped, Passages: st.Passages, Embedded: st.Embedded,
		Documents: st.Documents}
	if st.Skips != nil {
		out.Skips = make([]Skip, len(st.Skips))
		for i, s := range st.Skips {
			out.Skips[i] = Skip(s)
		}
	}
	return out
}

// markedError marks an error of the corpus as ErrCorpus without repeating
// the word in its message (icorpus errors start with "corpus: ").
type markedError struct{ err error }

func (e markedError) Error() string   { return e.err.Error() }
func (e markedError) Unwrap() []error { return []error{ErrCorpus, e.err} }

// marked is err marked as ErrCorpus.
func marked(err error) error { return markedError{err} }
