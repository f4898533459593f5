package corpus

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// markSize is the size from which Sync notes, in the index, the file it
// is reading (see markReading): a file this large may cost the process
// more memory than it has.
const markSize = 1 << 20

// diedReading is the reason a file is skipped when the last Sync ended
// while reading it.
const diedReading = "the last sync ended while reading it (out of memory, or the process was killed)"

// readingHook, when set, is called with the file's id once the note of
// markReading is written: tests end the process there.
var readingHook func(id string)

// reading is the note markReading leaves in the meta table, under the key
// "reading": the file being read, as the walk saw it.
type reading struct {
	Path  string `json:"path"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
}

// markReading notes, in a transaction of its own, that Sync is about to
// read the file id of that size and modification time, which is larger
// than markSize; unmarkReading removes the note once the file is read
// and its change queued, whatever came of it. A note left behind means
// the process died reading the file: the Go runtime cannot survive
// running out of memory, as SQLite does (docFault), so a file that
// exhausts it would otherwise kill every Sync that reads it, and with
// each the batch of files read before it. The next Sync records the file
// as skipped instead (recoverReading), until it changes.
func (s *syncer) markReading(id string, size, mtime int64) error {
	note, err := json.Marshal(reading{Path: id, Size: size, Mtime: mtime})
	if err != nil {
		return err
	}
	if _, err := s.ix.db.ExecContext(s.ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES ('reading', ?)`, string(note)); err != nil {
		return fmt.Errorf("note reading %s in %s: %w", id, s.ix.dbPath, err)
	}
	return nil
}

// unmarkReading removes markReading's note, even once ctx is done.
func (s *syncer) unmarkReading(id string) error {
	if _, err := s.ix.db.ExecContext(context.WithoutCancel(s.ctx), `DELETE FROM meta WHERE key = 'reading'`); err != nil {
		return fmt.Errorf("note %s read in %s: %w", id, s.ix.dbPath, err)
	}
	return nil
}

// recoverReading looks for the note of a file that the last Sync was
// reading when its process died (markReading), and records that file as
// skipped with the reason diedReading, in place of anything the index had
// for it; the file is read again once its size or modification time
// changes. It runs under the sync lock, before load.
func (s *syncer) recoverReading() error {
	var note string
	err := s.ix.db.QueryRowContext(s.ctx, `SELECT value FROM meta WHERE key = 'reading'`).Scan(&note)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("read %s: %w", s.ix.dbPath, err)
	}
	var r reading
	if err := json.Unmarshal([]byte(note), &r); err == nil && r.Path != "" {
		if _, err := s.ix.write(s.ctx, []change{{path: r.Path, size: r.Size, mtime: r.Mtime, skip: diedReading}}); err != nil {
			return err
		}
	}
	return s.unmarkReading(r.Path)
}
