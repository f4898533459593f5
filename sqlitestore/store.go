// Package sqlitestore keeps research runs in an SQLite database file: the runs
// with their status and usage, each run's append-only event log, the
// sources the run's report cites with the text that was read (so a
// citation can be re-checked later without the web), the reports, and
// each run's journal of calls, from which an interrupted run is resumed
// (see journal.go).
//
// # The event log
//
// A run's events are stored with their sequence numbers (1, 2, 3… without
// gaps) as exactly the JSON json.Marshal(events.Event) gives — the line
// the CLI's --events writes. Append refuses an event that is not the next
// of its run, and any event once the run has ended: the log is append-only
// and its sequence is its identity. Events follows a run from any sequence
// number: it yields the stored events, then the ones appended after, and
// ends after the last event of an ended run. A follower never misses or
// repeats an event, whether it starts before, during or after the run,
// because it reads only from the log and remembers the last sequence
// number it yielded.
//
// # Processes
//
// Nothing assumes one process: several processes (or machines sharing the
// file) may write and follow runs. Followers in the process that appends
// are woken at once; others find new events by re-reading the log every
// Options.Poll. Each open Store is an owner with a heartbeat; a run whose
// owner has stopped beating for Options.LeaseTTL (a process that died) is
// marked interrupted by the next Store that opens or beats — it is never
// left running, and never lost. The log's shape (append-only, per-run
// sequence numbers, an expected-last-sequence check on append) is what a
// NATS JetStream stream offers, so the log and the run queue can move
// there when agents run across machines.
package sqlitestore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/usage"
	"github.com/deepresearch/deepresearch/runstore"
)

// What the store keeps: the types of the root package's Store interface
// (runstore.Run, runstore.Event, runstore.Source, runstore.Status), which
// *Store implements.
type (
	Status = runstore.Status
	Run    = runstore.Run
	Event  = runstore.Event
	Source = runstore.Source
)

// The run statuses are the root package's (runstore.Queued, …).

// Options tune a Store; zero fields take the defaults.
type Options struct {
	// Clock stamps runs and heartbeats and times the heartbeat, the WAL
	// checkpoints and the followers' polls; nil means the real clock.
	Clock clock.Clock
	// LeaseTTL is how long an owner may miss its heartbeat before its live
	// runs are marked interrupted (default 30s).
	LeaseTTL time.Duration
	// Heartbeat is how often the Store beats (default LeaseTTL/3).
	Heartbeat time.Duration
	// Poll is how often a follower re-reads a run's log when no append in
	// this process woke it: the latency of following a run another process
	// writes (default 250ms).
	Poll time.Duration
}

// Store is an open run store. It is safe for concurrent use. Close it.
type Store struct {
	path  string
	owner string
	opts  Options
	rdb   *sql.DB // readers
	wdb   *sql.DB // the one writer connection: writes queue here, not on SQLite's busy timeout
	hub   hub

	appends chan *appendReq // to the writer goroutine, which commits them in batches
	insert  *sql.Stmt

	// liveMu serialises a batch's commit with Finish; live caches the last
	// sequence number of the live runs this Store appends to, so that a
	// batch checks each event without reading the database. Finish drops
	// a run from it before marking it ended.
	liveMu sync.Mutex
	live   map[string]uint64

	stop  chan struct{}
	done  chan struct{} // the heartbeat has stopped
	wdone chan struct{} // the writer has stopped
	once  sync.Once

	readOnly bool // OpenReadOnly's: no owner, heartbeat or writer
}

// appendReq is one Append (or AppendJournal) waiting for its batch to
// commit.
type appendReq struct {
	ev     Event
	entry  []byte // a journal entry of run ev.RunID, rather than an event
	err    error
	done   chan struct{}
	notify func(error) // if set, told the outcome on the writer goroutine
}

