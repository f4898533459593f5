package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// TestCrossSiteRequestsStartNoRun (issue 18, #1): on the default server
// (no token, loopback) a request a web page can make — a POST without
// application/json, one from another origin or site, one whose Host
// names another server (DNS rebinding) — is refused and starts no run;
// no answer carries a CORS header that would let a page read it.
func TestCrossSiteRequestsStartNoRun(t *testing.T) {
	e := newEnv(t, envOpts{})
	host := strings.TrimPrefix(e.http.URL, "http://")
	_, port, _ := net.SplitHostPort(host)
	body := `{"question":"How are undersea cables repaired?"}`
	for _, tc := range []struct {
		name, method, path, body string
		hdr                      []string
		status                   int
	}{
		{"no Content-Type", "POST", "/v1/research", body, []string{"Content-Type", ""}, 415},
		{"text/plain (a no-cors Blob)", "POST", "/v1/research", body, []string{"Content-Type", "text/plain;charset=UTF-8"}, 415},
		{"a form", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"q"}]}`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415},
		{"another origin", "POST", "/v1/research", body, []string{"Origin", "http://evil.example"}, 403},
		{"another port", "POST", "/v1/research", body, []string{"Origin", "http://127.0.0.1:1"}, 403},
		{"a null origin", "POST", "/v1/research", body, []string{"Origin", "null"}, 403},
		{"a same-site page", "POST", "/v1/research", body, []string{"Sec-Fetch-Site", "same-site"}, 403},
		{"a cross-site page", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"q"}]}`, []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"a cross-site stream", "GET", "/v1/research/x/events", "", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"DNS rebinding", "POST", "/v1/research", body, []string{"Host", "evil.example:" + port}, 403},
		{"DNS rebinding reads", "GET", "/v1/models", "", []string{"Host", "evil.example:" + port}, 403},
		{"rebinding with a matching Origin", "POST", "/v1/research", body, []string{"Host", "evil.example:" + port, "Origin", "http://evil.example:" + port}, 403},
		{"another port in Host", "GET", "/v1/models", "", []string{"Host", "127.0.0.1:1"}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.doHost(tc.method, tc.path, tc.body, tc.hdr...)
			if cors := res.Header.Get("Access-Control-Allow-Origin"); cors != "" {
				t.Errorf("Access-Control-Allow-Origin: %q", cors)
			}
			var body struct{ Error apiError }
			readJSON(t, res, &body)
			if res.StatusCode != tc.status || body.Error.Message == "" {
				t.Fatalf("%s %s: %d %+v, want %d", tc.method, tc.path, res.StatusCode, body.Error, tc.status)
			}
		})
	}
	// A preflight gets no leave to send anything.
	res := e.doHost("OPTIONS", "/v1/research", "", "Origin", "http://evil.example", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type")
	res.Body.Close()
	for name := range res.Header {
		if strings.HasPrefix(name, "Access-Control-") {
			t.Errorf("the preflight answer has %s: %q", name, res.Header.Get(name))
		}
	}
	if runs, err := e.store.List(t.Context(), 0); err != nil || len(runs) != 0 {
		t.Fatalf("%d runs started (%v)", len(runs), err)
	}
	// The server's own page, and clients that are no browser, still work.
	for _, hdr := range [][]string{
		{"Origin", e.http.URL, "Sec-Fetch-Site", "same-origin"},
		{"Host", "localhost:" + port},
		nil,
	} {
		res := e.doHost("POST", "/v1/research", body, hdr...)
		var s started
		readJSON(t, res, &s)
		if res.StatusCode != http.StatusAccepted {
			t.Fatalf("POST with %q: %s", hdr, res.Status)
		}
		e.ended(s.ID)
	}
}

