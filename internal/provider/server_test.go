package provider_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/retry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reply is one scripted answer of the test server: a fixture from
// testdata/ sent with a status and headers, written chunk bytes at a time
// with a flush after each (0: all at once), or a stall until the client
// gives up.
type reply struct {
	status int
	header map[string]string
	file   string
	chunk  int
	stall  bool
}

// request is what the server received.
type request struct {
	Method, Path, Query string
	Header              http.Header
	Body                map[string]any
}

// server speaks a provider's wire format from fixtures, one reply per
// request in order; it records every request.
type server struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	reqs    []request
	stalled chan struct{} // closed when a stall reply starts
}

func newServer(t *testing.T, replies ...reply) *server {
	t.Helper()
	s := &server{t: t, replies: replies, stalled: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()}
	_ = json.Unmarshal(body, &req.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if len(s.replies) == 0 {
		s.mu.Unlock()
		http.Error(w, `{"error":{"message":"test server: no reply scripted"}}`, http.StatusTeapot)
		return
	}
	rep := s.replies[0]
	s.replies = s.replies[1:]
	s.mu.Unlock()
	if rep.stall {
		close(s.stalled)
		<-r.Context().Done()
		return
	}
	data, err := os.ReadFile(filepath.Join("testdata", rep.file))
	if err != nil {
		s.t.Errorf("fixture: %v", err)
		return
	}
	ct := "application/json"
	if filepath.Ext(rep.file) == ".sse" {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(cmp(rep.status, http.StatusOK))
	if rep.chunk <= 0 {
		w.Write(data)
		return
	}
	f := w.(http.Flusher)
	for len(data) > 0 {
		n := min(rep.chunk, len(data))
		w.Write(data[:n])
		f.Flush()
		data = data[n:]
	}
}

func (s *server) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.reqs...)
}

func cmp(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// env is a getenv over a map.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// retried wraps m as the root package does, waiting on clk: a test drives
// it with clk.Drive, which makes the waits take no time and returns them.
func retried(m llms.Model, clk *clock.Fake) *retry.Model {
	return &retry.Model{Model: m, Policy: retry.Policy{Retries: 3, Backoff: 500 * time.Millisecond,
		Jitter: func() float64 { return 0 }, Clock: clk}}
}

func mustNew(t *testing.T, cfg provider.Config, getenv func(string) string) llms.Model {
	t.Helper()
	m, err := provider.New(context.Background(), cfg, getenv)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var tools = []llms.Tool{
	{Type: "function", Function: &llms.FunctionDefinition{Name: "search", Description: "Search the web.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}, "required": []string{"query"}}}},
	{Type: "function", Function: &llms.FunctionDefinition{Name: "fetch", Description: "Read a page.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string"}}, "required": []string{"url"}}}},
}

func human(s string) []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You are a careful researcher."),
		llms.TextParts(llms.ChatMessageTypeHuman, s),
	}
}
