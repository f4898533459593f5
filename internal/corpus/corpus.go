// Package corpus is the built-in offline search backend: a full-text index
// of a folder of documents (Markdown, plain text, reStructuredText,
// AsciiDoc, Org, TeX, HTML, PDF, DOCX, PPTX, EPUB, XLSX, ODS, CSV and TSV),
// kept in one SQLite database file.
//
// Sync walks the folder and indexes it incrementally; Search and Fetch
// implement search.Backend on top of an FTS5 table ranked with bm25. Each
// document is split into passages of roughly 600–1200 characters at
// paragraph boundaries, and every passage carries where it sits in its
// document (a heading path, a line range for plain text, a page, a row, a
// slide), so a search result can be cited precisely.
//
// One database belongs to one corpus folder: the first Sync records the
// folder, and a Sync of another folder into the same database fails with
// ErrOtherCorpus. DefaultPath names a per-folder database in the user's
// cache directory.
package corpus

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deepresearch/deepresearch/internal/godoc"
	"github.com/deepresearch/deepresearch/internal/vector"
	"github.com/deepresearch/deepresearch/search"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

var _ search.Backend = (*Index)(nil)

// schemaVersion is stored in the database's user_version pragma. A database
// with an older version is rebuilt from scratch by Open (the index is a
// cache of the corpus folder, so nothing is lost but the time of the next
// Sync); a newer one is refused with ErrSchema.
//
// The version changes with the schema, and also with what is stored in it:
// an index keeps the text of unchanged files as it was extracted, so a
// change to extraction must make old indexes rebuild.
//
//   - 1: the first schema.
//   - 2: extracted text is free of control characters and terminal escape
//     sequences (extract.Clean); version 1 indexes may hold them.
//   - 3: passages carry a structured location (loc_kind, loc_value,
//     loc_part: a page, section, row, slide or line range), and PDFs,
//     office documents, EPUB and CSV files are indexed.
//   - 4: passages carry the hash of the text an embedding model reads
//     (embed_hash), and the embeddings table caches vectors by model and
//     that hash (hybrid retrieval; see embed.go).
//   - 5: docs_fts indexes whole documents (title, headings, path, text) for
//     the document-level ranking (rank.go); documents carry the URL they
//     declare for themselves (docs.url: Markdown front matter, an HTML
//     canonical link; extract.Document.URL), which search results and
//     fetches report instead of the file:// URL.
//   - 6: the names table: the names each document goes by (URL, path,
//     title, rst labels, headings), which Resolve looks references up in.
const schemaVersion = 7

// busyTimeout is how long a statement waits for another connection's (or
// another process's) write lock before failing with SQLITE_BUSY.
const busyTimeout = 10 * time.Second

