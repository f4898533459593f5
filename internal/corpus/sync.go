package corpus

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/extract"
)

// maxFileSize is the largest file Sync indexes; larger ones are skipped.
const maxFileSize = 8 << 20

// Batch limits: Sync commits a transaction after this many changed files,
// or this many bytes of extracted text, whichever comes first.
const (
	batchFiles = 256
	batchBytes = 16 << 20
)

// SyncStats counts what a Sync did. Scanned counts the files that have a
// document extension (.md, .txt, .html, …) outside hidden files and
// folders; each of them is Added, Updated, Unchanged or Skipped, so
// Scanned = Added + Updated + Unchanged + Skipped.
type SyncStats struct {
	Scanned   int
	Added     int // new documents
	Updated   int // documents whose content changed
	Removed   int // documents whose files are gone
	Unchanged int // same size and modification time, or same content
	Skipped   int // over 8 MiB, not UTF-8, containing NUL bytes, or unreadable (and removed if they were indexed)
	Passages  int // passages written by this Sync (for Added and Updated)
}

func (s *SyncStats) add(o SyncStats) {
	s.Scanned += o.Scanned
	s.Added += o.Added
	s.Updated += o.Updated
	s.Removed += o.Removed
	s.Unchanged += o.Unchanged
	s.Skipped += o.Skipped
	s.Passages += o.Passages
}

// Sync brings the index up to date with the folder dir, which must be the
// folder the index was first synced with (else ErrOtherCorpus).
//
// It walks dir in lexical order, skipping hidden files and folders (names
// starting with "."), following symbolic links to files but not to
// folders. A file whose size and modification time match the index is not
// read; a file that changed is read and hashed, and re-indexed only if its
// content differs. Files that are gone are removed from the index, but only
// once the whole walk has succeeded. So a Sync of an unchanged corpus costs
// a directory walk and one stat per file. (As with any size+mtime check, a
// rewrite that keeps both the size and the modification time is missed.)
//
// Changes are committed in batches, one transaction each; cancelling ctx
// stops the walk and returns context.Cause(ctx) with the counts of the
// batches already committed, which stay in the index (the next Sync picks
// up where this one stopped). Searches see each batch once it commits.
// Syncs on one Index run one at a time.
func (ix *Index) Sync(ctx context.Context, dir string) (SyncStats, error) {
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	s := syncer{ix: ix, ctx: ctx}
	err := s.run(dir)
	if err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		where := dir
		if s.root != "" {
			where = s.root
		}
		return s.stats, fmt.Errorf("corpus: sync %s: %w", where, err)
	}
	return s.stats, nil
}

func (s *syncer) run(dir string) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	root, err := resolveRoot(dir)
	if err != nil {
		return err
	}
	s.root = root
	if err := s.ix.claimRoot(s.ctx, root); err != nil {
		return err
	}
	if err := s.load(); err != nil {
		return err
	}
	if err := filepath.WalkDir(root, s.visit); err != nil {
		return err
	}
	if err := s.removeUnseen(); err != nil {
		return err
	}
	if err := s.commit(); err != nil {
		return err
	}
	if s.stats.Added+s.stats.Updated+s.stats.Removed > 0 {
		// Let SQLite refresh its planner statistics; cheap when little changed.
		if _, err := s.ix.db.ExecContext(s.ctx, `PRAGMA optimize`); err != nil {
			return fmt.Errorf("optimize %s: %w", s.ix.dbPath, err)
		}
	}
	return nil
}

// resolveRoot returns dir as an absolute path with symbolic links resolved
// (the walk does not follow links, the root included).
func resolveRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(root)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", abs)
	}
	return root, nil
}

// claimRoot records root as the index's corpus folder, or checks that it is.
func (ix *Index) claimRoot(ctx context.Context, root string) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write to %s: %w", ix.dbPath, err)
	}
	defer tx.Rollback()
	var have string
	err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'root'`).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('root', ?)`, root); err != nil {
			return fmt.Errorf("record corpus folder in %s: %w", ix.dbPath, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("record corpus folder in %s: %w", ix.dbPath, err)
		}
	case err != nil:
		return fmt.Errorf("read corpus folder of %s: %w", ix.dbPath, err)
	case have != root:
		return fmt.Errorf("index %s belongs to %s; use another index file: %w", ix.dbPath, have, ErrOtherCorpus)
	}
	ix.root.Store(&root)
	return nil
}

// fileState is what the index knows about a file.
type fileState struct {
	size, mtime int64
	hash        string
}

