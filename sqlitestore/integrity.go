package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch/clock"
)

// ErrCorrupt reports a store whose database file is damaged (a disk or
// copy that wrote over part of it): the integrity check found problems,
// or SQLite found a page it cannot read.
var ErrCorrupt = errors.New("store: the database file is damaged")

// CorruptError is what an integrity check found wrong with the store at
// Path, and what to do about it. It unwraps to ErrCorrupt.
type CorruptError struct {
	Path string
	// Problems are SQLite's findings, at most maxProblems of them.
	Problems []string
}

func (e *CorruptError) Error() string {
	what := strings.Join(e.Problems, "; ")
	if what == "" {
		what = "SQLite cannot read part of it"
	}
	return fmt.Sprintf("store: %s is damaged (%s). Its readable runs are still listed by 'deepresearch runs' and shown by 'deepresearch show'; "+
		"to go on, move it aside (mv %s %s.damaged) and a new store is made at the next start, or put back a copy you trust; "+
		"'deepresearch store check' runs the full check", e.Path, what, e.Path, e.Path)
}

// Unwrap returns ErrCorrupt.
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// maxProblems bounds the findings a check reports.
const maxProblems = 5

// checkIntegrity runs SQLite's quick check (full: the integrity check,
// which also compares every index with its table) on db and returns a
// *CorruptError when it finds problems. Its cost is a read of the whole
// file: a few milliseconds for a store of thousands of runs.
func checkIntegrity(ctx context.Context, db *sql.DB, path string, full bool) error {
	pragma := fmt.Sprintf("PRAGMA quick_check(%d)", maxProblems)
	if full {
		pragma = fmt.Sprintf("PRAGMA integrity_check(%d)", maxProblems)
	}
	rows, err := db.QueryContext(ctx, pragma)
	if err != nil {
		if corrupt(err) {
			return &CorruptError{Path: path, Problems: []string{err.Error()}}
		}
		return opErr("check", "", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return opErr("check", "", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		if corrupt(err) {
			return &CorruptError{Path: path, Problems: append(problems, err.Error())}
		}
		return opErr("check", "", err)
	}
	if len(problems) > 0 {
		return &CorruptError{Path: path, Problems: problems}
	}
	return nil
}

// corrupt reports whether err is SQLite saying the file is damaged or is
// no database (SQLITE_CORRUPT, SQLITE_NOTADB).
func corrupt(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrCorrupt) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_CORRUPT") ||
		strings.Contains(msg, "not a database") || strings.Contains(msg, "SQLITE_NOTADB")
}

// Check runs the full integrity check on the store at path without
// changing it (`deepresearch store check`): nil when it is sound, a
// *CorruptError (ErrCorrupt) saying what is damaged and what to do when
// it is not.
func Check(ctx context.Context, path string) error {
	st, err := OpenReadOnly(ctx, path, Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	return checkIntegrity(ctx, st.rdb, st.path, true)
}

// OpenReadOnly opens the store at path for reading only: no integrity
// check, no owner, no heartbeat, no sweep, nothing written. It is what a
// damaged store still gives — Get, List (which lists what it can read),
// Report, Sources and Events of the runs whose pages are sound — and what
// Check reads. Writes fail. The caller must Close it.
func OpenReadOnly(ctx context.Context, path string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, opErr("open", "", fmt.Errorf("%s: %w", path, err))
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Set("mode", "ro")
	db, err := sql.Open("sqlite", fileURL(abs, q))
	if err != nil {
		return nil, opErr("open", "", fmt.Errorf("%s: %w", abs, err))
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, opErr("open", "", fmt.Errorf("%s: %w", abs, err))
	}
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	s := &Store{path: abs, opts: opts, rdb: db, wdb: db, readOnly: true,
		hub: hub{runs: map[string]*tail{}}, appends: make(chan *appendReq), live: map[string]uint64{},
		stop: make(chan struct{}), done: make(chan struct{}), wdone: make(chan struct{})}
	s.opts.Clock = clock.Or(opts.Clock)
	close(s.stop)
	close(s.done)
	close(s.wdone)
	return s, nil
}

// salvageList lists what it can of a store List failed to read: the runs
// whose records are readable, newest first, each with the count of its
// events where the log can be read (else 0). It returns them with a
// *CorruptError that says how many could not be read.
func (s *Store) salvageList(ctx context.Context, limit int, cause error) ([]Run, error) {
	var rowids []int64
	rows, err := s.rdb.QueryContext(ctx, `SELECT rowid FROM runs NOT INDEXED`)
	if err == nil {
		for rows.Next() {
			var id int64
			if rows.Scan(&id) == nil {
				rowids = append(rowids, id)
			}
		}
		err = rows.Err()
		rows.Close()
	}
	if len(rowids) == 0 && err != nil {
		return nil, &CorruptError{Path: s.path, Problems: []string{cause.Error(), err.Error()}}
	}
	var out []Run
	lost := 0
	for _, rowid := range rowids {
		r, err := scanRun(s.rdb.QueryRowContext(ctx, `SELECT id, question, options, status, error, created_at, finished_at, usage, 0, origin, attempts, parent
			FROM runs NOT INDEXED WHERE rowid = ?`, rowid))
		if err != nil {
			lost++
			continue
		}
		var last sql.NullInt64
		if s.rdb.QueryRowContext(ctx, `SELECT MAX(seq) FROM events WHERE run_id = ?`, r.ID).Scan(&last) == nil && last.Valid {
			r.Events = uint64(last.Int64)
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b Run) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	problem := fmt.Sprintf("listing the runs failed (%v)", cause)
	if lost > 0 || err != nil {
		problem += fmt.Sprintf("; %d runs could not be read", lost)
		if err != nil {
			problem += " and the list of runs itself is cut short"
		}
	}
	return out, &CorruptError{Path: s.path, Problems: []string{problem}}
}
