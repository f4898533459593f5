package main

import (
	"context"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/natsrun"
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
	if _, err := natsrun.Setup(context.Background(), js, natsrun.Config{}); err != nil {
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
