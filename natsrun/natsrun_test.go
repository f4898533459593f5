package natsrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/freeport"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/worker"
)

// Worker processes: the test binary re-executed with these set.
const (
	envURLs    = "NATSRUN_TEST_WORKER_URLS"
	envModel   = "NATSRUN_TEST_MODEL"
	envAckWait = "NATSRUN_TEST_ACK_WAIT"
)

func TestMain(m *testing.M) {
	if urls := os.Getenv(envURLs); urls != "" {
		ackWait, err := time.ParseDuration(os.Getenv(envAckWait))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(workerMain(urls, os.Getenv(envModel), ackWait))
	}
	goleak.VerifyTestMain(m)
}

// testConfig's AckWait is long enough that a worker slowed by the race
// detector on a busy machine never misses its in-progress heartbeats (a
// redelivery of a task that is still running would run it twice): no
// test waits for it to pass.
var testConfig = natsrun.Config{Prefix: "drtest", Replicas: 3, AckWait: 5 * time.Second, MaxDeliver: 5}

// redeliveryConfig is testConfig for the test whose subject is a
// redelivery after a worker died: the task comes back once AckWait has
// passed on the server's clock, which is real time. A worker beats every
// AckWait/3, so a beat may come AckWait*2/3 late before the task is
// delivered again; shorter, and a worker slowed by the race detector on a
// busy machine would have a running task delivered twice.
var redeliveryConfig = func() natsrun.Config {
	c := testConfig
	c.AckWait = time.Second
	return c
}()

const steps = 4 // the model calls of one task

// journalEntry is one completed call of a task, as the worker journals it.
type journalEntry struct {
	Task, Step int
	Answer     string
}

// handler runs a task as an agent would: steps model calls, each
// journaled when complete; a redelivered task answers the calls the
// journal holds from it and makes only the rest.
func handler(js jetstream.JetStream, model string) natsrun.Handler {
	jr := natsrun.NewCluster(js, testConfig).Journal()
	return func(ctx context.Context, t natsrun.Task) (json.RawMessage, error) {
		entries, err := jr.Journal(ctx, t.Run)
		if err != nil {
			return nil, err
		}
		done := map[int]string{}
		for _, e := range entries {
			var je journalEntry
			if json.Unmarshal(e, &je) == nil && je.Task == t.Index {
				done[je.Step] = je.Answer
			}
		}
		var answers []string
		for step := range steps {
			if a, ok := done[step]; ok {
				answers = append(answers, a)
				continue
			}
			key := fmt.Sprintf("%s/%d/%d", t.Run, t.Index, step)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, model+"?key="+key, nil)
			req.Header.Set("X-Worker-Pid", strconv.Itoa(os.Getpid()))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return nil, fmt.Errorf("model: %s", resp.Status)
			}
			a := "answer " + key
			e, _ := json.Marshal(journalEntry{Task: t.Index, Step: step, Answer: a})
			if err := jr.AppendJournal(ctx, t.Run, e); err != nil {
				return nil, err
			}
			answers = append(answers, a)
		}
		return json.Marshal(answers)
	}
}

func workerMain(urls, model string, ackWait time.Duration) int {
	nc, err := nats.Connect(urls, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg := testConfig
	cfg.AckWait = ackWait
	w := &natsrun.Worker{JS: js, Config: cfg, Handle: handler(js, model), Name: "pid" + strconv.Itoa(os.Getpid())}
	w.Run(ctx) //nolint:errcheck // ends with the signal
	return 0
}

// cluster starts a three-node JetStream cluster on loopback and returns
// its nodes and a client URL list naming all three; it is shut down when
// the test ends.
func cluster(t *testing.T) ([]*natsrun.Embedded, string) {
	t.Helper()
	var ports []int
	for len(ports) < 3 {
		if p := freeport.Port(t); !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	var nodes []*natsrun.Embedded
	var urls []string
	for i := range 3 {
		var routes []string
		for j, p := range ports {
			if j != i {
				routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
			}
		}
		n, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: t.TempDir(), Name: fmt.Sprintf("n%d", i+1),
			Cluster: "drtest", ClusterPort: ports[i], Routes: routes})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(n.Close)
		nodes = append(nodes, n)
		urls = append(urls, n.URL())
	}
	awaitMetaLeader(t, nodes)
	return nodes, strings.Join(urls, ",")
}

