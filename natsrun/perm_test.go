package natsrun_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/runstore"
)

// workerDeny is what docs/cluster.md's worker user may not publish, for
// the prefix "drperm": the runs and reports buckets (records, leases, a
// person's relayed word, reports), their streams' API, and the events
// stream.
var workerDeny = []string{
	"$KV.DRPERM_RUNS.>", "$KV.DRPERM_REPORTS.>",
	"$JS.API.STREAM.*.KV_DRPERM_RUNS", "$JS.API.STREAM.*.KV_DRPERM_REPORTS",
	"$JS.API.STREAM.MSG.DELETE.KV_DRPERM_RUNS", "$JS.API.STREAM.MSG.DELETE.KV_DRPERM_REPORTS",
	"drperm.events.>",
}

// TestWorkerPermissions: on a NATS server with two users, a server and a
// worker whose publications workerDeny denies, the worker does its work —
// it takes a task and publishes its result, with its heartbeat — but
// cannot write a run's record, relay a word to it (a forged
// cancellation), or append an event to it: the server denies each try,
// saying so to the worker's connection, and the store holds none of what
// it tried.
func TestWorkerPermissions(t *testing.T) {
	opts := &server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true,
		Users: []*server.User{
			{Username: "server", Password: "server-secret"},
			{Username: "worker", Password: "worker-secret", Permissions: &server.Permissions{
				Publish: &server.SubjectPermission{Deny: workerDeny}}},
		}}
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the server did not start")
	}
	// The server answers a publication it denies with a permissions
	// violation, which the client reports to its connection's error
	// handler, naming the subject (the publication itself is never
	// answered): denied says each subject the worker was denied.
	denied := make(chan string, 64)
	deniedTo := regexp.MustCompile(`Publish to "([^"]+)"`)
	onError := func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if m := deniedTo.FindStringSubmatch(err.Error()); m != nil && errors.Is(err, nats.ErrPermissionViolation) {
			select {
			case denied <- m[1]:
			default:
			}
		}
	}
	connect := func(user, pass string) (*nats.Conn, jetstream.JetStream) {
		nc, err := nats.Connect(srv.ClientURL(), nats.UserInfo(user, pass), nats.ErrorHandler(onError))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		return nc, js
	}
	_, sjs := connect("server", "server-secret")
	_, wjs := connect("worker", "worker-secret")
	cfg := natsrun.Config{Prefix: "drperm"}
	cl := natsrun.NewCluster(sjs, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a failure bound only
	defer cancel()
	st, err := cl.OpenStore(ctx, natsrun.StoreOptions{Owner: "server"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Create(ctx, runstore.Run{ID: "perm1", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Start(ctx, "perm1"); err != nil {
		t.Fatal(err)
	}
	before, err := st.Get(ctx, "perm1")
	if err != nil {
		t.Fatal(err)
	}

	// The worker works.
	w := &natsrun.Worker{JS: wjs, Config: cfg, Concurrency: 1, Name: "w1",
		Handle: func(context.Context, natsrun.Task) (json.RawMessage, error) {
			return json.RawMessage(`{"ok":true}`), nil
		}}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { w.Run(wctx) }) //nolint:errcheck // stopped below
	defer func() { stop(); wg.Wait() }()
	if err := cl.Submit(ctx, natsrun.Task{Run: "perm1", Cycle: 1, Index: 0}); err != nil {
		t.Fatal(err)
	}
	rs, err := cl.Await(ctx, "perm1", 1, []int{0})
	if err != nil || len(rs) != 1 || rs[0].Worker != "w1" || string(rs[0].Output) != `{"ok":true}` {
		t.Fatalf("the worker's result: %+v (%v)", rs, err)
	}

	// What it may not do: each try is denied (the server says so, naming
	// the subject) and fails.
	tries := []struct {
		what, subject string
		try           func(context.Context) error
	}{
		{"write the run's record", "$KV.DRPERM_RUNS.run.perm1", func(ctx context.Context) error {
			_, err := wjs.Publish(ctx, "$KV.DRPERM_RUNS.run.perm1", []byte(`{"id":"perm1","status":"canceled"}`))
			return err
		}},
		{"relay a cancellation", "$KV.DRPERM_RUNS.ask.perm1.FORGED", func(ctx context.Context) error {
			_, err := wjs.Publish(ctx, "$KV.DRPERM_RUNS.ask.perm1.FORGED", []byte(`{"kind":"cancel","from":"worker"}`))
			return err
		}},
		{"write a report", "$KV.DRPERM_REPORTS.perm1.report", func(ctx context.Context) error {
			_, err := wjs.Publish(ctx, "$KV.DRPERM_REPORTS.perm1.report", []byte(`{}`))
			return err
		}},
		{"purge the runs bucket", "$JS.API.STREAM.INFO.KV_DRPERM_RUNS", func(ctx context.Context) error {
			s, err := wjs.Stream(ctx, "KV_DRPERM_RUNS")
			if err == nil {
				err = s.Purge(ctx)
			}
			return err
		}},
		{"append an event", "drperm.events.perm1", func(ctx context.Context) error {
			m := nats.NewMsg("drperm.events.perm1")
			m.Header.Set(natsrun.HeaderSeq, "1")
			m.Data = []byte(`{"type":"error"}`)
			_, err := wjs.PublishMsg(ctx, m)
			return err
		}},
	}
	for _, tr := range tries {
		// A denied publication has no answer: the try ends when the
		// denial is reported.
		tctx, cancel := context.WithCancel(ctx)
		ended := make(chan error, 1)
		go func() { ended <- tr.try(tctx) }()
		for wasDenied, returned := false, false; !wasDenied || !returned; {
			select {
			case subject := <-denied:
				if subject == tr.subject {
					wasDenied = true
					cancel()
				}
			case err := <-ended:
				returned = true
				if err == nil {
					t.Errorf("the worker could %s", tr.what)
					wasDenied = true // and nothing will say otherwise
				}
			case <-ctx.Done():
				t.Fatalf("trying to %s: the server did not deny %s", tr.what, tr.subject)
			}
		}
		cancel()
	}
	after, err := st.Get(ctx, "perm1")
	if err != nil || after.Status != before.Status || after.Events != 0 {
		t.Errorf("the run after the worker's tries: %s, %d events (%v); want %s, none", after.Status, after.Events, err, before.Status)
	}
	kv, err := sjs.KeyValue(ctx, "DRPERM_RUNS")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Get(ctx, "ask.perm1.FORGED"); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Errorf("the forged request is in the runs bucket (%v)", err)
	}
	if _, err := st.Report(ctx, "perm1"); !errors.Is(err, runstore.ErrNotFound) {
		t.Errorf("the run has a report the worker wrote (%v)", err)
	}
}