// doHost is do with headers that may set Host (and empty values that
// delete a header).
func (e *env) doHost(method, path, body string, hdr ...string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.http.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		switch {
		case hdr[i] == "Host":
			req.Host = hdr[i+1]
		case hdr[i+1] == "":
			req.Header.Del(hdr[i])
		default:
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// TestTokenMustBeASecret (issue 18, #2): an empty-looking or short token
// is refused, so that a server that requires one requires a secret.
func TestTokenMustBeASecret(t *testing.T) {
	runs, err := deepresearch.NewRuns((*deepresearch.Researcher)(nil), &sqlitestore.Store{}, deepresearch.RunsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{" ", "\t\n", "short", "fifteen-chars!!", " sixteen-chars-x", "with space inside"} {
		if _, err := New(Config{Runs: runs, Token: tok}); err == nil {
			t.Errorf("token %q accepted", tok)
		}
	}
	if _, err := New(Config{Runs: runs, Token: "sixteen-chars-ok"}); err != nil {
		t.Errorf("a 16-character token: %v", err)
	}
}

// TestEventIDOutOfRange (issue 18, #15): a Last-Event-ID or after of 2^63
// or more is refused, not read as a number before the log's start.
func TestEventIDOutOfRange(t *testing.T) {
	e := newEnv(t, envOpts{})
	s := e.start("How are undersea cables repaired?")
	e.ended(s.ID)
	for _, v := range []string{strconv.FormatUint(math.MaxInt64+1, 10), strconv.FormatUint(math.MaxUint64, 10), "99999999999999999999999"} {
		checkError(t, e.do("GET", "/v1/research/"+s.ID+"/events", "", "Last-Event-ID", v), 400, typeInvalid, "out of range")
		checkError(t, e.do("GET", "/v1/research/"+s.ID+"/events?after="+v, ""), 400, typeInvalid, "out of range")
	}
	got, _ := e.events(s.ID, math.MaxInt64)
	if len(got) != 0 {
		t.Errorf("after the largest sequence number: %d events", len(got))
	}
}

// TestBodyErrorsInUsersTerms (issue 18, #16): a body of the wrong JSON
// type is described in the endpoint's terms, never with a Go type name.
func TestBodyErrorsInUsersTerms(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/research", `[]`, "must be a JSON object"},
		{"/v1/research", `"q"`, "must be a JSON object"},
		{"/v1/research", `{"question":7}`, `"question" must be a string, not a number`},
		{"/v1/research", `{"question":"q","max_tasks":"4"}`, `"max_tasks" must be an integer, not a string`},
		{"/v1/research", `{"question":"q","max_tasks":1.5}`, `"max_tasks" must be an integer, not a number`},
		{"/v1/chat/completions", `[1]`, "must be a JSON object"},
		{"/v1/chat/completions", `{"messages":{}}`, `"messages" must be an array, not an object`},
		{"/v1/chat/completions", `{"stream":"yes","messages":[]}`, `"stream" must be a boolean, not a string`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"q"},"hi"]}`, `messages[1] must be an object, not a string`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"q"},{"role":"user","content":"q"},{"role":7}]}`, `messages[2].role must be a string, not a number`},
	} {
		res := e.do("POST", tc.path, tc.body)
		var body struct{ Error apiError }
		readJSON(t, res, &body)
		msg := body.Error.Message
		if res.StatusCode != 400 || !strings.Contains(msg, tc.want) || strings.Contains(msg, "deepresearch.") || strings.Contains(msg, "httpapi.") ||
			strings.Contains(msg, "int") && !strings.Contains(msg, "integer") {
			t.Errorf("%s %s: %d %q, want %q", tc.path, tc.body, res.StatusCode, msg, tc.want)
		}
	}
}

// pipeListener serves HTTP over net.Pipe connections, which a synctest
// bubble can wait on (a socket it cannot): their deadlines run on the
// bubble's clock.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error { l.once.Do(func() { close(l.closed) }); return nil }

func (l *pipeListener) Addr() net.Addr { return loopbackAddr }

var loopbackAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}

// pipeConn is a net.Pipe end that says it is a loopback TCP connection.
type pipeConn struct{ net.Conn }

func (pipeConn) LocalAddr() net.Addr  { return loopbackAddr }
func (pipeConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000} }

// dial connects a client to the listener.
func (l *pipeListener) dial() net.Conn {
	s, c := net.Pipe()
	l.conns <- pipeConn{s}
	return c
}

// pipeEnv is a server in a synctest bubble, on a pipe listener, over a
// store holding one ended run with many events.
type pipeEnv struct {
	t     *testing.T
	srv   *Server
	ln    *pipeListener
	hs    *http.Server
	store *sqlitestore.Store
	run   string
}

