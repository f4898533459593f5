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
//     Markdown, JSON and HTML is the same through A and through B. Its calls are the
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

	// A run of A reviewed through B finishes on A: the calls of one
	// uninterrupted run, and its report, the same through either server.
	mark := len(dbl.calls())
	first := startReviewedRun(t, a.url)
	followUntil(t, b.url, first, "plan.review_requested")
	stale := postReview(t, b.url, first)
	followUntil(t, b.url, first, "run.finished")
	if st := waitStatus(t, b.url, first, "finished", 0); st.Attempts != 1 {
		t.Fatalf("A's run reviewed through B finished in attempt %d", st.Attempts)
	}
	want := completed(dbl.calls()[mark:])
	wantMD := getOK(t, a.url+"/v1/research/"+first+"?format=md")
	if len(want) < 5 || !strings.Contains(wantMD, "## References") {
		t.Fatalf("the uninterrupted run completed %d distinct calls and wrote:\n%s", len(want), wantMD)
	}
	for _, f := range []string{"md", "json", "html"} {
		if got, want := getOK(t, b.url+"/v1/research/"+first+"?format="+f), getOK(t, a.url+"/v1/research/"+first+"?format="+f); got != want {
			t.Errorf("the report as %s through B:\n%s\nthrough A:\n%s", f, got, want)
		}
	}

	// X waits for its review on A; Y, reviewed through B while A owns it,
	// goes on to its agents, and the double kills A at the third.
	mark = len(dbl.calls())
	x := startReviewedRun(t, a.url)
	beforeX := followUntil(t, a.url, x, "plan.review_requested")
	y := startReviewedRun(t, a.url)
	followUntil(t, b.url, y, "plan.review_requested")
	res, err := http.Post(fmt.Sprintf("%s/arm?pid=%d&prefix=%s&nth=3", dbl.url, a.cmd.Process.Pid, url.QueryEscape("You are a research agent.")), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	stale += postReview(t, b.url, y)
	var beforeY []sse
	// Through A until A dies.
	follow(t, a.url, y, 0, func(e sse) bool { beforeY = append(beforeY, e); return true })
	a.cmd.Wait() //nolint:errcheck // killed by the double
	a.drain.Wait()
	if a.cmd.ProcessState.Success() || get(t, dbl.url+"/armed") != "false" || len(beforeY) == 0 {
		t.Fatalf("the double did not kill A (%s); A served %d events of Y", a.cmd.ProcessState, len(beforeY))
	}

	// B sweeps A's expired lease and resumes both runs; X waits again
	// (the review of attempt 2 is asked for through B).
	waitStatus(t, b.url, x, "awaiting_plan", 2)
	stale += postReview(t, b.url, x)
	for _, r := range []struct {
		name     string
		id       string
		before   []sse
		accepted bool // by A, before the run was resumed
	}{{"X", x, beforeX, false}, {"Y", y, beforeY, true}} {
		all := followUntil(t, b.url, r.id, "run.finished")
		logView(t, all) // every number once, in order
		if len(all) <= len(r.before) {
			t.Fatalf("B streamed %d events of %s; A had served %d", len(all), r.name, len(r.before))
		}
		for i := range r.before {
			if all[i] != r.before[i] {
				t.Fatalf("event %d of %s through B:\n%+v\nA served:\n%+v", i+1, r.name, all[i], r.before[i])
			}
		}
		// Y's review, posted to B while A owned Y, was applied by A.
		for _, e := range all {
			if e.typ == "run.resumed" || e.typ == "plan.accepted" {
				if accepted := e.typ == "plan.accepted"; accepted != r.accepted {
					t.Errorf("%s's plan accepted before the run was resumed: %v", r.name, accepted)
				}
				break
			}
		}
		if st := waitStatus(t, b.url, r.id, "finished", 0); st.Attempts != 2 {
			t.Errorf("%s finished through B in attempt %d", r.name, st.Attempts)
		}
		if md := getOK(t, b.url+"/v1/research/"+r.id+"?format=md"); md != wantMD {
			t.Errorf("the report of %s through B:\n%s\n--- the uninterrupted run's ---\n%s", r.name, md, wantMD)
		}
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
	t.Logf("A served %d events of X and %d of Y before it died; the double answered %d calls for X and Y, %d of them completed (%d distinct); %d reviews refused as not waiting and posted again",
		len(beforeX), len(beforeY), len(calls), sum(got), len(got), stale)
}

// sum adds up the counts of m.
func sum(m map[string]int) (n int) {
	for _, c := range m {
		n += c
	}
	return n
}

// runState is a run's status and attempts, as GET /v1/research/{id}
// gives them.
type runState struct {
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
}

// waitStatus reads run id through the server at base until its status is
// status, in attempt attempts unless 0 (for at most two minutes), and
// returns it. A server's read may come from a replica of the runs bucket
// a moment behind (see postReview).
func waitStatus(t *testing.T, base, id, status string, attempts int) runState {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a failure bound, not a timing assertion
	var st runState
	for {
		if err := json.Unmarshal([]byte(getOK(t, base+"/v1/research/"+id)), &st); err != nil {
			t.Fatal(err)
		}
		if st.Status == status && (attempts == 0 || st.Attempts == attempts) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s through %s stayed %+v, never %s in attempt %d", id, base, st, status, attempts)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// getOK is get of u, asked again while the answer is not a 200 (for at
// most a minute): a run's record or report read from a replica a moment
// behind may not be there yet.
func getOK(t *testing.T, u string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a failure bound, not a timing assertion
	for {
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %s: %s", u, res.Status, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// followUntil follows run id's events through the server at base until
// one of type typ, following again after the last it saw when a stream
// ends before (for at most two minutes), and returns those it saw.
func followUntil(t *testing.T, base, id, typ string) []sse {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a failure bound, not a timing assertion
	var seen []sse
	for {
		var after uint64
		if len(seen) > 0 {
			after = seen[len(seen)-1].seq
		}
		follow(t, base, id, after, func(e sse) bool { seen = append(seen, e); return e.typ != typ })
		if len(seen) > 0 && seen[len(seen)-1].typ == typ {
			return seen
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s through %s: no %s in %d events", id, base, typ, len(seen))
		}
		time.Sleep(100 * time.Millisecond)
	}
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

// postReview accepts the plan of run id through the server at base, which
// has reported the run awaiting its plan: the server's read of the run's
// record must say so too (a store that read a replica a moment behind its
// leader answered 409 "not awaiting_plan" here; natsrun reads from the
// leader since). It returns 0, the refusals it met, for the log.
func postReview(t *testing.T, base, id string) (stale int) {
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
	return 0
}