// change is one write to the index.
type change struct {
	path        string
	size, mtime int64
	hash        string

	del   bool              // remove the document, or forget the skipped file
	touch bool              // content unchanged: record the new size and mtime
	skip  string            // record as skipped, for this reason; removes the document
	doc   *extract.Document // (re)index with these passages
	ps    []extract.Passage
}

type syncer struct {
	ix   *Index
	ctx  context.Context
	root string

	docs    map[string]fileState // indexed documents, by DocID
	skipped map[string]fileState // files refused before, by DocID
	seen    map[string]bool

	pending      []change
	pendingBytes int
	delta        SyncStats // counts of the pending batch
	stats        SyncStats // counts of committed batches
}

func (s *syncer) load() error {
	s.docs = map[string]fileState{}
	s.skipped = map[string]fileState{}
	s.seen = map[string]bool{}
	for _, t := range []struct {
		query string
		into  map[string]fileState
	}{
		{`SELECT path, size, mtime_ns, hash FROM docs`, s.docs},
		{`SELECT path, size, mtime_ns, '' FROM skipped`, s.skipped},
	} {
		rows, err := s.ix.db.QueryContext(s.ctx, t.query)
		if err != nil {
			return fmt.Errorf("read %s: %w", s.ix.dbPath, err)
		}
		for rows.Next() {
			var path string
			var st fileState
			if err := rows.Scan(&path, &st.size, &st.mtime, &st.hash); err != nil {
				rows.Close()
				return fmt.Errorf("read %s: %w", s.ix.dbPath, err)
			}
			t.into[path] = st
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("read %s: %w", s.ix.dbPath, err)
		}
	}
	return nil
}

// visit is the WalkDir callback: it decides what to do with one file.
func (s *syncer) visit(path string, d fs.DirEntry, err error) error {
	if cerr := s.ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil {
		if path == s.root {
			return err
		}
		if d != nil && d.IsDir() {
			return fs.SkipDir // an unreadable folder: index what can be read
		}
		return nil
	}
	if path == s.root {
		return nil
	}
	if strings.HasPrefix(d.Name(), ".") {
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	if d.IsDir() {
		return nil
	}
	f := extract.FormatOf(d.Name())
	if f == extract.FormatNone {
		return nil
	}
	var info fs.FileInfo
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		info, err = os.Stat(path)
		if err != nil || !info.Mode().IsRegular() {
			return nil // broken, or a link to a folder or device
		}
	case d.Type().IsRegular():
		info, err = d.Info()
		if err != nil {
			return nil // gone since the folder was listed
		}
	default:
		return nil
	}
	rel, err := filepath.Rel(s.root, path)
	if err != nil {
		return err
	}
	id := filepath.ToSlash(rel)
	s.seen[id] = true
	s.delta.Scanned++
	return s.file(path, id, f, info.Size(), info.ModTime().UnixNano())
}

