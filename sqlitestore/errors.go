package sqlitestore

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/deepresearch/deepresearch/runstore"
)

// Sentinel errors; match them with errors.Is.
var (
	// ErrNotFound reports a run the store does not hold
	// (runstore.ErrNotFound).
	ErrNotFound = runstore.ErrNotFound
	// ErrExists reports a run ID that is already taken
	// (runstore.ErrExists).
	ErrExists = runstore.ErrExists
	// ErrSeq reports an event whose sequence number is not the next one
	// of its run: the log is append-only and without gaps
	// (runstore.ErrSeq).
	ErrSeq = runstore.ErrSeq
	// ErrFinished reports a write to a run that has already ended
	// (runstore.ErrFinished).
	ErrFinished = runstore.ErrFinished
	// ErrClosed reports a write to a closed Store.
	ErrClosed = errors.New("store: closed")
)

// OpError is a failed store operation: what was done (Op), to which run
// (Run, "" for the store as a whole), and why.
type OpError struct {
	Op  string
	Run string
	Err error
}

func (e *OpError) Error() string {
	if e.Run == "" {
		return fmt.Sprintf("store: %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("store: %s run %s: %v", e.Op, e.Run, e.Err)
}

func (e *OpError) Unwrap() error { return e.Err }

func opErr(op, run string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Run: run, Err: err}
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
