package httpapi

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// gate is the offline model with a gate: from call number holdAt (from
// 0) on, each call waits until the test opens the gate (or ctx is done).
type gate struct {
	llms.Model
	holdAt int
	mu     sync.Mutex
	calls  int
	open   chan struct{}
	once   sync.Once
}

func newGate(holdAt int) *gate {
	return &gate{Model: deepresearchtest.Model(0), holdAt: holdAt, open: make(chan struct{})}
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

func (g *gate) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	if purpose.Of(ctx) == purpose.Clarifier {
		return g.Model.GenerateContent(ctx, msgs, opts...) // asks nothing; not counted
	}
	g.mu.Lock()
	n := g.calls
	g.calls++
	g.mu.Unlock()
	if n >= g.holdAt {
		select {
		case <-g.open:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	return g.Model.GenerateContent(ctx, msgs, opts...)
}

// env is a server over the test corpus and a store in a temp folder.
type env struct {
	t     *testing.T
	dir   string
	store *sqlitestore.Store
	runs  *deepresearch.Runs
	srv   *Server
	http  *httptest.Server
	r     *deepresearch.Researcher
	clock *clock.Fake // the server's and its Runs': run time limits, heartbeats
}

// armedFor waits for the server (or its Runs) to arm a timer of d.
func (e *env) armedFor(d time.Duration) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.t.Context(), 2*time.Minute) // a failure bound, not a timing assertion
	defer cancel()
	if err := e.clock.WaitArmed(ctx, d); err != nil {
		e.t.Fatalf("the server armed no timer of %v", d)
	}
}

type envOpts struct {
	model   llms.Model
	token   string
	maxRuns int
	dir     string
	beat    time.Duration
	// wrap, if set, wraps the Runs' recorder; planTimeout, planAction
	// and maxResumes are the Runs' ReviewTimeout, OnReviewTimeout and
	// MaxResumes.
	wrap        func(deepresearch.RunRecorder) deepresearch.RunRecorder
	planTimeout time.Duration
	planAction  deepresearch.TimeoutAction
	maxResumes  int
	maxBody     int64 // 0: 4096
	// start is the fake clock's time (zero: 2026-11-22 12:00 UTC). With
	// a planTimeout the Researcher keeps the same clock: a plan's
	// deadline runs from the time the run journals it was put to review.
	start time.Time
	// people is the Researcher's Config.People.
	people deepresearch.PeopleDefaults
	// fetchAllow is the Researcher's Config.Fetch.Allow.
	fetchAllow []string
	// render and maxPrints are the server's Config.Render and MaxPrints.
	render    render.Options
	maxPrints int
}

