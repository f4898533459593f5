package corpus

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/internal/pdftext"
)

// maxFileSize is the largest file Sync indexes; larger ones are skipped.
// It is also the per-file read cap: Sync reads at most the size the open
// file reports (never more than this), so a file that grows while it is
// read, or a file whose size the system reports as 0 (such as those under
// /proc), costs at most that and cannot keep a read waiting.
const maxFileSize = 8 << 20

// Batch limits: Sync commits a transaction after this many changed files,
// or this many bytes of extracted text, whichever comes first.
const (
	batchFiles = 256
	batchBytes = 16 << 20
)

// SyncStats counts what a Sync did. Scanned counts the entries of the
// folder outside hidden files and folders (names starting with "."),
// symbolic links and special files included; each of them is Added,
// Updated, Unchanged or Skipped, so Scanned = Added + Updated + Unchanged
// + Skipped.
type SyncStats struct {
	Scanned   int
	Added     int // new documents
	Updated   int // documents whose content changed
	Removed   int // documents whose files are gone
	Unchanged int // same size and modification time, or same content
	// Skipped counts the entries not indexed (and removed from the index
	// if they were in it): files of a format the index does not read (by
	// extension: .png, .go, .tar.gz; Skip.Unsupported), symbolic links that leave the corpus folder or
	// lead to no regular file, special files (pipes, devices, sockets),
	// files over 8 MiB, text files not UTF-8 or containing NUL bytes,
	// unreadable files; PDFs and office documents that are encrypted,
	// malformed or truncated, without text (a scanned PDF), past the
	// bounds of extract.Limits (a zip bomb) or slower to read than 60s;
	// gzip-compressed documents (.pdf.gz, .md.gz) that are not gzip or
	// unpack to more than 8 MiB (a gzip bomb); documents SQLite could not
	// write (out of memory, too big: "writing it to the index failed: out
	// of memory (7)"); and a file over 1 MiB that the last Sync was
	// reading when its process died ("the last sync ended while reading
	// it …"). A skipped file is read again only once its size or
	// modification time changes.
	Skipped  int
	Passages int // passages written by this Sync (for Added and Updated)
	// Embedded counts the passages whose vectors this Sync asked the
	// embedding model for (with WithEmbedder): new text only, since
	// vectors are cached by the hash of the text embedded.
	Embedded int
	// Skips lists the skipped entries, with the reason for each, in walk
	// order (lexical by path).
	Skips []Skip
	// Documents is how many documents the index holds once the Sync is
	// done, of this Sync or earlier ones.
	Documents int
}

// Skip is an entry of the corpus folder that Sync did not index.
type Skip struct {
	Path   string `json:"path"`   // slash-separated, relative to the corpus folder; Go-quoted if it has control characters
	Reason string `json:"reason"` // for people: "symbolic link to /etc/passwd, outside the corpus folder"
	// Unsupported is true when the file was not read because the index
	// reads no file of its extension (Reason: "not a format the index
	// reads (.png)").
	Unsupported bool `json:"unsupported,omitempty"`
}

func (s *SyncStats) add(o SyncStats) {
	s.Scanned += o.Scanned
	s.Added += o.Added
	s.Updated += o.Updated
	s.Removed += o.Removed
	s.Unchanged += o.Unchanged
	s.Skipped += o.Skipped
	s.Passages += o.Passages
	s.Embedded += o.Embedded
	s.Skips = append(s.Skips, o.Skips...)
}