// schema creates the current version. docs holds one row per indexed file, with its
// full extracted text for Fetch; passages holds the passages and
// passages_fts indexes them. passages_fts is contentless (the text lives in
// passages) with contentless_delete, so a document's passages can be
// removed by rowid. skipped remembers files that were read and refused
// (binary, not UTF-8) so an unchanged one is not read again.
var schema = []string{
	`CREATE TABLE meta (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	)`,
	`CREATE TABLE docs (
		id       INTEGER PRIMARY KEY,
		path     TEXT NOT NULL UNIQUE, -- DocID: slash-separated, relative to the corpus root
		title    TEXT NOT NULL,
		size     INTEGER NOT NULL,     -- bytes on disk when indexed
		mtime_ns INTEGER NOT NULL,     -- modification time when indexed, Unix nanoseconds
		hash     TEXT NOT NULL,        -- hex SHA-256 of the file's bytes
		text     TEXT NOT NULL,        -- the whole extracted text
		url      TEXT NOT NULL DEFAULT '', -- the http(s) URL the document declares; '': its file:// URL
		author   TEXT NOT NULL DEFAULT ''  -- who its metadata says wrote it (source.JoinAuthors); '': none
	)`,
	`CREATE TABLE passages (
		id       INTEGER PRIMARY KEY,  -- rowid of passages_fts
		doc_id   INTEGER NOT NULL REFERENCES docs(id),
		seq      INTEGER NOT NULL,     -- order within the document, from 0
		location TEXT NOT NULL,        -- for people: heading path, line range, "p. 7", "row 12"
		loc_kind  TEXT NOT NULL DEFAULT '', -- source.Location: page, section, row, slide, lines
		loc_value TEXT NOT NULL DEFAULT '',
		loc_part  TEXT NOT NULL DEFAULT '', -- a workbook's sheet
		body     TEXT NOT NULL,
		embed_hash TEXT NOT NULL DEFAULT '' -- hex SHA-256 of embedText(title, location, body)
	)`,
	`CREATE INDEX passages_doc ON passages(doc_id)`,
	`CREATE INDEX passages_embed ON passages(embed_hash)`,
	`CREATE TABLE embeddings (
		model  TEXT NOT NULL,          -- the Embedder's name: "openai:text-embedding-3-small"
		hash   TEXT NOT NULL,          -- passages.embed_hash
		vector BLOB NOT NULL,          -- little-endian float32s, unit length
		PRIMARY KEY (model, hash)
	) WITHOUT ROWID`,
	`CREATE VIRTUAL TABLE passages_fts USING fts5(
		title, heading, body,
		content = '', contentless_delete = 1,
		tokenize = 'porter unicode61 remove_diacritics 2'
	)`,
	// docs_fts: rowid = docs.id; the document-level ranking of rank.go.
	`CREATE VIRTUAL TABLE docs_fts USING fts5(
		title, headings, path, body,
		content = '', contentless_delete = 1,
		tokenize = 'porter unicode61 remove_diacritics 2'
	)`,
	// names: what Resolve looks references up in (names.go).
	`CREATE TABLE names (
		name   TEXT NOT NULL,          -- normalised (normName): lower case, spaces collapsed
		doc_id INTEGER NOT NULL REFERENCES docs(id),
		kind   INTEGER NOT NULL        -- nameURL, namePath, nameTitle, nameLabel, nameHeading
	)`,
	`CREATE INDEX names_name ON names(name)`,
	`CREATE INDEX names_doc ON names(doc_id)`,
	`CREATE TABLE skipped (
		path     TEXT PRIMARY KEY,
		size     INTEGER NOT NULL,
		mtime_ns INTEGER NOT NULL,
		reason   TEXT NOT NULL
	)`,
}

// Index is a full-text index of one corpus folder in an SQLite database.
//
// An Index is safe for concurrent use by several goroutines: searches and
// fetches run in parallel on a pool of read connections (the database is in
// WAL mode, so they also run while a Sync writes). Syncs take turns, one
// writer at a time, whether they come from one Index, from several Indexes
// of the same file, or from several processes (see syncLock): a Sync that
// finds another running waits for it, then finds its work done. Other
// writes wait up to 10s for SQLite's lock (busyTimeout).
type Index struct {
	db     *sql.DB
	dbPath string

	emb      vector.Embedder           // nil: lexical search only
	progress func(SyncStats)           // nil: Sync reports nothing as it goes
	vecs     atomic.Pointer[vectorSet] // the embedded passages, loaded on the first hybrid search
	vmu      sync.Mutex                // one load of vecs at a time

	syncMu sync.Mutex             // one Sync of this Index at a time
	lock   *syncLock              // one Sync of this database at a time, in any process
	root   atomic.Pointer[string] // absolute corpus folder; nil before the first Sync
}

