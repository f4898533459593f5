package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Journals and resumption.
//
// A run's journal (internal/journal) is kept beside its event log, in the
// same transactions: AppendJournal goes through the same writer goroutine
// and group commit as Append, so an entry is readable only once committed,
// and an entry appended before an event is never lost while the event is
// kept. Entries are opaque bytes, read back in append order.
//
// A run marked interrupted (its process died, or its server shut down) can
// be taken up again by any Store: Reopen marks it running again, owned by
// the Store that reopens it, and counts the attempt, atomically, so that
// two processes never resume the same run.

const schemaJournal = `
CREATE TABLE IF NOT EXISTS journal (
	id     INTEGER PRIMARY KEY,         -- append order
	run_id TEXT NOT NULL,
	entry  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_run ON journal (run_id, id);
`

// migrate adds what stores created by earlier versions lack: the journal
// table and the runs' origin and attempts.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.wdb.ExecContext(ctx, schemaJournal); err != nil {
		return fmt.Errorf("create the journal table: %w", err)
	}
	if _, err := s.wdb.ExecContext(ctx, schemaRecheck); err != nil {
		return fmt.Errorf("create the rechecks table: %w", err)
	}
	have := map[string]bool{}
	rows, err := s.wdb.QueryContext(ctx, `SELECT name FROM pragma_table_info('runs')`)
	if err != nil {
		return fmt.Errorf("read the runs table: %w", err)
	}
	for rows.Next() {
		var name string
		if rows.Scan(&name) == nil {
			have[name] = true
		}
	}
	rows.Close()
	for _, c := range []struct{ name, def string }{
		{"origin", `TEXT NOT NULL DEFAULT ''`},
		{"attempts", `INTEGER NOT NULL DEFAULT 1`},
		{"parent", `TEXT NOT NULL DEFAULT ''`},
	} {
		if have[c.name] {
			continue
		}
		if _, err := s.wdb.ExecContext(ctx, `ALTER TABLE runs ADD COLUMN `+c.name+` `+c.def); err != nil {
			return fmt.Errorf("add runs.%s: %w", c.name, err)
		}
	}
	if _, err := s.wdb.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS runs_parent ON runs (parent, created_at)`); err != nil {
		return fmt.Errorf("index runs.parent: %w", err)
	}
	return nil
}

// AppendJournal adds entry to run's journal. The run must be live
// (ErrFinished otherwise). When it returns, the entry is durable for every
// reader; like Append, it is committed in a batch with whatever else is
// waiting (group commit).
func (s *Store) AppendJournal(ctx context.Context, run string, entry []byte) error {
	req, err := s.queueJournal(ctx, run, entry, nil)
	if err != nil {
		return err
	}
	<-req.done
	return opErr("journal", run, req.err)
}

// QueueJournal adds entry to run's journal without waiting for it to be
// committed: it returns once the entry is queued to the Store's one
// writer, ahead of every Append and QueueJournal called after it returns,
// so that it is committed before them or in the same transaction — an
// event that follows from the entry is never stored without it — and it
// is readable only once committed. done (if not nil) is told the outcome,
// on the writer's goroutine: it must not block or call the Store.
func (s *Store) QueueJournal(ctx context.Context, run string, entry []byte, done func(error)) error {
	_, err := s.queueJournal(ctx, run, entry, func(err error) {
		if done != nil {
			done(opErr("journal", run, err))
		}
	})
	return err
}

func (s *Store) queueJournal(ctx context.Context, run string, entry []byte, notify func(error)) (*appendReq, error) {
	req := &appendReq{ev: Event{RunID: run}, entry: entry, done: make(chan struct{}), notify: notify}
	select {
	case s.appends <- req:
		return req, nil
	case <-s.stop:
		return nil, opErr("journal", run, ErrClosed)
	case <-ctx.Done():
		return nil, opErr("journal", run, context.Cause(ctx))
	}
}

// insertEntries inserts a batch's journal entries.
func insertEntries(ctx context.Context, tx *sql.Tx, entries []*appendReq) error {
	if len(entries) == 0 {
		return nil
	}
	var q strings.Builder
	args := make([]any, 0, 2*len(entries))
	q.WriteString(`INSERT INTO journal (run_id, entry) VALUES `)
	for i, r := range entries {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?)")
		args = append(args, r.ev.RunID, string(r.entry))
	}
	_, err := tx.ExecContext(ctx, q.String(), args...)
	return err
}

// Journal returns run's journal entries in the order they were appended
// (none for a run without one).
func (s *Store) Journal(ctx context.Context, run string) ([][]byte, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT entry FROM journal WHERE run_id = ? ORDER BY id`, run)
	if err != nil {
		return nil, opErr("read the journal of", run, err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			return nil, opErr("read the journal of", run, err)
		}
		out = append(out, []byte(e))
	}
	return out, opErr("read the journal of", run, rows.Err())
}