// Sync brings the index up to date with the folder dir, which must be the
// folder the index was first synced with (else ErrOtherCorpus).
//
// It walks dir in lexical order, skipping hidden files and folders (names
// starting with "."). It reads regular files only. A symbolic link is
// followed only when it leads, through any number of links, to a regular
// file inside dir (dir itself resolved); any other link (to a file
// outside dir, such as /etc/passwd, to a folder, to a device or pipe, or
// broken) is skipped and listed in SyncStats.Skips with the reason, as are
// pipes, devices and sockets in the folder. A file whose size and
// modification time match the index is not read; a file that changed is
// read and hashed, and re-indexed only if its content differs. Files that are gone are removed from the index, but only
// once the whole walk has succeeded. So a Sync of an unchanged corpus costs
// a directory walk and one stat per file. (As with any size+mtime check, a
// rewrite that keeps both the size and the modification time is missed.)
//
// Reading never waits on a file: special files are not opened, a file
// is opened without waiting for a writer and read only if the open file is
// regular, and at most the size it reports (see maxFileSize). ctx is
// checked before each entry of the folder.
//
// Changes are committed in batches, one transaction each; cancelling ctx
// stops the walk and returns context.Cause(ctx) with the counts of the
// batches already committed, which stay in the index (the next Sync picks
// up where this one stopped). Searches see each batch once it commits.
//
// Syncs of one database run one at a time, in this process and across
// processes: Sync first waits, for as long as ctx allows, until no other
// Sync of the database runs, and only then reads what the index holds; so
// a Sync that waited for another of the same folder finds the files
// indexed and reads none of them.
func (ix *Index) Sync(ctx context.Context, dir string) (SyncStats, error) {
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	s := syncer{ix: ix, ctx: ctx}
	err := s.run(dir)
	if s.unlock != nil {
		s.unlock()
	}
	if err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		where := dir
		if s.root != "" {
			where = s.root
		}
		return s.stats, &Error{Op: "sync", Subject: where, Err: err}
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
	if s.unlock, err = s.ix.lock.lock(s.ctx); err != nil {
		return err
	}
	if err := s.ix.claimRoot(s.ctx, root); err != nil {
		return err
	}
	if err := s.recoverReading(); err != nil {
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
	if err := s.embed(); err != nil {
		return err
	}
	if err := s.ix.db.QueryRowContext(s.ctx, `SELECT count(*) FROM docs`).Scan(&s.stats.Documents); err != nil {
		return fmt.Errorf("count documents in %s: %w", s.ix.dbPath, err)
	}
	if s.stats.Added+s.stats.Updated+s.stats.Removed+s.stats.Embedded > 0 {
		// Let SQLite refresh its planner statistics; cheap when little changed.
		if _, err := s.ix.db.ExecContext(s.ctx, `PRAGMA optimize`); err != nil {
			return fmt.Errorf("optimize %s: %w", s.ix.dbPath, err)
		}
	}
	return nil
}

// resolveRoot returns dir as an absolute path with symbolic links resolved
// (the walk does not follow links, the root included). A dir that does
// not exist, or is not a folder, is an error wrapping ErrNoFolder.
func resolveRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", errNotExist
	} else if err != nil {
		return "", err
	}
	fi, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", errNotExist
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", fmt.Errorf("%w: it is a %s", ErrNoFolder, fileKindOf(fi.Mode()))
	}
	return root, nil
}

// errNotExist is a corpus folder that does not exist: ErrNoFolder, and
// fs.ErrNotExist for errors.Is.
var errNotExist error = noFolder{}

type noFolder struct{}

func (noFolder) Error() string { return ErrNoFolder.Error() }
func (noFolder) Is(target error) bool {
	return target == ErrNoFolder || target == fs.ErrNotExist
}

// fileKindOf names what a file of mode m is: "file", "named pipe", ….
func fileKindOf(m fs.FileMode) string {
	if m.IsRegular() {
		return "file"
	}
	return fileKind(m.Type())
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
		return fmt.Errorf("index %s was made for %s; use another index file: %w", ix.dbPath, have, ErrOtherCorpus)
	}
	ix.root.Store(&root)
	return nil
}

// fileState is what the index knows about a file.
type fileState struct {
	size, mtime int64
	hash        string
	reason      string // why a skipped file was refused
}

