package corpus

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// lockPoll is how long one attempt to take the sync lock waits before the
// context is looked at again; a waiting Sync notices cancellation within
// about this time.
const lockPoll = 100 * time.Millisecond

// syncLock makes the Syncs of one database take turns, whether they come
// from one Index, from several Indexes in one process, or from several
// processes: a Sync holds the write lock (BEGIN IMMEDIATE, which one
// connection holds at a time) of a small SQLite database beside the index
// (the index's file name with ".lock" added) from before it reads what the
// index holds until its last batch is committed. A second Sync waits for
// the first, and then finds the files already indexed. The operating
// system releases the lock of a process that dies.
//
// The lock database holds no data. It is a separate file, so that the
// index stays readable and searchable while a Sync holds the lock.
type syncLock struct {
	db   *sql.DB
	path string
}

func openSyncLock(indexPath string) (*syncLock, error) {
	path := indexPath + ".lock"
	// Nothing is ever written to the lock database: no journal file.
	db, err := sql.Open("sqlite", dsn(path, fmt.Sprintf("busy_timeout(%d)", lockPoll.Milliseconds()), "journal_mode(OFF)"))
	if err != nil {
		return nil, err
	}
	return &syncLock{db: db, path: path}, nil
}

// lock waits until this caller holds the lock, or ctx is done. The caller
// must call unlock.
func (l *syncLock) lock(ctx context.Context) (unlock func(), err error) {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", l.path, err)
	}
	for {
		_, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`)
		if err == nil {
			break
		}
		if ctx.Err() != nil || !isBusy(err) {
			conn.Close()
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return nil, fmt.Errorf("lock %s: %w", l.path, err)
		}
	}
	return func() {
		// Ending the transaction releases the lock. Should that fail, the
		// connection is discarded rather than returned to the pool
		// (returning driver.ErrBadConn from Raw closes it), which releases
		// the lock too.
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}, nil
}

func (l *syncLock) close() error {
	return l.db.Close()
}

// isBusy reports an SQLite error that says another connection holds the
// lock (SQLITE_BUSY or one of its extended codes).
func isBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}