const schema = `
CREATE TABLE IF NOT EXISTS owners (
	id        TEXT PRIMARY KEY,
	heartbeat INTEGER NOT NULL          -- unix nanoseconds
);
CREATE TABLE IF NOT EXISTS runs (
	id          TEXT PRIMARY KEY,
	question    TEXT NOT NULL,
	options     TEXT NOT NULL DEFAULT '{}',
	status      TEXT NOT NULL,
	error       TEXT NOT NULL DEFAULT '',
	owner       TEXT NOT NULL,
	created_at  INTEGER NOT NULL,       -- unix nanoseconds
	finished_at INTEGER,
	usage       TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status, owner);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at);
CREATE TABLE IF NOT EXISTS events (
	run_id TEXT NOT NULL,
	seq    INTEGER NOT NULL,
	type   TEXT NOT NULL,
	json   TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sources (
	run_id     TEXT NOT NULL,
	source_id  TEXT NOT NULL,
	url        TEXT NOT NULL,
	title      TEXT NOT NULL,
	channel    TEXT NOT NULL,
	text       TEXT NOT NULL,
	sha256     TEXT NOT NULL,
	fetched_at INTEGER NOT NULL,
	PRIMARY KEY (run_id, source_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reports (
	run_id     TEXT PRIMARY KEY,
	json       TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
`

// Open opens or creates the store in the SQLite file at path (its folder
// is created if missing), refuses it with a *CorruptError when SQLite's
// quick integrity check finds it damaged (OpenReadOnly still reads what it
// can), marks interrupted the live runs of owners that
// stopped beating, and starts this Store's heartbeat. The caller must
// Close it.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	opts.Clock = clock.Or(opts.Clock)
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = 30 * time.Second
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = opts.LeaseTTL / 3
	}
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, opErr("open", "", fmt.Errorf("%s: %w", path, err))
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, opErr("open", "", err)
	}
	// The writer never checkpoints the WAL itself (a checkpoint in a
	// commit stalls every append behind it): the heartbeat goroutine
	// checkpoints in the background.
	wdb, err := sql.Open("sqlite", dsn(abs)+"&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		return nil, opErr("open", "", fmt.Errorf("%s: %w", abs, err))
	}
	wdb.SetMaxOpenConns(1)
	// A damaged file is refused before anything is written to it.
	if err := checkIntegrity(ctx, wdb, abs, false); err != nil {
		wdb.Close()
		return nil, err
	}
	rdb, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		wdb.Close()
		return nil, opErr("open", "", fmt.Errorf("%s: %w", abs, err))
	}
	rdb.SetMaxOpenConns(8)
	rdb.SetMaxIdleConns(8)
	s := &Store{path: abs, owner: newOwnerID(), opts: opts, rdb: rdb, wdb: wdb,
		hub: hub{runs: map[string]*tail{}}, appends: make(chan *appendReq), live: map[string]uint64{},
		stop: make(chan struct{}), done: make(chan struct{}), wdone: make(chan struct{})}
	if err := s.init(ctx); err != nil {
		rdb.Close()
		wdb.Close()
		return nil, err
	}
	if s.insert, err = wdb.PrepareContext(ctx, sqlInsertEvent); err != nil {
		rdb.Close()
		wdb.Close()
		return nil, opErr("open", "", err)
	}
	go s.beat()
	go s.write()
	return s, nil
}

func (s *Store) init(ctx context.Context) error {
	if _, err := s.wdb.ExecContext(ctx, schema); err != nil {
		return opErr("open", "", fmt.Errorf("%s: create schema: %w", s.path, err))
	}
	if err := s.migrate(ctx); err != nil {
		return opErr("open", "", fmt.Errorf("%s: %w", s.path, err))
	}
	if _, err := s.wdb.ExecContext(ctx, `INSERT INTO owners (id, heartbeat) VALUES (?, ?)`, s.owner, s.now()); err != nil {
		return opErr("open", "", fmt.Errorf("%s: register owner: %w", s.path, err))
	}
	return s.sweep(ctx)
}

// dsn is the modernc.org/sqlite data source name for the file at abs,
// setting the busy timeout, WAL journaling and NORMAL sync on every pooled
// connection, and BEGIN IMMEDIATE for transactions.
func dsn(abs string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	return fileURL(abs, q)
}

