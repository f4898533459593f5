package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/internal/freeport"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/natsrun"
)

// runNATSNode is a test process that is one node of a three-node
// JetStream cluster on loopback (DRTEST_ARGS: name, client port, cluster
// port, store directory, routes…). It prints "ready" once it accepts
// connections and runs until it is killed or its stdin is closed.
func runNATSNode() int {
	var a []string
	if err := json.Unmarshal([]byte(os.Getenv(argsEnv)), &a); err != nil || len(a) < 4 {
		fmt.Fprintln(os.Stderr, "natsnode: want name, port, cluster port, store dir, routes…")
		return 2
	}
	var port, cport int
	fmt.Sscan(a[1], &port)
	fmt.Sscan(a[2], &cport)
	srv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{Name: a[0], Port: port, ClusterPort: cport, StoreDir: a[3],
		Cluster: "drtest", Routes: a[4:]})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// natsCluster starts three JetStream nodes, each its own process, and
// returns them and the client URL list naming all three.
func natsCluster(t *testing.T) ([]*proc, string) {
	t.Helper()
	var ports, cports []int
	for range 3 {
		ports, cports = append(ports, freeport.Port(t)), append(cports, freeport.Port(t))
	}
	var nodes []*proc
	var urls []string
	for i := range 3 {
		args := []string{fmt.Sprintf("n%d", i+1), fmt.Sprint(ports[i]), fmt.Sprint(cports[i]), t.TempDir()}
		for j, p := range cports {
			if j != i {
				args = append(args, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
			}
		}
		p, out := spawn(t, "natsnode", args...)
		if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
			t.Fatalf("node %d: %q %v\n%s", i+1, line, err, p.log())
		}
		p.drain.Go(func() { io.Copy(io.Discard, out) })
		nodes = append(nodes, p)
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	return nodes, strings.Join(urls, ",")
}

// TestRunOnWorkers runs the question as a coordinator (`run --nats`) and
// worker processes (`worker --nats`) over a three-node JetStream cluster
// of separate processes, with R3 streams and the separate-process
// latency-bound OpenAI-wire model double, and checks that each run
// writes the report the same question writes in process, byte for byte
// (so every citation resolves as it does there):
//   - on workers: and the double completed exactly the in-process run's
//     calls, each as many times;
//   - a worker SIGKILLed mid-task (the double kills it at its sixth agent
//     call): its task is redelivered to another worker, which replays the
//     completed calls from the run's journal in JetStream — only the
//     answer on the wire when the worker died may be made again;
//   - the coordinator SIGKILLed mid-run (the double kills it at the
//     workers' third agent call): 'deepresearch resume' finishes the run
//     with the same report, taking the results the workers published,
//     and the events stream holds every number of both attempts once;
//   - a NATS node SIGKILLed mid-run (the double kills it at the third
//     agent call): the run finishes on the other two, with the same
//     report, and the events stream holds every event once.
//
// Each time, the coordinator's events are in the events stream, each
// once: followed through another node (in two halves, the second from a
// Last-Event-ID, through a third node), they are the ones it wrote to
// --events.
func TestRunOnWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster, workers and a model double as processes")
	}
	isolate(t)
	dbl := startProc(t, "double")
	absCorpus, _ := filepath.Abs(corpus)
	// Each process has its own index of the corpus, as on its own machine.
	common := func() []string {
		return []string{"--provider", "openai", "--model", "extractive", "--base-url", dbl.url + "/v1",
			"--corpus", absCorpus, "--index", filepath.Join(t.TempDir(), "i.db"), "--max-cycles", "1"}
	}
	run := func(extra ...string) result {
		t.Helper()
		return cli(t, "", append(append([]string{"run", question, "--progress", "never", "--store", filepath.Join(t.TempDir(), "runs.db")}, common()...), extra...)...)
	}
	mark := len(dbl.calls())
	whole := run()
	if whole.code != 0 || !strings.Contains(whole.stdout, "## References") {
		t.Fatalf("in process: exit %d\n%s%s", whole.code, whole.stdout, whole.stderr)
	}
	want := completed(dbl.calls()[mark:])

	nodes, urls := natsCluster(t)
	// Heartbeats every 20s/3: a worker slowed by the race detector on a
	// busy two-core machine keeps its task (a redelivery would make the
	// "no call made again" checks fail), and a killed worker's task is
	// delivered again 20s after its last heartbeat.
	ackWait := "20s"
	t.Setenv("DEEPRESEARCH_NATS_REPLICAS", "3")
	waitCluster(t, urls, natsrun.Config{Replicas: 3, AckWait: 20 * time.Second})
	worker := func(concurrency int) *proc {
		p, out := spawn(t, "cli", append([]string{"worker", "--nats", urls, "--concurrency", fmt.Sprint(concurrency), "--ack-wait", ackWait}, withoutFlag(common(), "--max-cycles")...)...)
		p.drain.Go(func() { io.Copy(io.Discard, out) })
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("worker %d:\n%s", p.cmd.Process.Pid, p.log())
			}
		})
		return p
	}
	// coordinate runs the question on the cluster; it is a process of its
	// own only so that the double can kill the others while it runs.
	lastEvents := map[string][]string{} // by run: the lines of --events
	lastLog := map[string]string{}      // by run: the coordinator's stderr
	coordinate := func(t *testing.T) (report, run string, err error) {
		evFile := filepath.Join(t.TempDir(), "events.jsonl")
		p, out := spawn(t, "cli", append([]string{"run", question, "--progress", "never", "--nats", urls, "--ack-wait", ackWait,
			"--events", evFile, "--store", filepath.Join(t.TempDir(), "runs.db"), "--log-level", "debug"}, common()...)...)
		stuck := time.AfterFunc(3*time.Minute, func() { p.cmd.Process.Kill() }) // a failure timeout only
		b, _ := io.ReadAll(out)
		stuck.Stop()
		if err := p.cmd.Wait(); err != nil {
			return "", "", fmt.Errorf("run --nats: %w\n%s", err, p.log())
		}
		p.drain.Wait()
		f, err := os.Open(evFile)
		if err != nil {
			return "", "", err
		}
		defer f.Close()
		var first struct {
			RunID string `json:"run_id"`
		}
		var lines []string
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if len(lines) == 0 {
			return "", "", fmt.Errorf("no events written")
		}
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.RunID == "" {
			return "", "", fmt.Errorf("events: %q %v", lines[0], err)
		}
		lastEvents[first.RunID] = lines
		lastLog[first.RunID] = p.log()
		return string(b), first.RunID, nil
	}
	arm := func(t *testing.T, pid, nth int) {
		t.Helper()
		res, err := http.Post(fmt.Sprintf("%s/arm?pid=%d&prefix=%s&nth=%d", dbl.url, pid, url.QueryEscape("You are a research agent."), nth), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	fired := func(t *testing.T) bool { return get(t, dbl.url+"/armed") == "false" }
	extra := func(got map[string]int) (n int) {
		for h, c := range want {
			if got[h] < c {
				t.Errorf("call %s made %d times; in process %d", h, got[h], c)
			}
		}
		for h, c := range got {
			n += c - min(c, want[h])
		}
		return n
	}

	t.Run("on workers", func(t *testing.T) {
		a, b := worker(2), worker(2)
		defer b.stop()
		defer a.stop()
		mark := len(dbl.calls())
		report, run, err := coordinate(t)
		if err != nil {
			t.Fatal(err)
		}
		if report != whole.stdout {
			t.Errorf("report on workers:\n%s\n--- in process ---\n%s", report, whole.stdout)
		}
		if n := extra(completed(dbl.calls()[mark:])); n != 0 {
			t.Errorf("%d completed calls more than in process", n)
		}
		// The run's events, followed from the events stream through node 3
		// in two halves (a reconnect with Last-Event-ID), are those it
		// wrote to --events, each once.
		want := lastEvents[run]
		got := followEvents(t, strings.Split(urls, ",")[2], run, 0, len(want)/2)
		got = append(got, followEvents(t, strings.Split(urls, ",")[1], run, int64(len(got)), len(want)-len(got))...)
		if len(got) != len(want) {
			t.Fatalf("followed %d events; the run wrote %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("event %d followed from the stream:\n%s\nthe run wrote:\n%s", i+1, got[i], want[i])
			}
		}
	})

	t.Run("worker killed mid-task", func(t *testing.T) {
		// One worker, one task at a time: when the double kills it at its
		// sixth agent call, one answer at most is on the wire.
		a := worker(1)
		arm(t, a.cmd.Process.Pid, 6)
		mark := len(dbl.calls())
		done := make(chan struct{})
		var report, run string
		var err error
		go func() { defer close(done); report, run, err = coordinate(t) }()
		died := make(chan struct{})
		go func() { defer close(died); a.cmd.Wait() }() //nolint:errcheck // killed by the double
		select {
		case <-died:
		case <-done:
			if fired(t) {
				<-died
				break
			}
			a.cmd.Process.Kill()
			<-died
			a.drain.Wait()
			t.Fatalf("the run ended and the double never killed the worker (%v)\n%s", err, a.log())
		}
		a.drain.Wait()
		b := worker(2)
		defer b.stop()
		<-done
		if a.cmd.ProcessState.Success() {
			t.Fatalf("the worker was not killed\n%s", a.log())
		}
		if err != nil {
			t.Fatal(err)
		}
		if report != whole.stdout {
			t.Errorf("report after the kill:\n%s\n--- in process ---\n%s", report, whole.stdout)
		}
		n := extra(completed(dbl.calls()[mark:]))
		if n > 1 {
			t.Errorf("%d completed calls were made again; at most the one on the wire when the worker died may be", n)
		}
		t.Logf("the worker died at its sixth agent call; %d completed call made again", n)
		if n := journaledAgentCalls(t, urls, run); n < 6 {
			t.Errorf("the run's journal in JetStream holds %d agent calls", n)
		}
	})

	t.Run("serve", func(t *testing.T) {
		// serve with nats.url: its runs' agents run on the workers, and
		// its runs' events are in the events stream (the cluster store).
		a, b := worker(2), worker(2)
		defer b.stop()
		defer a.stop()
		t.Setenv("DEEPRESEARCH_NATS_URL", urls)
		srv := startProc(t, "cli", append([]string{"serve", "--addr", "127.0.0.1:0", "--store", filepath.Join(t.TempDir(), "runs.db")}, common()...)...)
		defer srv.stop()
		id := startRun(t, srv.url)
		var evs []sse
		follow(t, srv.url, id, 0, func(e sse) bool { evs = append(evs, e); return true })
		if md := get(t, srv.url+"/v1/research/"+id+"?format=md"); !strings.Contains(md, "## References") {
			t.Fatalf("served report:\n%s\n%s", md, srv.log())
		}
		logView(t, evs) // every seq once
		// The same events, each once, are in the events stream, for any
		// process to follow.
		followed := followEvents(t, strings.Split(urls, ",")[2], id, 0, len(evs))
		if len(followed) != len(evs) {
			t.Fatalf("followed %d events from the stream; the server sent %d", len(followed), len(evs))
		}
		for i, data := range followed {
			var e struct {
				Seq  uint64 `json:"seq"`
				Type string `json:"type"`
			}
			if err := json.Unmarshal([]byte(data), &e); err != nil || e.Seq != evs[i].seq || e.Type != evs[i].typ {
				t.Fatalf("event %d from the stream is %s %d (%v); the server sent %s %d", i+1, e.Type, e.Seq, err, evs[i].typ, evs[i].seq)
			}
		}
		if n := journaledAgentCalls(t, urls, id); n == 0 {
			t.Errorf("no agent call of run %s in the journal stream: its agents did not run on the workers", id)
		}
	})

	t.Run("SSE through other servers", func(t *testing.T) {
		// Three serve processes on the cluster, whose store they share
		// (their --store is not used): a client follows a run started on
		// the first through each in turn, reconnecting with Last-Event-ID,
		// as a load balancer may send it. It sees every number once, in
		// order, and the events the first server serves, byte for byte.
		a, b := worker(2), worker(2)
		defer b.stop()
		defer a.stop()
		t.Setenv("DEEPRESEARCH_NATS_URL", urls)
		var servers []*proc
		for range 3 {
			srv := startProc(t, "cli", append([]string{"serve", "--addr", "127.0.0.1:0", "--store", filepath.Join(t.TempDir(), "runs.db")}, common()...)...)
			defer srv.stop()
			servers = append(servers, srv)
		}
		id := startRun(t, servers[0].url)
		var got []sse
		for i, srv := range servers {
			var after uint64
			if len(got) > 0 {
				after = got[len(got)-1].seq
			}
			n := 0
			follow(t, srv.url, id, after, func(e sse) bool {
				got = append(got, e)
				n++
				return i == len(servers)-1 || n < 25
			})
		}
		var want []sse
		follow(t, servers[0].url, id, 0, func(e sse) bool { want = append(want, e); return true })
		logView(t, got) // every seq once, in order
		if len(got) != len(want) || want[len(want)-1].typ != "run.finished" {
			t.Fatalf("followed %d events through three servers; the first server's store has %d, the last %s", len(got), len(want), want[len(want)-1].typ)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("event %d through server %d:\n%+v\nthe first server's store:\n%+v", i+1, min(i/25, 2)+1, got[i], want[i])
			}
		}
		// A reconnect after the end gets the end at once; a run no
		// server and no stream holds is 404.
		n := 0
		follow(t, servers[1].url, id, want[len(want)-1].seq, func(sse) bool { n++; return true })
		if n != 0 {
			t.Errorf("a reconnect after the last event got %d more", n)
		}
		res, err := http.Get(servers[1].url + "/v1/research/0123456789abcdef/events")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("an unknown run's events: %s", res.Status)
		}
		// Another server knows the run's status too, and gives its
		// report from the store, byte for byte.
		if st := get(t, servers[2].url+"/v1/research/"+id); !strings.Contains(st, `"status":"finished"`) || !strings.Contains(st, question) {
			t.Errorf("the third server's view of the run: %s", st)
		}
		if md, want := get(t, servers[2].url+"/v1/research/"+id+"?format=md"), get(t, servers[0].url+"/v1/research/"+id+"?format=md"); md != want {
			t.Errorf("the report through the third server:\n%s\nthe first server's:\n%s", md, want)
		}
	})

	t.Run("mcp", func(t *testing.T) {
		// mcp with nats.url: the research tool's runs are coordinated as
		// run's are (its agents' calls are in the run's journal stream).
		a := worker(2)
		defer a.stop()
		t.Setenv("DEEPRESEARCH_NATS_URL", urls)
		store := filepath.Join(t.TempDir(), "runs.db")
		cs, end := startMCP(t, append([]string{"--store", store}, common()...)...)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "research", Arguments: map[string]any{"question": question}})
		if err != nil || res.IsError {
			_, stderr := end()
			t.Fatalf("research: %v %+v\n%s", err, res, stderr)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if !strings.Contains(string(b), "## References") {
			t.Errorf("the research tool's report has no references: %s", b)
		}
		if c, stderr := end(); c != 0 {
			t.Errorf("mcp exit status %d: %s", c, stderr)
		}
		m := runID.FindStringSubmatch(cli(t, "", "runs", "--json", "--store", store).stdout)
		if m == nil {
			t.Fatal("the research tool's run is not in the run store")
		}
		if n := journaledAgentCalls(t, urls, m[1]); n == 0 {
			t.Errorf("no agent call of run %s in the journal stream: its agents did not run on the workers", m[1])
		}
	})

	t.Run("coordinator killed mid-run", func(t *testing.T) {
		// The double SIGKILLs the coordinator at the workers' third agent
		// call; the workers go on. 'deepresearch resume' finishes the run:
		// its agents' results are taken from the results stream (or
		// awaited), its own calls are answered from its journal.
		a, b := worker(2), worker(2)
		defer b.stop()
		defer a.stop()
		store := filepath.Join(t.TempDir(), "runs.db")
		args := append([]string{"--progress", "never", "--nats", urls, "--ack-wait", ackWait, "--store", store}, common()...)
		mark := len(dbl.calls())
		p, out := spawn(t, "cli", append([]string{"run", question}, args...)...)
		arm(t, p.cmd.Process.Pid, 3)
		io.Copy(io.Discard, out) // until the coordinator dies
		p.kill()
		if p.cmd.ProcessState.Success() || !fired(t) {
			t.Fatalf("the coordinator was not killed\n%s", p.log())
		}
		r := cli(t, "", "runs", "--json", "--store", store)
		m := runID.FindStringSubmatch(r.stdout)
		if m == nil || !strings.Contains(r.stdout, `"status": "interrupted"`) {
			t.Fatalf("the killed coordinator's run is not listed as interrupted: %s", r.stdout)
		}
		evFile := filepath.Join(t.TempDir(), "resumed.jsonl")
		resumed := cli(t, "", append([]string{"resume", m[1], "--events", evFile}, args...)...)
		if resumed.code != 0 || resumed.stdout != whole.stdout {
			t.Fatalf("resume: exit %d, %s\n%s\n--- in process ---\n%s", resumed.code, resumed.stderr, resumed.stdout, whole.stdout)
		}
		if n := extra(completed(dbl.calls()[mark:])); n > 1 {
			t.Errorf("%d completed calls were made again; at most one on the wire when the coordinator died may be", n)
		}
		// The events stream holds both attempts' events, each number once
		// and in order (followEvents checks), up to the resumed run's last.
		b2, err := os.ReadFile(evFile)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b2)), "\n")
		var last struct {
			Seq  int64  `json:"seq"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Type != "run.finished" {
			t.Fatalf("the resumed run's last event: %s (%v)", lines[len(lines)-1], err)
		}
		got := followEvents(t, strings.Split(urls, ",")[1], m[1], 0, int(last.Seq))
		if got[len(got)-1] != lines[len(lines)-1] {
			t.Errorf("the stream's last event of the run:\n%s\nthe resumed run wrote:\n%s", got[len(got)-1], lines[len(lines)-1])
		}
	})

	t.Run("NATS node killed mid-run", func(t *testing.T) {
		a, b := worker(2), worker(2)
		defer b.stop()
		defer a.stop()
		arm(t, nodes[0].cmd.Process.Pid, 3)
		report, run, err := coordinate(t)
		if !fired(t) {
			t.Fatalf("the run ended and the double never killed node 1 (%v)", err)
		}
		nodes[0].cmd.Wait() //nolint:errcheck // killed by the double
		nodes[0].drain.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if report != whole.stdout {
			t.Errorf("report after a node died:\n%s\n--- in process ---\n%s", report, whole.stdout)
		}
		// Every event reached the stream once, though a node died.
		want := lastEvents[run]
		defer func() {
			if t.Failed() { // the coordinator's warnings and errors
				for _, l := range strings.Split(lastLog[run], "\n") {
					if strings.Contains(l, "WRN") || strings.Contains(l, "ERR") {
						t.Log(l)
					}
				}
			}
		}()
		got := followEvents(t, strings.Split(urls, ",")[1], run, 0, len(want))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("the events stream holds %d events, not the %d the run wrote", len(got), len(want))
		}
	})
}

// followEvents reads n events of run after sequence after from the events
// stream through the server at url.
func followEvents(t *testing.T, url, run string, after int64, n int) []string {
	t.Helper()
	nc, js, err := natsrun.Connect(url, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a failure timeout only
	defer cancel()
	var out []string
	if n == 0 {
		return nil
	}
	for {
		// Following again after an error goes on after the last event.
		err = natsrun.NewCluster(js, natsrun.Config{}).Follow(ctx, run, after+int64(len(out)), func(seq int64, data []byte) bool {
			if seq == 0 {
				return true // a task.dead notice
			}
			if seq != after+int64(len(out))+1 {
				t.Errorf("followed seq %d after %d", seq, after+int64(len(out)))
			}
			out = append(out, string(data))
			return len(out) < n
		})
		if err == nil {
			return out
		}
		if ctx.Err() != nil {
			t.Fatalf("following %s through %s: %v after %d of %d events; %s", run, url, err, len(out), n, lastStored(js, run))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lastStored says which sequence number the last event of run in the
// events stream carries, for a failure's message.
func lastStored(js jetstream.JetStream, run string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := natsrun.NamesOf(natsrun.Config{})
	st, err := js.Stream(ctx, n.EventsStream)
	if err != nil {
		return fmt.Sprintf("the events stream: %v", err)
	}
	m, err := st.GetLastMsgForSubject(ctx, n.Events(run))
	if err != nil {
		return fmt.Sprintf("its last event: %v", err)
	}
	info, _ := st.Info(ctx)
	state := ""
	if info != nil {
		state = fmt.Sprintf("; stream leader %s, replicas %+v", info.Cluster.Leader, info.Cluster.Replicas)
	}
	return fmt.Sprintf("the stream's last event of the run is seq %s%s", m.Header.Get(natsrun.HeaderSeq), state)
}

// waitCluster sets the streams up on the cluster of urls, trying again
// (each try a request to the cluster) until it has elected its JetStream
// leader.
func waitCluster(t *testing.T, urls string, c natsrun.Config) {
	t.Helper()
	nc, js, err := natsrun.Connect(urls, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	deadline := time.Now().Add(60 * time.Second) // a failure timeout only
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := natsrun.NewCluster(js, c).Setup(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("setting the streams up: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// journaledAgentCalls counts the model calls of agents in run's journal
// in the cluster's journal stream.
func journaledAgentCalls(t *testing.T, urls, run string) int {
	t.Helper()
	nc, js, err := natsrun.Connect(urls, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var entries [][]byte
	for {
		// A request the cluster does not answer (no responders, while it
		// is busy) is asked again.
		if entries, err = natsrun.NewCluster(js, natsrun.Config{}).Journal().Journal(ctx, run); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	n := 0
	for _, raw := range entries {
		if e, err := journal.Decode(raw); err == nil && e.Kind == journal.KindModel && strings.HasPrefix(e.Scope, "researcher/") {
			n++
		}
	}
	return n
}

// tokenURL is url with DEEPRESEARCH_NATS_TOKEN in it, when set.
func tokenURL(u string) string {
	if tok := os.Getenv("DEEPRESEARCH_NATS_TOKEN"); tok != "" {
		return strings.Replace(u, "nats://", "nats://"+tok+"@", 1)
	}
	return u
}

// TestServeHub: serve without nats.url but with nats.listen runs a
// JetStream server of its own and says where; a worker process that joins
// it takes the runs' agents (with nats.workers 0 the server runs none
// itself, so the run finishes only through the worker), and with its own
// workers the server needs none.
func TestServeHub(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve and worker processes")
	}
	isolate(t)
	absCorpus, _ := filepath.Abs(corpus)
	args := func() []string {
		return []string{"--corpus", absCorpus, "--index", filepath.Join(t.TempDir(), "i.db"), "--max-cycles", "1"}
	}
	serveHub := func(t *testing.T) (*proc, string, string) {
		store := filepath.Join(t.TempDir(), "runs.db")
		p, br := spawn(t, "cli", append([]string{"serve", "--addr", "127.0.0.1:0", "--nats-listen", "127.0.0.1:0",
			"--store", store}, args()...)...)
		var lines []string
		for len(lines) < 2 {
			line, err := br.ReadString('\n')
			if err != nil {
				p.kill()
				t.Fatalf("serve: %v after %q\n%s", err, lines, p.log())
			}
			lines = append(lines, line)
		}
		p.url = strings.TrimSpace(lines[0][strings.Index(lines[0], "http://"):])
		i := strings.Index(lines[1], "nats://")
		if i < 0 {
			p.kill()
			t.Fatalf("serve's second line names no NATS address: %q", lines[1])
		}
		p.drain.Go(func() { io.Copy(io.Discard, br) })
		return p, strings.TrimSpace(lines[1][i:]), store
	}
	// The run finishes through the hub's work queue, and its export from
	// the hub's run store (the cluster's: export --nats), whose journal
	// is the one the workers appended the agents' calls to, replays
	// offline to the same report; store.path holds no run of the hub.
	finish := func(t *testing.T, srv *proc, natsURL, store string) {
		t.Helper()
		id := startRun(t, srv.url)
		var evs []sse
		follow(t, srv.url, id, 0, func(e sse) bool { evs = append(evs, e); return true })
		logView(t, evs) // every seq once
		if md := get(t, srv.url+"/v1/research/"+id+"?format=md"); !strings.Contains(md, "## References") {
			t.Fatalf("served report:\n%s\n%s", md, srv.log())
		}
		if n := journaledAgentCalls(t, tokenURL(natsURL), id); n == 0 {
			t.Errorf("no agent call of run %s in the hub's journal stream: its agents did not run through it", id)
		}
		pack := filepath.Join(t.TempDir(), "run.tar.zst")
		if r := cli(t, "", "export", "--store", store, "-o", pack, id); r.code == 0 {
			t.Errorf("export from store.path found the hub's run %s: the hub keeps its runs in the cluster", id)
		}
		if r := cli(t, "", "export", "--nats", tokenURL(natsURL), "-o", pack, id); r.code != 0 {
			t.Fatalf("export --nats: %s", r.stderr)
		}
		if r := cli(t, "", "replay", "--check", pack); r.code != 0 {
			t.Errorf("replay --check of the hub's run: exit %d\n%s", r.code, r.stderr)
		}
	}

	t.Run("worker joins", func(t *testing.T) {
		// With nats.token the hub admits only clients that send it.
		t.Setenv("DEEPRESEARCH_NATS_TOKEN", "hub-token-0123456789")
		t.Setenv("DEEPRESEARCH_NATS_WORKERS", "0")
		srv, natsURL, store := serveHub(t)
		defer srv.stop()
		if nc, _, err := natsrun.Connect(natsURL, "", "test"); err == nil {
			nc.Close()
			t.Error("the hub admitted a client without its token")
		}
		w, out := spawn(t, "cli", append([]string{"worker", "--nats", natsURL}, withoutFlag(args(), "--max-cycles")...)...)
		w.drain.Go(func() { io.Copy(io.Discard, out) })
		defer w.stop()
		finish(t, srv, natsURL, store)
	})
	t.Run("own workers", func(t *testing.T) {
		srv, natsURL, store := serveHub(t)
		defer srv.stop()
		finish(t, srv, natsURL, store)
	})
}

// withoutFlag is args without the flag name and its value: a worker
// takes no research limit (each task carries the run's).
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == name {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}
