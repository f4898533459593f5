package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch/runstore"
)

// Recheck is the last re-check of a run's report (runstore.Recheck).
type Recheck = runstore.Recheck

// schemaRecheck keeps each run's last re-check (PutRecheck).
const schemaRecheck = `
CREATE TABLE IF NOT EXISTS rechecks (
	run_id     TEXT PRIMARY KEY,
	checked_at INTEGER NOT NULL,         -- unix nanoseconds
	holds      INTEGER NOT NULL,
	json       TEXT NOT NULL
);
`

// PutRecheck stores the re-check of ended run rc.RunID, replacing its
// last one. rc.Result must be JSON; a run the store does not hold is
// ErrNotFound, a live one refused.
func (s *Store) PutRecheck(ctx context.Context, rc Recheck) error {
	if !json.Valid(rc.Result) {
		return opErr("put the re-check of", rc.RunID, errors.New("the re-check is not valid JSON"))
	}
	r, err := s.Get(ctx, rc.RunID)
	if err != nil {
		return err
	}
	if !r.Status.Ended() {
		return opErr("put the re-check of", rc.RunID, fmt.Errorf("run is %s; only an ended run is re-checked", r.Status))
	}
	_, err = s.wdb.ExecContext(ctx, `INSERT OR REPLACE INTO rechecks (run_id, checked_at, holds, json) VALUES (?, ?, ?, ?)`,
		rc.RunID, rc.Checked.UnixNano(), rc.Holds, string(rc.Result))
	return opErr("put the re-check of", rc.RunID, err)
}

// LastRecheck returns run id's last re-check, or ErrNotFound when it has
// none (in a file opened read-only that a version before re-checks
// wrote, too: it has no table of them).
func (s *Store) LastRecheck(ctx context.Context, id string) (Recheck, error) {
	rc := Recheck{RunID: id}
	var checked int64
	var b string
	err := s.rdb.QueryRowContext(ctx, `SELECT checked_at, holds, json FROM rechecks WHERE run_id = ?`, id).Scan(&checked, &rc.Holds, &b)
	if errors.Is(err, sql.ErrNoRows) || (err != nil && s.readOnly && strings.Contains(err.Error(), "no such table")) {
		err = ErrNotFound
	}
	if err != nil {
		return Recheck{}, opErr("get the re-check of", id, err)
	}
	rc.Checked, rc.Result = time.Unix(0, checked).UTC(), []byte(b)
	return rc, nil
}