func newEnv(t *testing.T, o envOpts) *env {
	t.Helper()
	if o.start.IsZero() {
		o.start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	}
	e := &env{t: t, dir: o.dir, clock: clock.NewFake(o.start)}
	if e.dir == "" {
		e.dir = t.TempDir()
	}
	var rclock clock.Clock
	if o.planTimeout > 0 {
		rclock = e.clock
	}
	r, err := deepresearch.New(deepresearch.Config{Clock: rclock,
		Model: o.model, Search: deepresearchtest.Corpus(t, filepath.Join("..", "testdata", "corpus"), filepath.Join(e.dir, "index.db")), MaxRetries: -1, People: o.people,
		Fetch: deepresearch.FetchConfig{Allow: o.fetchAllow},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.r = r
	if e.store, err = sqlitestore.Open(t.Context(), filepath.Join(e.dir, "runs.db"), sqlitestore.Options{Poll: time.Hour}); err != nil {
		t.Fatal(err)
	}
	var rec deepresearch.RunRecorder = r
	if o.wrap != nil {
		rec = o.wrap(r)
	}
	e.runs, err = deepresearch.NewRuns(rec, e.store, deepresearch.RunsOptions{MaxRuns: o.maxRuns, Clock: e.clock,
		ReviewTimeout: o.planTimeout, OnReviewTimeout: o.planAction, MaxResumes: o.maxResumes})
	if err != nil {
		t.Fatal(err)
	}
	e.srv, err = New(Config{Runs: e.runs, Token: o.token, Heartbeat: o.beat, MaxBody: cmp.Or(o.maxBody, 4096), Clock: e.clock,
		Render: o.render, MaxPrints: o.maxPrints})
	if err != nil {
		t.Fatal(err)
	}
	e.http = httptest.NewServer(e.srv)
	t.Cleanup(e.close)
	return e
}

func (e *env) close() {
	e.http.CloseClientConnections()
	e.runs.Close()
	e.http.Close()
	e.store.Close()
	e.r.Close()
}

func (e *env) do(method, path, body string, hdr ...string) *http.Response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.http.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func readJSON(t *testing.T, res *http.Response, v any) {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s %s: body %q is not JSON: %v", res.Request.Method, res.Request.URL.Path, b, err)
	}
}

type started struct {
	ID     string            `json:"id"`
	Status string            `json:"status"`
	URLs   map[string]string `json:"urls"`
}

func (e *env) start(question string) started {
	e.t.Helper()
	res := e.do("POST", "/v1/research", `{"question":`+strconv.Quote(question)+`}`)
	if res.StatusCode != http.StatusAccepted {
		b, _ := io.ReadAll(res.Body)
		e.t.Fatalf("POST /v1/research: %s %s", res.Status, b)
	}
	var s started
	readJSON(e.t, res, &s)
	if s.ID == "" || res.Header.Get("Location") != "/v1/research/"+s.ID || s.URLs["events"] != "/v1/research/"+s.ID+"/events" {
		e.t.Fatalf("POST /v1/research answered %+v, Location %q", s, res.Header.Get("Location"))
	}
	return s
}

// sse is one server-sent event as read off the wire.
type sse struct {
	id, event, data string
	comment         bool
}

// readSSE parses an SSE stream, calling f with each event (and comment)
// until f returns false or the stream ends.
func readSSE(t *testing.T, r io.Reader, f func(sse) bool) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var cur sse
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" || cur.data != "" || cur.comment {
				if !f(cur) {
					return
				}
			}
			cur = sse{}
		case strings.HasPrefix(line, ":"):
			cur.comment = true
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		}
	}
}

// ended waits until run id has ended and the Runs has given back its
// slot (which it does just after the run's end is stored).
func (e *env) ended(id string) {
	e.t.Helper()
	if err := e.runs.Wait(e.t.Context(), id); err != nil {
		e.t.Fatal(err)
	}
}

// events follows a run's SSE stream from after (0: the start) to its end
// and returns the log events and the "end" event's data.
func (e *env) events(id string, after uint64) ([]sse, map[string]any) {
	e.t.Helper()
	var hdr []string
	if after > 0 {
		hdr = []string{"Last-Event-ID", strconv.FormatUint(after, 10)}
	}
	res := e.do("GET", "/v1/research/"+id+"/events", "", hdr...)
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		e.t.Fatalf("events: %s %s", res.Status, res.Header.Get("Content-Type"))
	}
	var got []sse
	var end map[string]any
	readSSE(e.t, res.Body, func(s sse) bool {
		switch {
		case s.comment:
		case s.event == "end":
			json.Unmarshal([]byte(s.data), &end)
			return false
		default:
			got = append(got, s)
		}
		return true
	})
	return got, end
}

// checkRun asserts a followed stream is seq from..last without gaps,
// each SSE event's id and type matching its data, the data exactly the
// stored JSON.
func checkRun(t *testing.T, st *sqlitestore.Store, id string, got []sse, from uint64) {
	t.Helper()
	checkStream(t, st, id, got, from, false)
}