// metaLeaderElected is the advisory a JetStream cluster's server publishes
// in its system account when it becomes the cluster's meta leader, the
// server that answers the JetStream API's requests to create a stream.
const metaLeaderElected = "$JS.EVENT.ADVISORY.DOMAIN.LEADER_ELECTED"

// awaitMetaLeader waits until the cluster of nodes has elected its meta
// leader: until then a request to create a stream has no answer, and the
// client waits out its own timeout. Each node exports the advisory from
// its system account to the account its clients use, and a client of
// that node subscribes to it there; a leader elected before the
// subscriptions is found by asking each node.
func awaitMetaLeader(t *testing.T, nodes []*natsrun.Embedded) {
	t.Helper()
	elected := make(chan struct{}, 1)
	for _, n := range nodes {
		srv := n.Server()
		sys := srv.SystemAccount()
		if err := sys.AddStreamExport(metaLeaderElected, nil); err != nil {
			t.Fatal(err)
		}
		if err := srv.GlobalAccount().AddStreamImport(sys, metaLeaderElected, ""); err != nil {
			t.Fatal(err)
		}
		nc, err := nats.Connect(n.URL())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		if _, err := nc.Subscribe(metaLeaderElected, func(*nats.Msg) {
			select {
			case elected <- struct{}{}:
			default:
			}
		}); err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range nodes {
		if n.Server().JetStreamIsLeader() {
			return
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a failure bound only
	defer cancel()
	select {
	case <-elected:
	case <-ctx.Done():
		t.Fatal("the cluster elected no JetStream meta leader")
	}
}

// connect connects to urls and sets the streams up as testConfig says
// (connectWith). The cluster has its
// meta leader (cluster waited for it), which answers at once; until it
// has heard from every server since the cluster formed (their stats, a
// few milliseconds), it answers that it has no peers to place a
// three-replica stream on, and Setup is asked again at once: each try
// is a request the cluster answers, not a wait for time to pass.
func connect(t *testing.T, urls string) jetstream.JetStream {
	t.Helper()
	return connectWith(t, urls, testConfig)
}

// connectWith is connect with the streams set up as cfg says.
func connectWith(t *testing.T, urls string, cfg natsrun.Config) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(urls, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a failure bound only
	defer cancel()
	for try := 1; ; try++ {
		_, err := natsrun.NewCluster(js, cfg).Setup(ctx)
		if err == nil {
			return js
		}
		var api *jetstream.APIError
		if !errors.As(err, &api) || api.ErrorCode != errNoSuitablePeers || ctx.Err() != nil {
			t.Fatalf("setting the streams up, %d tries: %v", try, err)
		}
	}
}

// errNoSuitablePeers is the JetStream API's "no suitable peers for
// placement", which jetstream names no constant for.
const errNoSuitablePeers jetstream.ErrorCode = 10005

// double is a latency-bound model: it counts each call it completed, by
// key, and holds the calls whose key hold names until the caller goes.
type double struct {
	mu        sync.Mutex
	completed map[string]int
	held      chan int // the pid of a worker whose call is held
	hold      string
}

func (d *double) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	d.mu.Lock()
	hold := key == d.hold
	if hold {
		d.hold = "" // only the first attempt's call is held
	}
	d.mu.Unlock()
	if hold {
		pid, _ := strconv.Atoi(r.Header.Get("X-Worker-Pid"))
		d.held <- pid
		<-r.Context().Done() // the worker died
		return
	}
	d.mu.Lock()
	d.completed[key]++
	d.mu.Unlock()
}

func (d *double) twice() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for k, n := range d.completed {
		if n > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", k, n))
		}
	}
	return out
}

