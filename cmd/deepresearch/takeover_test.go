package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/natsrun"
)

// TestServeTakeover (issue 31): two serve processes with nats.url keep
// their runs in the cluster store. A run started on A waits for its
// plan's review; a second run of A, reviewed through B (the word relayed
// to A through the store), finishes on A, its first attempt; A is
// SIGKILLed; B takes the run over once A's lease has
// passed (nats.lease_ttl 2s), resumes it from its journal and waits for
// the review again; the review posted to B is applied, and the run
// finishes on B, its agents on a worker process. Through B, the run's
// events are every number once, those A served first byte for byte as A
// served them, and its report has references.
func TestServeTakeover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve and worker processes")
	}
	isolate(t)
	nsrv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer nsrv.Close()
	t.Setenv("DEEPRESEARCH_NATS_URL", nsrv.URL())
	t.Setenv("DEEPRESEARCH_NATS_LEASE_TTL", "2s")
	absCorpus, _ := filepath.Abs(corpus)
	common := func() []string { // each process its own index, as on its own machine
		return []string{"--corpus", absCorpus, "--index", filepath.Join(t.TempDir(), "i.db"), "--max-cycles", "1"}
	}
	w, wout := spawn(t, "cli", append([]string{"worker", "--nats", nsrv.URL(), "--concurrency", "2"}, withoutFlag(common(), "--max-cycles")...)...)
	w.drain.Go(func() { io.Copy(io.Discard, wout) })
	defer w.stop()
	a := startProc(t, "cli", append([]string{"serve", "--addr", "127.0.0.1:0"}, common()...)...)
	defer a.kill()
	b := startProc(t, "cli", append([]string{"serve", "--addr", "127.0.0.1:0"}, common()...)...)
	defer b.stop()
	defer func() {
		if t.Failed() {
			t.Logf("A:\n%s\nB:\n%s\nworker:\n%s", a.log(), b.log(), w.log())
		}
	}()

	res, err := http.Post(a.url+"/v1/research", "application/json", strings.NewReader(fmt.Sprintf(`{"question":%q,"review":"first_plan"}`, question)))
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ ID string }
	json.NewDecoder(res.Body).Decode(&started)
	res.Body.Close()
	id := started.ID
	if id == "" {
		t.Fatalf("no run started on A: %s", res.Status)
	}
	var before []sse
	follow(t, a.url, id, 0, func(e sse) bool { before = append(before, e); return e.typ != "plan.review_requested" })

	// While A owns its runs, a review posted to B reaches A's run through
	// the store (a relayed word): a second run of A, reviewed through B,
	// finishes on A.
	res, err = http.Post(a.url+"/v1/research", "application/json", strings.NewReader(fmt.Sprintf(`{"question":%q,"review":"first_plan"}`, question)))
	if err != nil {
		t.Fatal(err)
	}
	var second struct{ ID string }
	json.NewDecoder(res.Body).Decode(&second)
	res.Body.Close()
	follow(t, b.url, second.ID, 0, func(e sse) bool { return e.typ != "plan.review_requested" })
	res, err = http.Post(b.url+"/v1/research/"+second.ID+"/plan", "application/json", strings.NewReader(`{"action":"accept"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("the review of A's run posted to B: %s", res.Status)
	}
	var last sse
	follow(t, b.url, second.ID, 0, func(e sse) bool { last = e; return true })
	if last.typ != "run.finished" || !strings.Contains(get(t, b.url+"/v1/research/"+second.ID), `"attempts":1`) {
		t.Fatalf("A's run reviewed through B ended with %s, %s", last.typ, get(t, b.url+"/v1/research/"+second.ID))
	}
	a.kill()

	// B sweeps A's expired lease, resumes the run, and it waits again.
	deadline := time.Now().Add(2 * time.Minute) // a failure bound, not a timing assertion
	for {
		var run struct {
			Status   string `json:"status"`
			Attempts int    `json:"attempts"`
		}
		if err := json.Unmarshal([]byte(get(t, b.url+"/v1/research/"+id)), &run); err != nil {
			t.Fatal(err)
		}
		if run.Status == "awaiting_plan" && run.Attempts == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B did not take the run over: %+v", run)
		}
		time.Sleep(200 * time.Millisecond)
	}
	res, err = http.Post(b.url+"/v1/research/"+id+"/plan", "application/json", strings.NewReader(`{"action":"accept"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("the review posted to B: %s", res.Status)
	}
	var all []sse
	follow(t, b.url, id, 0, func(e sse) bool { all = append(all, e); return true })
	for i, e := range all {
		if e.seq != uint64(i+1) {
			t.Fatalf("event %d through B is numbered %d", i+1, e.seq)
		}
	}
	if len(all) <= len(before) || all[len(all)-1].typ != "run.finished" {
		t.Fatalf("B streamed %d events, the last %s; A had streamed %d", len(all), all[len(all)-1].typ, len(before))
	}
	for i := range before {
		if all[i] != before[i] {
			t.Fatalf("event %d through B:\n%+v\nA served:\n%+v", i+1, all[i], before[i])
		}
	}
	if md := get(t, b.url+"/v1/research/"+id+"?format=md"); !strings.Contains(md, "## References") {
		t.Errorf("the report through B:\n%s", md)
	}
}
