package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/journal"
)

// The test binary plays the other processes of a test: the command line
// (DRTEST_ROLE=cli, its arguments as a JSON array in DRTEST_ARGS), or a
// model double (=double). The names stay clear of DEEPRESEARCH_, which
// the settings read.
const (
	roleEnv = "DRTEST_ROLE"
	argsEnv = "DRTEST_ARGS"
)

// Latency and pacing of the model double: each answer after 50ms, like a
// hosted model's round trip, and streamed 12 bytes a millisecond.
const (
	doubleLatency = 50 * time.Millisecond
	doublePace    = time.Millisecond
	doubleChunk   = 12
)

func runRole(role string) int {
	switch role {
	case "cli":
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv(argsEnv)), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return execute(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	case "double":
		return runDouble()
	case "natsnode":
		return runNATSNode()
	}
	fmt.Fprintf(os.Stderr, "unknown %s %q\n", roleEnv, role)
	return 2
}

// call is one chat completion the double answered: the hash of its body,
// and whether its whole answer was written to a client still there.
type call struct {
	Hash      string `json:"hash"`
	Completed bool   `json:"completed"`
}

// double is the OpenAI-compatible model double of a separate process: the
// offline model behind OpenAI's wire format, latency-bound, that records
// every call. GET /calls lists them once no call is in flight.
type double struct {
	next http.Handler

	mu       sync.Mutex
	idle     *sync.Cond // signalled when inFlight drops to 0
	inFlight int
	calls    []call
	armed    *trap
}

// trap kills a process (SIGKILL) at a chosen point of a chosen call: the
// nth call whose system prompt starts with prefix, once its answer has
// streamed chunks pieces (0: as it arrives, before any answer). POST
// /arm?pid=&prefix=&nth=&chunks= sets it; it fires once.
type trap struct {
	pid, nth, chunks int
	prefix           string
	seen             int
}

func runDouble() int {
	srv := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}),
		deepresearchtest.OpenAIOptions{Delay: doubleLatency, ChunkBytes: doubleChunk})
	defer srv.Close()
	d := &double{next: srv.Config.Handler}
	d.idle = sync.NewCond(&d.mu)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	// Until the test kills it, or closes its stdin.
	go func() { io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	http.Serve(ln, d)
	return 0
}

func (d *double) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/calls" {
		d.mu.Lock()
		for d.inFlight > 0 {
			d.idle.Wait()
		}
		b, _ := json.Marshal(d.calls)
		d.mu.Unlock()
		w.Write(b)
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/armed" { // whether a trap is still set
		d.mu.Lock()
		fmt.Fprint(w, d.armed != nil)
		d.mu.Unlock()
		return
	}
	if r.Method == http.MethodPost && r.URL.Path == "/arm" {
		q := r.URL.Query()
		t := &trap{prefix: q.Get("prefix")}
		fmt.Sscan(q.Get("pid"), &t.pid)
		fmt.Sscan(q.Get("nth"), &t.nth)
		fmt.Sscan(q.Get("chunks"), &t.chunks)
		d.mu.Lock()
		d.armed = t
		d.mu.Unlock()
		return
	}
	if r.URL.Path != "/v1/chat/completions" {
		d.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	sum := sha256.Sum256(body)
	pw := &pacedWriter{ResponseWriter: w}
	d.mu.Lock()
	d.inFlight++
	if t := d.armed; t != nil && strings.HasPrefix(systemPrompt(body), t.prefix) {
		if t.seen++; t.seen == t.nth {
			d.armed = nil
			pw.kill, pw.at = t.pid, t.chunks
		}
	}
	d.mu.Unlock()
	if pw.kill != 0 && pw.at == 0 {
		syscall.Kill(pw.kill, syscall.SIGKILL)
	}
	d.next.ServeHTTP(pw, r)
	d.mu.Lock()
	d.calls = append(d.calls, call{Hash: hex.EncodeToString(sum[:8]), Completed: r.Context().Err() == nil && !pw.failed})
	if d.inFlight--; d.inFlight == 0 {
		d.idle.Broadcast()
	}
	d.mu.Unlock()
}

// systemPrompt reads the first message's text from a chat request.
func systemPrompt(body []byte) string {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return ""
	}
	var text string
	if json.Unmarshal(req.Messages[0].Content, &text) == nil {
		return text
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(req.Messages[0].Content, &parts)
	if len(parts) > 0 {
		return parts[0].Text
	}
	return ""
}

// pacedWriter paces a streamed answer, a flush at a time, notes a write
// that failed (the client went away), and kills process kill after at
// flushes (a trap).
type pacedWriter struct {
	http.ResponseWriter
	failed   bool
	kill, at int
	flushes  int
}

