package natsrun_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/storetest"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/runstore"
)

// t0 is when the takeover test's clocks start.
var t0 = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// TestStoreConformance holds the JetStream store to the run store's
// contract, the one sqlitestore and the in-memory store are held to,
// against an embedded server.
func TestStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c clock.Clock) storetest.Store {
		js := standalone(t)
		// The lease outlasts every move of the suite's clock.
		s, err := natsrun.NewCluster(js, natsrun.Config{Clock: c}).OpenStore(t.Context(), natsrun.StoreOptions{LeaseTTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestStoreTakeover: a run started by server A, its first plan waiting
// for review, is taken over by server B once A's lease has expired — A
// died (its connection gone), or stood still (its clock and its work
// paused) — and B finishes it, its events every number once. A that
// comes back finds its lease lost and stops its run, writing nothing.
// Each server has its own connection, Store and clock (fakes: a lease
// expires when a test moves a clock past it, not after real time).
func TestStoreTakeover(t *testing.T) {
	for _, how := range []string{"dies", "pauses"} {
		t.Run(how, func(t *testing.T) {
			ctx := t.Context()
			srv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			const ttl = 30 * time.Second
			type server struct {
				nc    *nats.Conn
				clock *deepresearchtest.Clock
				store *natsrun.Store
				runs  *deepresearch.Runs
			}
			open := func(name string) *server {
				nc, err := nats.Connect(srv.URL())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(nc.Close)
				js, err := jetstream.New(nc)
				if err != nil {
					t.Fatal(err)
				}
				c := deepresearchtest.NewClock(t0)
				st, err := natsrun.NewCluster(js, natsrun.Config{Prefix: "drtake", Clock: c}).OpenStore(ctx, natsrun.StoreOptions{LeaseTTL: ttl, Owner: name})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				rs, err := deepresearch.NewRuns(researcher(t, nil), st, deepresearch.RunsOptions{Clock: c})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { rs.Close() })
				st.OnLost(natsrun.StopLost(rs))
				return &server{nc: nc, clock: c, store: st, runs: rs}
			}
			a, b := open("A"), open("B")

			id, err := a.runs.Start(ctx, deepresearch.Request{Question: question, Review: deepresearch.ReviewFirstPlan})
			if err != nil {
				t.Fatal(err)
			}
			// Through B: A's run reaches its plan's review.
			var before uint64
			for e, err := range b.store.Events(ctx, id, 0) {
				if err != nil {
					t.Fatal(err)
				}
				before = e.Seq
				if e.Type == "plan.review_requested" {
					break
				}
			}
			if how == "dies" {
				a.nc.Close()
			}
			// B's lease sweep finds A's lease expired (a Renew after its
			// TTL): the run is interrupted, and B's follower ends.
			b.clock.Advance(ttl + ttl/3 + time.Second)
			for _, err := range b.store.Events(ctx, id, before) {
				if err != nil {
					t.Fatal(err)
				}
			}
			if run, err := b.store.Get(ctx, id); err != nil || run.Status != runstore.Interrupted || run.Events != before {
				t.Fatalf("after A's lease expired the run is %+v, %v; want it interrupted after event %d", run, err, before)
			}
			// B's resumed attempt, as the run's record says it: it waits
			// for the review again once it has replayed up to it.
			records, err := jetstream.New(b.nc)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := records.KeyValue(ctx, natsrun.NamesOf(natsrun.Config{Prefix: "drtake"}).RunsBucket)
			if err != nil {
				t.Fatal(err)
			}
			record, err := runs.Watch(ctx, "run."+id)
			if err != nil {
				t.Fatal(err)
			}
			defer record.Stop() //nolint:errcheck // it has said what the test waited for
			if ids, err := b.runs.Resume(ctx); err != nil || len(ids) != 1 || ids[0] != id {
				t.Fatalf("B resumed %v, %v; want %s", ids, err, id)
			}
			if _, err := a.store.Reopen(ctx, id); err == nil {
				t.Fatal("A reopened the run B holds")
			}
			if how == "pauses" {
				// A goes on: its renewal finds the lease taken, and its
				// run stops without storing anything.
				a.clock.Advance(ttl / 3)
				if err := a.runs.Wait(ctx, id); err != nil {
					t.Fatal(err)
				}
				if err := a.store.Append(ctx, events.Event{RunID: id, Seq: before + 1, Type: "error"}); !errors.Is(err, natsrun.ErrNotOwner) {
					t.Errorf("A appended to B's run: %v; want ErrNotOwner", err)
				}
			}
			// B's attempt waits for the review again; B takes it.
			for waiting := false; !waiting; {
				e, ok := <-record.Updates()
				if !ok {
					t.Fatal("the watch of the run's record ended")
				}
				var r runstore.Run
				waiting = e != nil && json.Unmarshal(e.Value(), &r) == nil && r.Status == runstore.AwaitingPlan && r.Attempts == 2
			}
			// The record says the run waits just before the run itself
			// does: a review in between is refused, and given again.
			for {
				err := b.runs.Review(ctx, id, deepresearch.PlanReview{})
				if err == nil {
					break
				}
				if !errors.Is(err, deepresearch.ErrNotWaiting) {
					t.Fatal(err)
				}
			}
			if err := b.runs.Wait(ctx, id); err != nil {
				t.Fatal(err)
			}
			run, err := b.store.Get(ctx, id)
			if err != nil || run.Status != runstore.Finished || run.Attempts != 2 || run.Events <= before {
				t.Fatalf("the run taken over is %+v, %v; want it finished in attempt 2", run, err)
			}
			var seqs []uint64
			for e, err := range b.store.Events(ctx, id, 0) {
				if err != nil {
					t.Fatal(err)
				}
				seqs = append(seqs, e.Seq)
			}
			for i, s := range seqs {
				if s != uint64(i+1) {
					t.Fatalf("event %d is numbered %d", i, s)
				}
			}
			// Every number once in the stream itself: no repeat stored.
			js, _ := jetstream.New(b.nc)
			stream, err := js.Stream(ctx, "DRTAKE_EVENTS")
			if err != nil {
				t.Fatal(err)
			}
			info, err := stream.Info(ctx, jetstream.WithSubjectFilter("drtake.events."+id))
			if err != nil {
				t.Fatal(err)
			}
			if n := info.State.Subjects["drtake.events."+id]; n != uint64(len(seqs)) || n != run.Events {
				t.Errorf("the stream holds %d messages of the run; %d events, the last numbered %d", n, len(seqs), run.Events)
			}
			if _, err := b.store.Report(ctx, id); err != nil {
				t.Errorf("the report: %v", err)
			}
		})
	}
}

// TestSurvey: the cluster's survey shows the server alive with the run
// it owns and that run's lease, the worker alive with the task it runs,
// and the run's other tasks queued; a member that stopped beating three
// of its beats ago is shown not alive, and one a moment short of that
// alive. The heartbeats are on a fake clock the test moves; the test
// waits for the beats themselves, through a watch of the presence bucket.
func TestSurvey(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a failure bound only
	defer cancel()
	js := standalone(t)
	c := deepresearchtest.NewClock(t0)
	cfg := natsrun.Config{Prefix: "drsurvey", Clock: c, AckWait: 30 * time.Second}
	const workerBeat, serverBeat = 10 * time.Second, 20 * time.Minute // AckWait/3; Renew, a third of the lease
	cl := natsrun.NewCluster(js, cfg)
	st, err := cl.OpenStore(ctx, natsrun.StoreOptions{LeaseTTL: 3 * serverBeat, Owner: "server-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Create(ctx, runstore.Run{ID: "run1", Question: question}); err != nil {
		t.Fatal(err)
	}
	if err := st.Start(ctx, "run1"); err != nil {
		t.Fatal(err)
	}
	took := make(chan natsrun.Task, 1)
	release := make(chan struct{})
	w := &natsrun.Worker{JS: js, Config: cfg, Name: "w1", Concurrency: 1,
		Handle: func(ctx context.Context, task natsrun.Task) (json.RawMessage, error) {
			// A task taken after the first, as the worker stops, is
			// not waited for: the worker gives it back.
			select {
			case took <- task:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return json.RawMessage(`{}`), nil
		}}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	workerStopped := false
	stopWorker := func() {
		if !workerStopped {
			workerStopped = true
			close(release)
			stop()
			<-done
		}
	}
	defer stopWorker()
	if err := cl.Submit(ctx, natsrun.Task{Run: "run1", Index: 0}, natsrun.Task{Run: "run1", Index: 1}, natsrun.Task{Run: "run1", Index: 2}); err != nil {
		t.Fatal(err)
	}
	var task natsrun.Task
	select {
	case task = <-took:
	case <-ctx.Done():
		t.Fatal("the worker took no task")
	}
	running := fmt.Sprintf("run1/%d/%d", task.Cycle, task.Index)

	// Each member beats as it starts, and then every beat of the clock:
	// the beats that name the task taken and the run started are those
	// after now. One move of a server's beat brings both (a ticker fires
	// once, however far the clock moves); the watch says when they are
	// stored.
	presence, err := js.KeyValue(ctx, natsrun.NamesOf(cfg).PresenceBucket)
	if err != nil {
		t.Fatal(err)
	}
	watch, err := presence.WatchAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Stop() //nolint:errcheck // it has said what the test waited for
	c.Advance(serverBeat)
	beat := c.Now()
	for seen := map[string]bool{}; !seen["worker"] || !seen["server"]; {
		select {
		case e := <-watch.Updates():
			var m natsrun.Member
			if e != nil && json.Unmarshal(e.Value(), &m) == nil && m.Seen.Equal(beat) && len(m.Tasks)+len(m.Runs) == 1 {
				seen[m.Kind] = true
			}
		case <-ctx.Done():
			t.Fatal("no beat after the clock moved names the task and the run")
		}
	}
	s, err := cl.Survey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Servers) != 1 || len(s.Workers) != 1 {
		t.Fatalf("survey %+v; want one server and one worker", s)
	}
	if sv := s.Servers[0]; sv.Name != "server-1" || !sv.Alive || len(sv.Runs) != 1 || sv.Runs[0] != "run1" {
		t.Errorf("server %+v; want server-1 alive owning run1", sv)
	}
	if wk := s.Workers[0]; !strings.HasPrefix(wk.Name, "w1-") || !wk.Alive || len(wk.Tasks) != 1 || wk.Tasks[0] != running {
		t.Errorf("worker %+v; want w1 alive running %s", wk, running)
	}
	if len(s.Runs) != 1 || s.Runs[0].Run != "run1" || s.Runs[0].Owner != "server-1" || s.Runs[0].Queued != 2 ||
		s.Runs[0].Running[running] != s.Workers[0].Name {
		t.Errorf("runs %+v; want run1 owned by server-1, 2 tasks queued, %s running on the worker", s.Runs, running)
	}
	if s.TasksWaiting != 2 || s.TasksRunning != 1 {
		t.Errorf("the queue: %d waiting, %d running; want 2 and 1", s.TasksWaiting, s.TasksRunning)
	}

	// The worker stops beating. A moment short of three of its beats
	// later it is alive; three beats later it is not, and its task is
	// no longer shown running; the server, whose beats are longer, is.
	stopWorker()
	for _, tc := range []struct {
		move  time.Duration
		alive bool
	}{{3*workerBeat - time.Second, true}, {time.Second, false}} {
		c.Advance(tc.move)
		s, err := cl.Survey(ctx)
		if err != nil || len(s.Workers) != 1 || len(s.Servers) != 1 {
			t.Fatalf("survey %v after the last beat: %+v (%v); want one server and one worker", c.Now().Sub(beat), s, err)
		}
		if wk := s.Workers[0]; wk.Alive != tc.alive || !wk.Seen.Equal(beat) {
			t.Errorf("%v after its last beat the worker is %+v; want alive %v, last seen at that beat", c.Now().Sub(beat), wk, tc.alive)
		}
		if !s.Servers[0].Alive {
			t.Errorf("%v after its last beat the server is not alive", c.Now().Sub(beat))
		}
		if len(s.Runs) == 1 && len(s.Runs[0].Running) > 0 && !tc.alive {
			t.Errorf("a worker not alive is shown running %v", s.Runs[0].Running)
		}
	}
	// To a process whose clock is two hours on, nobody is alive.
	laterCfg := cfg
	laterCfg.Clock = deepresearchtest.NewClock(c.Now().Add(2 * time.Hour))
	later, err := natsrun.NewCluster(js, laterCfg).Survey(ctx)
	if err != nil || len(later.Workers) != 1 || later.Workers[0].Alive || len(later.Servers) != 1 || later.Servers[0].Alive {
		t.Errorf("a survey two hours on: %+v, %v; want nobody alive", later, err)
	}
}

// TestStoreBigReport: a report larger than a chunk of the reports bucket
// (and than NATS's max_payload) is stored in chunks and read back whole;
// replaced by a small one, the small one is read.
func TestStoreBigReport(t *testing.T) {
	ctx := t.Context()
	st, err := natsrun.NewCluster(standalone(t), natsrun.Config{Prefix: "drblob"}).OpenStore(ctx, natsrun.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Create(ctx, runstore.Run{ID: "big", Question: question}); err != nil {
		t.Fatal(err)
	}
	if err := st.Start(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("undersea cables ", 150_000)}) // 2.4 MB
	for _, report := range [][]byte{big, []byte(`{"title":"small"}`)} {
		if err := st.PutReport(ctx, "big", report); err != nil {
			t.Fatal(err)
		}
		got, err := st.Report(ctx, "big")
		if err != nil || string(got) != string(report) {
			t.Fatalf("Report = %d bytes, %v; want the %d stored", len(got), err, len(report))
		}
	}
}

// TestStoreReadsFromTheLeader: the store's buckets serve reads from their
// stream's leader, not by direct get from any replica (which may be
// behind the leader), and a bucket a store opened again, or one created
// with direct gets by an older version, is made so again.
func TestStoreReadsFromTheLeader(t *testing.T) {
	ctx := t.Context()
	js := standalone(t)
	cfg := natsrun.Config{}
	names := natsrun.NamesOf(cfg)
	// An older version's bucket: direct gets allowed.
	if _, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: names.RunsBucket, History: 1}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s, err := natsrun.NewCluster(js, cfg).OpenStore(ctx, natsrun.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		for _, b := range []string{names.RunsBucket, names.ReportsBucket} {
			st, err := js.Stream(ctx, "KV_"+b)
			if err != nil {
				t.Fatal(err)
			}
			if st.CachedInfo().Config.AllowDirect {
				t.Errorf("bucket %s allows direct gets: a replica behind its leader may answer a read", b)
			}
		}
	}
}