// change is one write to the index.
type change struct {
	path        string
	size, mtime int64
	hash        string

	del    bool              // remove the document, or forget the skipped file
	touch  bool              // content unchanged: record the new size and mtime
	skip   string            // record as skipped, for this reason; removes the document
	doc    *extract.Document // (re)index with these passages
	ps     []extract.Passage
	labels []string // the document's rst labels (labelsOf)
	// skipAt is where the document's Skip goes in the batch's Skips
	// (walk order) should writing it fail (see refuse).
	skipAt int
}

type syncer struct {
	ix     *Index
	ctx    context.Context
	root   string
	unlock func() // releases the sync lock; nil until taken

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
		{`SELECT path, size, mtime_ns, hash, '' FROM docs`, s.docs},
		{`SELECT path, size, mtime_ns, '', reason FROM skipped`, s.skipped},
	} {
		rows, err := s.ix.db.QueryContext(s.ctx, t.query)
		if err != nil {
			return fmt.Errorf("read %s: %w", s.ix.dbPath, err)
		}
		for rows.Next() {
			var path string
			var st fileState
			if err := rows.Scan(&path, &st.size, &st.mtime, &st.hash, &st.reason); err != nil {
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
	defer s.report()
	rel, err := filepath.Rel(s.root, path)
	if err != nil {
		return err
	}
	id := filepath.ToSlash(rel)
	s.delta.Scanned++
	name, gz := extract.Gzipped(d.Name())
	f := extract.FormatOf(name)
	if f == extract.FormatNone {
		// Not read, so nothing of it is in the index.
		if extract.Clean(id) != id {
			id = strconv.QuoteToASCII(id)
		}
		sk := Skip{Path: id, Reason: unsupported(d.Name()), Unsupported: true}
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(path); err == nil && fi.IsDir() {
				sk = Skip{Path: id, Reason: "symbolic link to a folder"} // the walk follows none
			}
		}
		s.delta.Skipped++
		s.delta.Skips = append(s.delta.Skips, sk)
		return nil
	}
	if extract.Clean(id) != id {
		// The path would be the DocID, shown in results and reports; the
		// skip names it Go-quoted. Left unseen, so that anything indexed
		// under it before is removed.
		s.delta.Skipped++
		s.delta.Skips = append(s.delta.Skips, Skip{Path: strconv.QuoteToASCII(id), Reason: "path has control characters or is not UTF-8"})
		return nil
	}
	s.seen[id] = true
	real := path
	var info fs.FileInfo
	switch t := d.Type(); {
	case t&fs.ModeSymlink != 0:
		var reason string
		if real, info, reason = s.followLink(path); reason != "" {
			return s.skipNow(id, reason)
		}
	case t.IsRegular():
		if info, err = d.Info(); err != nil {
			return s.skipNow(id, "unreadable: "+errText(err)) // gone since the folder was listed
		}
	default:
		return s.skipNow(id, "not a regular file: "+fileKind(t))
	}
	return s.file(real, id, f, gz, info.Size(), info.ModTime().UnixNano())
}

// unsupported is the reason a file of a format the index does not read is
// skipped: "not a format the index reads (.png)".
func unsupported(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == "" || ext == name {
		return "not a format the index reads (no extension)"
	}
	if inner := strings.ToLower(filepath.Ext(strings.TrimSuffix(name, filepath.Ext(name)))); ext == ".gz" && inner != "" {
		ext = inner + ext // .tar.gz
	}
	return "not a format the index reads (" + ext + ")"
}

// report tells WithProgress's function what the Sync has done so far.
func (s *syncer) report() {
	if s.ix.progress == nil {
		return
	}
	now := s.stats
	now.add(s.delta)
	now.Skips = nil
	s.ix.progress(now)
}

// followLink resolves the symbolic link at path. It returns the path of
// the regular file the link leads to, inside the corpus folder, and its
// information; or the reason the link is skipped.
func (s *syncer) followLink(path string) (string, fs.FileInfo, string) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, "broken symbolic link"
		}
		return "", nil, "symbolic link: " + errText(err)
	}
	if !within(s.root, real) {
		return "", nil, "symbolic link to " + real + ", outside the corpus folder"
	}
	info, err := os.Lstat(real)
	switch {
	case err != nil:
		return "", nil, "symbolic link: " + errText(err)
	case info.IsDir():
		return "", nil, "symbolic link to a folder"
	case !info.Mode().IsRegular():
		return "", nil, "symbolic link to a special file: " + fileKind(info.Mode().Type())
	}
	return real, info, ""
}

