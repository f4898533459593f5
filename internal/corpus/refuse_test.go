package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/deepresearch/deepresearch/search"
)

// limitLength makes ix write through one connection, whose longest string
// is n bytes (SQLITE_LIMIT_LENGTH): a document whose text is longer fails
// to be written with SQLITE_TOOBIG, as a huge one fails with SQLITE_NOMEM
// in a process short of memory. n 0 lifts the limit again.
func limitLength(t *testing.T, ix *Index, n int) {
	t.Helper()
	ix.db.SetMaxOpenConns(1)
	conn, err := ix.db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if n == 0 {
		n = 1_000_000_000 // SQLITE_MAX_LENGTH
	}
	if _, err := sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, n); err != nil {
		t.Fatal(err)
	}
}

// TestSyncRefusesDocumentSQLiteCannotTake: a document that SQLite fails to
// write (here too big for the connection's length limit) is skipped with
// the SQLite error as its reason, in walk order among the other skips;
// the documents before and after it in the same batch are indexed and the
// Sync succeeds. The next Sync does not read the unchanged file again,
// even once SQLite could take it; once the file changes, it is indexed.
func TestSyncRefusesDocumentSQLiteCannotTake(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("The grapnel drags the seabed for the broken cable. ", 40_000) // 2 MB
	writeDocs(t, dir, map[string]string{
		"a.md":    "# Depots\n\nThe quokkafish depot keeps spare cable.\n",
		"b.png":   "\x89PNG",
		"big.txt": big,
		"c.png":   "\x89PNG",
		"z.md":    "# Repeaters\n\nThe zanzibarine repeaters are tested yearly.\n",
	})
	ix := openIndex(t)
	limitLength(t, ix, 1<<20)

	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatalf("Sync with a document SQLite cannot take: %v", err)
	}
	const reason = "writing it to the index failed: string or blob too big (18)"
	wantSkips := []Skip{
		{Path: "b.png", Reason: "not a format the index reads (.png)", Unsupported: true},
		{Path: "big.txt", Reason: reason},
		{Path: "c.png", Reason: "not a format the index reads (.png)", Unsupported: true},
	}
	if !slices.Equal(st.Skips, wantSkips) {
		t.Errorf("skips %+v, want %+v", st.Skips, wantSkips)
	}
	if got, want := counts(st), [7]int{5, 2, 0, 0, 0, 3, 2}; got != want || st.Documents != 2 {
		t.Errorf("Sync = %+v, want counts %v and 2 documents", st, want)
	}
	for _, q := range []string{"quokkafish", "zanzibarine"} {
		if rs, err := ix.Search(t.Context(), q, 5); err != nil || len(rs) != 1 {
			t.Errorf("Search(%q) = %+v, %v; want the one document", q, rs, err)
		}
	}
	if _, err := ix.Fetch(t.Context(), "big.txt"); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("Fetch(big.txt) = %v, want not found", err)
	}

	// SQLite could take it now, but the file is as it was: not read again.
	limitLength(t, ix, 0)
	st, err = ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := counts(st), [7]int{5, 0, 0, 0, 2, 3, 0}; got != want || !slices.Equal(st.Skips, wantSkips) {
		t.Errorf("second Sync = %+v, want counts %v and the same skips", st, want)
	}

	// Changed (a new size and modification time): read and indexed.
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big+"The grapnel found it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err = ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 1 || st.Skipped != 2 || st.Documents != 3 {
		t.Errorf("Sync after the fix = %+v, want big.txt added", st)
	}
	if d, err := ix.Fetch(t.Context(), "big.txt"); err != nil || !strings.HasSuffix(d.Text, "The grapnel found it.") {
		t.Errorf("Fetch(big.txt) after the fix: %v", err)
	}
}

// TestSyncRefusesDocumentFailingLate: a document whose write fails past
// its first statement (here at its fourth passage, made too big by a
// trigger of the test's) is the one refused, not another of its batch;
// its rows already written are rolled back with it.
func TestSyncRefusesDocumentFailingLate(t *testing.T) {
	dir := t.TempDir()
	var long strings.Builder
	long.WriteString("# Soundings\n\n")
	for i := range 6 {
		word := "fathoms"
		if i == 3 {
			word = "poisonword"
		}
		long.WriteString(strings.Repeat("The sounding line paid out "+word+" of wire. ", 20) + "\n\n")
	}
	writeDocs(t, dir, map[string]string{
		"a.md":       "# Depots\n\nThe quokkafish depot keeps spare cable.\n",
		"b-long.md":  long.String(),
		"c-short.md": "# Ships\n\nThe Monarch laid the cable.\n",
		"z.md":       "# Repeaters\n\nThe zanzibarine repeaters are tested yearly.\n",
	})
	ix := openIndex(t)
	limitLength(t, ix, 1<<20)
	// The one connection: a temporary trigger that makes a string longer
	// than the limit when a passage mentions the poison word.
	if _, err := ix.db.Exec(`CREATE TEMP TRIGGER poison BEFORE INSERT ON main.passages
		WHEN NEW.body LIKE '%poisonword%' BEGIN SELECT zeroblob(2000000); END`); err != nil {
		t.Fatal(err)
	}
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	want := []Skip{{Path: "b-long.md", Reason: "writing it to the index failed: string or blob too big (18)"}}
	if !slices.Equal(st.Skips, want) || st.Added != 3 || st.Documents != 3 {
		t.Errorf("Sync = %+v, want b-long.md skipped (%+v) and the 3 others added", st, want)
	}
	var rows int
	if err := ix.db.QueryRow(`SELECT count(*) FROM passages WHERE body LIKE '%fathoms%'`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("passages of the refused document left in the index: %d, %v", rows, err)
	}
}