// Open opens the index database at dbPath, creating the file, its parent
// folders and the schema if they are missing. A database written by an
// older version of this package is emptied and recreated at the current
// schema; the next Sync re-indexes the folder.
//
// Several Indexes, in one process or several, may open one database at
// once: the one that finds it new or old sets it up (WAL journaling, the
// schema) under the sync lock (see syncLock), and the others wait for it;
// an Index that finds the database ready takes no lock. Open also creates
// the lock file, dbPath with ".lock" added.
//
// With WithEmbedder, Sync also embeds the passages and Search is hybrid
// (see Search).
//
// The caller must Close the Index.
func Open(ctx context.Context, dbPath string, opts ...Option) (*Index, error) {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return nil, &Error{Op: "open", Subject: dbPath, Err: err}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, &Error{Op: "open", Subject: abs, Err: err}
	}
	db, err := sql.Open("sqlite", dsn(abs, indexPragmas...))
	if err != nil {
		return nil, &Error{Op: "open", Subject: abs, Err: err}
	}
	db.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)))
	db.SetMaxIdleConns(max(4, runtime.GOMAXPROCS(0)))
	ix := &Index{db: db, dbPath: abs}
	for _, o := range opts {
		o(ix)
	}
	fail := func(err error) (*Index, error) {
		db.Close()
		if ix.lock != nil {
			ix.lock.close()
		}
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return nil, &Error{Op: "open", Subject: abs, Err: err}
	}
	if ix.lock, err = openSyncLock(abs); err != nil {
		return fail(err)
	}
	if !ix.ready(ctx) {
		unlock, err := ix.lock.lock(ctx)
		if err != nil {
			return fail(err)
		}
		err = ix.migrate(ctx)
		unlock()
		if err != nil {
			return fail(err)
		}
	}
	var root string
	err = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'root'`).Scan(&root)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fail(fmt.Errorf("read corpus folder: %w", err))
	default:
		ix.root.Store(&root)
	}
	return ix, nil
}

// dsn is the modernc.org/sqlite data source name for the database file at
// the absolute path abs: a file: URI (so any character in the path is
// escaped) whose query runs the given pragmas on every pooled connection,
// and makes transactions BEGIN IMMEDIATE so that writers queue on the busy
// timeout instead of failing when a read lock would need upgrading.
func dsn(abs string, pragmas ...string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: C:/x → /C:/x
	}
	q := url.Values{}
	for _, pragma := range pragmas {
		q.Add("_pragma", pragma)
	}
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// indexPragmas are the pragmas of every connection to an index: the busy
// timeout, and NORMAL synchronisation (safe with WAL; the index is a cache
// of the folder). WAL journaling, which lets readers run while a Sync
// writes, is set once by migrate and stays with the file.
var indexPragmas = []string{
	fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()),
	"synchronous(NORMAL)",
}

// ready reports whether the database is set up: WAL journaling and the
// current schema. Any error, a busy database included, means not ready;
// migrate then looks again under the lock.
func (ix *Index) ready(ctx context.Context) bool {
	var mode string
	var version int
	return ix.db.QueryRowContext(ctx, `SELECT journal_mode, user_version FROM pragma_journal_mode, pragma_user_version`).
		Scan(&mode, &version) == nil && mode == "wal" && version == schemaVersion
}

// migrate makes the database a corpus index at schemaVersion in WAL mode.
// It first checks that the database is empty or a corpus index of this or
// an older version (else ErrSchema, and the file is left as it was), then
// switches it to WAL journaling, then creates the schema (dropping an
// older one) in one write transaction. Open calls it holding the sync
// lock, so that two processes opening a new database do not both set it
// up.
func (ix *Index) migrate(ctx context.Context) error {
	var version, objects int
	err := ix.db.QueryRowContext(ctx, `SELECT user_version, (SELECT count(*) FROM sqlite_schema) FROM pragma_user_version`).
		Scan(&version, &objects)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	switch {
	case version > schemaVersion:
		return fmt.Errorf("schema version %d, this program knows up to %d: %w", version, schemaVersion, ErrSchema)
	case version == 0 && objects > 0:
		return fmt.Errorf("database has tables but no schema version, not a corpus index: %w", ErrSchema)
	}
	if err := ix.setWAL(ctx); err != nil {
		return err
	}
	if version == schemaVersion {
		return nil
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin schema change: %w", err)
	}
	defer tx.Rollback()
	if version > 0 {
		// An older schema: drop what it had; the next Sync rebuilds.
		if err := dropAll(ctx, tx); err != nil {
			return fmt.Errorf("drop schema version %d: %w", version, err)
		}
	}
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return fmt.Errorf("set schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit schema: %w", err)
	}
	return nil
}

// setWAL switches the database to WAL journaling, which stays with the
// file: readers then run while a Sync writes. It is called once the
// database is known to be a corpus index.
func (ix *Index) setWAL(ctx context.Context) error {
	var mode string
	if err := ix.db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode); err != nil {
		return fmt.Errorf("set WAL journaling: %w", err)
	}
	if mode != "wal" {
		return fmt.Errorf("set WAL journaling: the database stays in %s mode", mode)
	}
	return nil
}

// dropAll drops every table and virtual table of an older schema.
func dropAll(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx,
		`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
		 ORDER BY sql LIKE 'CREATE VIRTUAL%' DESC`)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		names = append(names, name)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, name := range names {
		// Virtual tables come first: dropping one drops its shadow tables,
		// which are then already gone.
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS "`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the database. It waits for searches already running to
// finish; calls after Close fail.
func (ix *Index) Close() error {
	err := errors.Join(ix.db.Close(), ix.lock.close())
	if err != nil {
		return &Error{Op: "close", Subject: ix.dbPath, Err: err}
	}
	return nil
}

