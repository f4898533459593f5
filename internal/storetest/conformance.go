package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/usage"
	"github.com/deepresearch/deepresearch/runstore"
)

// Store is deepresearch.Store, every capability of a run store, in the
// internal types the root package's aliases name, so that the suite holds
// any store to one contract without importing the root: sqlitestore's
// and the in-memory one of deepresearchtest. (A test in the root holds
// the two method sets equal.)
type Store interface {
	Create(ctx context.Context, run runstore.Run) error
	Start(ctx context.Context, id string) error
	SetStatus(ctx context.Context, id string, status runstore.Status) error
	Append(ctx context.Context, e events.Event) error
	PutReport(ctx context.Context, id string, report json.RawMessage) error
	PutSource(ctx context.Context, src runstore.Source) error
	Finish(ctx context.Context, id string, status runstore.Status, u usage.Usage, errMsg string) error

	Get(ctx context.Context, id string) (runstore.Run, error)
	List(ctx context.Context, limit int) ([]runstore.Run, error)
	Events(ctx context.Context, id string, afterSeq uint64) iter.Seq2[runstore.Event, error]
	Report(ctx context.Context, id string) (json.RawMessage, error)
	Sources(ctx context.Context, id string) ([]runstore.Source, error)

	AppendJournal(ctx context.Context, run string, entry []byte) error
	Journal(ctx context.Context, run string) ([][]byte, error)

	Reopen(ctx context.Context, id string) (runstore.Run, error)
	Interrupted(ctx context.Context, origin string) ([]runstore.Run, error)
	GiveUp(ctx context.Context, id, msg string) error

	FollowUps(ctx context.Context, id string) ([]runstore.Run, error)

	PutRecheck(ctx context.Context, rc runstore.Recheck) error
	LastRecheck(ctx context.Context, id string) (runstore.Recheck, error)
}

// t0 is the time of the fake clock a store under test is opened with.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// Run holds the store open makes to the run store's contract: open
// returns a new, empty store that reads the time from c (its runs'
// Created and Finished, a source's default Fetched) and is closed when
// the test ends. A store whose followers wait for a timer must wake them
// on an append as well: c moves only when the suite says.
func Run(t *testing.T, open func(t *testing.T, c clock.Clock) Store) {
	suite := []struct {
		name string
		test func(t *testing.T, s Store, c *clock.Fake)
	}{
		{"Lifecycle", testLifecycle},
		{"Sequence", testSequence},
		{"WireForm", testWireForm},
		{"Follow", testFollow},
		{"FollowErrors", testFollowErrors},
		{"Waiting", testWaiting},
		{"ReportsAndSources", testReportsAndSources},
		{"List", testList},
		{"Journal", testJournal},
		{"Resume", testResume},
		{"FollowUps", testFollowUps},
		{"Rechecks", testRechecks},
	}
	for _, tt := range suite {
		t.Run(tt.name, func(t *testing.T) {
			c := clock.NewFake(t0)
			tt.test(t, open(t, c), c)
		})
	}
}

// Event is event seq of run, carrying p, stamped seq nanoseconds after the
// suite's start.
func Event(run string, seq uint64, p events.Payload) events.Event {
	return events.Event{RunID: run, Seq: seq, Time: t0.Add(time.Duration(seq)), Type: p.EventType(), Agent: -1, Data: p}
}