// checkStream is checkRun; with prefix, got may stop before the log does.
func checkStream(t *testing.T, st *sqlitestore.Store, id string, got []sse, from uint64, prefix bool) {
	t.Helper()
	var stored []sqlitestore.Event
	for e, err := range st.Events(t.Context(), id, from-1) {
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, e)
		if prefix && len(stored) == len(got) {
			break // the run goes on: read no further
		}
	}
	if prefix && len(got) <= len(stored) {
		stored = stored[:len(got)]
	}
	if len(got) != len(stored) || len(got) == 0 {
		t.Fatalf("streamed %d events after %d, the store has %d", len(got), from-1, len(stored))
	}
	for i, s := range got {
		want := stored[i]
		if s.id != strconv.FormatUint(want.Seq, 10) || s.event != want.Type || s.data != string(want.JSON) {
			t.Fatalf("event %d: id %s event %s data %s; want %d %s %s", i, s.id, s.event, s.data, want.Seq, want.Type, want.JSON)
		}
		if want.Seq != from+uint64(i) {
			t.Fatalf("event %d has seq %d, want %d", i, want.Seq, from+uint64(i))
		}
	}
}

func TestResearchEndToEnd(t *testing.T) {
	e := newEnv(t, envOpts{})
	s := e.start("How are undersea cables repaired?")
	got, end := e.events(s.ID, 0)
	checkRun(t, e.store, s.ID, got, 1)
	if got[0].event != "run.started" || got[len(got)-1].event != "run.finished" || end["status"] != "finished" {
		t.Fatalf("stream from %s to %s, end %v", got[0].event, got[len(got)-1].event, end)
	}

	var v struct {
		ID     string         `json:"id"`
		Status string         `json:"status"`
		Usage  map[string]int `json:"usage"`
		Report string         `json:"report"`
		Events int            `json:"events"`
	}
	readJSON(t, e.do("GET", "/v1/research/"+s.ID, ""), &v)
	if v.Status != "finished" || v.Usage["calls"] == 0 || !strings.Contains(v.Report, "## References") || v.Events != len(got) {
		t.Fatalf("GET run = %+v", v)
	}
	for _, tc := range []struct{ format, ctype, has string }{
		{"md", "text/markdown; charset=utf-8", "## References"},
		{"html", "text/html; charset=utf-8", "<html"},
		{"json", "application/json", `"_citations"`},
		{"yaml", "application/yaml", "\n_citations:\n  - path: /blocks/"},
		{"json", "application/json", `"citation_format": "internal_kb"`}, // seed 003's: local files only
		{"yaml", "application/yaml", "\ncitation_format: internal_kb\n"},
		{"csl-json", "application/vnd.citationstyles.csl+json", `"URL"`},
		{"bibtex", "application/x-bibtex; charset=utf-8", "@"},
		{"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "word/document.xml"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			res := e.do("GET", "/v1/research/"+s.ID+"?format="+tc.format, "")
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != tc.ctype || !bytes.Contains(b, []byte(tc.has)) {
				t.Fatalf("format %s: %s %s, body has %q: %v", tc.format, res.Status, res.Header.Get("Content-Type"), tc.has, bytes.Contains(b, []byte(tc.has)))
			}
			// A binary document comes as a file to save, named by the run.
			disp, want := res.Header.Get("Content-Disposition"), ""
			if tc.format == "docx" {
				want = `attachment; filename=report-` + s.ID + `.docx`
			}
			if disp != want {
				t.Errorf("Content-Disposition %q, want %q", disp, want)
			}
		})
	}
	// The cited sources are kept with the text that was read.
	srcs, err := e.store.Sources(t.Context(), s.ID)
	if err != nil || len(srcs) == 0 {
		t.Fatalf("stored sources: %d, %v", len(srcs), err)
	}
	for _, src := range srcs {
		if src.Text == "" || len(src.SHA256) != 64 || !strings.HasPrefix(src.URL, "file://") {
			t.Fatalf("stored source %+v", src)
		}
	}

	// NDJSON: the same events, one JSON line each.
	res := e.do("GET", "/v1/research/"+s.ID+"/events", "", "Accept", "application/x-ndjson")
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if res.Header.Get("Content-Type") != "application/x-ndjson" || len(lines) != len(got) {
		t.Fatalf("NDJSON: %s, %d lines for %d events", res.Header.Get("Content-Type"), len(lines), len(got))
	}
	for i, l := range lines {
		if l != got[i].data {
			t.Fatalf("NDJSON line %d = %s, want %s", i, l, got[i].data)
		}
	}
}

