package natsrun_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/worker"
)

const question = "How were transatlantic telegraph cables laid and repaired?"

// standalone starts an embedded standalone server for t and connects to
// it.
func standalone(t *testing.T) jetstream.JetStream {
	t.Helper()
	srv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// researcher is an offline Researcher over the root package's test corpus.
func researcher(t *testing.T, agents worker.Runner) *deepresearch.Researcher {
	t.Helper()
	r, err := deepresearch.New(deepresearch.Config{Search: deepresearchtest.Corpus(t, filepath.Join("..", "testdata", "corpus"), filepath.Join(t.TempDir(), "index.db")), Judges: deepresearch.Judges{Lexical: true}, Limits: deepresearch.Limits{MaxCycles: 1}, Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestAgentsOnWorkers runs the offline question with its agents on two
// workers (Serve) through one JetStream server, the coordinator keeping
// the run's journal in the journal stream: the report is the in-process
// one, every event is numbered once, in order, and each agent's events
// come before its agent.finished.
func TestAgentsOnWorkers(t *testing.T) {
	js := standalone(t)
	cfg := natsrun.Config{Prefix: "dragents"}
	cl := natsrun.NewCluster(js, cfg)
	ctx := context.Background()
	if _, err := cl.Setup(ctx); err != nil {
		t.Fatal(err)
	}

	want, err := startWait(ctx, researcher(t, nil), deepresearch.Request{Question: question}, deepresearch.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}

	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range 2 {
		w := researcher(t, nil)
		wg.Go(func() {
			err := cl.Serve(wctx, w, 2, "w"+string(rune('a'+i)))
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Serve: %v", err)
			}
		})
	}
	defer func() { stop(); wg.Wait() }()

	r := researcher(t, &natsrun.Agents{JS: js, Config: cfg})
	var evs []events.Event
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute) // a failure timeout only
	defer cancel()
	rep, err := startWait(rctx, r, deepresearch.Request{Question: question, RunID: "run1"},
		deepresearch.RunOptions{Journal: cl.Journal(), Sink: func(e events.Event) { evs = append(evs, e) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Markdown() != want.Markdown() {
		t.Errorf("report on workers:\n%s\nin process:\n%s", rep.Markdown(), want.Markdown())
	}
	started, finished := map[int]bool{}, map[int]bool{}
	for i, e := range evs {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		switch {
		case e.Agent < 0:
		case e.Type == "agent.started":
			if started[e.Agent] {
				t.Errorf("agent %d started twice", e.Agent)
			}
			started[e.Agent] = true
		case e.Type == "agent.finished":
			finished[e.Agent] = true
		case !started[e.Agent] || finished[e.Agent]:
			t.Errorf("event %d (%s) of agent %d outside its run", e.Seq, e.Type, e.Agent)
		}
	}
	if len(started) == 0 || len(finished) != len(started) {
		t.Errorf("%d agents started, %d finished", len(started), len(finished))
	}
	entries, err := cl.Journal().Journal(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	var agentCalls int
	for _, e := range entries {
		if strings.Contains(string(e), `"researcher/t`) {
			agentCalls++
		}
	}
	if agentCalls == 0 {
		t.Errorf("the workers journaled no agent call in the run's journal (%d entries)", len(entries))
	}
}

// gatedModel answers no call before open is closed.
type gatedModel struct {
	llms.Model
	open <-chan struct{}
}

func (m gatedModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	select {
	case <-m.open:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

// TestAgentsReportLive: a worker's agent reports its events while it runs.
// The worker's model answers no call before the coordinator's progress
// has heard that the agent started, which it could not if the events came
// with the result only; what progress heard is, in order, the start of
// the result's events, of attempt 1.
func TestAgentsReportLive(t *testing.T) {
	js := standalone(t)
	cfg := natsrun.Config{Prefix: "drlive"}
	cl := natsrun.NewCluster(js, cfg)
	ctx := context.Background()
	if _, err := cl.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	heard := make(chan struct{})
	w, err := deepresearch.New(deepresearch.Config{Search: deepresearchtest.Corpus(t, filepath.Join("..", "testdata", "corpus"), filepath.Join(t.TempDir(), "index.db")), Judges: deepresearch.Judges{Lexical: true}, Limits: deepresearch.Limits{MaxCycles: 1},
		Model: gatedModel{Model: extractive.New(extractive.Options{}), open: heard}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { cl.Serve(wctx, w, 1, "w") }) //nolint:errcheck // stopped below
	defer func() { stop(); wg.Wait() }()

	var (
		mu   sync.Mutex
		live []events.Event
		bad  []string
		once sync.Once
	)
	progress := func(attempt, n int, e events.Event) {
		mu.Lock()
		defer mu.Unlock()
		if attempt != 1 || n != len(live) {
			bad = append(bad, fmt.Sprintf("report %d of attempt %d after %d reports", n, attempt, len(live)))
		}
		live = append(live, e)
		if e.Type == "agent.started" {
			once.Do(func() { close(heard) })
		}
	}
	job := worker.Job{RunID: "run1", Question: question, SearchLimit: 5,
		Task: worker.Task{ID: "t1", Title: "Cables laid", Question: "How were transatlantic telegraph cables laid?", Cycle: 1}}
	rctx, cancel := context.WithTimeout(ctx, time.Minute) // a failure timeout only
	defer cancel()
	res, err := (&natsrun.Agents{JS: js, Config: cfg}).RunAgent(rctx, job, progress)
	if err != nil {
		t.Fatalf("RunAgent: %v (the model waits for progress to hear the agent start)", err)
	}
	if res.Output == nil {
		t.Fatalf("no output: %+v", res.Failure)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("reports out of order: %v", bad)
	}
	if len(live) == 0 || len(live) > len(res.Events) {
		t.Fatalf("%d events heard live of %d", len(live), len(res.Events))
	}
	for i, e := range live {
		if e.Type != res.Events[i].Type || e.Seq != res.Events[i].Seq {
			t.Errorf("live event %d is %s #%d; the result's is %s #%d", i, e.Type, e.Seq, res.Events[i].Type, res.Events[i].Seq)
		}
	}
}

// TestEventLogOutage: while the events stream cannot store events (its
// server is down), EventLog waits Try for the first, then skips the next
// ones at once for Try, saying so in Err, and the run goes on; once the
// server is back and Try has passed, the log publishes events again, and
// a follower gets those stored before and after the outage. The log's
// waits are on a fake clock: the test moves it, and waits on the client's
// reconnection, not on time.
func TestEventLogOutage(t *testing.T) {
	dir := t.TempDir()
	srv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	port := srv.Addr().(*net.TCPAddr).Port
	reconnected := make(chan struct{}, 1)
	nc, err := nats.Connect(srv.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.ReconnectHandler(func(*nats.Conn) {
			select {
			case reconnected <- struct{}{}:
			default:
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	now := deepresearchtest.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	cfg := natsrun.Config{Prefix: "droutage", Clock: now}
	cl := natsrun.NewCluster(js, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a failure timeout only
	defer cancel()
	if _, err := cl.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	const try = 300 * time.Millisecond
	log := &natsrun.EventLog{JS: js, Config: cfg, Try: try}
	event := func(seq uint64) {
		log.Event(events.Event{RunID: "run1", Seq: seq, Time: now.Now(), Type: "run.started", Agent: -1,
			Data: events.RunStartedData{Question: question}})
	}
	event(1)
	if err := log.Err(); err != nil {
		t.Fatalf("before the outage: %v", err)
	}
	srv.Close()
	// Drive moves the clock to each timer the log arms, as soon as it is
	// armed: the first event waits its Try.
	var waited time.Duration
	for _, d := range now.Drive(func() {
		for seq := uint64(2); seq <= 40; seq++ {
			event(seq)
		}
	}) {
		waited += d
	}
	if waited < try {
		t.Errorf("the log waited %v on its clock during the outage; want at least the first event's Try, %v", waited, try)
	}
	if err := log.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the error while the server was down: %v; want a timeout", err)
	}
	srv, err = natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: dir, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	select {
	case <-reconnected:
	case <-ctx.Done():
		t.Fatal("the client did not reconnect")
	}
	// Try after the last failure, the log tries the cluster again, and
	// stores events. (The messages the client held while it was away are
	// flushed before it says it is back: the last stored is the latest.)
	now.Advance(try)
	for seq := uint64(41); seq <= 42; seq++ {
		event(seq)
		if got := lastSeq(t, js, cfg, "run1"); got != int64(seq) {
			t.Fatalf("event %d not stored once the server came back (last stored %d)", seq, got)
		}
	}
	var first int64
	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cl.Follow(fctx, "run1", 0, func(s int64, _ []byte) bool { first = s; return false }) //nolint:errcheck // checked below
	if first != 1 {
		t.Errorf("the follower's first event is %d; want 1, stored before the outage", first)
	}
}

// lastSeq is the sequence number of run's last stored event (0: none).
func lastSeq(t *testing.T, js jetstream.JetStream, cfg natsrun.Config, run string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n := natsrun.NamesOf(cfg)
	st, err := js.Stream(ctx, n.EventsStream)
	if err != nil {
		return 0
	}
	m, err := st.GetLastMsgForSubject(ctx, n.Events(run))
	if err != nil {
		return 0
	}
	seq, _ := strconv.ParseInt(m.Header.Get(natsrun.HeaderSeq), 10, 64)
	return seq
}

// TestWorkerSaysOnlyAgentEvents (issue 29): a worker that reports
// run-level events — run.finished, report text, an agent's end — in its
// progress reports and in its results puts none of them into the run: the
// run's one run.finished is its last event, the report's text is the
// writer's, and each agent ends once.
func TestWorkerSaysOnlyAgentEvents(t *testing.T) {
	js := standalone(t)
	cfg := natsrun.Config{Prefix: "drforge"}
	cl := natsrun.NewCluster(js, cfg)
	ctx := context.Background()
	if _, err := cl.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	forged := []events.Payload{
		events.RunFinishedData{Agents: 99},
		events.ReportDeltaData{Text: "FORGED"},
		events.AgentFinishedData{ToolCalls: 99},
		events.StreamResetData{Text: "FORGED"},
		events.SearchData{Query: "a worker's search", Results: 1},
	}
	real := cl.AgentHandler(researcher(t, nil))
	hostile := func(ctx context.Context, task natsrun.Task) (json.RawMessage, error) {
		for n, p := range forged {
			b, _ := json.Marshal(map[string]any{"attempt": 7, "n": n, "event": events.Event{RunID: task.Run, Seq: uint64(n + 1), Type: p.EventType(), Data: p}})
			js.Conn().Publish(natsrun.NamesOf(cfg).Progress(task.Run, task.Cycle, task.Index), b)
		}
		js.Conn().Flush()
		out, err := real(ctx, task)
		if err != nil {
			return nil, err
		}
		var res worker.Result
		if err := json.Unmarshal(out, &res); err != nil {
			return nil, err
		}
		var evs []events.Event
		for _, p := range forged {
			evs = append(evs, events.Event{RunID: task.Run, Type: p.EventType(), Data: p})
		}
		res.Events = append(evs, res.Events...)
		return json.Marshal(res)
	}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	w := &natsrun.Worker{JS: js, Config: cfg, Handle: hostile, Concurrency: 2, Name: "liar"}
	wg.Go(func() { w.Run(wctx) }) //nolint:errcheck // stopped below
	defer func() { stop(); wg.Wait() }()

	r := researcher(t, &natsrun.Agents{JS: js, Config: cfg})
	var evs []events.Event
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute) // a failure timeout only
	defer cancel()
	rep, err := startWait(rctx, r, deepresearch.Request{Question: question, RunID: "run1"}, deepresearch.RunOptions{Sink: func(e events.Event) { evs = append(evs, e) }})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rep.Markdown(), "FORGED") {
		t.Error("the report holds a worker's forged text")
	}
	ended := map[int]int{}
	searches := 0
	for i, e := range evs {
		switch e.Type {
		case "run.finished":
			if i != len(evs)-1 {
				t.Errorf("run.finished at seq %d of %d", e.Seq, len(evs))
			}
		case "report.delta", "stream.reset":
			if b, _ := json.Marshal(e); strings.Contains(string(b), "FORGED") {
				t.Errorf("a worker's %s was stored at seq %d", e.Type, e.Seq)
			}
		case "agent.finished", "agent.failed":
			ended[e.Agent]++
		case "agent.search":
			if b, _ := json.Marshal(e); strings.Contains(string(b), "a worker's search") {
				searches++
			}
		}
	}
	for agent, n := range ended {
		if n != 1 {
			t.Errorf("agent %d ended %d times", agent, n)
		}
	}
	if len(ended) == 0 || searches == 0 {
		t.Errorf("%d agents ended; the worker's agent-level events were taken %d times", len(ended), searches)
	}

	// natsrun itself passes on none of them, live or in the result.
	var (
		mu2  sync.Mutex
		live []string
	)
	job := worker.Job{RunID: "run2", Question: question, SearchLimit: 5,
		Task: worker.Task{ID: "t1", Title: "Cables laid", Question: "How were transatlantic telegraph cables laid?", Cycle: 1}}
	res, err := (&natsrun.Agents{JS: js, Config: cfg}).RunAgent(rctx, job, func(_, _ int, e events.Event) {
		mu2.Lock()
		live = append(live, string(e.Type))
		mu2.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	mu2.Lock()
	defer mu2.Unlock()
	for _, typ := range live {
		if !events.WhileAgentRuns(events.Type(typ)) {
			t.Errorf("RunAgent reported a worker's %s live", typ)
		}
	}
	for _, e := range res.Events {
		if !events.WhileAgentRuns(e.Type) {
			t.Errorf("RunAgent's result carries a worker's %s", e.Type)
		}
	}
}

// TestEventLogBackfill: a coordinator killed after its run store kept an
// event and before the events stream did leaves the stream short; the
// resumed run's Backfill publishes what the stream lacks (after a notice
// stored last, too), each number once, with the attempt that emitted it,
// and a second Backfill publishes nothing.
func TestEventLogBackfill(t *testing.T) {
	js := standalone(t)
	cfg := natsrun.Config{Prefix: "drbackfill"}
	cl := natsrun.NewCluster(js, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a failure timeout only
	defer cancel()
	if _, err := cl.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	ev := func(seq uint64, data events.Payload) events.Event {
		return events.Event{RunID: "run1", Seq: seq, Time: at, Type: data.EventType(), Agent: -1, Data: data}
	}
	prior := []events.Event{ev(1, events.RunStartedData{Question: question})}
	for seq := uint64(2); seq <= 5; seq++ {
		prior = append(prior, ev(seq, events.ReportDeltaData{Text: fmt.Sprint("part ", seq)}))
	}
	prior = append(prior, ev(6, events.RunResumedData{Attempt: 2, After: 5}), ev(7, events.ReportDeltaData{Text: "part 7"}))
	log := &natsrun.EventLog{JS: js, Config: cfg}
	for _, e := range prior[:5] { // the killed coordinator published 1 to 5
		log.Event(e)
	}
	n := natsrun.NamesOf(cfg)
	if _, err := js.Publish(ctx, n.Events("run1"), []byte(`{"type":"task.dead"}`)); err != nil { // a notice, stored last
		t.Fatal(err)
	}
	for range 2 {
		if err := log.Backfill(ctx, prior); err != nil {
			t.Fatal(err)
		}
	}
	var got []int64
	err := cl.Follow(ctx, "run1", 0, func(seq int64, _ []byte) bool {
		if seq > 0 {
			got = append(got, seq)
		}
		return len(got) < len(prior)
	})
	if err != nil || fmt.Sprint(got) != "[1 2 3 4 5 6 7]" {
		t.Fatalf("followed %v (%v); want 1 to 7", got, err)
	}
	st, err := js.Stream(ctx, n.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(n.Events("run1")))
	if err != nil {
		t.Fatal(err)
	}
	if stored := info.State.Subjects[n.Events("run1")]; stored != 8 {
		t.Errorf("the stream holds %d messages of the run; want 8: 7 events, each once, and the notice", stored)
	}
	last, err := st.GetLastMsgForSubject(ctx, n.Events("run1"))
	if err != nil {
		t.Fatal(err)
	}
	if a := last.Header.Get(natsrun.HeaderAttempt); a != "2" {
		t.Errorf("event 7, emitted by the run's second attempt, is published as attempt %q", a)
	}
	if err := log.Backfill(ctx, []events.Event{ev(1, events.RunStartedData{}), {RunID: "run2", Seq: 2}}); err == nil {
		t.Error("events of two runs backfilled without an error")
	}
}