func newPipeEnv(t *testing.T, cfg Config) *pipeEnv {
	t.Helper()
	st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "runs.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &pipeEnv{t: t, store: st, ln: newPipeListener()}
	ctx := context.Background()
	e.run = deepresearch.NewRunID()
	if err := st.Create(ctx, sqlitestore.Run{ID: e.run, Question: "q", Options: json.RawMessage(`{"question":"q"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := st.Start(ctx, e.run); err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= 200; seq++ {
		ev := events.Event{RunID: e.run, Seq: seq, Type: events.ReportDelta, Agent: -1, Data: events.ReportDeltaData{Text: strings.Repeat("x", 1000)}}
		if err := st.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Finish(ctx, e.run, runstore.Finished, events.Usage{}, ""); err != nil {
		t.Fatal(err)
	}
	if cfg.Runs, err = deepresearch.NewRuns((*deepresearch.Researcher)(nil), st, deepresearch.RunsOptions{}); err != nil {
		t.Fatal(err)
	}
	if e.srv, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	e.hs = &http.Server{Handler: e.srv, ReadHeaderTimeout: 10 * time.Second}
	go e.hs.Serve(e.ln)
	return e
}

func (e *pipeEnv) close() {
	e.hs.Close()
	e.ln.Close()
	e.srv.cfg.Runs.Close()
	e.store.Close()
}

// request sends a raw request on a new connection and returns the
// connection and its reader, the answer's status line read. An answer
// that has not come in a minute (of the bubble's time) fails the test.
func (e *pipeEnv) request(raw string) (net.Conn, *bufio.Reader, string) {
	e.t.Helper()
	c := e.ln.dial()
	go io.WriteString(c, raw)
	r := bufio.NewReaderSize(c, 16)
	var status string
	var err error
	read := make(chan struct{})
	go func() {
		defer close(read)
		status, err = r.ReadString('\n')
	}()
	select {
	case <-read:
	case <-time.After(time.Minute):
		c.Close()
		<-read
		e.t.Fatalf("no answer to %q in a minute", raw)
	}
	if err != nil {
		e.t.Fatalf("no answer to %q: %v", raw, err)
	}
	return c, r, strings.TrimSpace(status)
}

// drained reads r to its end and reports whether it ended within a
// minute (of the bubble's time).
func drained(r io.Reader) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(io.Discard, r)
	}()
	select {
	case <-done:
		return true
	case <-time.After(time.Minute):
		return false
	}
}

// TestBodyDeadline (issue 18, #8): a client that sends a request's headers
// and not its body is answered 408 once BodyTimeout has passed, and one
// refused before its body is read (no token) is cut off then: neither
// holds a connection for ever.
func TestBodyDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newPipeEnv(t, Config{BodyTimeout: 10 * time.Second})
		defer e.close()
		start := time.Now()
		c, r, status := e.request("POST /v1/research HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n")
		if status != "HTTP/1.1 408 Request Timeout" || time.Since(start) != 10*time.Second {
			t.Errorf("a body that never comes: %q after %v", status, time.Since(start))
		}
		c.Close()
		go io.Copy(io.Discard, r)
	})
	synctest.Test(t, func(t *testing.T) {
		e := newPipeEnv(t, Config{BodyTimeout: 10 * time.Second, Token: "a-token-of-16-chars"})
		defer e.close()
		start := time.Now()
		c, r, status := e.request("POST /v1/research HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n")
		if status != "HTTP/1.1 401 Unauthorized" {
			t.Errorf("unauthenticated: %q", status)
		}
		if !drained(r) || time.Since(start) != 10*time.Second {
			t.Errorf("the connection was held for %v", time.Since(start))
		}
		c.Close()
	})
}

// TestStalledSubscriberDropped (issue 18, #9): event streams are capped
// per run (429 beyond), and a subscriber that stops reading is dropped
// once a write has waited WriteTimeout, which frees its place.
func TestStalledSubscriberDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newPipeEnv(t, Config{WriteTimeout: 30 * time.Second, MaxRunSubscribers: 1})
		defer e.close()
		get := fmt.Sprintf("GET /v1/research/%s/events HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: close\r\n\r\n", e.run)
		stalled, _, status := e.request(get) // and never read again
		if status != "HTTP/1.1 200 OK" {
			t.Fatalf("the first subscriber: %q", status)
		}
		synctest.Wait()
		c, r, status := e.request(get)
		if status != "HTTP/1.1 429 Too Many Requests" {
			t.Errorf("a second subscriber of the run: %q", status)
		}
		c.Close()
		go io.Copy(io.Discard, r)
		time.Sleep(31 * time.Second)
		synctest.Wait()
		c, r, status = e.request(get)
		if status != "HTTP/1.1 200 OK" {
			t.Fatalf("after the stalled one was dropped: %q", status)
		}
		// The body is chunked, and where its chunks break depends on
		// when the server flushed: decode it before counting.
		res, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader(status+"\r\n"), r)), nil)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := io.ReadAll(res.Body)
		if err != nil {
			t.Errorf("reading the new subscriber's stream: %v", err)
		}
		if n := strings.Count(string(rest), "\nevent: report.delta\n"); n != 200 || !strings.Contains(string(rest), "event: end") {
			t.Errorf("the new subscriber saw %d events", n)
		}
		c.Close()
		stalled.Close()
	})
}

// TestSubscriberCaps (issue 18, #9): the event streams of all runs are
// capped too.
func TestSubscriberCaps(t *testing.T) {
	g := newGate(1)
	defer g.release()
	e := newEnv(t, envOpts{model: g})
	e.srv.cfg.MaxSubscribers, e.srv.cfg.MaxRunSubscribers = 3, 2
	a, b := e.start("a live question about cables"), e.start("another live question about cables")
	var open []*http.Response
	defer func() {
		for _, res := range open {
			res.Body.Close()
		}
	}()
	for _, tc := range []struct {
		run    string
		status int
	}{{a.ID, 200}, {a.ID, 200}, {a.ID, 429}, {b.ID, 200}, {b.ID, 429}} {
		res := e.do("GET", "/v1/research/"+tc.run+"/events", "")
		if res.StatusCode != tc.status {
			t.Fatalf("subscriber %d: %s, want %d", len(open)+1, res.Status, tc.status)
		}
		if res.StatusCode == 429 {
			if res.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			var body struct{ Error apiError }
			json.NewDecoder(res.Body).Decode(&body)
			if !strings.Contains(body.Error.Message, "event streams") {
				t.Errorf("429 says %q", body.Error.Message)
			}
			res.Body.Close()
			continue
		}
		open = append(open, res)
	}
}
