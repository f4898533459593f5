package sqlitestore

import (
	"errors"
	"fmt"
	"github.com/deepresearch/deepresearch/runstore"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/storetest"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// damagedStore makes a store of five finished runs with reports and a
// long event log each, then writes 8 KiB of garbage over two pages of
// the event log in the middle of the file — as a bad disk or a torn copy
// does — and returns its path and the runs' IDs.
func damagedStore(t *testing.T) (string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.db")
	c := newClock()
	s := open(t, path, c)
	var ids []string
	for r := range 5 {
		c.Advance(time.Second)
		id := fmt.Sprintf("run-%d", r)
		ids = append(ids, id)
		mustCreate(t, s, id)
		if err := s.Start(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		for seq := uint64(1); seq <= 200; seq++ {
			if err := s.Append(t.Context(), ev(id, seq, events.ReportDeltaData{Text: strings.Repeat("text of the report ", 20)})); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutReport(t.Context(), id, []byte(`{"body":"report `+id+`"}`)); err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(t.Context(), id, runstore.Finished, usage.Usage{}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	storetest.Damage(t, path, "events")
	return path, ids
}

// TestDamagedStore (issue 18, #11): a store damaged in the middle is
// refused when it is opened, with a message that says what to do; its
// readable runs stay readable (List gives what it can, with the damage);
// Check finds it too. A sound store passes both checks.
func TestDamagedStore(t *testing.T) {
	path, ids := damagedStore(t)
	_, err := Open(t.Context(), path, Options{})
	var ce *CorruptError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &ce) || ce.Path != path ||
		!strings.Contains(err.Error(), "move it aside") || !strings.Contains(err.Error(), "store check") {
		t.Fatalf("Open of a damaged store: %v", err)
	}
	if err := Check(t.Context(), path); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Check of a damaged store: %v", err)
	}

	ro, err := OpenReadOnly(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	runs, err := ro.List(t.Context(), 0)
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Errorf("List of a damaged store: %v", err)
	}
	if len(runs) != len(ids) {
		t.Fatalf("List gave %d runs, want %d: %v", len(runs), len(ids), err)
	}
	for i, r := range runs {
		if want := ids[len(ids)-1-i]; r.ID != want || r.Status != runstore.Finished || r.Question != "q" {
			t.Errorf("run %d: %+v, want %s finished", i, r, want)
		}
	}
	readable := 0
	for _, id := range ids {
		if b, err := ro.Report(t.Context(), id); err == nil && strings.Contains(string(b), id) {
			readable++
		}
	}
	if readable != len(ids) {
		t.Errorf("%d of %d reports readable", readable, len(ids))
	}
	if err := ro.Create(t.Context(), Run{ID: "new", Question: "q"}); err == nil {
		t.Error("a read-only store took a write")
	}

	sound := filepath.Join(t.TempDir(), "sound.db")
	s := open(t, sound, newClock())
	mustCreate(t, s, "a")
	s.Close()
	if err := Check(t.Context(), sound); err != nil {
		t.Errorf("Check of a sound store: %v", err)
	}
	s = open(t, sound, newClock())
	s.Close()
}

// TestDamagedRunsListed (issue 18, #11): when the runs table itself is
// damaged, List lists the runs it can still read, newest first, and says
// how many it could not.
func TestDamagedRunsListed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	c := newClock()
	s := open(t, path, c)
	const n = 400
	for r := range n {
		c.Advance(time.Second)
		if err := s.Create(t.Context(), Run{ID: fmt.Sprintf("run-%03d", r), Question: strings.Repeat("a long question ", 20)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	storetest.Damage(t, path, "runs")
	ro, err := OpenReadOnly(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	runs, err := ro.List(t.Context(), 0)
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "could not be read") {
		t.Errorf("List: %v", err)
	}
	if len(runs) == 0 || len(runs) >= n {
		t.Fatalf("List gave %d of %d runs", len(runs), n)
	}
	for i := 1; i < len(runs); i++ {
		if !runs[i].Created.Before(runs[i-1].Created) {
			t.Fatalf("runs %s and %s are not newest first", runs[i-1].ID, runs[i].ID)
		}
	}
	if got, err := ro.List(t.Context(), 10); len(got) != 10 || err != nil && !errors.Is(err, ErrCorrupt) {
		t.Errorf("List(10): %d runs, %v", len(got), err)
	}
}

// BenchmarkOpenChecked measures Open, which quick-checks the whole file,
// and the quick check alone, on a store of 1,000 runs of 100 events each
// (go test ./sqlitestore -run '^$' -bench OpenChecked -benchtime 10x).
func BenchmarkOpenChecked(b *testing.B) {
	path := filepath.Join(b.TempDir(), "runs.db")
	s, err := Open(b.Context(), path, Options{Poll: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	for r := range 1000 {
		id := fmt.Sprintf("run-%04d", r)
		if err := s.Create(b.Context(), Run{ID: id, Question: "q"}); err != nil {
			b.Fatal(err)
		}
		s.Start(b.Context(), id)
		for seq := uint64(1); seq <= 100; seq++ {
			if err := s.Append(b.Context(), ev(id, seq, events.ReportDeltaData{Text: strings.Repeat("report text ", 20)})); err != nil {
				b.Fatal(err)
			}
		}
		s.Finish(b.Context(), id, runstore.Finished, usage.Usage{}, "")
	}
	s.Close()
	fi, _ := os.Stat(path)
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			s, err := Open(b.Context(), path, Options{Poll: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
		b.ReportMetric(float64(fi.Size())/(1<<20), "store-MB")
	})
	b.Run("quick check", func(b *testing.B) {
		s, err := OpenReadOnly(b.Context(), path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for b.Loop() {
			if err := checkIntegrity(b.Context(), s.rdb, path, false); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(fi.Size())/(1<<20), "store-MB")
	})
}