// RunEvents are a short run's events: started, planned, reported,
// finished.
func RunEvents(run string) []events.Event {
	return []events.Event{
		Event(run, 1, events.RunStartedData{Question: "q <&>"}),
		Event(run, 2, events.PlanData{Tasks: []events.PlanTask{{Index: 0, ID: "t", Title: "T", Question: "q"}}}),
		Event(run, 3, events.ReportDeltaData{Text: "text [1]"}),
		Event(run, 4, events.RunFinishedData{Usage: usage.Usage{PromptTokens: 3, Calls: 1}}),
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// started creates run id, running, with events 1 to n.
func started(t *testing.T, s Store, id, origin string, n int) {
	t.Helper()
	ctx := t.Context()
	must(t, s.Create(ctx, runstore.Run{ID: id, Question: "q " + id, Options: json.RawMessage(`{"max_tasks":2}`), Origin: origin}))
	must(t, s.Start(ctx, id))
	for i := range n {
		must(t, s.Append(ctx, Event(id, uint64(i+1), events.DeltaData{Text: "x"})))
	}
}

func follow(ctx context.Context, s Store, id string, after uint64) ([]runstore.Event, error) {
	var out []runstore.Event
	for e, err := range s.Events(ctx, id, after) {
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

func checkSeqs(t *testing.T, got []runstore.Event, from, to uint64) {
	t.Helper()
	if len(got) != int(to+1-from) {
		t.Fatalf("%d events, want seq %d..%d", len(got), from, to)
	}
	for i, e := range got {
		if e.Seq != from+uint64(i) {
			t.Fatalf("event %d has seq %d, want %d", i, e.Seq, from+uint64(i))
		}
	}
}

// testLifecycle: a run is created queued, started, appended to and
// finished, with the times of the store's clock; once ended, it takes no
// more writes; a run it does not hold is not found.
func testLifecycle(t *testing.T, s Store, c *clock.Fake) {
	ctx := t.Context()
	must(t, s.Create(ctx, runstore.Run{ID: "r1", Question: "q", Options: json.RawMessage(`{"max_tasks":2}`), Origin: runstore.OriginCLI}))
	if err := s.Create(ctx, runstore.Run{ID: "r1", Question: "again"}); !errors.Is(err, runstore.ErrExists) {
		t.Fatalf("second Create: %v, want ErrExists", err)
	}
	r, err := s.Get(ctx, "r1")
	if err != nil || r.Status != runstore.Queued || string(r.Options) != `{"max_tasks":2}` || !r.Created.Equal(t0) ||
		r.Question != "q" || r.Origin != runstore.OriginCLI || r.Attempts != 1 || r.Events != 0 {
		t.Fatalf("Get = %+v, %v; want it queued, created at %v, attempt 1", r, err, t0)
	}
	must(t, s.Start(ctx, "r1"))
	if err := s.Start(ctx, "r1"); err == nil {
		t.Error("a running run started again")
	}
	for _, e := range RunEvents("r1") {
		must(t, s.Append(ctx, e))
	}
	c.Advance(time.Second)
	u := usage.Usage{PromptTokens: 10, CompletionTokens: 5, Calls: 2}
	must(t, s.Finish(ctx, "r1", runstore.Failed, u, "it went wrong"))
	r, err = s.Get(ctx, "r1")
	if err != nil || r.Status != runstore.Failed || r.Usage != u || r.Events != 4 || r.Error != "it went wrong" || !r.Finished.Equal(t0.Add(time.Second)) {
		t.Fatalf("Get after Finish = %+v, %v", r, err)
	}
	for _, tt := range []struct {
		name string
		err  error
		want error
	}{
		{"finish twice", s.Finish(ctx, "r1", runstore.Canceled, usage.Usage{}, ""), runstore.ErrFinished},
		{"start an ended run", s.Start(ctx, "r1"), runstore.ErrFinished},
		{"append to an ended run", s.Append(ctx, Event("r1", 5, events.ErrorData{Error: "late"})), runstore.ErrFinished},
		{"journal an ended run", s.AppendJournal(ctx, "r1", []byte(`{}`)), runstore.ErrFinished},
		{"wait in an ended run", s.SetStatus(ctx, "r1", runstore.NeedsInput), runstore.ErrFinished},
		{"get a missing run", func() error { _, err := s.Get(ctx, "nope"); return err }(), runstore.ErrNotFound},
		{"start a missing run", s.Start(ctx, "nope"), runstore.ErrNotFound},
		{"finish a missing run", s.Finish(ctx, "nope", runstore.Failed, usage.Usage{}, "x"), runstore.ErrNotFound},
		{"append to a missing run", s.Append(ctx, Event("nope", 1, events.ErrorData{})), runstore.ErrNotFound},
		{"journal a missing run", s.AppendJournal(ctx, "nope", []byte(`{}`)), runstore.ErrNotFound},
		{"report of a run without one", func() error { _, err := s.Report(ctx, "r1"); return err }(), runstore.ErrNotFound},
	} {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
	must(t, s.Create(ctx, runstore.Run{ID: "r2", Question: "q"}))
	if err := s.Finish(ctx, "r2", runstore.Running, usage.Usage{}, ""); err == nil {
		t.Error("Finish with a live status succeeded")
	}
	// A queued run takes events, and ends without starting.
	must(t, s.Append(ctx, Event("r2", 1, events.RunStartedData{Question: "q"})))
	must(t, s.Finish(ctx, "r2", runstore.Canceled, usage.Usage{}, ""))
}

// testSequence: a run's log is append-only and without gaps.
func testSequence(t *testing.T, s Store, _ *clock.Fake) {
	ctx := t.Context()
	started(t, s, "r", "", 1)
	for _, tt := range []struct {
		name string
		seq  uint64
	}{{"repeat", 1}, {"gap", 3}, {"zero", 0}} {
		if err := s.Append(ctx, Event("r", tt.seq, events.ErrorData{})); !errors.Is(err, runstore.ErrSeq) {
			t.Errorf("%s: Append seq %d: %v, want ErrSeq", tt.name, tt.seq, err)
		}
	}
	must(t, s.Append(ctx, Event("r", 2, events.ErrorData{})))
}

// testWireForm: an event is stored as json.Marshal of it, with its type.
func testWireForm(t *testing.T, s Store, _ *clock.Fake) {
	ctx := t.Context()
	must(t, s.Create(ctx, runstore.Run{ID: "r", Question: "q"}))
	evs := RunEvents("r")
	for _, e := range evs {
		must(t, s.Append(ctx, e))
	}
	must(t, s.Finish(ctx, "r", runstore.Finished, usage.Usage{}, ""))
	got, err := follow(ctx, s, "r", 0)
	must(t, err)
	checkSeqs(t, got, 1, 4)
	for i, e := range got {
		want, _ := json.Marshal(evs[i])
		if string(e.JSON) != string(want) || e.Type != string(evs[i].Type) || e.RunID != "r" {
			t.Errorf("event %d stored as %s %s %s, want r %s %s", i, e.RunID, e.Type, e.JSON, evs[i].Type, want)
		}
	}
}

// testFollow: followers from every starting point, before, while and
// after the run appends, each see every later event exactly once, and end
// after the last event of the ended run.
func testFollow(t *testing.T, s Store, _ *clock.Fake) {
	const n = 1100 // more than one read of sqlitestore's
	ctx := t.Context()
	started(t, s, "r", "", 0)
	starts := []uint64{0, 1, 17, 600, n - 1, n}
	type result struct {
		after uint64
		got   []runstore.Event
		err   error
	}
	results := make(chan result, 2*len(starts))
	var wg sync.WaitGroup
	followAll := func() {
		for _, a := range starts {
			wg.Go(func() {
				got, err := follow(ctx, s, "r", a)
				results <- result{a, got, err}
			})
		}
	}
	followAll()
	for i := uint64(1); i <= n; i++ {
		must(t, s.Append(ctx, Event("r", i, events.DeltaData{Text: "x"})))
	}
	must(t, s.Finish(ctx, "r", runstore.Finished, usage.Usage{}, ""))
	followAll()
	wg.Wait()
	close(results)
	for r := range results {
		if r.err != nil {
			t.Fatalf("follow after %d: %v", r.after, r.err)
		}
		if r.after == n {
			if len(r.got) != 0 {
				t.Fatalf("follow after the last event got %d events", len(r.got))
			}
			continue
		}
		checkSeqs(t, r.got, r.after+1, n)
	}
}

// testFollowErrors: following a run the store does not hold fails with
// ErrNotFound; a follower whose context ends stops with its cause.
func testFollowErrors(t *testing.T, s Store, _ *clock.Fake) {
	if _, err := follow(t.Context(), s, "nope", 0); !errors.Is(err, runstore.ErrNotFound) {
		t.Fatalf("follow a missing run: %v, want ErrNotFound", err)
	}
	started(t, s, "live", "", 1)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	stop := errors.New("client went away")
	var got []runstore.Event
	var err error
	for e, ferr := range s.Events(ctx, "live", 0) {
		if ferr != nil {
			err = ferr
			break
		}
		got = append(got, e)
		cancel(stop) // the follower now waits on a live run
	}
	if !errors.Is(err, stop) || len(got) != 1 {
		t.Fatalf("canceled follow: %d events, %v; want 1 and the cause", len(got), err)
	}
}

// testWaiting: a live run is set waiting for a person and running again;
// a final status is not set so.
func testWaiting(t *testing.T, s Store, _ *clock.Fake) {
	ctx := t.Context()
	started(t, s, "r", "", 1)
	for _, st := range []runstore.Status{runstore.NeedsInput, runstore.Running, runstore.AwaitingPlan, runstore.Running} {
		must(t, s.SetStatus(ctx, "r", st))
		if r, err := s.Get(ctx, "r"); err != nil || r.Status != st {
			t.Fatalf("after SetStatus %s: %+v, %v", st, r, err)
		}
	}
	if err := s.SetStatus(ctx, "r", runstore.Finished); err == nil {
		t.Error("SetStatus set a final status")
	}
	if err := s.SetStatus(ctx, "nope", runstore.NeedsInput); !errors.Is(err, runstore.ErrNotFound) {
		t.Errorf("SetStatus of a missing run: %v, want ErrNotFound", err)
	}
	// A waiting run takes events and ends.
	must(t, s.SetStatus(ctx, "r", runstore.AwaitingPlan))
	must(t, s.Append(ctx, Event("r", 2, events.ErrorData{})))
	must(t, s.Finish(ctx, "r", runstore.Canceled, usage.Usage{}, ""))
}

// testReportsAndSources: a report is stored and replaced as JSON; a
// source is stored with the SHA-256 of its text, replaced by its ID, and
// read back by ID, its run's only.
func testReportsAndSources(t *testing.T, s Store, c *clock.Fake) {
	ctx := t.Context()
	started(t, s, "r", "", 0)
	started(t, s, "other", "", 0)
	if err := s.PutReport(ctx, "r", json.RawMessage(`{"title":`)); err == nil {
		t.Error("PutReport took a report that is not JSON")
	}
	must(t, s.PutReport(ctx, "r", json.RawMessage(`{"title":"first"}`)))
	must(t, s.PutReport(ctx, "r", json.RawMessage(`{"title":"second"}`)))
	if b, err := s.Report(ctx, "r"); err != nil || string(b) != `{"title":"second"}` {
		t.Errorf("Report = %s, %v; want the second", b, err)
	}
	fetched := t0.Add(-time.Hour)
	for _, src := range []runstore.Source{
		{RunID: "r", ID: "web:b", URL: "https://b.example/", Title: "B", Channel: "web", Text: "bee", Fetched: fetched},
		{RunID: "r", ID: "corpus:a", Title: "A", Channel: "corpus", Text: "first text"},
		{RunID: "r", ID: "corpus:a", Title: "A", Channel: "corpus", Text: "ay"}, // replaces the one before
		{RunID: "other", ID: "corpus:c", Text: "sea"},
	} {
		must(t, s.PutSource(ctx, src))
	}
	got, err := s.Sources(ctx, "r")
	must(t, err)
	sum := func(text string) string { h := sha256.Sum256([]byte(text)); return hex.EncodeToString(h[:]) }
	want := []runstore.Source{
		{RunID: "r", ID: "corpus:a", Title: "A", Channel: "corpus", Text: "ay", SHA256: sum("ay"), Fetched: c.Now()},
		{RunID: "r", ID: "web:b", URL: "https://b.example/", Title: "B", Channel: "web", Text: "bee", SHA256: sum("bee"), Fetched: fetched},
	}
	if len(got) != len(want) {
		t.Fatalf("Sources = %+v, want %+v", got, want)
	}
	for i := range want {
		if g := got[i]; g.RunID != want[i].RunID || g.ID != want[i].ID || g.URL != want[i].URL || g.Title != want[i].Title ||
			g.Channel != want[i].Channel || g.Text != want[i].Text || g.SHA256 != want[i].SHA256 || !g.Fetched.Equal(want[i].Fetched) {
			t.Errorf("source %d = %+v, want %+v", i, g, want[i])
		}
	}
	if none, err := s.Sources(ctx, "nope"); err != nil || len(none) != 0 {
		t.Errorf("Sources of a run without any: %v, %v", none, err)
	}
}

// testList: runs are listed newest first, at most limit of them.
func testList(t *testing.T, s Store, c *clock.Fake) {
	ctx := t.Context()
	for _, id := range []string{"r1", "r2", "r3"} {
		must(t, s.Create(ctx, runstore.Run{ID: id, Question: id}))
		c.Advance(time.Second)
	}
	ids := func(rs []runstore.Run) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	for _, tt := range []struct {
		limit int
		want  []string
	}{{0, []string{"r3", "r2", "r1"}}, {-1, []string{"r3", "r2", "r1"}}, {2, []string{"r3", "r2"}}} {
		rs, err := s.List(ctx, tt.limit)
		if err != nil || !slices.Equal(ids(rs), tt.want) {
			t.Errorf("List(%d) = %v, %v; want %v", tt.limit, ids(rs), err, tt.want)
		}
	}
}

// testJournal: a run's journal holds its entries in order, and no other
// run's.
func testJournal(t *testing.T, s Store, _ *clock.Fake) {
	ctx := t.Context()
	started(t, s, "r", "", 0)
	started(t, s, "other", "", 0)
	want := [][]byte{[]byte(`{"n":1}`), []byte(`{"n":2}`), []byte(`{"n":3}`)}
	for i, e := range want {
		must(t, s.AppendJournal(ctx, "r", e))
		if i == 0 {
			must(t, s.AppendJournal(ctx, "other", []byte(`{"other":true}`)))
		}
	}
	got, err := s.Journal(ctx, "r")
	if err != nil || !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Journal = %q, %v; want %q", got, err, want)
	}
	if none, err := s.Journal(ctx, "nope"); err != nil || len(none) != 0 {
		t.Errorf("Journal of a run without one: %q, %v", none, err)
	}
}

// testResume: interrupted runs are listed by origin, oldest first; one is
// reopened once, running, its attempt counted, its log going on after its
// last event; one not resumed is given up, failed with the reason.
func testResume(t *testing.T, s Store, c *clock.Fake) {
	ctx := t.Context()
	for _, r := range []struct{ id, origin string }{{"s1", runstore.OriginServer}, {"c1", runstore.OriginCLI}, {"s2", runstore.OriginServer}} {
		started(t, s, r.id, r.origin, 2)
		must(t, s.Finish(ctx, r.id, runstore.Interrupted, usage.Usage{}, "the process stopped"))
		c.Advance(time.Second)
	}
	started(t, s, "live", runstore.OriginServer, 1)
	rs, err := s.Interrupted(ctx, runstore.OriginServer)
	if err != nil || len(rs) != 2 || rs[0].ID != "s1" || rs[1].ID != "s2" {
		t.Fatalf("Interrupted(server) = %+v, %v; want s1, s2", rs, err)
	}
	r, err := s.Reopen(ctx, "s1")
	if err != nil || r.Status != runstore.Running || r.Attempts != 2 || r.Error != "" || !r.Finished.IsZero() || r.Events != 2 {
		t.Fatalf("Reopen = %+v, %v; want it running, attempt 2, its events kept", r, err)
	}
	if _, err := s.Reopen(ctx, "s1"); err == nil {
		t.Error("a run was reopened twice")
	}
	if _, err := s.Reopen(ctx, "live"); err == nil {
		t.Error("a live run was reopened")
	}
	if _, err := s.Reopen(ctx, "nope"); !errors.Is(err, runstore.ErrNotFound) {
		t.Errorf("Reopen of a missing run: %v, want ErrNotFound", err)
	}
	must(t, s.Append(ctx, Event("s1", 3, events.DeltaData{Text: "again"})))
	must(t, s.AppendJournal(ctx, "s1", []byte(`{"again":true}`)))
	if rs, err := s.Interrupted(ctx, runstore.OriginServer); err != nil || len(rs) != 1 || rs[0].ID != "s2" {
		t.Errorf("Interrupted(server) after a reopen = %+v, %v; want s2", rs, err)
	}
	must(t, s.GiveUp(ctx, "s2", "too many attempts"))
	if r, err := s.Get(ctx, "s2"); err != nil || r.Status != runstore.Failed || r.Error != "too many attempts" {
		t.Errorf("after GiveUp: %+v, %v; want it failed with the reason", r, err)
	}
	if err := s.GiveUp(ctx, "s2", "again"); err == nil {
		t.Error("a failed run was given up again")
	}
	if err := s.GiveUp(ctx, "nope", "x"); !errors.Is(err, runstore.ErrNotFound) {
		t.Errorf("GiveUp of a missing run: %v, want ErrNotFound", err)
	}
}

// testFollowUps: a run created with a Parent keeps it, and FollowUps
// lists the runs of one parent, oldest first, and no other run's; a run
// without follow-ups, or unknown, has none.
func testFollowUps(t *testing.T, s Store, c *clock.Fake) {
	ctx := t.Context()
	must(t, s.Create(ctx, runstore.Run{ID: "root", Question: "q"}))
	must(t, s.Create(ctx, runstore.Run{ID: "other", Question: "q2"}))
	for _, f := range []struct{ id, parent string }{{"f2", "root"}, {"g1", "other"}, {"f1", "root"}} {
		c.Advance(time.Second)
		must(t, s.Create(ctx, runstore.Run{ID: f.id, Question: "follow-up " + f.id, Parent: f.parent}))
	}
	got, err := s.Get(ctx, "f1")
	if err != nil || got.Parent != "root" {
		t.Fatalf("Get(f1) = %+v, %v; want Parent root", got, err)
	}
	if got, _ := s.Get(ctx, "root"); got.Parent != "" {
		t.Errorf("Get(root).Parent = %q; want none", got.Parent)
	}
	ids := func(rs []runstore.Run) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	for _, tt := range []struct {
		id   string
		want []string
	}{{"root", []string{"f2", "f1"}}, {"other", []string{"g1"}}, {"f1", []string{}}, {"nosuch", []string{}}, {"", []string{}}} {
		rs, err := s.FollowUps(ctx, tt.id)
		if err != nil || !slices.Equal(ids(rs), tt.want) {
			t.Errorf("FollowUps(%q) = %v, %v; want %v", tt.id, ids(rs), err, tt.want)
		}
	}
	rs, _ := s.FollowUps(ctx, "root")
	if len(rs) == 2 && (rs[0].Question != "follow-up f2" || rs[0].Parent != "root" || rs[0].Status != runstore.Queued) {
		t.Errorf("FollowUps(root)[0] = %+v; want the stored run f2, queued", rs[0])
	}
}

// testRechecks: an ended run keeps its last re-check, as put (its time,
// verdict and JSON), each put replacing the one before; a run without
// one, or unknown, has none (ErrNotFound); a live run, an unknown one and
// a result that is not JSON are refused.
func testRechecks(t *testing.T, s Store, c *clock.Fake) {
	ctx := t.Context()
	started(t, s, "r1", "", 1)
	if _, err := s.LastRecheck(ctx, "r1"); !errors.Is(err, runstore.ErrNotFound) {
		t.Fatalf("LastRecheck of a run never re-checked: %v; want ErrNotFound", err)
	}
	rc := runstore.Recheck{RunID: "r1", Checked: c.Now(), Holds: true, Result: json.RawMessage(`{"holds":true}`)}
	if err := s.PutRecheck(ctx, rc); err == nil {
		t.Fatal("PutRecheck of a live run was taken")
	}
	must(t, s.Finish(ctx, "r1", runstore.Finished, usage.Usage{}, ""))
	must(t, s.PutRecheck(ctx, rc))
	got, err := s.LastRecheck(ctx, "r1")
	if err != nil || got.RunID != "r1" || !got.Checked.Equal(rc.Checked) || !got.Holds || string(got.Result) != `{"holds":true}` {
		t.Fatalf("LastRecheck = %+v, %v; want %+v", got, err, rc)
	}
	c.Advance(time.Hour)
	later := runstore.Recheck{RunID: "r1", Checked: c.Now(), Holds: false, Result: json.RawMessage(`{"holds":false,"claims":[1]}`)}
	must(t, s.PutRecheck(ctx, later))
	got, err = s.LastRecheck(ctx, "r1")
	if err != nil || !got.Checked.Equal(later.Checked) || got.Holds || string(got.Result) != string(later.Result) {
		t.Fatalf("LastRecheck after a second put = %+v, %v; want %+v", got, err, later)
	}
	if _, err := s.LastRecheck(ctx, "nosuch"); !errors.Is(err, runstore.ErrNotFound) {
		t.Errorf("LastRecheck of an unknown run: %v; want ErrNotFound", err)
	}
	if err := s.PutRecheck(ctx, runstore.Recheck{RunID: "nosuch", Checked: c.Now(), Result: json.RawMessage(`{}`)}); !errors.Is(err, runstore.ErrNotFound) {
		t.Errorf("PutRecheck of an unknown run: %v; want ErrNotFound", err)
	}
	if err := s.PutRecheck(ctx, runstore.Recheck{RunID: "r1", Checked: c.Now(), Result: json.RawMessage(`{not json`)}); err == nil {
		t.Error("PutRecheck took a result that is not JSON")
	}
	if got, _ := s.LastRecheck(ctx, "r1"); string(got.Result) != string(later.Result) {
		t.Errorf("a refused put changed the last re-check: %s", got.Result)
	}
}