// fileURL is the file: URL of the database at abs with query q.
func fileURL(abs string, q url.Values) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}).String()
}

func newOwnerID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

func (s *Store) now() int64 { return s.opts.Clock.Now().UnixNano() }

// checkpointEvery is how often the WAL is checkpointed in the background.
const checkpointEvery = 500 * time.Millisecond

// beat renews this owner's heartbeat and sweeps dead owners' runs, every
// Options.Heartbeat, and checkpoints the WAL, until Close.
func (s *Store) beat() {
	defer close(s.done)
	t := clock.NewTicker(s.opts.Clock, s.opts.Heartbeat)
	defer t.Stop()
	cp := clock.NewTicker(s.opts.Clock, checkpointEvery)
	defer cp.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-cp.C:
			// Copy the WAL into the database without blocking the writer
			// or readers; the WAL is reused once a checkpoint completes.
			_, _ = s.rdb.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
		case <-t.C:
			ctx := context.Background()
			_, _ = s.wdb.ExecContext(ctx, `UPDATE owners SET heartbeat = ? WHERE id = ?`, s.now(), s.owner)
			_ = s.sweep(ctx)
		}
	}
}

// sweep marks interrupted every live run whose owner has not beaten
// within the lease, and forgets such owners.
func (s *Store) sweep(ctx context.Context) error {
	s.reapLocal(ctx)
	now := s.now()
	cutoff := now - s.opts.LeaseTTL.Nanoseconds()
	rows, err := s.wdb.QueryContext(ctx, `UPDATE runs SET status = 'interrupted', finished_at = ?,
		error = 'the process running it stopped before it ended'
		WHERE status IN ('queued', 'running', 'needs_input', 'awaiting_plan')
		AND owner NOT IN (SELECT id FROM owners WHERE heartbeat >= ?) RETURNING id`, now, cutoff)
	if err != nil {
		return opErr("sweep", "", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err == nil {
			ids = append(ids, id)
		}
	}
	rows.Close()
	for _, id := range ids {
		s.hub.notify(id)
	}
	if _, err := s.wdb.ExecContext(ctx, `DELETE FROM owners WHERE heartbeat < ?`, cutoff); err != nil {
		return opErr("sweep", "", err)
	}
	return nil
}

// Close stops the heartbeat, marks interrupted the runs this Store still
// has live (stop them first to record a better status), and closes the
// database.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		if s.readOnly {
			err = s.rdb.Close()
			return
		}
		close(s.stop)
		<-s.done
		<-s.wdone
		ctx := context.Background()
		rows, qerr := s.wdb.QueryContext(ctx, `UPDATE runs SET status = 'interrupted', finished_at = ?,
			error = 'the server stopped before it ended' WHERE status IN ('queued', 'running', 'needs_input', 'awaiting_plan') AND owner = ? RETURNING id`, s.now(), s.owner)
		if qerr == nil {
			for rows.Next() {
				var id string
				if rows.Scan(&id) == nil {
					s.hub.notify(id)
				}
			}
			rows.Close()
		}
		_, derr := s.wdb.ExecContext(ctx, `DELETE FROM owners WHERE id = ?`, s.owner)
		err = errors.Join(qerr, derr, s.insert.Close(), s.rdb.Close(), s.wdb.Close())
		if err != nil {
			err = opErr("close", "", err)
		}
	})
	return err
}

// Create stores a new run, queued and owned by this Store. r.ID must be
// new; Status, Created, Finished, Usage, Events and Attempts are set
// here.
func (s *Store) Create(ctx context.Context, r Run) error {
	opts := string(r.Options)
	if opts == "" {
		opts = "{}"
	}
	_, err := s.wdb.ExecContext(ctx, `INSERT INTO runs (id, question, options, status, owner, created_at, origin, parent)
		VALUES (?, ?, ?, 'queued', ?, ?, ?, ?)`, r.ID, r.Question, opts, s.owner, s.now(), r.Origin, r.Parent)
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		err = ErrExists
	}
	return opErr("create", r.ID, err)
}

