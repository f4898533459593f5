package mcpsource_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/mcpsource"
	"github.com/deepresearch/deepresearch/search"
)

// envServer makes the test binary an MCP server over stdio (TestStdio).
const envServer = "MCPSOURCE_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(envServer) == "1" {
		if err := newServer(newState()).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// The documents of the test server, by path: one with a terminal escape
// and control characters in it, as untrusted text may hold.
var files = map[string]string{
	"/docs/raft.md":    "# Raft consensus\n\nRaft elects a leader\x1b[31m by randomized timeouts\x07; the leader replicates the log.\n",
	"/docs/paxos.md":   "# Paxos\n\nPaxos reaches consensus with proposers and acceptors.\n",
	"/docs/cooking.md": "# Bread\n\nKnead the dough and let it rise.\n",
}

type state struct {
	started   chan struct{} // a slow call has begun
	cancelled chan struct{} // a slow call saw its context end
	once      sync.Once
	reads     atomic.Int64 // read_doc calls
}

func newState() *state {
	return &state{started: make(chan struct{}, 1), cancelled: make(chan struct{}, 1)}
}

type queryIn struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

type pathIn struct {
	Path string `json:"path"`
}

type listIn struct {
	Dir     string `json:"dir"`
	Pattern string `json:"pattern"`
}

type sizeIn struct {
	Bytes int `json:"bytes"`
}

type slowIn struct {
	Steps int `json:"steps"`
}

// newServer is an MCP server of the go-sdk with a search tool, a read
// tool, a listing, one that fails, one that answers big and one that is
// slow and reports progress.
func newServer(st *state) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-docs", Version: "1"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "search_docs", Description: "full-text search", Annotations: ro},
		func(_ context.Context, _ *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, any, error) {
			var items []any
			for _, p := range slices.Sorted(func(yield func(string) bool) {
				for p := range files {
					if !yield(p) {
						return
					}
				}
			}) {
				if strings.Contains(strings.ToLower(files[p]), strings.ToLower(in.Query)) {
					items = append(items, map[string]any{"path": p, "title": "Title of " + p + "\x1b]0;pwned\x07", "snippet": "about " + in.Query})
				}
			}
			if in.Limit > 0 && len(items) > in.Limit {
				items = items[:in.Limit]
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}, StructuredContent: map[string]any{"results": items}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "read_doc", Annotations: ro},
		func(_ context.Context, _ *mcp.CallToolRequest, in pathIn) (*mcp.CallToolResult, any, error) {
			st.reads.Add(1)
			text, ok := files[in.Path]
			if !ok {
				return nil, nil, fmt.Errorf("no file %s", in.Path)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "write_doc", Annotations: &mcp.ToolAnnotations{}},
		func(context.Context, *mcp.CallToolRequest, pathIn) (*mcp.CallToolResult, any, error) {
			panic("a writing tool is never called")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "list_files", Annotations: ro},
		func(_ context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, any, error) {
			var lines []string
			for p := range files {
				if strings.HasPrefix(p, in.Dir) && strings.HasSuffix(p, strings.TrimPrefix(in.Pattern, "*")) {
					lines = append(lines, p)
				}
			}
			slices.Sort(lines)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(lines, "\n")}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Annotations: ro},
		func(context.Context, *mcp.CallToolRequest, queryIn) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("the index is \x1b[2Jbroken")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Annotations: ro},
		func(_ context.Context, _ *mcp.CallToolRequest, in sizeIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("consensus word ", in.Bytes/15)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Annotations: ro},
		func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			for i := range in.Steps {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(),
					Progress: float64(i + 1), Total: float64(in.Steps), Message: fmt.Sprintf("step %d\x1b[0m", i+1)})
			}
			st.once.Do(func() { st.started <- struct{}{} })
			<-ctx.Done()
			st.cancelled <- struct{}{}
			return nil, nil, ctx.Err()
		})
	return s
}

