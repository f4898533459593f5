package sqlitestore

import (
	"database/sql"
	"errors"
	"fmt"
	"github.com/deepresearch/deepresearch/runstore"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// TestJournal appends entries from many goroutines, with events, and
// reads them back in the order each goroutine appended them.
func TestJournal(t *testing.T) {
	ctx := t.Context()
	s := open(t, filepath.Join(t.TempDir(), "runs.db"), newClock())
	defer s.Close()
	mustCreate(t, s, "r")
	if err := s.Start(ctx, "r"); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 25
	var wg sync.WaitGroup
	var mu sync.Mutex
	seq := uint64(0)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := s.AppendJournal(ctx, "r", fmt.Appendf(nil, `{"w":%d,"i":%d}`, w, i)); err != nil {
					t.Error(err)
					return
				}
				// An event follows each entry, as a run's events follow
				// its calls; both share the writer's batches.
				mu.Lock()
				seq++
				err := s.Append(ctx, ev("r", seq, events.DeltaData{Text: "x"}))
				mu.Unlock()
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := s.Journal(ctx, "r")
	if err != nil || len(got) != writers*each {
		t.Fatalf("%d entries, %v", len(got), err)
	}
	next := map[int]int{}
	for _, e := range got {
		var w, i int
		if _, err := fmt.Sscanf(string(e), `{"w":%d,"i":%d}`, &w, &i); err != nil {
			t.Fatal(err)
		}
		if i != next[w] {
			t.Fatalf("writer %d's entry %d came where %d was due", w, i, next[w])
		}
		next[w]++
	}
	if other, err := s.Journal(ctx, "nobody"); err != nil || len(other) != 0 {
		t.Errorf("a run without a journal: %v, %v", other, err)
	}

	if err := s.Finish(ctx, "r", runstore.Finished, usage.Usage{}, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendJournal(ctx, "r", []byte(`{}`)); !errors.Is(err, ErrFinished) {
		t.Errorf("appending to an ended run's journal: %v, want ErrFinished", err)
	}
	if err := s.AppendJournal(ctx, "missing", []byte(`{}`)); !errors.Is(err, ErrNotFound) {
		t.Errorf("appending to a missing run's journal: %v, want ErrNotFound", err)
	}
}

// TestReopen: an interrupted run is taken up once, with its journal and
// events, and goes on where its log stopped.
func TestReopen(t *testing.T) {
	ctx := t.Context()
	c := newClock()
	path := filepath.Join(t.TempDir(), "runs.db")
	a := open(t, path, c)
	if err := a.Create(ctx, Run{ID: "cut", Question: "q", Origin: "server"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, Run{ID: "cli", Question: "q", Origin: "cli"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"cut", "cli"} {
		if err := a.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	a.AppendJournal(ctx, "cut", []byte(`{"n":1}`))
	a.Append(ctx, ev("cut", 1, events.RunStartedData{Question: "q"}))
	if _, err := a.Reopen(ctx, "cut"); err == nil || !strings.Contains(err.Error(), "run is running") {
		t.Errorf("reopening a running run: %v", err)
	}
	crash(a)
	c.Advance(2 * time.Minute)

	b := open(t, path, c)
	defer b.Close()
	runs, err := b.Interrupted(ctx, "server")
	if err != nil || len(runs) != 1 || runs[0].ID != "cut" || runs[0].Attempts != 1 || runs[0].Origin != "server" {
		t.Fatalf("interrupted server runs: %+v, %v", runs, err)
	}
	r, err := b.Reopen(ctx, "cut")
	if err != nil || r.Status != runstore.Running || r.Attempts != 2 || r.Error != "" || !r.Finished.IsZero() {
		t.Fatalf("reopened: %+v, %v", r, err)
	}
	if _, err := b.Reopen(ctx, "cut"); err == nil {
		t.Error("a run was reopened twice")
	}
	if _, err := b.Reopen(ctx, "none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("reopening a missing run: %v", err)
	}
	// The new attempt appends after what the first committed.
	if err := b.Append(ctx, ev("cut", 2, events.RunResumedData{Attempt: 2, After: 1})); err != nil {
		t.Fatal(err)
	}
	if err := b.AppendJournal(ctx, "cut", []byte(`{"n":2}`)); err != nil {
		t.Fatal(err)
	}
	j, _ := b.Journal(ctx, "cut")
	if len(j) != 2 || string(j[0]) != `{"n":1}` || string(j[1]) != `{"n":2}` {
		t.Errorf("journal %q", j)
	}
	if runs, _ := b.Interrupted(ctx, "server"); len(runs) != 0 {
		t.Errorf("still interrupted: %+v", runs)
	}
}

// TestReapDeadLocalOwner: a process on this host that died leaves its runs
// to be marked interrupted at the next Open, without waiting for the
// lease.
func TestReapDeadLocalOwner(t *testing.T) {
	ctx := t.Context()
	c := newClock()
	path := filepath.Join(t.TempDir(), "runs.db")
	a := open(t, path, c)
	mustCreate(t, a, "orphan")
	a.Start(ctx, "orphan")
	// A process that has come and gone, and been reaped.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	dead := fmt.Sprintf("%s/%d/feedface", host, cmd.Process.Pid)
	if _, err := a.wdb.ExecContext(ctx, `UPDATE owners SET id = ? WHERE id = ?`, dead, a.owner); err != nil {
		t.Fatal(err)
	}
	a.wdb.ExecContext(ctx, `UPDATE runs SET owner = ?`, dead)
	crash(a)

	b := open(t, path, c) // within the lease
	defer b.Close()
	if r, _ := b.Get(ctx, "orphan"); r.Status != runstore.Interrupted {
		t.Errorf("the run of a dead process on this host is %s, want interrupted", r.Status)
	}
}

// TestMigrate opens a store written before journals and resumption.
func TestMigrate(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "runs.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(schema, "CREATE TABLE IF NOT EXISTS", "CREATE TABLE")
	old = old[:strings.Index(old, "CREATE TABLE events")] // owners and runs, as they were
	if _, err := db.ExecContext(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO runs (id, question, status, owner, created_at) VALUES ('old', 'q', 'finished', 'x', 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := open(t, path, newClock())
	defer s.Close()
	r, err := s.Get(ctx, "old")
	if err != nil || r.Attempts != 1 || r.Origin != "" {
		t.Errorf("an old run: %+v, %v", r, err)
	}
	if j, err := s.Journal(ctx, "old"); err != nil || j != nil {
		t.Errorf("journal of an old run: %v, %v", j, err)
	}
}

func TestOwnerProcess(t *testing.T) {
	for _, tc := range []struct {
		id   string
		host string
		pid  int
		ok   bool
	}{
		{"box/42/ab12", "box", 42, true},
		{"a/b/7/ff", "a/b", 7, true},
		{"box/x/ab", "", 0, false},
		{"nohost", "", 0, false},
		{"box/-3/ab", "", 0, false},
	} {
		h, pid, ok := ownerProcess(tc.id)
		if ok != tc.ok || ok && (h != tc.host || pid != tc.pid) {
			t.Errorf("ownerProcess(%q) = %q, %d, %v", tc.id, h, pid, ok)
		}
	}
}

// TestQueueJournalOrder: an entry queued before an event is appended is
// committed no later than the event, so a reader (or a crash) never finds
// the event without the entry; the outcome reaches done.
func TestQueueJournalOrder(t *testing.T) {
	ctx := t.Context()
	s := open(t, filepath.Join(t.TempDir(), "runs.db"), newClock())
	defer s.Close()
	mustCreate(t, s, "r")
	s.Start(ctx, "r")
	var mu sync.Mutex
	var outcomes []error
	for i := range 50 {
		err := s.QueueJournal(ctx, "r", fmt.Appendf(nil, `{"i":%d}`, i), func(err error) {
			mu.Lock()
			outcomes = append(outcomes, err)
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, ev("r", uint64(i+1), events.DeltaData{Text: "x"})); err != nil {
			t.Fatal(err)
		}
		if j, _ := s.Journal(ctx, "r"); len(j) < i+1 {
			t.Fatalf("event %d is stored, but only %d of the %d entries queued before it", i+1, len(j), i+1)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(outcomes) != 50 || slices.ContainsFunc(outcomes, func(err error) bool { return err != nil }) {
		t.Errorf("outcomes %v", outcomes)
	}
	s.Finish(ctx, "r", runstore.Finished, usage.Usage{}, "")
	done := make(chan error, 1)
	if err := s.QueueJournal(ctx, "r", []byte(`{}`), func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrFinished) {
		t.Errorf("queued to an ended run: %v", err)
	}
}

// TestReapZombieOwner (issue 29): a process on this host that was killed
// and is not yet reaped by its parent (a zombie) holds no lease either:
// its runs are interrupted at the next Open, within the lease, so that a
// server started right after the kill resumes them.
func TestReapZombieOwner(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to tell a zombie")
	}
	ctx := t.Context()
	c := newClock()
	path := filepath.Join(t.TempDir(), "runs.db")
	a := open(t, path, c)
	mustCreate(t, a, "orphan")
	a.Start(ctx, "orphan")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSleep$")
	cmd.Env = append(os.Environ(), "DEEPRESEARCH_TEST_SLEEP=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	cmd.Process.Kill()
	defer cmd.Wait()
	// Wait until it has exited: a zombie, as nothing has waited for it.
	stat := fmt.Sprintf("/proc/%d/stat", pid)
	for {
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && b[i+2] == 'Z' {
			break
		}
		runtime.Gosched()
	}
	host, _ := os.Hostname()
	dead := fmt.Sprintf("%s/%d/feedface", host, pid)
	if _, err := a.wdb.ExecContext(ctx, `UPDATE owners SET id = ? WHERE id = ?`, dead, a.owner); err != nil {
		t.Fatal(err)
	}
	a.wdb.ExecContext(ctx, `UPDATE runs SET owner = ?`, dead)
	crash(a)

	b := open(t, path, c) // within the lease
	defer b.Close()
	if r, _ := b.Get(ctx, "orphan"); r.Status != runstore.Interrupted {
		t.Errorf("the run of a killed, unreaped process on this host is %s, want interrupted", r.Status)
	}
}

// TestHelperSleep is the process TestReapZombieOwner kills.
func TestHelperSleep(t *testing.T) {
	if os.Getenv("DEEPRESEARCH_TEST_SLEEP") == "" {
		t.Skip("a helper process")
	}
	time.Sleep(time.Hour)
}