// Start marks a queued run running.
func (s *Store) Start(ctx context.Context, id string) error {
	res, err := s.wdb.ExecContext(ctx, `UPDATE runs SET status = 'running' WHERE id = ? AND status = 'queued'`, id)
	if err == nil {
		err = s.expectOne(ctx, res, id)
	}
	if err == nil {
		s.hub.notify(id)
	}
	return opErr("start", id, err)
}

// SetStatus sets the status of a live run that waits for a person
// (NeedsInput, AwaitingPlan) or goes on (Running).
func (s *Store) SetStatus(ctx context.Context, id string, st Status) error {
	if st != runstore.Running && !st.Waiting() {
		return opErr("set the status of", id, fmt.Errorf("%q is not running or waiting", st))
	}
	res, err := s.wdb.ExecContext(ctx, `UPDATE runs SET status = ? WHERE id = ? AND status IN ('running', 'needs_input', 'awaiting_plan')`, st, id)
	if err == nil {
		err = s.expectOne(ctx, res, id)
	}
	if err == nil {
		s.hub.notify(id)
	}
	return opErr("set the status of", id, err)
}

// expectOne turns an update that touched no row into ErrNotFound or
// ErrFinished.
func (s *Store) expectOne(ctx context.Context, res sql.Result, id string) error {
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	r, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if r.Status.Ended() {
		return fmt.Errorf("%w (%s)", ErrFinished, r.Status)
	}
	return fmt.Errorf("run is %s", r.Status)
}

// Finish ends a live run with a final status, its usage and, for a run
// that did not finish, what went wrong. Followers of the run end once
// they have yielded its last event.
func (s *Store) Finish(ctx context.Context, id string, st Status, u usage.Usage, errMsg string) error {
	if !st.Ended() {
		return opErr("finish", id, fmt.Errorf("%q is not a final status", st))
	}
	ub, err := json.Marshal(u)
	if err != nil {
		return opErr("finish", id, err)
	}
	s.liveMu.Lock()
	delete(s.live, id)
	res, err := s.wdb.ExecContext(ctx, `UPDATE runs SET status = ?, usage = ?, error = ?, finished_at = ?
		WHERE id = ? AND status IN ('queued', 'running', 'needs_input', 'awaiting_plan')`, st, string(ub), errMsg, s.now(), id)
	s.liveMu.Unlock()
	if err == nil {
		err = s.expectOne(ctx, res, id)
	}
	s.hub.forget(id)
	return opErr("finish", id, err)
}

// Append adds ev to its run's log, stored as json.Marshal(ev). ev.Seq must
// be one more than the run's last stored event (ErrSeq otherwise) and the
// run must be live (ErrFinished otherwise). When Append returns, the event
// is durable for every reader and followers have been woken.
//
// Appends from any number of goroutines are committed together, one
// transaction per batch (group commit): the cost of a commit is shared by
// every event waiting for it, and no caller returns before its event is
// committed.
func (s *Store) Append(ctx context.Context, ev events.Event) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return opErr("append to", ev.RunID, err)
	}
	req := &appendReq{ev: Event{RunID: ev.RunID, Seq: ev.Seq, Type: string(ev.Type), JSON: b}, done: make(chan struct{})}
	select {
	case s.appends <- req:
	case <-s.stop:
		return opErr("append to", ev.RunID, ErrClosed)
	case <-ctx.Done():
		return opErr("append to", ev.RunID, context.Cause(ctx))
	}
	<-req.done // a queued event is always committed or failed, even if ctx ends
	return opErr("append to", ev.RunID, req.err)
}

const sqlInsertEvent = `INSERT INTO events (run_id, seq, type, json) VALUES (?, ?, ?, ?)`

// maxBatch bounds the events one transaction commits.
const maxBatch = 1024

// write is the writer goroutine: it commits queued appends in batches
// until Close.
func (s *Store) write() {
	defer close(s.wdone)
	var batch []*appendReq
	for {
		batch = batch[:0]
		select {
		case <-s.stop:
			return
		case r := <-s.appends:
			batch = append(batch, r)
		}
	more:
		for len(batch) < maxBatch {
			select {
			case r := <-s.appends:
				batch = append(batch, r)
			default:
				break more
			}
		}
		s.commit(batch)
	}
}