// connect starts the test server in process and returns a Source on it.
func connect(t *testing.T, st *state, m mcpsource.Mapping, opts mcpsource.Options) *mcpsource.Source {
	t.Helper()
	ct, sv := mcp.NewInMemoryTransports()
	ss, err := newServer(st).Connect(t.Context(), sv, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := mcpsource.New("docs", mcpsource.Server{Transport: ct, Tools: m}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := src.Close(); err != nil {
			t.Error(err)
		}
		_ = ss.Wait()
	})
	return src
}

func clean(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r == 0x7f })
}

func TestDetectAndSearch(t *testing.T) {
	src := connect(t, newState(), mcpsource.Mapping{}, mcpsource.Options{})
	m, err := src.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := mcpsource.Mapping{SearchTool: "search_docs", QueryArg: "query", LimitArg: "limit", ReadTool: "read_doc", URLArg: "path"}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		t.Fatalf("mapping %+v, want %+v", m, want)
	}
	res, err := src.Search(t.Context(), "consensus", 5)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res {
		ids = append(ids, r.DocID)
		if r.Channel != "mcp:docs" || r.URL != "file://"+r.DocID || !clean(r.Title) || !clean(r.Snippet) || r.Snippet == "" {
			t.Errorf("result %+v: want channel mcp:docs, a file URL of its path, a clean title and snippet", r)
		}
	}
	if !slices.Equal(ids, []string{"/docs/paxos.md", "/docs/raft.md"}) {
		t.Fatalf("results %v, want the server's two in its order", ids)
	}
	if res, _ := src.Search(t.Context(), "consensus", 1); len(res) != 1 {
		t.Errorf("limit 1 gave %d results", len(res))
	}
	doc, err := src.Fetch(t.Context(), "/docs/raft.md")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Raft consensus" || !strings.Contains(doc.Text, "randomized timeouts") || !clean(doc.Text) || strings.Contains(doc.Text, "[31m") {
		t.Errorf("document %+v: want the file read, titled by its heading, its escapes removed", doc)
	}
	if _, err := src.Fetch(t.Context(), "https://example.com/x"); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("a web page: %v, want ErrNotFound (another backend's)", err)
	}
	if _, err := src.Fetch(t.Context(), "/docs/missing.md"); err == nil || !strings.Contains(err.Error(), "read_doc") || !strings.Contains(err.Error(), "docs") {
		t.Errorf("a missing file: %v, want an error naming the server and the tool", err)
	}
}

func TestListing(t *testing.T) {
	st, fake := newState(), clock.NewFake(time.Unix(0, 0))
	src := connect(t, st, mcpsource.Mapping{SearchTool: "list_files", SearchArgs: map[string]string{"dir": "/docs", "pattern": "*.md"}}, mcpsource.Options{Clock: fake})
	res, err := src.Search(t.Context(), "How does Raft elect a leader?", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].DocID != "/docs/raft.md" || !strings.Contains(res[0].Snippet, "elects a leader") {
		t.Fatalf("results %+v, want raft.md alone: the listing read and ranked by the query's terms", res)
	}
	// The document a search read is opened without another call.
	if doc, err := src.Fetch(t.Context(), "/docs/raft.md"); err != nil || doc.Title != "Raft consensus" {
		t.Errorf("Fetch: %+v, %v", doc, err)
	}
	// A listing read again within five minutes is not read again; after,
	// it is (a file may have changed).
	if _, err := src.Search(t.Context(), "leader", 5); err != nil || st.reads.Load() != 3 {
		t.Errorf("a second search: %v, %d reads in all, want the three files read once", err, st.reads.Load())
	}
	fake.Advance(5 * time.Minute)
	if _, err := src.Search(t.Context(), "leader", 5); err != nil || st.reads.Load() != 6 {
		t.Errorf("after five minutes: %v, %d reads in all, want the three files read again", err, st.reads.Load())
	}
}