// within reports whether path is root or inside it. Both are absolute,
// clean and free of symbolic links.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// fileKind names the type of a special file.
func fileKind(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeCharDevice != 0:
		return "character device"
	case t&fs.ModeDevice != 0:
		return "device"
	case t&fs.ModeSymlink != 0:
		return "symbolic link"
	case t&fs.ModeIrregular != 0:
		return "irregular file"
	}
	return "file of mode " + t.String()
}

// errText is err's message without the path that the skip already names.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// skipNow counts the entry id as skipped for reason, without recording it
// (it is looked at again by the next Sync), and removes what the index
// had for it.
func (s *syncer) skipNow(id, reason string) error {
	s.delta.Skipped++
	s.delta.Skips = append(s.delta.Skips, Skip{Path: id, Reason: reason})
	_, had := s.docs[id]
	_, wasSkipped := s.skipped[id]
	if had || wasSkipped {
		return s.add(change{path: id, del: true})
	}
	return nil
}

// file brings one file's entry up to date. path is the file to read (the
// target of a link), size and mtime what the walk saw; gz says that the
// file is a gzip-compressed document of format f, unpacked to at most
// maxFileSize bytes (see extract.Gunzip).
//
// A file larger than markSize is read once the batch before it is
// committed, under a note in the index (markReading), so that a process
// that dies reading it (or panics: the note is not removed by a deferred
// call) does not die again reading it the next time.
func (s *syncer) file(path, id string, f extract.Format, gz bool, size, mtime int64) error {
	old, had := s.docs[id]
	if had && old.size == size && old.mtime == mtime {
		s.delta.Unchanged++
		return nil
	}
	if sk, ok := s.skipped[id]; ok && sk.size == size && sk.mtime == mtime {
		s.delta.Skipped++
		s.delta.Skips = append(s.delta.Skips, Skip{Path: id, Reason: sk.reason})
		return nil
	}
	skip := func(reason string) error {
		s.delta.Skipped++
		s.delta.Skips = append(s.delta.Skips, Skip{Path: id, Reason: reason})
		return s.add(change{path: id, size: size, mtime: mtime, skip: reason})
	}
	if size > maxFileSize {
		return skip(tooLarge)
	}
	if size > markSize {
		// What was read before is written first: its memory is not held
		// while this file is read, nor lost should the process die.
		if err := s.commit(); err != nil {
			return err
		}
		if err := s.markReading(id, size, mtime); err != nil {
			return err
		}
		if readingHook != nil {
			readingHook(id)
		}
		// Not deferred: a panic leaves the note, as a crash does.
		err := s.read(path, id, f, gz, size, mtime, skip)
		if uerr := s.unmarkReading(id); err == nil {
			err = uerr
		}
		return err
	}
	return s.read(path, id, f, gz, size, mtime, skip)
}