// DefaultPath returns where the index for the corpus folder dir lives when
// nothing else is configured: index-<hash>.db under deepresearch/ in the
// user's cache directory, where hash is a short hash of dir's absolute path.
// It creates nothing.
func DefaultPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", &Error{Op: "find default index for", Subject: dir, Err: err}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", &Error{Op: "find default index for", Subject: abs, Err: err}
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "deepresearch", "index-"+hex.EncodeToString(sum[:6])+".db"), nil
}

// DefaultCorpus returns the corpus folder used when none is configured:
// the Go distribution's documentation — the standard library's packages
// with their examples, the go command's help and GOROOT/doc (see
// godoc.Write) — written on first use into deepresearch/ in the user's
// cache directory (godoc.Cached: godoc-<Go version>-<hash>, written once
// for all processes, a few seconds, then found). A distribution without
// sources (no GOROOT/src) gives its doc folder as it is (the language
// specification, the memory model and the assembler guide, among others).
//
// It finds the distribution at runtime.GOROOT() first and asks `go env
// GOROOT` (for at most 5s) when that is not on disk. This is the one
// place that decides what the default corpus is.
func DefaultCorpus(ctx context.Context) (string, error) {
	root, err := GoRoot(ctx)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = "" // no cache folder: GOROOT/doc, unwritten
	}
	return defaultCorpus(ctx, root, cache)
}

// defaultCorpus is DefaultCorpus for the distribution at root, caching
// under the user cache folder cache ("": none, so GOROOT/doc).
func defaultCorpus(ctx context.Context, root, cache string) (string, error) {
	if cache != "" && isDir(filepath.Join(root, "src")) {
		dir, err := godoc.Cached(ctx, root, filepath.Join(cache, "deepresearch"))
		if err != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return "", &Error{Op: "make default corpus from", Subject: root, Err: err}
		}
		return dir, nil
	}
	dir := filepath.Join(root, "doc")
	if !isDir(dir) {
		return "", &Error{Op: "find default corpus", Subject: dir, Err: ErrNoCorpus}
	}
	return dir, nil
}

// GoRoot returns the root of the Go distribution: runtime.GOROOT() when it
// is on disk, else what `go env GOROOT` says (asked for at most 5s). It
// reads no environment variable itself: `go env` does, as the go command
// would.
func GoRoot(ctx context.Context) (string, error) {
	//lint:ignore SA1019 runtime.GOROOT is the cheap first guess; `go env` is the fallback.
	if root := runtime.GOROOT(); root != "" && isDir(root) {
		return root, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return "", &Error{Op: "find default corpus", Err: fmt.Errorf("go env GOROOT: %w", err)}
	}
	root := strings.TrimSpace(string(out))
	if root == "" || !isDir(root) {
		return "", &Error{Op: "find default corpus", Subject: "GOROOT " + root, Err: ErrNoCorpus}
	}
	return root, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// fileURL is the file:// URL of the absolute path abs.
func fileURL(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	u := url.URL{Scheme: "file", Path: p}
	return u.String()
}
