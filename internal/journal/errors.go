package journal

import (
	"context"
	"errors"
	"fmt"

	"github.com/deepresearch/deepresearch/search"
)

// Sentinel errors; match them with errors.Is.
var (
	// ErrVersion reports a journal written in a format version this
	// package does not read (see *VersionError).
	ErrVersion = errors.New("journal: unsupported format version")
	// ErrCorrupt reports an entry that is not a well-formed journal entry.
	ErrCorrupt = errors.New("journal: corrupt entry")
	// ErrNotJournaled reports a call an offline journal does not hold: the
	// run asked for something its recording never did (see *MissError).
	ErrNotJournaled = errors.New("journal: call not in the journal")
)

// VersionError is a journal entry in a format version this package does
// not read: a newer program wrote it, or an older one whose format is no
// longer read.
type VersionError struct {
	Version int // the entry's version; 0 when it names none
}

func (e *VersionError) Error() string {
	switch {
	case e.Version == 0:
		return fmt.Sprintf("journal: the entry names no format version; this program reads versions %d to %d", OldestVersion, Version)
	case e.Version > Version:
		return fmt.Sprintf("journal: format version %d was written by a newer program; this one reads versions %d to %d", e.Version, OldestVersion, Version)
	}
	return fmt.Sprintf("journal: format version %d is no longer read; this program reads versions %d to %d", e.Version, OldestVersion, Version)
}

func (e *VersionError) Unwrap() error { return ErrVersion }

// MissError is a call an offline journal does not hold.
type MissError struct {
	Kind  Kind
	Scope string
	Key   string
	N     int
}

func (e *MissError) Error() string {
	return fmt.Sprintf("journal: %s call #%d of scope %q (request %.12s…) is not in the journal, and it replays offline", e.Kind, e.N, e.Scope, e.Key)
}

func (e *MissError) Unwrap() error { return ErrNotJournaled }

// AppendError is an entry that could not be appended to the log. The call
// it records had completed, and its answer was returned all the same; a
// resumed run makes the call again.
type AppendError struct {
	Kind  Kind
	Scope string
	Err   error
}

func (e *AppendError) Error() string {
	return fmt.Sprintf("journal: recording a %s call of scope %q: %v", e.Kind, e.Scope, e.Err)
}

func (e *AppendError) Unwrap() error { return e.Err }

// ReplayedError is the error a journaled call failed with, answered again.
// Its message is the original's; it matches context.DeadlineExceeded when
// the caller's deadline ended the call, and search.ErrNotFound when the
// original did.
type ReplayedError struct {
	Message  string
	Deadline bool
	NotFound bool
}

func (e *ReplayedError) Error() string { return e.Message }

// Is reports whether the original error matched target, for the errors
// callers tell apart.
func (e *ReplayedError) Is(target error) bool {
	switch target {
	case context.DeadlineExceeded:
		return e.Deadline
	case search.ErrNotFound:
		return e.NotFound
	}
	return false
}

// errorRecord records err, the error a call made with ctx ended with, and
// reports whether it is to be recorded at all: a call ended by its
// context's cancellation (not a deadline) was not completed, and is not.
func errorRecord(ctx context.Context, err error) (*ErrorRecord, bool) {
	done := ctx.Err() != nil
	if done && !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return nil, false
	}
	return &ErrorRecord{
		Message:  String(err.Error()),
		Deadline: done || errors.Is(err, context.DeadlineExceeded),
		NotFound: errors.Is(err, search.ErrNotFound),
	}, true
}

func (r *ErrorRecord) err() error {
	return &ReplayedError{Message: string(r.Message), Deadline: r.Deadline, NotFound: r.NotFound}
}
