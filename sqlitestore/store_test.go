package sqlitestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deepresearch/deepresearch/runstore"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/storetest"
	"github.com/deepresearch/deepresearch/internal/usage"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newClock() *clock.Fake { return clock.NewFake(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)) }

func open(t *testing.T, path string, c *clock.Fake) *Store {
	t.Helper()
	// The heartbeat is long: tests drive the sweep through Open.
	s, err := Open(t.Context(), path, Options{Clock: c, LeaseTTL: time.Minute, Heartbeat: time.Hour, Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// crash stops s as a killed process would: no status is written, its
// owner row stays behind with its last heartbeat.
func crash(s *Store) {
	s.once.Do(func() {
		close(s.stop)
		<-s.done
		s.rdb.Close()
		s.wdb.Close()
	})
}

// ev and runEvents are the conformance suite's events.
var (
	ev        = storetest.Event
	runEvents = storetest.RunEvents
)

func mustCreate(t *testing.T, s *Store, id string) {
	t.Helper()
	if err := s.Create(t.Context(), Run{ID: id, Question: "q", Options: json.RawMessage(`{"max_tasks":2}`)}); err != nil {
		t.Fatal(err)
	}
}

func follow(t *testing.T, ctx context.Context, s *Store, id string, after uint64) ([]Event, error) {
	t.Helper()
	var out []Event
	for e, err := range s.Events(ctx, id, after) {
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

func checkSeqs(t *testing.T, got []Event, from, to uint64) {
	t.Helper()
	if len(got) != int(to-from+1) {
		t.Fatalf("got %d events, want seq %d..%d", len(got), from, to)
	}
	for i, e := range got {
		if e.Seq != from+uint64(i) {
			t.Fatalf("event %d has seq %d, want %d", i, e.Seq, from+uint64(i))
		}
	}
}

func TestRunLifecycle(t *testing.T) {
	c := newClock()
	s := open(t, filepath.Join(t.TempDir(), "runs.db"), c)
	defer s.Close()
	ctx := t.Context()
	mustCreate(t, s, "r1")
	if err := s.Create(ctx, Run{ID: "r1", Question: "again"}); !errors.Is(err, ErrExists) {
		t.Fatalf("second Create: %v, want ErrExists", err)
	}
	r, err := s.Get(ctx, "r1")
	if err != nil || r.Status != runstore.Queued || string(r.Options) != `{"max_tasks":2}` || !r.Created.Equal(c.Now()) {
		t.Fatalf("Get = %+v, %v", r, err)
	}
	if err := s.Start(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	for _, e := range runEvents("r1") {
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	c.Advance(time.Second)
	u := usage.Usage{PromptTokens: 10, CompletionTokens: 5, Calls: 2}
	if err := s.Finish(ctx, "r1", runstore.Finished, u, ""); err != nil {
		t.Fatal(err)
	}
	r, err = s.Get(ctx, "r1")
	if err != nil || r.Status != runstore.Finished || r.Usage != u || r.Events != 4 || !r.Finished.Equal(c.Now()) {
		t.Fatalf("Get after Finish = %+v, %v", r, err)
	}

	tests := []struct {
		name string
		err  error
		want error
	}{
		{"finish twice", s.Finish(ctx, "r1", runstore.Canceled, usage.Usage{}, ""), ErrFinished},
		{"start an ended run", s.Start(ctx, "r1"), ErrFinished},
		{"append to an ended run", s.Append(ctx, ev("r1", 5, events.ErrorData{Error: "late"})), ErrFinished},
		{"get a missing run", func() error { _, err := s.Get(ctx, "nope"); return err }(), ErrNotFound},
		{"finish a missing run", s.Finish(ctx, "nope", runstore.Failed, usage.Usage{}, "x"), ErrNotFound},
		{"append to a missing run", s.Append(ctx, ev("nope", 1, events.ErrorData{})), ErrNotFound},
		{"report of a run without one", func() error { _, err := s.Report(ctx, "r1"); return err }(), ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.want) {
				t.Fatalf("got %v, want %v", tt.err, tt.want)
			}
			var oe *OpError
			if !errors.As(tt.err, &oe) || oe.Op == "" {
				t.Fatalf("%v is not an *OpError naming its operation", tt.err)
			}
		})
	}
	if err := s.Finish(ctx, "r1", runstore.Running, usage.Usage{}, ""); err == nil {
		t.Fatal("Finish with a live status succeeded")
	}
}

// The append-only log, the stored wire form and following a run in this
// process (from every start, live and after its end; its errors) are the
// conformance suite's (TestConformance), which holds the in-memory store
// to the same contract.

// TestFollowAnotherProcess follows a run that another Store (another
// process) writes: the follower finds new events by polling.
func TestFollowAnotherProcess(t *testing.T) { synctest.Test(t, testFollowAnotherProcess) }

// testFollowAnotherProcess runs in a synctest bubble: the follower's poll
// waits on the bubble's clock, not for real.
func testFollowAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	w, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := Open(t.Context(), path, Options{Poll: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := t.Context()
	mustCreate(t, w, "x")
	done := make(chan []Event)
	go func() {
		got, err := follow(t, ctx, r, "x", 0)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	synctest.Wait() // the follower has read the empty log and waits
	start := time.Now()
	for _, e := range runEvents("x") {
		if err := w.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(ctx, "x", runstore.Finished, usage.Usage{}, ""); err != nil {
		t.Fatal(err)
	}
	checkSeqs(t, <-done, 1, 4)
	// No append in r's process woke it: it found them at its poll.
	if d := time.Since(start); d != time.Second {
		t.Errorf("the follower caught up after %v, want at its poll (1s)", d)
	}
}

// TestRestart reopens the database after a clean stop and after a crash:
// ended runs are all there; live runs are marked interrupted, not lost;
// a live owner's runs are left alone.
func TestRestart(t *testing.T) {
	c := newClock()
	path := filepath.Join(t.TempDir(), "runs.db")
	ctx := t.Context()

	a := open(t, path, c)
	mustCreate(t, a, "done")
	for _, e := range runEvents("done") {
		if err := a.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Finish(ctx, "done", runstore.Finished, usage.Usage{Calls: 3}, ""); err != nil {
		t.Fatal(err)
	}
	if err := a.PutReport(ctx, "done", json.RawMessage(`{"text":"r"}`)); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, a, "cut")
	if err := a.Start(ctx, "cut"); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(ctx, ev("cut", 1, events.RunStartedData{Question: "q"})); err != nil {
		t.Fatal(err)
	}

	// Another process opening within the lease leaves a's live run alone.
	b := open(t, path, c)
	if r, _ := b.Get(ctx, "cut"); r.Status != runstore.Running {
		t.Fatalf("a live owner's run is %s after another Store opened", r.Status)
	}
	b.Close()

	crash(a)
	c.Advance(2 * time.Minute) // past the lease
	a2 := open(t, path, c)
	defer a2.Close()
	cut, err := a2.Get(ctx, "cut")
	if err != nil || cut.Status != runstore.Interrupted || cut.Error == "" || cut.Events != 1 {
		t.Fatalf("after a crash the cut-off run is %+v, %v; want interrupted with its event", cut, err)
	}
	got, err := follow(t, ctx, a2, "cut", 0) // ends: the run has ended
	if err != nil {
		t.Fatal(err)
	}
	checkSeqs(t, got, 1, 1)
	done, err := a2.Get(ctx, "done")
	if err != nil || done.Status != runstore.Finished || done.Usage.Calls != 3 || done.Events != 4 {
		t.Fatalf("after a crash the finished run is %+v, %v", done, err)
	}
	if rep, err := a2.Report(ctx, "done"); err != nil || string(rep) != `{"text":"r"}` {
		t.Fatalf("report after restart: %s, %v", rep, err)
	}
	runs, err := a2.List(ctx, 0)
	if err != nil || len(runs) != 2 {
		t.Fatalf("List = %d runs, %v", len(runs), err)
	}

	// A clean Close marks its own live runs interrupted.
	mustCreate(t, a2, "open")
	a2.Close()
	a3 := open(t, path, c)
	defer a3.Close()
	if r, _ := a3.Get(ctx, "open"); r.Status != runstore.Interrupted {
		t.Fatalf("a run left live at Close is %s, want interrupted", r.Status)
	}
}

func TestSourcesAndReports(t *testing.T) {
	c := newClock()
	s := open(t, filepath.Join(t.TempDir(), "runs.db"), c)
	defer s.Close()
	ctx := t.Context()
	mustCreate(t, s, "r")
	text := "Cables are repaired by ships.\n"
	if err := s.PutSource(ctx, Source{RunID: "r", ID: "doc-1", URL: "file:///c.md", Title: "C", Channel: "corpus", Text: text}); err != nil {
		t.Fatal(err)
	}
	srcs, err := s.Sources(ctx, "r")
	if err != nil || len(srcs) != 1 {
		t.Fatalf("Sources = %v, %v", srcs, err)
	}
	sum := sha256.Sum256([]byte(text))
	if got := srcs[0]; got.Text != text || got.SHA256 != hex.EncodeToString(sum[:]) || !got.Fetched.Equal(c.Now()) || got.URL != "file:///c.md" {
		t.Fatalf("source = %+v", got)
	}
	if err := s.PutReport(ctx, "r", json.RawMessage(`{`)); err == nil {
		t.Fatal("PutReport took invalid JSON")
	}
}

// TestAppendRaceAcrossProcesses appends to one run from two Stores (two
// processes): the one whose cached sequence number is stale is refused
// with ErrSeq, and its next append reads the log again.
func TestAppendRaceAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	a := open(t, path, newClock())
	defer a.Close()
	b := open(t, path, newClock())
	defer b.Close()
	ctx := t.Context()
	mustCreate(t, a, "r")
	evs := []events.Event{ev("r", 1, events.DeltaData{Text: "a"}), ev("r", 2, events.DeltaData{Text: "b"}), ev("r", 3, events.DeltaData{Text: "c"})}
	if err := a.Append(ctx, evs[0]); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(ctx, evs[1]); err != nil { // b reads the log: seq 2 is next
		t.Fatal(err)
	}
	if err := a.Append(ctx, evs[1]); !errors.Is(err, ErrSeq) { // a's cache says 1
		t.Fatalf("a stale append: %v, want ErrSeq", err)
	}
	if err := a.Append(ctx, evs[2]); err != nil { // a has read the log again
		t.Fatal(err)
	}
	if r, _ := a.Get(ctx, "r"); r.Events != 3 {
		t.Fatalf("the log has %d events, want 3", r.Events)
	}
}