// Reopen takes up an interrupted run for a new attempt: it is marked
// running again, owned by this Store, and its Attempts counted. Only an
// interrupted run can be reopened (ErrNotFound for none; an error naming
// its status otherwise), and only once: of two Stores reopening it, one
// fails.
func (s *Store) Reopen(ctx context.Context, id string) (Run, error) {
	res, err := s.wdb.ExecContext(ctx, `UPDATE runs SET status = 'running', owner = ?, attempts = attempts + 1,
		finished_at = NULL, error = '' WHERE id = ? AND status = 'interrupted'`, s.owner, id)
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil && n != 1 {
			var r Run
			if r, err = s.Get(ctx, id); err == nil {
				err = fmt.Errorf("run is %s; only an interrupted run can be resumed", r.Status)
			}
		}
	}
	if err != nil {
		return Run{}, opErr("reopen", id, err)
	}
	s.hub.notify(id)
	r, err := s.Get(ctx, id)
	return r, opErr("reopen", id, err)
}

// GiveUp ends an interrupted run that will not be resumed: it is marked
// failed, with msg as its error.
func (s *Store) GiveUp(ctx context.Context, id, msg string) error {
	res, err := s.wdb.ExecContext(ctx, `UPDATE runs SET status = 'failed', error = ? WHERE id = ? AND status = 'interrupted'`, msg, id)
	if err == nil {
		err = s.expectOne(ctx, res, id)
	}
	if err == nil {
		s.hub.notify(id)
	}
	return opErr("give up", id, err)
}

// Interrupted returns the interrupted runs started by origin, oldest
// first.
func (s *Store) Interrupted(ctx context.Context, origin string) ([]Run, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE status = 'interrupted' AND origin = ?
		ORDER BY created_at, id`, origin)
	if err != nil {
		return nil, opErr("list interrupted runs", "", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, opErr("list interrupted runs", "", err)
		}
		out = append(out, r)
	}
	return out, opErr("list interrupted runs", "", rows.Err())
}

// FollowUps returns the runs whose Parent is id (the follow-up questions
// asked of it), oldest first; none for a run that has none, or that the
// store does not hold.
func (s *Store) FollowUps(ctx context.Context, id string) ([]Run, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE parent = ? AND parent != ''
		ORDER BY created_at, id`, id)
	if err != nil {
		return nil, opErr("list follow-ups of", id, err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, opErr("list follow-ups of", id, err)
		}
		out = append(out, r)
	}
	return out, opErr("list follow-ups of", id, rows.Err())
}

// Logged returns the events stored for run id so far, in order, without
// waiting for more.
func (s *Store) Logged(ctx context.Context, id string) ([]Event, error) {
	var out []Event
	for {
		evs, err := s.after(ctx, id, uint64(len(out)))
		if err != nil {
			return nil, opErr("read the events of", id, err)
		}
		out = append(out, evs...)
		if len(evs) < batch {
			return out, nil
		}
	}
}

// reapLocal forgets the owners on this host whose process has died (kill
// -9, OOM), so that the sweep marks their runs interrupted at once rather
// than after the lease: a server restarted after a crash resumes its runs
// straight away. An owner whose process cannot be checked keeps its
// lease.
func (s *Store) reapLocal(ctx context.Context) {
	host, _ := os.Hostname()
	rows, err := s.wdb.QueryContext(ctx, `SELECT id FROM owners WHERE id <> ?`, s.owner)
	if err != nil {
		return
	}
	var dead []string
	for rows.Next() {
		var id string
		if rows.Scan(&id) != nil {
			continue
		}
		h, pid, ok := ownerProcess(id)
		if ok && h == host && pid != os.Getpid() && !processAlive(pid) {
			dead = append(dead, id)
		}
	}
	rows.Close()
	for _, id := range dead {
		s.wdb.ExecContext(ctx, `DELETE FROM owners WHERE id = ?`, id)
	}
}

// ownerProcess reads the host and process ID of an owner ID
// ("host/pid/random", see newOwnerID).
func ownerProcess(id string) (host string, pid int, ok bool) {
	i := strings.LastIndexByte(id, '/')
	if i < 0 {
		return "", 0, false
	}
	j := strings.LastIndexByte(id[:i], '/')
	if j < 0 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(id[j+1 : i])
	return id[:j], pid, err == nil && pid > 0
}