// TestReconnect cuts a stream off mid-run and reconnects with
// Last-Event-ID while the run goes on, and again after it ended.
func TestReconnect(t *testing.T) {
	g := newGate(1) // the planner answers; every later call waits
	e := newEnv(t, envOpts{model: g})
	s := e.start("How are undersea cables repaired?")

	res := e.do("GET", "/v1/research/"+s.ID+"/events", "")
	var first []sse
	readSSE(t, res.Body, func(ev sse) bool {
		if !ev.comment {
			first = append(first, ev)
		}
		return ev.event != "plan"
	})
	res.Body.Close() // cut off mid-run
	checkStream(t, e.store, s.ID, first, 1, true)
	last, _ := strconv.ParseUint(first[len(first)-1].id, 10, 64)

	g.release()
	rest, end := e.events(s.ID, last)
	if end["status"] != "finished" {
		t.Fatalf("end = %v", end)
	}
	checkRun(t, e.store, s.ID, rest, last+1)

	// After the end, from the middle: the rest, once.
	mid := (last + uint64(len(rest))) / 2
	again, _ := e.events(s.ID, mid)
	checkRun(t, e.store, s.ID, again, mid+1)
	// From the last event: nothing but the end.
	total := last + uint64(len(rest))
	none, end := e.events(s.ID, total)
	if len(none) != 0 || end["status"] != "finished" {
		t.Fatalf("after the last event: %d events, end %v", len(none), end)
	}
}

func TestHeartbeat(t *testing.T) {
	g := newGate(0)
	e := newEnv(t, envOpts{model: g, beat: time.Second})
	s := e.start("How are undersea cables repaired?")
	res := e.do("GET", "/v1/research/"+s.ID+"/events", "")
	beats := 0
	readSSE(t, res.Body, func(ev sse) bool {
		if ev.comment {
			beats++
		}
		// The stream is open and its heartbeat armed once anything came:
		// move the server's clock to the next heartbeat. (A tick the
		// stream has not taken yet makes the next one drop, but then that
		// tick's comment comes and moves the clock again.)
		if beats < 2 {
			e.clock.Advance(time.Second)
		}
		return beats < 2
	})
	res.Body.Close()
	g.release()
	if beats < 2 {
		t.Fatalf("saw %d heartbeats", beats)
	}
}

func TestCancel(t *testing.T) {
	g := newGate(1)
	e := newEnv(t, envOpts{model: g})
	s := e.start("How are undersea cables repaired?")
	var v struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	res := e.do("DELETE", "/v1/research/"+s.ID, "")
	if res.StatusCode != 200 {
		t.Fatalf("DELETE: %s", res.Status)
	}
	readJSON(t, res, &v)
	if v.Status != "canceled" {
		t.Fatalf("after DELETE the run is %+v", v)
	}
	got, end := e.events(s.ID, 0)
	if end["status"] != "canceled" || got[len(got)-1].event != "error" {
		t.Fatalf("a canceled run's stream ends with %s, end %v", got[len(got)-1].event, end)
	}
	checkRun(t, e.store, s.ID, got, 1)
	// Deleting it again: it has ended.
	res = e.do("DELETE", "/v1/research/"+s.ID, "")
	checkError(t, res, 409, typeConflict, "already ended")
}

func TestTimeLimit(t *testing.T) {
	g := newGate(1)
	e := newEnv(t, envOpts{model: g})
	s := e.start("How are undersea cables repaired?")
	e.clock.Advance(defaults.ServeRunTimeout) // the run's time limit passes
	_, end := e.events(s.ID, 0)
	if end["status"] != "failed" || !strings.Contains(end["error"].(string), "time limit") {
		t.Fatalf("a run past its time limit ends %v", end)
	}
}

