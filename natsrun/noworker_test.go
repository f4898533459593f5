package natsrun_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/runstore"
)

// TestNoWorker (nats.no_worker_after): a run whose agent tasks wait with
// no worker alive for Agents.NoWorkerAfter, on a fake clock the test
// moves, says so — a workers.missing event at run level, once a task,
// saying how long it waited, and the run's record's NoWorkerSince
// (OnNoWorker → Store.SetNoWorker), which Survey shows — and goes on
// waiting; when a worker appears, the run finishes, and its record no
// longer says so.
func TestNoWorker(t *testing.T) {
	js := standalone(t)
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clk := deepresearchtest.NewClock(t0)
	cfg := natsrun.Config{Prefix: "drnowork", Clock: clk}
	cl := natsrun.NewCluster(js, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a failure bound only
	defer cancel()
	st, err := cl.OpenStore(ctx, natsrun.StoreOptions{LeaseTTL: time.Hour, Owner: "coordinator"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const after = 2 * time.Minute
	noWorker := make(chan time.Time, 64)
	agents := &natsrun.Agents{JS: js, Config: cfg, NoWorkerAfter: after, OnNoWorker: func(run string, since time.Time) {
		if err := st.SetNoWorker(ctx, run, since); err != nil {
			t.Errorf("SetNoWorker(%s, %v): %v", run, since, err)
		}
		noWorker <- since
	}}
	var mu sync.Mutex
	var missing []events.Event
	said := make(chan struct{}, 64)
	planned := make(chan int, 1)
	sink := func(e events.Event) {
		if d, ok := e.Data.(events.PlanData); ok {
			select {
			case planned <- len(d.Tasks):
			default:
			}
		}
		if e.Type == events.WorkersMissing {
			mu.Lock()
			missing = append(missing, e)
			mu.Unlock()
			said <- struct{}{}
		}
	}
	run, err := researcher(t, agents).Start(ctx, deepresearch.Request{Question: question, RunID: "nowork1"},
		deepresearch.RunOptions{Store: st, Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	// Once every task is queued and waits for its NoWorkerAfter, the
	// clock passes it. (Moved while a task is still being queued, it
	// would time that try out too, and the pause before the next try
	// would wait for a clock nobody moves again.)
	var queued int
	select {
	case queued = <-planned:
	case <-ctx.Done():
		t.Fatal("the run planned nothing")
	}
	for range queued {
		if err := clk.WaitArmed(ctx, after); err != nil {
			t.Fatalf("%d tasks waiting for a worker: %v", queued, err)
		}
	}
	clk.Advance(after)
	select {
	case <-said:
	case <-ctx.Done():
		t.Fatal("no workers.missing event")
	}
	if since := <-noWorker; !since.Equal(t0) {
		t.Errorf("OnNoWorker said since %v; want %v, when the task was queued", since, t0)
	}
	got, err := st.Get(ctx, "nowork1")
	if err != nil || !got.NoWorkerSince.Equal(t0) || got.Status.Ended() {
		t.Fatalf("the run's record: no worker since %v, %s (%v); want since %v, still live", got.NoWorkerSince, got.Status, err, t0)
	}
	cs, err := cl.Survey(ctx)
	if err != nil || len(cs.Runs) != 1 || !cs.Runs[0].NoWorkerSince.Equal(t0) || len(cs.Workers) != 0 {
		t.Errorf("Survey: %+v (%v); want the run, no worker since %v, and no worker", cs, err, t0)
	}

	// A worker appears: the run goes on and finishes.
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { cl.Serve(wctx, researcher(t, nil), 2, "w1") }) //nolint:errcheck // stopped below
	defer func() { stop(); wg.Wait() }()
	if _, err := run.Wait(); err != nil {
		t.Fatalf("the run, once a worker appeared: %v", err)
	}
	got, err = st.Get(ctx, "nowork1")
	if err != nil || !got.NoWorkerSince.IsZero() || got.Status != runstore.Finished {
		t.Errorf("the run's record at its end: no worker since %v, %s (%v); want zero, finished", got.NoWorkerSince, got.Status, err)
	}
	mu.Lock()
	defer mu.Unlock()
	tasks := map[int]bool{}
	for _, e := range missing {
		d := e.Data.(events.WorkersMissingData)
		if e.Agent != -1 || d.WaitedMS != after.Milliseconds() || tasks[d.Task.Index] || d.Task.Title == "" {
			t.Errorf("workers.missing event %+v: want one a task, at run level, after %v", e, after)
		}
		tasks[d.Task.Index] = true
	}
}