func TestToolError(t *testing.T) {
	src := connect(t, newState(), mcpsource.Mapping{SearchTool: "fail", QueryArg: "query"}, mcpsource.Options{})
	_, err := src.Search(t.Context(), "anything", 3)
	var te *mcpsource.ToolError
	if !errors.As(err, &te) || !errors.Is(err, mcpsource.ErrToolFailed) {
		t.Fatalf("err %v, want a *ToolError wrapping ErrToolFailed", err)
	}
	if te.Server != "docs" || te.Tool != "fail" || !strings.Contains(te.Message, "broken") || !clean(err.Error()) {
		t.Errorf("error %q: want the server, the tool and the tool's message, cleaned", err)
	}
}

func TestDeclaredToolMissing(t *testing.T) {
	src := connect(t, newState(), mcpsource.Mapping{SearchTool: "find"}, mcpsource.Options{})
	_, err := src.Search(t.Context(), "x", 3)
	if !errors.Is(err, mcpsource.ErrNoTool) || !strings.Contains(err.Error(), "search_docs") {
		t.Errorf("err %v, want ErrNoTool listing the server's tools", err)
	}
}

func TestLargeResult(t *testing.T) {
	const max = 64 << 10
	src := connect(t, newState(), mcpsource.Mapping{SearchTool: "big", SearchArgs: map[string]string{"bytes": "3000000"}}, mcpsource.Options{MaxText: max})
	res, err := src.Search(t.Context(), "consensus", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Snippet) > 2100 {
		t.Fatalf("results %d, snippet %d bytes: want one, bounded", len(res), len(res[0].Snippet))
	}
	doc, err := src.Fetch(t.Context(), res[0].DocID)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Text) > max+200 || !strings.Contains(doc.Text, "cut: the result was") {
		t.Errorf("document of %d bytes: want at most %d, marked as cut", len(doc.Text), max)
	}
}

func TestProgressAndCancel(t *testing.T) {
	st := newState()
	var mu sync.Mutex
	var seen []mcpsource.Progress
	all := make(chan struct{})
	src := connect(t, st, mcpsource.Mapping{SearchTool: "slow", SearchArgs: map[string]string{"steps": "3"}}, mcpsource.Options{
		Progress: func(p mcpsource.Progress) {
			mu.Lock()
			defer mu.Unlock()
			if seen = append(seen, p); len(seen) == 3 {
				close(all)
			}
		}})
	if _, err := src.Tools(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-st.started
		<-all // the progress of the call in flight reached the hook
		cancel()
	}()
	_, err := src.Search(ctx, "x", 3)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "tool slow") {
		t.Fatalf("err %v, want the cancellation, naming the tool", err)
	}
	<-st.cancelled // the server's handler saw notifications/cancelled
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[2].Progress != 3 || seen[2].Total != 3 || seen[0].Tool != "slow" || seen[0].Message != "step 1" {
		t.Errorf("progress %+v, want three notifications of slow, cleaned", seen)
	}
}

func TestTimeout(t *testing.T) {
	st := newState()
	fake := clock.NewFake(time.Unix(0, 0))
	src := connect(t, st, mcpsource.Mapping{SearchTool: "slow", SearchArgs: map[string]string{"steps": "0"}}, mcpsource.Options{Clock: fake, Timeout: time.Minute})
	go func() {
		<-st.started
		fake.Advance(time.Minute)
	}()
	_, err := src.Search(t.Context(), "x", 3)
	if !errors.Is(err, mcpsource.ErrTimeout) || !strings.Contains(err.Error(), "tool slow") {
		t.Fatalf("err %v, want ErrTimeout naming the tool", err)
	}
	<-st.cancelled
}

