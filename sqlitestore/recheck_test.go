package sqlitestore

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/deepresearch/deepresearch/internal/usage"
)

// TestRecheckOlderFile: a file written before re-checks were kept has no
// table of them; opened to write, it gets one, and opened read-only its
// runs have no re-check (ErrNotFound), not an error.
func TestRecheckOlderFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.Create(ctx, Run{ID: "r1", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx, "r1", "finished", usage.Usage{}, ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP TABLE rechecks`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ro, err := OpenReadOnly(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.LastRecheck(ctx, "r1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("read-only, without the table: %v; want ErrNotFound", err)
	}
	ro.Close()

	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutRecheck(ctx, Recheck{RunID: "r1", Holds: true, Result: []byte(`{}`)}); err != nil {
		t.Errorf("the table is not made again: %v", err)
	}
}
