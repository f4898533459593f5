package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/storetest"
)

// TestDamagedStoreCommands (issue 18, #11): a run store damaged in the
// middle is refused by serve (which would take runs it cannot keep) with
// a message that says what to do; runs lists what it can read and show
// shows it, both saying the store is damaged (exit status 1); store check
// finds the damage, and passes a sound store.
func TestDamagedStoreCommands(t *testing.T) {
	index := isolate(t)
	st := filepath.Join(t.TempDir(), "runs.db")
	for range 3 {
		wantSuccess(t, cli(t, "", "run", "--corpus", corpus, "--index", index, "--store", st, "--progress", "never", question))
	}
	if r := cli(t, "", "store", "check", "--store", st); r.code != 0 || !strings.Contains(r.stdout, "ok") {
		t.Fatalf("store check of a sound store: %d %q %q", r.code, r.stdout, r.stderr)
	}
	ids := regexp.MustCompile(`(?m)^([0-9a-f]{16}) `).FindAllStringSubmatch(cli(t, "", "runs", "--store", st).stdout, -1)
	if len(ids) != 3 {
		t.Fatalf("%d runs listed", len(ids))
	}
	storetest.Damage(t, st, "events")

	damaged := func(name string, r result) {
		t.Helper()
		if r.code != 1 || !strings.Contains(r.stderr, "damaged") || !strings.Contains(r.stderr, "move it aside") {
			t.Errorf("%s: exit %d, stderr %q; want status 1 and what to do", name, r.code, r.stderr)
		}
	}
	r := cli(t, "", "serve", "--addr", "127.0.0.1:0", "--corpus", corpus, "--index", index, "--store", st)
	damaged("serve", r)
	if strings.Contains(r.stdout, "listening") {
		t.Errorf("serve listened on a damaged store: %q", r.stdout)
	}
	r = cli(t, "", "runs", "--store", st)
	damaged("runs", r)
	for _, id := range ids {
		if !strings.Contains(r.stdout, id[1]) {
			t.Errorf("runs does not list %s:\n%s", id[1], r.stdout)
		}
	}
	r = cli(t, "", "show", "--store", st, ids[0][1])
	damaged("show", r)
	if !strings.Contains(r.stdout, "## References") {
		t.Errorf("show does not show the report:\n%.200q", r.stdout)
	}
	damaged("store check", cli(t, "", "store", "check", "--store", st))
}