func TestConcurrencyCap(t *testing.T) {
	g := newGate(0)
	e := newEnv(t, envOpts{model: g, maxRuns: 2})
	a, b := e.start("first question about cables"), e.start("second question about cables")
	res := e.do("POST", "/v1/research", `{"question":"third"}`)
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	checkError(t, res, 429, typeRate, "2 runs are in progress")
	res = e.do("POST", "/v1/chat/completions", `{"model":"deepresearch","messages":[{"role":"user","content":"q"}]}`)
	checkError(t, res, 429, typeRate, "runs are in progress")
	g.release()
	e.ended(a.ID)
	e.ended(b.ID)
	e.events(e.start("fourth question about cables").ID, 0)
}

// TestRestart reopens the store after the server stopped: the finished
// run is all there; the run cut off by the stop is interrupted.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	g := newGate(1 << 30)
	e := newEnv(t, envOpts{model: g, dir: dir})
	done := e.start("How are undersea cables repaired?")
	before, _ := e.events(done.ID, 0)
	md := e.do("GET", "/v1/research/"+done.ID+"?format=md", "")
	wantMD, _ := io.ReadAll(md.Body)
	md.Body.Close()
	g.holdAt = 0 // the next run hangs
	cut := e.start("What did the Great Eastern do?")
	e.close()

	e2 := newEnv(t, envOpts{dir: dir})
	after, end := e2.events(done.ID, 0)
	if len(after) != len(before) || end["status"] != "finished" {
		t.Fatalf("after a restart: %d events (had %d), end %v", len(after), len(before), end)
	}
	checkRun(t, e2.store, done.ID, after, 1)
	res := e2.do("GET", "/v1/research/"+done.ID+"?format=md", "")
	gotMD, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(gotMD, wantMD) {
		t.Fatal("the report renders differently after a restart")
	}
	_, end = e2.events(cut.ID, 0)
	if end["status"] != "interrupted" {
		t.Fatalf("the run cut off by the stop is %v", end)
	}
	res = e2.do("GET", "/v1/research/"+cut.ID+"?format=md", "")
	checkError(t, res, 409, typeConflict, "interrupted")
}

func checkError(t *testing.T, res *http.Response, status int, typ, has string) {
	t.Helper()
	var body struct {
		Error apiError `json:"error"`
	}
	if res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s %s: Content-Type %q", res.Request.Method, res.Request.URL, res.Header.Get("Content-Type"))
	}
	readJSON(t, res, &body)
	if res.StatusCode != status || body.Error.Type != typ || !strings.Contains(body.Error.Message, has) {
		t.Fatalf("%s %s: %d %+v; want %d %s with %q", res.Request.Method, res.Request.URL, res.StatusCode, body.Error, status, typ, has)
	}
}

func TestErrors(t *testing.T) {
	g := newGate(1)
	defer g.release()
	e := newEnv(t, envOpts{model: g})
	live := e.start("a live question about cables")
	big := `{"question":"` + strings.Repeat("x", 5000) + `"}`
	tests := []struct {
		name, method, path, body string
		hdr                      []string
		status                   int
		typ, has                 string
	}{
		{"empty body", "POST", "/v1/research", "", []string{"Content-Type", "application/json"}, 400, typeInvalid, "empty"},
		{"not JSON", "POST", "/v1/research", `{"question":`, nil, 400, typeInvalid, "not valid JSON"},
		{"trailing data", "POST", "/v1/research", `{"question":"q"} {}`, nil, 400, typeInvalid, "more after"},
		{"unknown member", "POST", "/v1/research", `{"question":"q","corpus":"/etc"}`, nil, 400, typeInvalid, `"corpus"`},
		{"wrong type", "POST", "/v1/research", `{"question":7}`, nil, 400, typeInvalid, "question"},
		{"no question", "POST", "/v1/research", `{}`, nil, 400, typeInvalid, "question"},
		{"blank question", "POST", "/v1/research", `{"question":"  "}`, nil, 400, typeInvalid, "empty"},
		{"max_tasks too big", "POST", "/v1/research", `{"question":"q","max_tasks":99}`, nil, 400, typeInvalid, "max_tasks"},
		{"negative search_limit", "POST", "/v1/research", `{"question":"q","search_limit":-1}`, nil, 400, typeInvalid, "search_limit"},
		{"bad domain pattern", "POST", "/v1/research", `{"question":"q","domains":{"deny":["a b.example"]}}`, nil, 400, typeInvalid, `"domains"`},
		{"unknown domains member", "POST", "/v1/research", `{"question":"q","domains":{"block":["a.example"]}}`, nil, 400, typeInvalid, `"block"`},
		{"bad style", "POST", "/v1/research", `{"question":"q","style":"fancy"}`, nil, 400, typeInvalid, `"style" is "fancy"; want markdown, plain, footnote or html`},
		{"bad review", "POST", "/v1/research", `{"question":"q","review":"always"}`, nil, 400, typeInvalid, `"review" is "always"; want never, first_plan or every_cycle`},
		{"review_plan against review never", "POST", "/v1/research", `{"question":"q","review_plan":true,"review":"never"}`, nil, 400, typeInvalid, "review_plan"},
		{"body too large", "POST", "/v1/research", big, nil, 413, typeInvalid, "larger than 4096"},
		{"not JSON content", "POST", "/v1/research", `question=q`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, typeInvalid, "application/json"},
		{"unknown run", "GET", "/v1/research/nope", "", nil, 404, typeNotFound, `"nope"`},
		{"unknown run events", "GET", "/v1/research/nope/events", "", nil, 404, typeNotFound, `"nope"`},
		{"cancel unknown run", "DELETE", "/v1/research/nope", "", nil, 404, typeNotFound, `"nope"`},
		{"bad format", "GET", "/v1/research/" + live.ID + "?format=odt", "", nil, 400, typeInvalid, "odt"},
		{"report before the end", "GET", "/v1/research/" + live.ID + "?format=md", "", nil, 409, typeConflict, "no report yet"},
		{"bad Last-Event-ID", "GET", "/v1/research/" + live.ID + "/events", "", []string{"Last-Event-ID", "x1"}, 400, typeInvalid, "Last-Event-ID"},
		{"bad after", "GET", "/v1/research/" + live.ID + "/events?after=-3", "", nil, 400, typeInvalid, "after"},
		{"unknown path", "GET", "/v1/nothing", "", nil, 404, typeNotFound, "/v1/nothing"},
		{"a file path", "GET", "/../../etc/passwd", "", nil, 404, typeNotFound, "no such endpoint"},
		{"wrong method", "PUT", "/v1/research", "", nil, 405, typeInvalid, "PUT"},
		{"chat: no user message", "POST", "/v1/chat/completions", `{"model":"deepresearch","messages":[{"role":"system","content":"hi"}]}`, nil, 400, typeInvalid, "user message"},
		{"chat: unknown model", "POST", "/v1/chat/completions", `{"model":"gpt-4o","messages":[{"role":"user","content":"q"}]}`, nil, 404, typeInvalid, "gpt-4o"},
		{"chat: bad content", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":7}]}`, nil, 400, typeInvalid, "messages[0]"},
		{"chat: not JSON", "POST", "/v1/chat/completions", `[`, nil, 400, typeInvalid, "JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkError(t, e.do(tt.method, tt.path, tt.body, tt.hdr...), tt.status, tt.typ, tt.has)
		})
	}
}

func TestAuth(t *testing.T) {
	e := newEnv(t, envOpts{token: "s3cret-token-for-tests"})
	tests := []struct {
		name   string
		path   string
		hdr    []string
		status int
	}{
		{"no token", "/v1/models", nil, 401},
		{"wrong token", "/v1/models", []string{"Authorization", "Bearer nope"}, 401},
		{"not bearer", "/v1/models", []string{"Authorization", "Basic czNjcmV0"}, 401},
		{"bearer", "/v1/models", []string{"Authorization", "Bearer s3cret-token-for-tests"}, 200},
		{"page cookie", "/v1/models", []string{"Cookie", "deepresearch_token=s3cret-token-for-tests"}, 200},
		{"run without token", "/v1/research/x", nil, 401},
		{"page is open", "/", nil, 200},
		{"healthz is open", "/healthz", nil, 200},
		{"runs list without token", "/v1/research", nil, 401},
		{"a source without token", "/v1/research/x/sources/1", nil, 401},
		{"the fragment without token", "/v1/research/x/fragment", nil, 401},
		{"a run's page is open", "/runs/x", nil, 200},
		{"the page's config is open", "/page.json", nil, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.do("GET", tt.path, "", tt.hdr...)
			if tt.status == 401 {
				if res.Header.Get("WWW-Authenticate") == "" {
					t.Fatal("401 without WWW-Authenticate")
				}
				checkError(t, res, 401, typeAuth, "token")
				return
			}
			res.Body.Close()
			if res.StatusCode != tt.status {
				t.Fatalf("%s: %s", tt.path, res.Status)
			}
		})
	}
}

func TestModelsPageHealth(t *testing.T) {
	e := newEnv(t, envOpts{})
	var m struct {
		Object string `json:"object"`
		Data   []struct {
			ID, Object string
		} `json:"data"`
	}
	readJSON(t, e.do("GET", "/v1/models", ""), &m)
	if m.Object != "list" || len(m.Data) != 1 || m.Data[0].ID != ModelID || m.Data[0].Object != "model" {
		t.Fatalf("/v1/models = %+v", m)
	}
	var h map[string]string
	readJSON(t, e.do("GET", "/healthz", ""), &h)
	if h["status"] != "ok" {
		t.Fatalf("/healthz = %v", h)
	}
	for _, p := range []struct{ path, ctype, has string }{
		{"/", "text/html; charset=utf-8", `<script src="/app.js"`},
		{"/app.js", "text/javascript; charset=utf-8", "new EventSource"},
		{"/app.css", "text/css; charset=utf-8", "#references"},
		{"/followups.js", "text/javascript; charset=utf-8", "/ask"},
		{"/compare.js", "text/javascript; charset=utf-8", "/recheck"},
	} {
		res := e.do("GET", p.path, "")
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != p.ctype || !bytes.Contains(b, []byte(p.has)) ||
			!strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Fatalf("GET %s: %s %q, CSP %q", p.path, res.Status, res.Header.Get("Content-Type"), res.Header.Get("Content-Security-Policy"))
		}
	}
}

// TestWriterFailureServesFindings: a run whose writer failed ends failed,
// and its report is the agents' merged findings, in every format.
func TestWriterFailureServesFindings(t *testing.T) {
	e := newEnv(t, envOpts{model: deepresearchtest.FailingWriter(deepresearchtest.Model(0), errors.New("the writer is down"))})
	s := e.start("How are undersea cables repaired?")
	if _, end := e.events(s.ID, 0); end["status"] != "failed" || !strings.Contains(end["error"].(string), "the writer is down") {
		t.Fatalf("the run ended %v", end)
	}
	res := e.do("GET", "/v1/research/"+s.ID+"?format=md", "")
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "## References") || strings.Count(string(body), "\n## ") < 2 {
		t.Fatalf("?format=md: %s\n%s", res.Status, body)
	}
	for _, format := range []string{"html", "json", "csl-json", "bibtex"} {
		res := e.do("GET", "/v1/research/"+s.ID+"?format="+format, "")
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("?format=%s: %s", format, res.Status)
		}
	}
	var v struct {
		Status string `json:"status"`
		Report string `json:"report"`
	}
	readJSON(t, e.do("GET", "/v1/research/"+s.ID, ""), &v)
	if v.Status != "failed" || v.Report != string(body) {
		t.Errorf("GET run: status %s, report %q; want failed with the findings", v.Status, v.Report)
	}
}

// A report's file name is made of the run ID's safe characters alone, so
// no ID can steer where a client saves it or break the header.
func TestAttachmentName(t *testing.T) {
	for id, want := range map[string]string{
		"r-01_AB":                 "attachment; filename=report-r-01_AB.docx",
		"../../etc/x\"\r\nSet: y": "attachment; filename=report-______etc_x___Set__y.docx",
		"日本":                      "attachment; filename=report-__.docx",
	} {
		if got := attachment(id, render.DOCX); got != want {
			t.Errorf("attachment(%q) = %q, want %q", id, got, want)
		}
	}
}
