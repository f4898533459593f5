package corpus

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The environment that makes the test binary the child of
// TestSyncSurvivesDeathReadingAFile: the index and the folder it syncs,
// and the file while reading which it ends.
const (
	dieIndexEnv = "DEEPRESEARCH_CORPUS_DIE_INDEX"
	dieDirEnv   = "DEEPRESEARCH_CORPUS_DIE_DIR"
	dieFileEnv  = "DEEPRESEARCH_CORPUS_DIE_FILE"
	dieHowEnv   = "DEEPRESEARCH_CORPUS_DIE_HOW" // "exit" or "panic"
)

// TestSyncSurvivesDeathReadingAFile: a process that dies while reading a
// large file (as the Go runtime dies when it runs out of memory, which no
// code can recover from; or panics, as wazero did short of address
// space) leaves the index as its last commit left it, the
// files read before the large one included; the next Sync records that
// file as skipped with the reason, indexes the rest, and does not read it
// again until it changes.
func TestSyncSurvivesDeathReadingAFile(t *testing.T) {
	if db := os.Getenv(dieIndexEnv); db != "" {
		die := os.Getenv(dieFileEnv)
		readingHook = func(id string) {
			if id != die {
				return
			}
			if os.Getenv(dieHowEnv) == "panic" {
				panic("reading " + id) // deferred functions run
			}
			os.Exit(3) // no deferred function runs, as in a crash
		}
		ix, err := Open(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		ix.Sync(t.Context(), os.Getenv(dieDirEnv))
		t.Fatalf("Sync returned; it should have ended the process reading %s", die)
	}
	for _, how := range []string{"exit", "panic"} {
		t.Run(how, func(t *testing.T) { dieReading(t, how) })
	}
}

// dieReading is TestSyncSurvivesDeathReadingAFile with a child that dies
// how ("exit", "panic").
func dieReading(t *testing.T, how string) {
	dir := t.TempDir()
	big := strings.Repeat("The grapnel drags the seabed for the broken cable. ", 40_000) // 2 MB
	writeDocs(t, dir, map[string]string{
		"a.md":    "# Depots\n\nThe quokkafish depot keeps spare cable.\n",
		"big.txt": big,
		"z.md":    "# Repeaters\n\nThe zanzibarine repeaters are tested yearly.\n",
	})
	db := filepath.Join(t.TempDir(), "index.db")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSyncSurvivesDeathReadingAFile$", "-test.count=1")
	cmd.Env = append(os.Environ(), dieIndexEnv+"="+db, dieDirEnv+"="+dir, dieFileEnv+"=big.txt", dieHowEnv+"="+how)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	var exit *exec.ExitError
	wantStatus := map[string]int{"exit": 3, "panic": 2}[how]
	if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != wantStatus {
		t.Fatalf("the child: %v, want it to end with status %d reading big.txt\n%s", err, wantStatus, out.Bytes())
	}

	ix, err := Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	want := []Skip{{Path: "big.txt", Reason: diedReading}}
	// a.md was committed before big.txt was read: Unchanged.
	for i, wantCounts := range [][7]int{{3, 1, 0, 0, 1, 1, 1}, {3, 0, 0, 0, 2, 1, 0}} {
		st, err := ix.Sync(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if counts(st) != wantCounts || !slices.Equal(st.Skips, want) || st.Documents != 2 {
			t.Errorf("Sync %d after the death = %+v, want counts %v and %+v", i+1, st, wantCounts, want)
		}
	}
	var note string
	if err := ix.db.QueryRow(`SELECT value FROM meta WHERE key = 'reading'`).Scan(&note); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("the note of the file read is still there: %q, %v", note, err)
	}

	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big+"The grapnel found it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 1 || st.Skipped != 0 || st.Documents != 3 {
		t.Errorf("Sync once big.txt changed = %+v, want it added", st)
	}
}