// read reads, extracts and queues the file that file found changed; skip
// records it as skipped for a reason.
func (s *syncer) read(path, id string, f extract.Format, gz bool, size, mtime int64, skip func(reason string) error) error {
	old, had := s.docs[id]
	data, info, err := readRegular(path)
	switch {
	case errors.Is(err, errNotRegular), errors.Is(err, errTooLarge):
		// Changed since the walk: looked at again next time.
		return s.skipNow(id, errText(err))
	case err != nil:
		// Not recorded as skipped: a permission fixed later leaves the
		// modification time as it was, and the file should be read then.
		return s.skipNow(id, "unreadable: "+errText(err))
	}
	// Record what was read, so that the next walk compares with it.
	size, mtime = info.Size(), info.ModTime().UnixNano()
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if had && old.hash == hash {
		s.delta.Unchanged++
		return s.add(change{path: id, size: size, mtime: mtime, touch: true})
	}
	name := id
	if gz {
		if data, err = extract.Gunzip(data, maxFileSize); err != nil {
			return skip(err.Error())
		}
		name, _ = extract.Gzipped(id)
	}
	if f == extract.FormatPDF {
		startPDF(s.ctx)
	}
	doc, reason, err := extractDocument(s.ctx, name, data, f)
	switch {
	case err != nil:
		return err
	case reason != "":
		return skip(reason)
	}
	ps := extract.Split(&doc)
	if had {
		s.delta.Updated++
	} else {
		s.delta.Added++
	}
	s.delta.Passages += len(ps)
	return s.add(change{path: id, size: size, mtime: mtime, hash: hash, doc: &doc, ps: ps, labels: labelsOf(f, data)})
}

const tooLarge = "larger than 8 MiB"

var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New(tooLarge)
)

// readRegular reads the regular file at path, which must not be a
// symbolic link, without ever waiting: it opens the file without waiting
// for a writer (O_NONBLOCK where the system has it), refuses anything
// that is not a regular file once open (errNotRegular), and reads at most
// the size the open file reports, itself at most maxFileSize
// (errTooLarge). It returns the bytes read and the open file's
// information.
func readRegular(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, nil, err
	case !info.Mode().IsRegular():
		return nil, nil, fmt.Errorf("%w: %s", errNotRegular, fileKind(info.Mode().Type()))
	case info.Size() > maxFileSize:
		return nil, nil, errTooLarge
	}
	data := make([]byte, info.Size())
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	return data[:n], info, nil // a file that shrank while read: what there was
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
	c.skipAt = len(s.delta.Skips)
	s.pending = append(s.pending, c)
	if c.doc != nil {
		s.pendingBytes += len(c.doc.Text)
	}
	if len(s.pending) >= batchFiles || s.pendingBytes >= batchBytes {
		return s.commit()
	}
	return nil
}

// commit writes the pending changes in one transaction. A document that
// SQLite cannot take (out of memory, too big: see docFault) is refused:
// the transaction is rolled back, the document's change becomes a skip
// with the reason, and the batch is written again without it; so one
// document costs only itself, and each try refuses one more document or
// commits. Any other failure (a full disk, a busy database, ctx ending)
// fails the batch, which is left unwritten.
func (s *syncer) commit() error {
	for len(s.pending) > 0 {
		failed, err := s.ix.write(s.ctx, s.pending)
		if err == nil {
			break
		}
		if failed < 0 || s.pending[failed].doc == nil || s.ctx.Err() != nil {
			return err
		}
		what, ok := docFault(err)
		if !ok {
			return err
		}
		s.refuse(failed, what)
	}
	s.stats.add(s.delta)
	s.delta = SyncStats{}
	clear(s.pending)
	s.pending = s.pending[:0]
	s.pendingBytes = 0
	return nil
}

// refuse turns the pending change i, a document that could not be
// written for the reason what (docFault), into a skip of that document,
// recorded with its size and modification time like any
// other skip, so that the next Sync reads it again only once it changed.
// The batch's counts follow: the document is no longer Added or Updated
// but Skipped, and its Skip goes where the walk met it.
func (s *syncer) refuse(i int, what string) {
	c := &s.pending[i]
	if _, had := s.docs[c.path]; had {
		s.delta.Updated--
	} else {
		s.delta.Added--
	}
	s.delta.Passages -= len(c.ps)
	s.pendingBytes -= len(c.doc.Text)
	reason := "writing it to the index failed: " + what
	s.delta.Skipped++
	s.delta.Skips = slices.Insert(s.delta.Skips, c.skipAt, Skip{Path: c.path, Reason: reason})
	for j := range s.pending {
		if j != i && s.pending[j].skipAt >= c.skipAt {
			s.pending[j].skipAt++
		}
	}
	*c = change{path: c.path, size: c.size, mtime: c.mtime, skip: reason, skipAt: c.skipAt}
}