// startWorkers starts n worker processes, the test binary re-executed,
// connected to urls, with cfg's AckWait: its consumer's (connectWith).
func startWorkers(t *testing.T, n int, urls, model string, cfg natsrun.Config) []*exec.Cmd {
	t.Helper()
	var cmds []*exec.Cmd
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envURLs+"="+urls, envModel+"="+model, envAckWait+"="+cfg.AckWait.String())
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // may be dead already
			cmd.Wait()                          //nolint:errcheck // killed on purpose
		})
	}
	return cmds
}

func tasksOf(run string, n int) ([]natsrun.Task, []int) {
	var ts []natsrun.Task
	var idx []int
	for i := range n {
		ts = append(ts, natsrun.Task{Run: run, Cycle: 1, Index: i})
		idx = append(idx, i)
	}
	return ts, idx
}

func checkResults(t *testing.T, rs []natsrun.Result, run string) {
	t.Helper()
	for i, r := range rs {
		var answers []string
		if err := json.Unmarshal(r.Output, &answers); err != nil || r.Error != "" || len(answers) != steps {
			t.Fatalf("task %d: result %+v (%v)", i, r, err)
		}
		for step, a := range answers {
			if want := fmt.Sprintf("answer %s/%d/%d", run, i, step); a != want {
				t.Errorf("task %d step %d: %q, want %q", i, step, a, want)
			}
		}
	}
}