func TestConfig(t *testing.T) {
	for name, srv := range map[string]mcpsource.Server{
		"none":    {},
		"both":    {Command: []string{"x"}, URL: "http://localhost:1/mcp"},
		"scheme":  {URL: "ftp://host/mcp"},
		"program": {Command: []string{" "}},
	} {
		if _, err := mcpsource.New("s", srv, mcpsource.Options{}); !errors.Is(err, mcpsource.ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

// TestStdio runs the server as a child process (this test binary) with
// only the environment the settings give it, and checks that Close reaps
// it.
func TestStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := mcpsource.New("child", mcpsource.Server{Command: []string{exe}, Env: map[string]string{envServer: "1"}}, mcpsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Search(t.Context(), "leader", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].DocID != "/docs/raft.md" || res[0].Channel != "mcp:child" {
		t.Fatalf("results %+v", res)
	}
	// A child that dies fails the call in flight, or the next, naming the
	// tool; the call after connects again.
	if err := syscall.Kill(mcpsource.PID(src), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		_, err := src.Search(t.Context(), "leader", 3)
		if err == nil && i > 0 {
			break
		}
		if err == nil || !strings.Contains(err.Error(), "tool search_docs") || i == 2 {
			t.Fatalf("search %d after the child died: %v, want it to fail naming the tool, then connect again", i, err)
		}
	}
	pid := mcpsource.PID(src)
	if pid <= 0 {
		t.Fatal("no child process")
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	// A reaped child is gone; an unreaped one would linger as a zombie
	// that signal 0 still reaches.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Close, signalling the child: %v, want ESRCH (reaped)", err)
	}
	if _, err := src.Search(t.Context(), "leader", 3); !errors.Is(err, mcpsource.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

func TestStdioBadCommand(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Without the variable the child is a test binary that prints and
	// exits: no MCP server.
	src, err := mcpsource.New("broken", mcpsource.Server{Command: []string{exe, "-test.run=^$", "-test.v"}}, mcpsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, err = src.Search(t.Context(), "x", 3)
	if err == nil || !strings.Contains(err.Error(), "broken: connecting (command ") {
		t.Errorf("err %v, want a connection error naming the server and its command", err)
	}
}

// TestStreamableHTTP searches and reads a server over streamable HTTP
// (the go-sdk's handler on a local HTTP server).
func TestStreamableHTTP(t *testing.T) {
	st := newState()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newServer(st) }, nil))
	defer ts.Close()
	src, err := mcpsource.New("web", mcpsource.Server{URL: ts.URL}, mcpsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	res, err := src.Search(t.Context(), "paxos", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].DocID != "/docs/paxos.md" || res[0].Channel != "mcp:web" {
		t.Fatalf("results %+v", res)
	}
	if doc, err := src.Fetch(t.Context(), res[0].DocID); err != nil || doc.Title != "Paxos" {
		t.Errorf("Fetch: %+v, %v", doc, err)
	}
}

// TestResources searches a server with resources and no search tool by
// listing them (resources/list) and reading them (resources/read); a
// server with neither has nothing to search.
func TestResources(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "res", Version: "1"}, nil)
	for p, text := range files {
		uri := "notes:" + p
		s.AddResource(&mcp.Resource{URI: uri, Name: path.Base(p), MIMEType: "text/markdown"},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
			})
	}
	ct, sv := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), sv, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := mcpsource.New("res", mcpsource.Server{Transport: ct}, mcpsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Search(t.Context(), "proposers and acceptors", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].DocID != "notes:/docs/paxos.md" || res[0].URL != "notes:/docs/paxos.md" || res[0].Title != "Paxos" {
		t.Errorf("results %+v, want paxos.md's resource alone", res)
	}
	src.Close()
	_ = ss.Wait()

	// Tools, none that searches, and no resources.
	bare := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	mcp.AddTool(bare, &mcp.Tool{Name: "read_doc"}, func(context.Context, *mcp.CallToolRequest, pathIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	ct, sv = mcp.NewInMemoryTransports()
	if ss, err = bare.Connect(t.Context(), sv, nil); err != nil {
		t.Fatal(err)
	}
	src, err = mcpsource.New("bare", mcpsource.Server{Transport: ct}, mcpsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Search(t.Context(), "x", 3)
	if !errors.Is(err, mcpsource.ErrNoTool) || !strings.Contains(err.Error(), "bare") || !strings.Contains(err.Error(), "read_doc") {
		t.Errorf("err %v, want ErrNoTool naming the server and listing its tools", err)
	}
	src.Close()
	_ = ss.Wait()
}