func (p *pacedWriter) Write(b []byte) (int, error) {
	n, err := p.ResponseWriter.Write(b)
	if err != nil {
		p.failed = true
	}
	return n, err
}

func (p *pacedWriter) Flush() {
	time.Sleep(doublePace)
	if f, ok := p.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	if p.flushes++; p.kill != 0 && p.flushes == p.at {
		syscall.Kill(p.kill, syscall.SIGKILL)
	}
}

// proc is a child process of a test: the test binary in a role.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	stderr bytes.Buffer
	drain  sync.WaitGroup
	stdin  io.Closer
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.Write(b)
}

// spawn starts the test binary in role with args.
func spawn(t *testing.T, role string, args ...string) (*proc, *bufio.Reader) {
	t.Helper()
	a, _ := json.Marshal(args)
	p := &proc{t: t, cmd: exec.Command(os.Args[0], "-test.run=^$")}
	p.cmd.Env = append(os.Environ(), roleEnv+"="+role, argsEnv+"="+string(a))
	p.cmd.Stderr = p
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = in
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	return p, bufio.NewReader(out)
}

// startProc starts the test binary in role with args, and waits for the
// first line of its stdout, which says where it listens.
func startProc(t *testing.T, role string, args ...string) *proc {
	t.Helper()
	p, br := spawn(t, role, args...)
	line, err := br.ReadString('\n')
	if err != nil {
		p.kill()
		t.Fatalf("%s %v: %v\n%s", role, args, err, p.log())
	}
	p.url = strings.TrimSpace(line[strings.Index(line, "http://"):])
	p.drain.Go(func() { io.Copy(io.Discard, br) })
	return p
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// kill stops the process as a crash would (SIGKILL) and reaps it.
func (p *proc) kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Kill()
	p.stdin.Close()
	p.cmd.Wait()
	p.drain.Wait()
}

// stop stops the process as an operator would (SIGTERM) and waits for it.
func (p *proc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		p.t.Errorf("stopping: %v\n%s", err, p.log())
	}
	p.drain.Wait()
}

func (p *proc) calls() []call {
	p.t.Helper()
	var cs []call
	getJSON(p.t, p.url+"/calls", &cs)
	return cs
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, res.Status, b)
	}
	return string(b)
}

// sse is one server-sent event of a run's stream.
type sse struct {
	seq  uint64
	typ  string
	data string
}

// follow reads run id's event stream after seq until it ends, or until
// each returns false.
func follow(t *testing.T, base, id string, after uint64, each func(sse) bool) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/research/"+id+"/events", nil)
	if after > 0 {
		req.Header.Set("Last-Event-ID", fmt.Sprint(after))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	var e sse
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			fmt.Sscan(line[4:], &e.seq)
		case strings.HasPrefix(line, "event: "):
			e.typ = line[7:]
		case strings.HasPrefix(line, "data: "):
			e.data = line[6:]
		case line == "" && e.typ != "":
			if e.typ == "end" || !each(e) {
				return
			}
			e = sse{}
		}
	}
}

func startRun(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Post(base+"/v1/research", "application/json", strings.NewReader(fmt.Sprintf(`{"question":%q}`, question)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var started struct{ ID string }
	json.NewDecoder(res.Body).Decode(&started)
	if started.ID == "" {
		t.Fatalf("no run started: %s", res.Status)
	}
	return started.ID
}

// completed counts the completed calls by request.
func completed(cs []call) map[string]int {
	m := map[string]int{}
	for _, c := range cs {
		if c.Completed {
			m[c.Hash]++
		}
	}
	return m
}

// logView reads a run's whole event log as a consumer does: per agent,
// the types of the events other than text, and the streamed text.
func logView(t *testing.T, evs []sse) (v struct {
	Others map[int][]string
	Text   map[int]string
}) {
	t.Helper()
	v.Others, v.Text = map[int][]string{}, map[int]string{}
	for i, s := range evs {
		if s.seq != uint64(i+1) {
			t.Fatalf("event %d of the log has seq %d: every seq must come once", i+1, s.seq)
		}
		var e events.Event
		if err := json.Unmarshal([]byte(s.data), &e); err != nil {
			t.Fatal(err)
		}
		switch d := e.Data.(type) {
		case events.DeltaData:
			v.Text[e.Agent] += d.Text
		case events.ReportDeltaData:
			v.Text[e.Agent] += d.Text
		case events.StreamResetData:
			v.Text[e.Agent] = d.Text
		case events.RunResumedData:
		default:
			v.Others[e.Agent] = append(v.Others[e.Agent], string(e.Type))
		}
	}
	return v
}

// TestKillAndResume kills the server (SIGKILL) in the middle of each
// stage of a run — while agents research, while the final report
// streams, while the report is verified — and restarts it on the same
// store. The model is a latency-bound double running as a separate
// process, which also pulls the trigger: at a chosen call, as it arrives
// or after part of its answer has streamed. The run resumes by itself and finishes; its report is the one
// an uninterrupted run writes; its event log holds every seq once and
// reads as the uninterrupted run's, and a client reconnecting with
// Last-Event-ID sees it whole; the double completed no call twice beyond
// the answers that were on the wire when the server died.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and runs four researches against a latency-bound model")
	}
	index := isolate(t)
	dir := t.TempDir()
	dbl := startProc(t, "double")
	absCorpus, _ := filepath.Abs(corpus)
	serve := func(store string) *proc {
		return startProc(t, "cli", "serve", "--addr", "127.0.0.1:0", "--store", store, "--provider", "openai",
			"--model", "extractive", "--base-url", dbl.url+"/v1", "--corpus", absCorpus, "--index", index, "--log-level", "info")
	}

	// An uninterrupted run with the same double.
	srv := serve(filepath.Join(dir, "whole.db"))
	mark := len(dbl.calls())
	id := startRun(t, srv.url)
	var whole []sse
	follow(t, srv.url, id, 0, func(e sse) bool { whole = append(whole, e); return true })
	wantMD := get(t, srv.url+"/v1/research/"+id+"?format=md")
	want := completed(dbl.calls()[mark:])
	wantView := logView(t, whole)
	srv.stop()
	if len(want) < 5 || !strings.Contains(wantMD, "## References") {
		t.Fatalf("the uninterrupted run made %d calls and wrote:\n%s", len(want), wantMD)
	}

	for _, k := range []struct {
		name   string
		prefix string // the system prompt of the call the double kills the server in
		nth    int    // which such call
		chunks int    // after streaming this many pieces of it (0: as it arrives)
		before string // reached before the kill
		after  string // not reached before the kill
	}{
		{"research", "You are a research agent.", 6, 0, "agent.search", "sources.merged"},
		{"report streaming", "You are the writer of a deep-research system.", 1, 20, "sources.merged", "report.finished"},
		{"verification", "Role: verifier", 1, 0, "report.finished", "report.verified"},
	} {
		t.Run(k.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "runs.db")
			srv := serve(store)
			mark := len(dbl.calls())
			// The double kills the server at the chosen point of the run.
			res, err := http.Post(fmt.Sprintf("%s/arm?pid=%d&prefix=%s&nth=%d&chunks=%d", dbl.url, srv.cmd.Process.Pid,
				url.QueryEscape(k.prefix), k.nth, k.chunks), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			id := startRun(t, srv.url)
			var seen []sse
			follow(t, srv.url, id, 0, func(e sse) bool { seen = append(seen, e); return true }) // until the server dies
			srv.kill()                                                                          // reaps it
			if len(seen) == 0 {
				t.Fatalf("no event before the kill\n%s", srv.log())
			}
			cut := len(seen)
			first := dbl.calls()[mark:]
			journaled := journaledCalls(t, store, id) // what the first attempt left

			// Restarted on the same store, the server resumes the run; the
			// client reconnects where it was.
			srv = serve(store)
			last := seen[len(seen)-1].seq
			follow(t, srv.url, id, last, func(e sse) bool { seen = append(seen, e); return true })
			var status struct {
				Status   string
				Attempts int
			}
			getJSON(t, srv.url+"/v1/research/"+id, &status)
			if status.Status != "finished" || status.Attempts != 2 {
				t.Fatalf("the run is %+v after the restart\n%s", status, srv.log())
			}
			if md := get(t, srv.url+"/v1/research/"+id+"?format=md"); md != wantMD {
				t.Errorf("the resumed run's report differs from the uninterrupted run's:\n%s\n--- want ---\n%s", md, wantMD)
			}
			var log []sse
			follow(t, srv.url, id, 0, func(e sse) bool { log = append(log, e); return true })
			if !reflect.DeepEqual(seen, log) {
				t.Errorf("the client saw %d events across the restart, the log holds %d: not one consistent stream", len(seen), len(log))
			}
			if v := logView(t, log); !reflect.DeepEqual(v, wantView) {
				t.Errorf("the log reads\n%+v\nthe uninterrupted run's\n%+v", v, wantView)
			}
			// The kill fell in the stage.
			reached := map[string]bool{}
			for _, e := range log {
				if e.typ == "run.resumed" {
					break
				}
				reached[e.typ] = true
			}
			if !reached[k.before] || reached[k.after] {
				t.Errorf("the kill did not fall in the stage: before it the log has %s: %v, %s: %v", k.before, reached[k.before], k.after, reached[k.after])
			}

			inTransit := checkCalls(t, want, dbl.calls()[mark:], first, journaled)
			t.Logf("killed after %d events; %d calls in transit; resumed in attempt %d", cut, inTransit, status.Attempts)
			srv.stop()
		})
	}
}

// journaledCalls counts the model calls the journal of run id in store
// holds, as an export of it shows (the first attempt's, before a resume).
func journaledCalls(t *testing.T, store, id string) int {
	t.Helper()
	pack := filepath.Join(t.TempDir(), "run.tar.zst")
	if r := cli(t, "", "export", "--store", store, "-o", pack, id); r.code != 0 {
		t.Fatalf("export: %s", r.stderr)
	}
	f, err := os.Open(pack)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	x, err := deepresearch.ReadExport(f)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, raw := range x.Journal {
		if e, err := journal.Decode(raw); err == nil && e.Kind == journal.KindModel && e.Error == nil {
			n++
		}
	}
	if n == 0 {
		t.Error("nothing was journaled before the kill")
	}
	return n
}

// checkCalls checks that no completed call was made twice: the calls of
// both attempts (all) are the uninterrupted run's (want), plus only those
// whose answers were on the wire, unjournaled, when the process died —
// those the first attempt (first) completed less the journaled. It
// returns how many those were.
func checkCalls(t *testing.T, want map[string]int, all, first []call, journaled int) int {
	t.Helper()
	got := completed(all)
	extra := 0
	for h, n := range want {
		if got[h] < n {
			t.Errorf("call %s made %d times, the uninterrupted run made it %d", h, got[h], n)
		}
	}
	for h, n := range got {
		extra += n - min(n, want[h])
	}
	inTransit := -journaled
	for _, c := range first {
		if c.Completed {
			inTransit++
		}
	}
	if extra != inTransit {
		t.Errorf("%d completed calls were made twice; %d answers were in transit when the process died (%d journaled)", extra, inTransit, journaled)
	}
	return inTransit
}

// TestKillCLIAndResume kills a CLI run (SIGKILL) in the middle of its
// research, then finishes it with 'deepresearch resume': the report is
// the one an uninterrupted run writes, and no completed call was made
// twice.
func TestKillCLIAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and runs two researches against a latency-bound model")
	}
	index := isolate(t)
	dbl := startProc(t, "double")
	absCorpus, _ := filepath.Abs(corpus)
	args := func(store string) []string {
		return []string{"--store", store, "--provider", "openai", "--model", "extractive", "--base-url", dbl.url + "/v1",
			"--corpus", absCorpus, "--index", index, "--progress", "never"}
	}
	mark := len(dbl.calls())
	whole := cli(t, "", append([]string{"run", question}, args(filepath.Join(t.TempDir(), "whole.db"))...)...)
	if whole.code != 0 {
		t.Fatalf("run: %s", whole.stderr)
	}
	want := completed(dbl.calls()[mark:])

	store := filepath.Join(t.TempDir(), "runs.db")
	mark = len(dbl.calls())
	p, out := spawn(t, "cli", append([]string{"run", question}, args(store)...)...)
	res, err := http.Post(fmt.Sprintf("%s/arm?pid=%d&prefix=%s&nth=6", dbl.url, p.cmd.Process.Pid, url.QueryEscape("You are a research agent.")), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	io.Copy(io.Discard, out) // until the run dies
	p.kill()
	if p.cmd.ProcessState.Success() {
		t.Fatalf("the run was not killed\n%s", p.log())
	}
	first := dbl.calls()[mark:]
	r := cli(t, "", "runs", "--json", "--store", store)
	m := runID.FindStringSubmatch(r.stdout)
	if m == nil || !strings.Contains(r.stdout, `"status": "interrupted"`) {
		t.Fatalf("the killed run is not listed as interrupted: %s", r.stdout)
	}
	journaled := journaledCalls(t, store, m[1])
	resumed := cli(t, "", append([]string{"resume", m[1]}, args(store)...)...)
	if resumed.code != 0 || resumed.stdout != whole.stdout {
		t.Errorf("resume: exit %d, %s\n%s\n--- want ---\n%s", resumed.code, resumed.stderr, resumed.stdout, whole.stdout)
	}
	checkCalls(t, want, dbl.calls()[mark:], first, journaled)
}