// TestKillWorkerMidTask SIGKILLs the worker process whose task is waiting
// on the model: the task is delivered to another of the four workers, which
// replays the completed calls from the run's journal; the report is
// complete and the model saw no completed call twice. Then a NATS node is
// killed, and a second run still finishes. The task comes back after
// redeliveryConfig's AckWait, on the server's real clock.
func TestKillWorkerMidTask(t *testing.T) {
	nodes, urls := cluster(t)
	js := connectWith(t, urls, redeliveryConfig)
	cl := natsrun.NewCluster(js, redeliveryConfig)
	d := &double{completed: map[string]int{}, held: make(chan int, 1), hold: "run1/2/2"}
	model := httptest.NewServer(d)
	defer model.Close()
	workers := startWorkers(t, 4, urls, model.URL, redeliveryConfig)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a failure timeout only
	defer cancel()
	tasks, idx := tasksOf("run1", 6)
	if err := cl.Submit(ctx, tasks...); err != nil {
		t.Fatal(err)
	}
	var pid int
	select {
	case pid = <-d.held:
	case <-ctx.Done():
		t.Fatal("no worker reached the held call")
	}
	killed := false
	for _, w := range workers {
		if w.Process.Pid == pid {
			if err := w.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	if !killed {
		t.Fatalf("the held call came from pid %d, no worker of ours", pid)
	}
	rs, err := cl.Await(ctx, "run1", 1, idx)
	if err != nil {
		t.Fatal(err)
	}
	checkResults(t, rs, "run1")
	if rs[2].Attempt < 2 {
		t.Errorf("task 2 finished on attempt %d; want a redelivery", rs[2].Attempt)
	}
	if tw := d.twice(); len(tw) > 0 {
		t.Errorf("the model completed these calls more than once: %v", tw)
	}

	// Lose a NATS node: R3 streams keep a quorum, clients reconnect.
	// The coordinator, when it was connected to the node, submits once it
	// has reconnected: a publication written to the connection before the
	// client saw it closed is lost, and tried again only after a real-time
	// publishTry (5 seconds).
	nc := js.Conn()
	onLost := nc.ConnectedServerName() == nodes[2].Server().Name()
	status := nc.StatusChanged(nats.CONNECTED)
	defer nc.RemoveStatusListener(status)
	nodes[2].Close()
	if onLost {
		select {
		case <-status:
		case <-ctx.Done():
			t.Fatal("the coordinator did not reconnect")
		}
	}
	tasks, idx = tasksOf("run2", 6)
	if err := cl.Submit(ctx, tasks...); err != nil {
		t.Fatal(err)
	}
	rs, err = cl.Await(ctx, "run2", 1, idx)
	if err != nil {
		t.Fatal(err)
	}
	checkResults(t, rs, "run2")
	if tw := d.twice(); len(tw) > 0 {
		t.Errorf("the model completed these calls more than once: %v", tw)
	}
}

// TestCoordinatorRestart stops a coordinator while its tasks run; a new
// one (another connection, as after a restart) submits the plan again,
// which queues nothing twice, and collects every result, those finished
// while no coordinator was there included.
func TestCoordinatorRestart(t *testing.T) {
	_, urls := cluster(t)
	js := connect(t, urls)
	cl := natsrun.NewCluster(js, testConfig)
	d := &double{completed: map[string]int{}, held: make(chan int, 1)}
	model := httptest.NewServer(d)
	defer model.Close()
	startWorkers(t, 2, urls, model.URL, testConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a failure timeout only
	defer cancel()
	tasks, idx := tasksOf("run3", 5)
	if err := cl.Submit(ctx, tasks...); err != nil {
		t.Fatal(err)
	}
	// The first coordinator takes the first result and goes.
	if _, err := cl.Await(ctx, "run3", 1, idx[:1]); err != nil {
		t.Fatal(err)
	}
	js2 := connect(t, urls)
	if err := natsrun.NewCluster(js2, testConfig).Submit(ctx, tasks...); err != nil {
		t.Fatal(err)
	}
	rs, err := natsrun.NewCluster(js2, testConfig).Await(ctx, "run3", 1, idx)
	if err != nil {
		t.Fatal(err)
	}
	checkResults(t, rs, "run3")
	for i, r := range rs {
		if r.Attempt != 1 {
			t.Errorf("task %d ran %d times; the second submission queued it again", i, r.Attempt)
		}
	}
	if tw := d.twice(); len(tw) > 0 {
		t.Errorf("the model completed these calls more than once: %v", tw)
	}
}

// TestFollowAcrossServers: subscribers read a run's events through one
// server, reconnect through another with the last sequence they saw (as an
// SSE client's Last-Event-ID), and see every sequence number exactly once,
// though the coordinator published some twice (a resumed attempt).
func TestFollowAcrossServers(t *testing.T) {
	nodes, urls := cluster(t)
	js := connect(t, urls)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a failure timeout only
	defer cancel()
	const total = 40
	publish := func(from, to int64, attempt int) {
		for seq := from; seq <= to; seq++ {
			data := []byte(fmt.Sprintf(`{"seq":%d,"attempt":%d}`, seq, attempt))
			if err := natsrun.NewCluster(js, testConfig).PublishEvent(ctx, "run4", seq, attempt, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	publish(1, 25, 1)
	publish(20, total, 2) // the resumed attempt repeats 20..25: dropped by id

	for sub := range 3 {
		seen := map[int64]int{}
		var last int64
		// Through each server in turn, a third of the events at a time.
		for i, node := range nodes {
			njs := connect(t, node.URL())
			stopAt := int64(total * (i + 1) / 3)
			err := natsrun.NewCluster(njs, testConfig).Follow(ctx, "run4", last, func(seq int64, data []byte) bool {
				seen[seq]++
				last = seq
				return seq < stopAt
			})
			if err != nil {
				t.Fatalf("subscriber %d via %s: %v", sub, node.URL(), err)
			}
		}
		for seq := int64(1); seq <= total; seq++ {
			if seen[seq] != 1 {
				t.Errorf("subscriber %d saw seq %d %d times", sub, seq, seen[seq])
			}
		}
	}
}

// TestNATSCLI lists, with the official nats CLI, the streams and the
// consumer Setup creates, by the names docs/cluster.md documents.
func TestNATSCLI(t *testing.T) {
	bin, err := exec.LookPath("nats")
	if err != nil {
		t.Skip("the nats CLI is not on PATH (go install github.com/nats-io/natscli/nats@v0.5.0)")
	}
	_, urls := cluster(t)
	connect(t, urls)
	server := strings.Split(urls, ",")[0]
	out, err := exec.Command(bin, "--server", server, "stream", "ls", "--names").CombinedOutput()
	if err != nil {
		t.Fatalf("nats stream ls: %v\n%s", err, out)
	}
	n := natsrun.NamesOf(testConfig)
	for _, s := range []string{n.TasksStream, n.EventsStream, n.ResultsStream, n.JournalStream} {
		if !strings.Contains(string(out), s) {
			t.Errorf("nats stream ls does not list %s:\n%s", s, out)
		}
	}
	out, err = exec.Command(bin, "--server", server, "consumer", "ls", n.TasksStream, "--names").CombinedOutput()
	if err != nil {
		t.Fatalf("nats consumer ls: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), n.Consumer) {
		t.Errorf("nats consumer ls %s does not list %s:\n%s", n.TasksStream, n.Consumer, out)
	}
}

// TestDeadLetter: a task whose handler fails on every delivery is
// delivered Config.MaxDeliver times, then published as a dead result and
// announced by a task.dead event on the run's events subject.
func TestDeadLetter(t *testing.T) {
	_, urls := cluster(t)
	js := connect(t, urls)
	cl := natsrun.NewCluster(js, testConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a failure timeout only
	defer cancel()
	var mu sync.Mutex
	attempts := map[int]bool{}
	var logged syncBuffer
	logger := zerolog.New(&logged)
	cfg := testConfig
	cfg.Log = &logger
	w := &natsrun.Worker{JS: js, Config: cfg, Name: "w1", Handle: func(ctx context.Context, t natsrun.Task) (json.RawMessage, error) {
		mu.Lock()
		attempts[t.Attempt] = true
		mu.Unlock()
		return nil, fmt.Errorf("attempt %d fails", t.Attempt)
	}}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { w.Run(wctx) }) //nolint:errcheck // stopped below
	defer func() { stop(); wg.Wait() }()
	if err := cl.Submit(ctx, natsrun.Task{Run: "dead1", Cycle: 1, Index: 0}); err != nil {
		t.Fatal(err)
	}
	rs, err := cl.Await(ctx, "dead1", 1, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; !r.Dead || r.Attempt != testConfig.MaxDeliver || !strings.Contains(r.Error, "fails") {
		t.Errorf("result %+v; want dead after %d attempts", r, testConfig.MaxDeliver)
	}
	mu.Lock()
	if len(attempts) != testConfig.MaxDeliver {
		t.Errorf("attempts %v; want 1 to %d", attempts, testConfig.MaxDeliver)
	}
	mu.Unlock()
	var notice map[string]any
	err = cl.Follow(ctx, "dead1", 0, func(seq int64, data []byte) bool {
		return json.Unmarshal(data, &notice) != nil || notice["type"] != "task.dead"
	})
	if err != nil || notice["type"] != "task.dead" {
		t.Errorf("no task.dead event (%v): %v", err, notice)
	}
	// The worker's log says each task it took and how each try ended.
	stop()
	wg.Wait()
	log := logged.String()
	if n := strings.Count(log, `"message":"task taken"`); n != testConfig.MaxDeliver {
		t.Errorf("the log tells of %d tasks taken; want %d:\n%s", n, testConfig.MaxDeliver, log)
	}
	if n := strings.Count(log, `"ended":"failed; delivered again"`); n != testConfig.MaxDeliver-1 ||
		!strings.Contains(log, `"ended":"dead","error":"attempt `+strconv.Itoa(testConfig.MaxDeliver)+` fails"`) ||
		!strings.Contains(log, `"task":"dead1/1/0"`) || !strings.Contains(log, `"worker":"w1"`) {
		t.Errorf("the log does not tell how each try ended:\n%s", log)
	}
}

// syncBuffer is a bytes.Buffer that a worker's goroutines write to at
// once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestResultTooLarge: a task whose result is larger than the server takes
// (max_payload, 1 MiB by default) ends dead with the reason, at once,
// instead of leaving the coordinator waiting for a result forever.
func TestResultTooLarge(t *testing.T) {
	_, urls := cluster(t)
	js := connect(t, urls)
	cl := natsrun.NewCluster(js, testConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a failure timeout only
	defer cancel()
	big, _ := json.Marshal(strings.Repeat("x", 2<<20))
	w := &natsrun.Worker{JS: js, Config: testConfig, Handle: func(context.Context, natsrun.Task) (json.RawMessage, error) {
		return big, nil
	}}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { w.Run(wctx) }) //nolint:errcheck // stopped below
	defer func() { stop(); wg.Wait() }()
	if err := cl.Submit(ctx, natsrun.Task{Run: "big1", Cycle: 1, Index: 0}); err != nil {
		t.Fatal(err)
	}
	rs, err := cl.Await(ctx, "big1", 1, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; !r.Dead || r.Attempt != 1 || !strings.Contains(r.Error, "could not be published") {
		t.Errorf("result %+v; want dead at the first attempt, saying why", r)
	}
}

// TestStop: a task its coordinator stops while a worker runs it has its
// handler's context canceled (cause ErrStopped) at the worker's next
// heartbeat and leaves no result; a stopped task still queued is never
// handed to a handler; both are terminated (the server's advisory says
// so). Agents.RunAgent stops its task when its run is canceled, and
// leaves it to the workers when the process shuts down. The worker's
// heartbeats are on a fake clock the test moves.
func TestStop(t *testing.T) {
	_, urls := cluster(t)
	js := connect(t, urls)
	cl := natsrun.NewCluster(js, testConfig)
	beats := deepresearchtest.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	heartbeat := func() { beats.Advance(testConfig.AckWait / 3) }
	wcfg := testConfig
	wcfg.Clock = beats
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a failure timeout only
	defer cancel()
	// recv waits for ch, failing the test when ctx ends first.
	recv := func(what string, ch any) any {
		t.Helper()
		switch ch := ch.(type) {
		case chan natsrun.Task:
			select {
			case v := <-ch:
				return v
			case <-ctx.Done():
			}
		case chan error:
			select {
			case v := <-ch:
				return v
			case <-ctx.Done():
			}
		}
		t.Fatalf("waiting for %s: %v", what, ctx.Err())
		return nil
	}
	n := natsrun.NamesOf(testConfig)
	terminated := make(chan *nats.Msg, 8)
	sub, err := js.Conn().ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED."+n.TasksStream+"."+n.Consumer, terminated)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe() //nolint:errcheck // the connection's end ends it too
	started := make(chan natsrun.Task, 8)
	causes := make(chan error, 8)
	w := &natsrun.Worker{JS: js, Config: wcfg, Concurrency: 1,
		Started: func(t natsrun.Task) { started <- t },
		Handle: func(ctx context.Context, t natsrun.Task) (json.RawMessage, error) {
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return nil, ctx.Err()
		}}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { w.Run(wctx) }) //nolint:errcheck // stopped below
	defer func() { stop(); wg.Wait() }()

	if err := cl.Submit(ctx, natsrun.Task{Run: "stop1", Cycle: 1, Index: 0}, natsrun.Task{Run: "stop1", Cycle: 1, Index: 1}); err != nil {
		t.Fatal(err)
	}
	first := recv("the first task to start", started).(natsrun.Task) // one at a time: the other waits in the queue
	for i := range 2 {
		if err := cl.Stop(ctx, "stop1", 1, i); err != nil {
			t.Fatal(err)
		}
	}
	heartbeat() // the running task's: it reads the stop notice
	if err, _ := recv("the stopped handler to end", causes).(error); !errors.Is(err, natsrun.ErrStopped) {
		t.Errorf("task %d's handler ended with %v; want ErrStopped", first.Index, err)
	}
	// Both tasks are terminated, one stopped running, one dropped, in
	// some order; a redelivery (a heartbeat the server missed) is
	// terminated again.
	ended := map[uint64]bool{}
	for len(ended) < 2 {
		select {
		case m := <-terminated:
			var adv struct {
				StreamSeq uint64 `json:"stream_seq"`
				Reason    string `json:"reason"`
			}
			if err := json.Unmarshal(m.Data, &adv); err != nil {
				t.Fatal(err)
			}
			if adv.Reason != "stopped by its coordinator" {
				t.Errorf("task at stream sequence %d terminated: %q", adv.StreamSeq, adv.Reason)
			}
			ended[adv.StreamSeq] = true
		case <-ctx.Done():
			t.Fatalf("%d of the 2 stopped tasks terminated", len(ended))
		}
	}
	select {
	case s := <-started:
		t.Fatalf("stopped task %d was handed to the handler", s.Index)
	default:
	}
	results, err := js.Stream(ctx, n.ResultsStream)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := results.GetLastMsgForSubject(ctx, n.Results("stop1")); err == nil {
		t.Errorf("a stopped task published a result: %s", m.Data)
	}

	// The runner: a canceled run stops its task, a shutdown leaves it.
	a := &natsrun.Agents{JS: js, Config: testConfig}
	for i, cause := range []error{deepresearch.ErrCanceledByClient, deepresearch.ErrShutdown} {
		run := fmt.Sprintf("stop%d", i+2)
		rctx, rcancel := context.WithCancelCause(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := a.RunAgent(rctx, worker.Job{RunID: run, Task: worker.Task{Cycle: 1, Index: 0}}, nil)
			done <- err
		}()
		s := recv("the runner's task to start", started).(natsrun.Task)
		rcancel(cause)
		if err, _ := recv("RunAgent to return", done).(error); !errors.Is(err, cause) {
			t.Errorf("RunAgent after %v: %v", cause, err)
		}
		_, err := results.GetLastMsgForSubject(ctx, n.Stop(run, 1, 0))
		if stopped := err == nil; stopped != (cause != deepresearch.ErrShutdown) {
			t.Errorf("run canceled with %q: task %d stopped %v", cause, s.Index, stopped)
		}
		if cause == deepresearch.ErrShutdown {
			cl.Stop(ctx, run, 1, 0) //nolint:errcheck // let the worker go
		}
		heartbeat()
		recv("the handler to end", causes)
	}
}

// TestFollowFillsGaps: a follower that falls behind while events are
// published (its subscription drops what it cannot hold) gets the events
// it missed from the stream: every number once, in order; a notice once.
func TestFollowFillsGaps(t *testing.T) {
	js := standalone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a failure timeout only
	defer cancel()
	cfg := natsrun.Config{Prefix: "drgaps"}
	cl := natsrun.NewCluster(js, cfg)
	if _, err := cl.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	const total = 3000 // more than a follower's subscription holds
	first := make(chan struct{})
	release := make(chan struct{})
	var got []int64
	notices := 0
	done := make(chan error, 1)
	go func() {
		done <- cl.Follow(ctx, "gaps1", 0, func(seq int64, data []byte) bool {
			if seq == 0 {
				notices++
				return true
			}
			if len(got) == 0 {
				close(first)
				<-release // fall behind
			}
			got = append(got, seq)
			return len(got) < total
		})
	}()
	publish := func(seq int64) {
		if err := cl.PublishEvent(ctx, "gaps1", seq, 1, fmt.Appendf(nil, `{"seq":%d}`, seq)); err != nil {
			t.Fatal(err)
		}
	}
	publish(1)
	<-first
	n := natsrun.NamesOf(cfg)
	for seq := int64(2); seq <= total; seq++ {
		publish(seq)
		if seq == total/2 {
			notice := nats.NewMsg(n.Events("gaps1"))
			notice.Data = []byte(`{"type":"task.dead"}`)
			notice.Header.Set(nats.MsgIdHdr, "gaps1/1/0/dead")
			if _, err := js.PublishMsg(ctx, notice); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, seq := range got {
		if seq != int64(i+1) {
			t.Fatalf("event %d given has seq %d", i+1, seq)
		}
	}
	if notices != 1 {
		t.Errorf("the notice was given %d times", notices)
	}
	// Resuming from a number (a reconnect's Last-Event-ID) gives the
	// events after it, and a notice only when it came after it.
	for _, tc := range []struct {
		after   int64
		notices int
	}{{total / 2, 1}, {total/2 + 10, 0}, {total - 1, 0}} {
		var seqs []int64
		notices := 0
		err := cl.Follow(ctx, "gaps1", tc.after, func(seq int64, data []byte) bool {
			if seq == 0 {
				notices++
				return true
			}
			seqs = append(seqs, seq)
			return seq < total
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(seqs) != int(total-tc.after) || seqs[0] != tc.after+1 || notices != tc.notices {
			t.Errorf("after %d: %d events from %v, %d notices; want %d from %d, %d notices", tc.after, len(seqs), seqs[:min(1, len(seqs))], notices, total-tc.after, tc.after+1, tc.notices)
		}
	}
}

// TestFollowRepeats: a number stored again out of order (a repeat after
// the de-duplication window) does not hide the events after it from a
// follower that resumes, and a run whose last message is a notice still
// has its last event found (Store.Get of a live run it does not own).
func TestFollowRepeats(t *testing.T) {
	js := standalone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a failure timeout only
	defer cancel()
	cfg := natsrun.Config{Prefix: "drrep"}
	cl := natsrun.NewCluster(js, cfg)
	if _, err := cl.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	n := natsrun.NamesOf(cfg)
	raw := func(seq string, id string) {
		m := nats.NewMsg(n.Events("rep1"))
		m.Data = fmt.Appendf(nil, `{"type":"x","seq":%q}`, seq)
		if seq != "" {
			m.Header.Set(natsrun.HeaderSeq, seq)
		}
		m.Header.Set(nats.MsgIdHdr, id)
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for seq := range 10 {
		raw(strconv.Itoa(seq+1), fmt.Sprint("rep1/", seq+1))
	}
	raw("8", "rep1/8/again") // a repeat of 8, stored after 10
	for _, after := range []int64{9, 7, 0} {
		var got []int64
		err := cl.Follow(ctx, "rep1", after, func(seq int64, _ []byte) bool {
			if seq > 0 {
				got = append(got, seq)
			}
			return seq != 10
		})
		if err != nil || len(got) == 0 || got[0] != after+1 || got[len(got)-1] != 10 || len(got) != int(10-after) {
			t.Errorf("after %d: %v (%v); want %d to 10", after, got, err, after+1)
		}
	}
	raw("", "rep1/1/0/dead") // a notice, last
	// A Store that does not own the run reads a live run's last number
	// from the stream: its last numbered message, the repeat of 8.
	owner, err := cl.OpenStore(ctx, natsrun.StoreOptions{Owner: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	if err := owner.Create(ctx, runstore.Run{ID: "rep1", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	reader, err := cl.OpenStore(ctx, natsrun.StoreOptions{Owner: "reader"})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	run, err := reader.Get(ctx, "rep1")
	if err != nil || run.Events != 8 {
		t.Errorf("the run's last event %d (%v); want 8, the repeat, the last numbered message", run.Events, err)
	}
}