// file brings one file's entry up to date.
func (s *syncer) file(path, id string, f extract.Format, size, mtime int64) error {
	old, had := s.docs[id]
	if had && old.size == size && old.mtime == mtime {
		s.delta.Unchanged++
		return nil
	}
	if sk, ok := s.skipped[id]; ok && sk.size == size && sk.mtime == mtime {
		s.delta.Skipped++
		return nil
	}
	skip := func(reason string) error {
		s.delta.Skipped++
		return s.add(change{path: id, size: size, mtime: mtime, skip: reason})
	}
	if size > maxFileSize {
		return skip("larger than 8 MiB")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		// Not recorded as skipped: a permission fixed later leaves the
		// modification time as it was, and the file should be read then.
		s.delta.Skipped++
		if had {
			return s.add(change{path: id, del: true})
		}
		return nil
	}
	switch {
	case len(data) > maxFileSize:
		return skip("larger than 8 MiB")
	case bytes.IndexByte(data, 0) >= 0:
		return skip("contains NUL bytes")
	case !utf8.Valid(data):
		return skip("not valid UTF-8")
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if had && old.hash == hash {
		s.delta.Unchanged++
		return s.add(change{path: id, size: size, mtime: mtime, touch: true})
	}
	doc := extract.Extract(id, string(data), f)
	ps := extract.Split(&doc)
	if had {
		s.delta.Updated++
	} else {
		s.delta.Added++
	}
	s.delta.Passages += len(ps)
	return s.add(change{path: id, size: size, mtime: mtime, hash: hash, doc: &doc, ps: ps})
}

// removeUnseen removes the documents and skipped entries whose files the
// walk did not see.
func (s *syncer) removeUnseen() error {
	var gone []string
	for id := range s.docs {
		if !s.seen[id] {
			gone = append(gone, id)
			s.delta.Removed++
		}
	}
	for id := range s.skipped {
		if _, indexed := s.docs[id]; !s.seen[id] && !indexed {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	for _, id := range gone {
		if err := s.add(change{path: id, del: true}); err != nil {
			return err
		}
	}
	return nil
}

// add queues a change, committing the batch when it is full.
func (s *syncer) add(c change) error {
	s.pending = append(s.pending, c)
	if c.doc != nil {
		s.pendingBytes += len(c.doc.Text)
	}
	if len(s.pending) >= batchFiles || s.pendingBytes >= batchBytes {
		return s.commit()
	}
	return nil
}

// commit writes the pending changes in one transaction.
func (s *syncer) commit() error {
	if len(s.pending) > 0 {
		if err := s.ix.write(s.ctx, s.pending); err != nil {
			return err
		}
	}
	s.stats.add(s.delta)
	s.delta = SyncStats{}
	clear(s.pending)
	s.pending = s.pending[:0]
	s.pendingBytes = 0
	return nil
}

// Statements of a write transaction.
const (
	sqlDeletePassagesFTS = `DELETE FROM passages_fts WHERE rowid IN
		(SELECT p.id FROM passages p JOIN docs d ON d.id = p.doc_id WHERE d.path = ?)`
	sqlDeletePassages = `DELETE FROM passages WHERE doc_id IN (SELECT id FROM docs WHERE path = ?)`
	sqlDeleteDoc      = `DELETE FROM docs WHERE path = ?`
	sqlDeleteSkipped  = `DELETE FROM skipped WHERE path = ?`
	sqlInsertSkipped  = `INSERT OR REPLACE INTO skipped(path, size, mtime_ns, reason) VALUES (?, ?, ?, ?)`
	sqlTouchDoc       = `UPDATE docs SET size = ?, mtime_ns = ? WHERE path = ?`
	sqlInsertDoc      = `INSERT INTO docs(path, title, size, mtime_ns, hash, text) VALUES (?, ?, ?, ?, ?, ?)`
	sqlInsertPassage  = `INSERT INTO passages(doc_id, seq, location, body) VALUES (?, ?, ?, ?)`
	sqlInsertFTS      = `INSERT INTO passages_fts(rowid, title, heading, body) VALUES (?, ?, ?, ?)`
)

// write applies changes in one transaction. Every change first removes
// what the index had for its path, so a write is correct whatever another
// process did to the same database in the meantime.
func (ix *Index) write(ctx context.Context, changes []change) (err error) {
	fail := func(op, path string, e error) error {
		return fmt.Errorf("%s %s in %s: %w", op, path, ix.dbPath, e)
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write to %s: %w", ix.dbPath, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	names := []string{sqlDeletePassagesFTS, sqlDeletePassages, sqlDeleteDoc, sqlDeleteSkipped,
		sqlInsertSkipped, sqlTouchDoc, sqlInsertDoc, sqlInsertPassage, sqlInsertFTS}
	st := make(map[string]*sql.Stmt, len(names))
	for _, q := range names {
		stmt, err := tx.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare write to %s: %w", ix.dbPath, err)
		}
		defer stmt.Close()
		st[q] = stmt
	}
	exec := func(q string, args ...any) (sql.Result, error) {
		return st[q].ExecContext(ctx, args...)
	}
	for _, c := range changes {
		if c.touch {
			if _, err := exec(sqlTouchDoc, c.size, c.mtime, c.path); err != nil {
				return fail("update", c.path, err)
			}
			continue
		}
		for _, q := range []string{sqlDeletePassagesFTS, sqlDeletePassages, sqlDeleteDoc, sqlDeleteSkipped} {
			if _, err := exec(q, c.path); err != nil {
				return fail("remove", c.path, err)
			}
		}
		switch {
		case c.skip != "":
			if _, err := exec(sqlInsertSkipped, c.path, c.size, c.mtime, c.skip); err != nil {
				return fail("record skipped", c.path, err)
			}
		case c.doc != nil:
			res, err := exec(sqlInsertDoc, c.path, c.doc.Title, c.size, c.mtime, c.hash, c.doc.Text)
			if err != nil {
				return fail("insert", c.path, err)
			}
			docID, err := res.LastInsertId()
			if err != nil {
				return fail("insert", c.path, err)
			}
			for i, p := range c.ps {
				res, err := exec(sqlInsertPassage, docID, i, p.Location, p.Body)
				if err != nil {
					return fail("insert passage of", c.path, err)
				}
				pid, err := res.LastInsertId()
				if err != nil {
					return fail("insert passage of", c.path, err)
				}
				if _, err := exec(sqlInsertFTS, pid, c.doc.Title, p.Heading, p.Body); err != nil {
					return fail("index passage of", c.path, err)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit write to %s: %w", ix.dbPath, err)
	}
	return nil
}