// commit stores a batch of appends in one transaction, then wakes the
// followers of their runs and releases their callers. Each event is
// checked against its run's last sequence number and status before it is
// inserted: from the cache of live runs this Store appends to, else read
// inside the transaction (so a writer in another process cannot
// interleave). The primary key (run_id, seq) refuses a duplicate even so.
func (s *Store) commit(batch []*appendReq) {
	ctx := context.Background()
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	tx, err := s.wdb.BeginTx(ctx, nil)
	failed := map[string]error{} // runs this batch found missing or ended
	last := map[string]uint64{}  // the batch's view of each run's last seq
	var rows []*appendReq        // the events that pass their checks
	var entries []*appendReq     // the journal entries that pass them
	if err == nil {
		for _, r := range batch {
			e := r.ev
			if err, ok := failed[e.RunID]; ok {
				r.err = err
				continue
			}
			n, ok := last[e.RunID]
			if !ok {
				if n, ok = s.live[e.RunID]; !ok {
					var st Status
					var l int64
					err := tx.QueryRowContext(ctx, `SELECT status, COALESCE((SELECT MAX(seq) FROM events WHERE run_id = ?1), 0)
						FROM runs WHERE id = ?1`, e.RunID).Scan(&st, &l)
					switch {
					case isNoRows(err):
						err = ErrNotFound
					case err == nil && st.Ended():
						err = fmt.Errorf("%w (%s)", ErrFinished, st)
					}
					if err != nil {
						failed[e.RunID], r.err = err, err
						continue
					}
					n = uint64(l)
				}
				last[e.RunID] = n
			}
			if r.entry != nil {
				entries = append(entries, r)
				continue
			}
			if e.Seq != n+1 {
				r.err = fmt.Errorf("%w: got seq %d after %d", ErrSeq, e.Seq, n)
				continue
			}
			rows = append(rows, r)
			last[e.RunID] = e.Seq
		}
		// One statement for the batch; should it fail (a writer in another
		// process took a sequence number), row by row, to fail only those.
		if len(rows) > 0 {
			var q strings.Builder
			args := make([]any, 0, 4*len(rows))
			q.WriteString(`INSERT INTO events (run_id, seq, type, json) VALUES `)
			for i, r := range rows {
				if i > 0 {
					q.WriteString(", ")
				}
				q.WriteString("(?, ?, ?, ?)")
				args = append(args, r.ev.RunID, int64(r.ev.Seq), r.ev.Type, string(r.ev.JSON))
			}
			if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
				stmt := tx.StmtContext(ctx, s.insert)
				for _, r := range rows {
					if _, r.err = stmt.ExecContext(ctx, r.ev.RunID, int64(r.ev.Seq), r.ev.Type, string(r.ev.JSON)); r.err != nil {
						delete(last, r.ev.RunID) // read it again next time
						delete(s.live, r.ev.RunID)
						if strings.Contains(r.err.Error(), "constraint failed") {
							r.err = fmt.Errorf("%w: seq %d is already taken (%v)", ErrSeq, r.ev.Seq, r.err)
						}
					}
				}
			}
		}
		if err == nil {
			err = insertEntries(ctx, tx, entries)
		}
		if err == nil {
			err = tx.Commit()
		} else {
			tx.Rollback()
		}
	}
	if err == nil {
		for run, n := range last {
			s.live[run] = n
		}
	} else {
		clear(s.live) // what was cached may not have been committed
	}
	for _, r := range batch {
		if err != nil && r.err == nil {
			r.err = err
		}
		if r.err == nil && r.entry == nil {
			s.hub.publish(r.ev)
		}
		if r.notify != nil {
			r.notify(r.err)
		}
		close(r.done)
	}
}

