package corpus

import "errors"

var (
	// ErrOtherCorpus reports a Sync of a folder into an index that belongs
	// to another folder.
	ErrOtherCorpus = errors.New("index belongs to another folder")
	// ErrSchema reports a database this package cannot use: written by a
	// newer version, or not a corpus index at all.
	ErrSchema = errors.New("unusable index schema")
	// ErrNoCorpus reports that DefaultCorpus found no Go distribution, or
	// one without sources or a doc folder.
	ErrNoCorpus = errors.New("no default corpus folder")
	// ErrNoFolder reports a corpus folder that does not exist, or is not
	// a folder (see CheckFolder and Sync).
	ErrNoFolder = errors.New("no such folder")
	// ErrNoDocuments reports a corpus folder that holds no document the
	// index reads: empty, or only files of other formats (CheckFolder),
	// or only documents that were skipped (SyncStats.Documents is 0).
	ErrNoDocuments = errors.New("no document to index")
)

// Error is the error of every exported function and method of this package
// that fails: it names the operation and what it was applied to, and wraps
// the cause, which errors.Is and errors.As see (a sentinel above,
// search.ErrNotFound, a *fs.PathError, context.Canceled or the context's
// cause, an SQLite error). Its message starts with "corpus: " once; the
// messages it wraps carry no such prefix.
type Error struct {
	Op      string // "open", "open folder", "sync", "search", "fetch", "close", "find default corpus", "make default corpus from", "find default index for"
	Subject string // the index file, the corpus folder, or the query or document and the index file
	Err     error
}

func (e *Error) Error() string {
	if e.Subject == "" {
		return "corpus: " + e.Op + ": " + e.Err.Error()
	}
	return "corpus: " + e.Op + " " + e.Subject + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }
