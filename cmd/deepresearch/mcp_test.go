package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// syncBuffer is a bytes.Buffer safe to write from the server goroutine and
// read after it ends.
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

// startMCP runs `deepresearch mcp` with args in-process over pipes and
// connects the MCP SDK's client to it; end closes the session and returns
// the command's exit status and stderr.
func startMCP(t *testing.T, args ...string) (cs *mcp.ClientSession, end func() (int, string)) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		c := execute(context.Background(), append([]string{"mcp"}, args...), inR, outW, &stderr)
		outW.Close()
		code <- c
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, func() (int, string) {
		cs.Close()
		inW.Close()
		return <-code, stderr.String()
	}
}

// TestMCPCommand runs `deepresearch mcp` in-process over pipes and talks to
// it with the MCP SDK's client: the research tool runs the real pipeline
// over the test corpus, and verify checks the report it returns.
func TestMCPCommand(t *testing.T) {
	index := isolate(t)
	cs, end := startMCP(t, "--corpus", corpus, "--index", index)
	var rep struct {
		Markdown   string `json:"markdown"`
		References []struct {
			Number int    `json:"number"`
			URL    string `json:"url"`
		} `json:"references"`
	}
	callTool(t, cs, "research", map[string]any{"question": question}, &rep)
	cited := regexp.MustCompile(`\[\[(\d+)\]\]\(`).FindAllString(rep.Markdown, -1)
	if len(cited) == 0 || len(rep.References) == 0 || !strings.Contains(rep.Markdown, "## References") {
		t.Fatalf("report without citations:\n%s", rep.Markdown)
	}
	// The report's sources, with the index's numbers: verify finds every
	// number among them.
	var srcs []map[string]any
	for _, r := range rep.References {
		srcs = append(srcs, map[string]any{"number": r.Number, "url": r.URL, "text": "x"})
	}
	var v struct {
		Summary struct{ Citations, Fabricated int } `json:"summary"`
	}
	callTool(t, cs, "verify", map[string]any{"text": rep.Markdown, "sources": srcs}, &v)
	if v.Summary.Citations == 0 || v.Summary.Fabricated != 0 {
		t.Errorf("verify: %+v", v.Summary)
	}
	if c, stderr := end(); c != 0 {
		t.Errorf("exit status %d: %s", c, stderr)
	}
}

// TestMCPKeepsRuns: a research call is kept in the run store, as `run`
// keeps its runs, with the answers the client gave to the clarifying
// questions in its request (a resumed run does not ask again).
func TestMCPKeepsRuns(t *testing.T) {
	index := isolate(t)
	ctx := context.Background()
	cs, end := startMCP(t, "--corpus", corpus, "--index", index)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "research", Arguments: map[string]any{"question": question,
		"answers": []map[string]string{{"question": "Which cables?", "answer": "telegraph cables"}}}})
	if err != nil || res.IsError {
		t.Fatalf("research: %v %+v", err, res)
	}
	if c, stderr := end(); c != 0 {
		t.Fatalf("exit status %d: %s", c, stderr)
	}
	path, err := config.DefaultStorePath()
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlitestore.Open(ctx, path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.List(ctx, 10)
	if err != nil || len(runs) != 1 {
		t.Fatalf("the store holds %d runs (%v)", len(runs), err)
	}
	run := runs[0]
	if run.Status != runstore.Finished || run.Origin != runstore.OriginCLI || !strings.Contains(string(run.Options), "telegraph cables") {
		t.Errorf("stored run: %s, origin %s, request %s", run.Status, run.Origin, run.Options)
	}
}

// TestMCPAnswersBeforeEOF (issue 29): requests a client wrote before it
// closed its end are all answered before the server exits, as `printf
// 'initialize\ntools/list\n' | deepresearch mcp` expects.
func TestMCPAnswersBeforeEOF(t *testing.T) {
	isolate(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"printf","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"collapse","arguments":{"reports":[{"text":"A [1].","sources":[{"number":1,"url":"https://example.org/a"}]}]}}}`,
		`{"jsonrpc":"2.0","id":"last","method":"ping"}`,
	}, "\n") + "\n"
	r := cli(t, in, "mcp")
	if r.code != 0 {
		t.Fatalf("exit status %d: %s", r.code, r.stderr)
	}
	answered := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimSpace(r.stdout), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		answered[string(m.ID)] = m.Result != nil || m.Error != nil
	}
	for _, id := range []string{`1`, `2`, `3`, `"last"`} {
		if !answered[id] {
			t.Errorf("request %s was not answered:\n%s", id, r.stdout)
		}
	}
}

// TestMCPWithoutAStore: when the run store cannot be opened, the research
// tool still runs through the server's Runs, its runs held in memory: a
// research call returns its report with a run ID, ask follows it up, and
// the log says once why nothing will be kept.
func TestMCPWithoutAStore(t *testing.T) {
	index := isolate(t)
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_DATA_HOME", filepath.Join(blocker, "data")) // below a file: no store can be made there
	cs, end := startMCP(t, "--corpus", corpus, "--index", index)
	var rep struct {
		RunID    string `json:"run_id"`
		Markdown string `json:"markdown"`
	}
	callTool(t, cs, "research", map[string]any{"question": question}, &rep)
	if rep.RunID == "" || !strings.Contains(rep.Markdown, "## References") {
		t.Fatalf("research without a store: run %q:\n%s", rep.RunID, rep.Markdown)
	}
	var answer map[string]any
	callTool(t, cs, "ask", map[string]any{"run_id": rep.RunID, "question": "How were the cables repaired?"}, &answer) // of a run held in memory
	c, stderr := end()
	if c != 0 {
		t.Fatalf("exit status %d: %s", c, stderr)
	}
	if strings.Count(stderr, "will not be kept") != 1 {
		t.Errorf("stderr says %q; want one warning that runs will not be kept", stderr)
	}
}

// callTool calls the tool name with args and decodes its structured
// result into out, failing the test on an error or an error result.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v %s", name, err, b)
	}
}