const runColumns = `id, question, options, status, error, created_at, finished_at, usage,
	COALESCE((SELECT MAX(seq) FROM events WHERE run_id = runs.id), 0), origin, attempts, parent`

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var opts, ub string
	var created int64
	var finished sql.NullInt64
	var last int64
	if err := sc.Scan(&r.ID, &r.Question, &opts, &r.Status, &r.Error, &created, &finished, &ub, &last, &r.Origin, &r.Attempts, &r.Parent); err != nil {
		return r, err
	}
	r.Options = json.RawMessage(opts)
	r.Created = time.Unix(0, created).UTC()
	if finished.Valid {
		r.Finished = time.Unix(0, finished.Int64).UTC()
	}
	r.Events = uint64(last)
	if err := json.Unmarshal([]byte(ub), &r.Usage); err != nil {
		return r, fmt.Errorf("usage: %w", err)
	}
	return r, nil
}

// Get returns the run id (ErrNotFound if there is none).
func (s *Store) Get(ctx context.Context, id string) (Run, error) {
	r, err := scanRun(s.rdb.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	return r, opErr("get", id, err)
}

// List returns the newest runs first, at most limit of them (all when
// limit <= 0). On a damaged store it returns the runs it can still read,
// with a *CorruptError (ErrCorrupt) that says how many it could not.
func (s *Store) List(ctx context.Context, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+runColumns+` FROM runs ORDER BY created_at DESC, id LIMIT ?`, limit)
	if err != nil {
		if corrupt(err) {
			return s.salvageList(ctx, limit, err)
		}
		return nil, opErr("list", "", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, opErr("list", "", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); corrupt(err) {
		return s.salvageList(ctx, limit, err)
	}
	return out, opErr("list", "", rows.Err())
}

// PutSource stores (or replaces) a document run src.RunID read, with its
// SHA-256 computed here from src.Text. A zero Fetched means now.
func (s *Store) PutSource(ctx context.Context, src Source) error {
	sum := sha256.Sum256([]byte(src.Text))
	if src.Fetched.IsZero() {
		src.Fetched = s.opts.Clock.Now()
	}
	_, err := s.wdb.ExecContext(ctx, `INSERT OR REPLACE INTO sources
		(run_id, source_id, url, title, channel, text, sha256, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		src.RunID, src.ID, src.URL, src.Title, src.Channel, src.Text, hex.EncodeToString(sum[:]), src.Fetched.UnixNano())
	return opErr("put source of", src.RunID, err)
}

// Sources returns the documents stored for run id, by source ID.
func (s *Store) Sources(ctx context.Context, id string) ([]Source, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT run_id, source_id, url, title, channel, text, sha256, fetched_at
		FROM sources WHERE run_id = ? ORDER BY source_id`, id)
	if err != nil {
		return nil, opErr("get sources of", id, err)
	}
	defer rows.Close()
	var out []Source
	for rows.Next() {
		var src Source
		var fetched int64
		if err := rows.Scan(&src.RunID, &src.ID, &src.URL, &src.Title, &src.Channel, &src.Text, &src.SHA256, &fetched); err != nil {
			return nil, opErr("get sources of", id, err)
		}
		src.Fetched = time.Unix(0, fetched).UTC()
		out = append(out, src)
	}
	return out, opErr("get sources of", id, rows.Err())
}

// PutReport stores (or replaces) run id's report, as JSON.
func (s *Store) PutReport(ctx context.Context, id string, report json.RawMessage) error {
	if !json.Valid(report) {
		return opErr("put report of", id, errors.New("the report is not valid JSON"))
	}
	_, err := s.wdb.ExecContext(ctx, `INSERT OR REPLACE INTO reports (run_id, json, created_at) VALUES (?, ?, ?)`,
		id, string(report), s.now())
	return opErr("put report of", id, err)
}

// Report returns run id's report JSON, or ErrNotFound when it has none.
func (s *Store) Report(ctx context.Context, id string) (json.RawMessage, error) {
	var b string
	err := s.rdb.QueryRowContext(ctx, `SELECT json FROM reports WHERE run_id = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return nil, opErr("get report of", id, err)
	}
	return json.RawMessage(b), nil
}
