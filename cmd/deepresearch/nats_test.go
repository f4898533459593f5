package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/runstore"
)

// TestDoctorNATS: with nats.url set, doctor shows the cluster and each
// stream natsrun uses, by its documented name.
func TestDoctorNATS(t *testing.T) {
	index := isolate(t)
	srv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, js, err := natsrun.Connect(srv.URL(), "", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := natsrun.NewCluster(js, natsrun.Config{}).Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DEEPRESEARCH_NATS_URL", srv.URL())
	r := cli(t, "", "doctor", "--corpus", corpus, "--index", index)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"nats", "DEEPRESEARCH_TASKS", "DEEPRESEARCH_EVENTS", "DEEPRESEARCH_RESULTS", "DEEPRESEARCH_JOURNAL", "deepresearch.tasks.>"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor does not show %q:\n%s", want, r.stdout)
		}
	}
}

// TestClusterCommand: cluster shows a server of the cluster store alive
// with the run it owns, and the run's lease and queued task; --json says
// the same as GET /v1/cluster.
func TestClusterCommand(t *testing.T) {
	isolate(t)
	srv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, js, err := natsrun.Connect(srv.URL(), "", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	st, err := natsrun.NewCluster(js, natsrun.Config{}).OpenStore(ctx, natsrun.StoreOptions{Owner: "server-a"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Create(ctx, runstore.Run{ID: "run1", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Start(ctx, "run1"); err != nil {
		t.Fatal(err)
	}
	if err := natsrun.NewCluster(js, natsrun.Config{}).Submit(ctx, natsrun.Task{Run: "run1"}); err != nil {
		t.Fatal(err)
	}
	// Its task has waited with no worker alive (natsrun.Agents.OnNoWorker).
	if err := st.SetNoWorker(ctx, "run1", time.Now().Add(-3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	r := cli(t, "", "cluster", "--nats", srv.URL())
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"server  server-a  yes", "run1", "tasks: 1 waiting, 0 running", "run1  server-a  expires in", "for 3m"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("cluster does not show %q:\n%s", want, r.stdout)
		}
	}
	r = cli(t, "", "cluster", "--nats", srv.URL(), "--json")
	var got natsrun.ClusterStatus
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got.Runs) != 1 || got.Runs[0].Queued != 1 || got.Runs[0].Owner != "server-a" ||
		got.Runs[0].NoWorkerSince.IsZero() {
		t.Errorf("cluster --json: %+v, %v\n%s", got, err, r.stdout)
	}
}