// docFault reports whether err, from writing one document, is the
// document's doing, and if so says what went wrong ("out of memory (7)"):
// SQLite ran out of memory for it (SQLITE_NOMEM: a document of millions
// of words, or one word of megabytes, in a process short of memory) or
// found it too big (SQLITE_TOOBIG), or the driver could not allocate the
// copy of its text that it hands SQLite (modernc.org/sqlite says so in
// errors of no type: "CString: cannot allocate 7000001 bytes"). Other
// errors (a full disk, a busy or read-only database) would fail any
// document.
func docFault(err error) (string, bool) {
	var e *sqlite.Error
	if errors.As(err, &e) {
		switch e.Code() & 0xff {
		case sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_TOOBIG:
			return e.Error(), true
		}
		return "", false
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
		err = u // the driver's own error, under write's "insert …"
	}
	for _, prefix := range []string{"CString: ", "sqlite: "} {
		if rest, ok := strings.CutPrefix(err.Error(), prefix); ok && strings.HasPrefix(rest, "cannot allocate ") {
			return "out of memory (" + rest + ")", true
		}
	}
	return "", false
}

// Statements of a write transaction.
const (
	sqlDeletePassagesFTS = `DELETE FROM passages_fts WHERE rowid IN
		(SELECT p.id FROM passages p JOIN docs d ON d.id = p.doc_id WHERE d.path = ?)`
	sqlDeletePassages = `DELETE FROM passages WHERE doc_id IN (SELECT id FROM docs WHERE path = ?)`
	sqlDeleteDocFTS   = `DELETE FROM docs_fts WHERE rowid IN (SELECT id FROM docs WHERE path = ?)`
	sqlDeleteNames    = `DELETE FROM names WHERE doc_id IN (SELECT id FROM docs WHERE path = ?)`
	sqlDeleteDoc      = `DELETE FROM docs WHERE path = ?`
	sqlDeleteSkipped  = `DELETE FROM skipped WHERE path = ?`
	sqlInsertSkipped  = `INSERT OR REPLACE INTO skipped(path, size, mtime_ns, reason) VALUES (?, ?, ?, ?)`
	sqlTouchDoc       = `UPDATE docs SET size = ?, mtime_ns = ? WHERE path = ?`
	sqlInsertDoc      = `INSERT INTO docs(path, title, size, mtime_ns, hash, text, url, author) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	sqlInsertPassage  = `INSERT INTO passages(doc_id, seq, location, loc_kind, loc_value, loc_part, body, embed_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	sqlInsertFTS      = `INSERT INTO passages_fts(rowid, title, heading, body) VALUES (?, ?, ?, ?)`
	sqlInsertDocFTS   = `INSERT INTO docs_fts(rowid, title, headings, path, body) VALUES (?, ?, ?, ?, ?)`
	sqlInsertName     = `INSERT INTO names(name, doc_id, kind) VALUES (?, ?, ?)`
)

// write applies changes in one transaction. Every change first removes
// what the index had for its path, so a write is correct whatever another
// process did to the same database in the meantime. When a statement of
// one change fails, the transaction is rolled back and failed is that
// change's position in changes; otherwise failed is -1.
func (ix *Index) write(ctx context.Context, changes []change) (failed int, err error) {
	fail := func(op, path string, e error) error {
		return fmt.Errorf("%s %s in %s: %w", op, path, ix.dbPath, e)
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return -1, fmt.Errorf("begin write to %s: %w", ix.dbPath, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	names := []string{sqlDeletePassagesFTS, sqlDeletePassages, sqlDeleteDocFTS, sqlDeleteNames, sqlDeleteDoc, sqlDeleteSkipped,
		sqlInsertSkipped, sqlTouchDoc, sqlInsertDoc, sqlInsertPassage, sqlInsertFTS, sqlInsertDocFTS, sqlInsertName}
	st := make(map[string]*sql.Stmt, len(names))
	for _, q := range names {
		stmt, err := tx.PrepareContext(ctx, q)
		if err != nil {
			return -1, fmt.Errorf("prepare write to %s: %w", ix.dbPath, err)
		}
		defer stmt.Close()
		st[q] = stmt
	}
	exec := func(q string, args ...any) (sql.Result, error) {
		return st[q].ExecContext(ctx, args...)
	}
	for at, c := range changes {
		if c.touch {
			if _, err := exec(sqlTouchDoc, c.size, c.mtime, c.path); err != nil {
				return at, fail("update", c.path, err)
			}
			continue
		}
		for _, q := range []string{sqlDeletePassagesFTS, sqlDeletePassages, sqlDeleteDocFTS, sqlDeleteNames, sqlDeleteDoc, sqlDeleteSkipped} {
			if _, err := exec(q, c.path); err != nil {
				return at, fail("remove", c.path, err)
			}
		}
		switch {
		case c.skip != "":
			if _, err := exec(sqlInsertSkipped, c.path, c.size, c.mtime, c.skip); err != nil {
				return at, fail("record skipped", c.path, err)
			}
		case c.doc != nil:
			res, err := exec(sqlInsertDoc, c.path, c.doc.Title, c.size, c.mtime, c.hash, c.doc.Text, c.doc.URL, c.doc.Author)
			if err != nil {
				return at, fail("insert", c.path, err)
			}
			docID, err := res.LastInsertId()
			if err != nil {
				return at, fail("insert", c.path, err)
			}
			heads := make([]string, len(c.ps))
			for i, p := range c.ps {
				heads[i] = p.Heading
			}
			if _, err := exec(sqlInsertDocFTS, docID, c.doc.Title, headingsOf(heads), pathWords(c.path), c.doc.Text); err != nil {
				return at, fail("index", c.path, err)
			}
			for _, n := range namesOf(c.path, c.doc, c.labels) {
				if _, err := exec(sqlInsertName, n.name, docID, n.kind); err != nil {
					return at, fail("index names of", c.path, err)
				}
			}
			for i, p := range c.ps {
				res, err := exec(sqlInsertPassage, docID, i, p.Location, p.Loc.Kind, p.Loc.Value, p.Loc.Part, p.Body,
					embedHash(c.doc.Title, p.Location, p.Body))
				if err != nil {
					return at, fail("insert passage of", c.path, err)
				}
				pid, err := res.LastInsertId()
				if err != nil {
					return at, fail("insert passage of", c.path, err)
				}
				if _, err := exec(sqlInsertFTS, pid, c.doc.Title, p.Heading, p.Body); err != nil {
					return at, fail("index passage of", c.path, err)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return -1, fmt.Errorf("commit write to %s: %w", ix.dbPath, err)
	}
	return -1, nil
}

// pdfStarted is done once the process's PDF reader has started, and
// pdfReady says so to tests.
var (
	pdfStarted sync.Once
	pdfReady   atomic.Bool
)

// startPDF starts the process's PDF reader (pdftext compiles PDFium on its
// first read: seconds, minutes on a loaded machine) before the first PDF
// is read, outside that file's deadline (fileTimeout), which is the
// file's time: a machine too busy to compile within it does not skip the
// first PDF it reads. Reading no bytes starts the reader and fails at
// once.
func startPDF(ctx context.Context) {
	pdfStarted.Do(func() {
		pdftext.Read(ctx, nil) //nolint:errcheck // no bytes: no document
		pdfReady.Store(true)
	})
}
