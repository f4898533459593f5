package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/natsrun"
)

// TestServeTakeover (issue 31): two serve processes with nats.url keep
// their runs in the cluster store, a three-node JetStream cluster of
// processes with R3 streams and buckets; agents run on a worker process;
// the model is the separate-process OpenAI-wire double, which records
// every call it completes.
//
//   - A run of A whose plan is reviewed through B (the word relayed to A
//     through the store) finishes on A, its first attempt; its report in
//     each format is the same through A and through B. Its calls are the
//     calls of one uninterrupted run.
//   - Two more runs of A: X waits for its plan's review; Y's review is
//     posted to B while A owns Y, and Y goes on to its agents. The double
//     SIGKILLs A at the worker's third agent call of Y.
//   - B takes both over once A's lease has passed (nats.lease_ttl 3s) and
//     resumes them from their journals: X waits for its review again, and
//     the review posted to B is applied; both finish on B, in attempt 2,
//     with the uninterrupted run's report. Through B, each run's events
//     are every number once, those A served first byte for byte as A
//     served them.
//   - No completed call is made twice: the double completed exactly the
//     calls of two uninterrupted runs, each as many times, across A's and
//     B's lives (A died with no call of its own on the wire).
func TestServeTakeover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster, serve and worker processes and a model double as processes")
	}
	isolate(t)
	dbl := startProc(t, "double")
	_, urls := natsCluster(t)
	t.Setenv("DEEPRESEARCH_NATS_REPLICAS", "3")
	// Heartbeats every 20s/3, as in TestRunOnWorkers: a worker slowed by
	// the race detector keeps its task.
	waitCluster(t, urls, natsrun.Config{Replicas: 3, AckWait: 20 * time.Second})
	t.Setenv("DEEPRESEARCH_NATS_URL", urls)
	t.Setenv("DEEPRESEARCH_NATS_LEASE_TTL", "3s")
	absCorpus, _ := filepath.Abs(corpus)
	common := func() []string { // each process its own index, as on its own machine
		return []string{"--provider", "openai", "--model", "extractive", "--base-url", dbl.url + "/v1",
			"--corpus", absCorpus, "--index", filepath.Join(t.TempDir(), "i.db"), "--max-cycles", "1"}
	}
	w, wout := spawn(t, "cli", append([]string{"worker", "--nats", urls, "--concurrency", "2", "--ack-wait", "20s"}, withoutFlag(common(), "--max-cycles")...)...)
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
	status := func(id string) (run struct {
		Status   string `json:"status"`
		Attempts int    `json:"attempts"`
	}) {
		t.Helper()
		if err := json.Unmarshal([]byte(get(t, b.url+"/v1/research/"+id)), &run); err != nil {
			t.Fatal(err)
		}
		return run
	}

	// A run of A reviewed through B finishes on A: the calls of one
	// uninterrupted run, and its report, the same through either server.
	mark := len(dbl.calls())
	first := startReviewedRun(t, a.url)
	follow(t, b.url, first, 0, func(e sse) bool { return e.typ != "plan.review_requested" })
	postReview(t, b.url, first)
	var last sse
	follow(t, b.url, first, 0, func(e sse) bool { last = e; return true })
	if st := status(first); last.typ != "run.finished" || st.Status != "finished" || st.Attempts != 1 {
		t.Fatalf("A's run reviewed through B ended with %s, %+v", last.typ, st)
	}
	want := completed(dbl.calls()[mark:])
	wantMD := get(t, a.url+"/v1/research/"+first+"?format=md")
	if len(want) < 5 || !strings.Contains(wantMD, "## References") {
		t.Fatalf("the uninterrupted run completed %d distinct calls and wrote:\n%s", len(want), wantMD)
	}
	for _, f := range []string{"md", "json", "html"} {
		if got, want := get(t, b.url+"/v1/research/"+first+"?format="+f), get(t, a.url+"/v1/research/"+first+"?format="+f); got != want {
			t.Errorf("the report as %s through B:\n%s\nthrough A:\n%s", f, got, want)
		}
	}

	// X waits for its review on A; Y, reviewed through B while A owns it,
	// goes on to its agents, and the double kills A at the third.
	mark = len(dbl.calls())
	x := startReviewedRun(t, a.url)
	var beforeX []sse
	follow(t, a.url, x, 0, func(e sse) bool { beforeX = append(beforeX, e); return e.typ != "plan.review_requested" })
	y := startReviewedRun(t, a.url)
	follow(t, b.url, y, 0, func(e sse) bool { return e.typ != "plan.review_requested" })
	res, err := http.Post(fmt.Sprintf("%s/arm?pid=%d&prefix=%s&nth=3", dbl.url, a.cmd.Process.Pid, url.QueryEscape("You are a research agent.")), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	postReview(t, b.url, y)
	var beforeY []sse
	// Through A until A dies.
	follow(t, a.url, y, 0, func(e sse) bool { beforeY = append(beforeY, e); return true })
	a.cmd.Wait() //nolint:errcheck // killed by the double
	a.drain.Wait()
	if a.cmd.ProcessState.Success() || get(t, dbl.url+"/armed") != "false" || len(beforeY) == 0 {
		t.Fatalf("the double did not kill A (%s); A served %d events of Y", a.cmd.ProcessState, len(beforeY))
	}

	// B sweeps A's expired lease and resumes both runs; X waits again.
	deadline := time.Now().Add(2 * time.Minute) // a failure bound, not a timing assertion
	for {
		if st := status(x); st.Status == "awaiting_plan" && st.Attempts == 2 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("B did not take X over: %+v", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	postReview(t, b.url, x)
	for _, r := range []struct {
		name   string
		id     string
		before []sse
	}{{"X", x, beforeX}, {"Y", y, beforeY}} {
		var all []sse
		follow(t, b.url, r.id, 0, func(e sse) bool { all = append(all, e); return true })
		logView(t, all) // every number once, in order
		if len(all) <= len(r.before) || all[len(all)-1].typ != "run.finished" {
			t.Fatalf("B streamed %d events of %s, the last %s; A had served %d", len(all), r.name, all[len(all)-1].typ, len(r.before))
		}
		for i := range r.before {
			if all[i] != r.before[i] {
				t.Fatalf("event %d of %s through B:\n%+v\nA served:\n%+v", i+1, r.name, all[i], r.before[i])
			}
		}
		if st := status(r.id); st.Status != "finished" || st.Attempts != 2 {
			t.Errorf("%s through B: %+v", r.name, st)
		}
		if md := get(t, b.url+"/v1/research/"+r.id+"?format=md"); md != wantMD {
			t.Errorf("the report of %s through B:\n%s\n--- the uninterrupted run's ---\n%s", r.name, md, wantMD)
		}
	}
	// Y's review, posted to B while A owned Y, was applied in A's attempt.
	var accepted bool
	follow(t, b.url, y, 0, func(e sse) bool {
		accepted = accepted || e.typ == "plan.accepted"
		return e.typ != "run.resumed"
	})
	if !accepted {
		t.Error("Y's plan was not accepted before A died")
	}

	// Across A's and B's lives, X and Y completed the calls of two
	// uninterrupted runs, each as many times: none was made twice.
	calls := dbl.calls()[mark:]
	got := completed(calls)
	for h, n := range want {
		if got[h] != 2*n {
			t.Errorf("call %s completed %d times for X and Y; an uninterrupted run completes it %d times", h, got[h], n)
		}
	}
	for h, n := range got {
		if want[h] == 0 {
			t.Errorf("call %s, which the uninterrupted run does not make, completed %d times", h, n)
		}
	}
	t.Logf("A served %d events of X and %d of Y before it died; the double answered %d calls for X and Y, %d of them completed (%d distinct)",
		len(beforeX), len(beforeY), len(calls), sum(got), len(got))
}

// sum adds up the counts of m.
func sum(m map[string]int) (n int) {
	for _, c := range m {
		n += c
	}
	return n
}

// startReviewedRun starts a run of the question on the server at base
// that waits for its first plan's review, and returns its id.
func startReviewedRun(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Post(base+"/v1/research", "application/json", strings.NewReader(fmt.Sprintf(`{"question":%q,"review":"first_plan"}`, question)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var started struct{ ID string }
	json.NewDecoder(res.Body).Decode(&started)
	if started.ID == "" {
		t.Fatalf("no run started on %s: %s", base, res.Status)
	}
	return started.ID
}

// postReview accepts the plan of run id through the server at base.
func postReview(t *testing.T, base, id string) {
	t.Helper()
	res, err := http.Post(base+"/v1/research/"+id+"/plan", "application/json", strings.NewReader(`{"action":"accept"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("the review of %s posted to %s: %s %s", id, base, res.Status, b)
	}
}
