package mcpsource_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/deepresearch/deepresearch/mcpsource"
)

// npmServer is the command of a reference MCP server that npm installed
// in e2e/mcpsrc (npm ci there; .ci/run does): node and the package's
// entry point. Without them the test is skipped with the reason, except
// under CI, where it fails.
func npmServer(t *testing.T, pkg string, args ...string) []string {
	t.Helper()
	why := ""
	node, err := exec.LookPath("node")
	entry, _ := filepath.Abs(filepath.Join("..", "e2e", "mcpsrc", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if err != nil {
		why = "node is not installed"
	} else if _, err := os.Stat(entry); err != nil {
		why = fmt.Sprintf("@modelcontextprotocol/%s is not installed (%v)", pkg, err)
	}
	if why != "" {
		msg := why + "; run `npm ci` in e2e/mcpsrc (.ci/run does)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return append([]string{node, entry}, args...)
}

// everything is a Source on @modelcontextprotocol/server-everything over
// stdio, with m its mapping, closed when the test ends.
func everything(t *testing.T, m mcpsource.Mapping, opts mcpsource.Options) *mcpsource.Source {
	t.Helper()
	src, err := mcpsource.New("everything", mcpsource.Server{Command: npmServer(t, "server-everything", "stdio"), Tools: m}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// TestEverythingServer covers the protocol against the reference server
// of the MCP project: a server without a search tool, a tool answering
// text, a tool's error, a large result, resource links read with
// resources/read, progress and cancellation; each failure says which
// server and which tool.
func TestEverythingServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	t.Run("resources searched", func(t *testing.T) {
		// No tool searches: the server's resources are listed, read and
		// ranked (its static documents among them).
		src := everything(t, mcpsource.Mapping{}, mcpsource.Options{})
		res, err := src.Search(t.Context(), "How are resource subscriptions notified?", 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			t.Fatal("no results")
		}
		for _, r := range res {
			if !strings.HasPrefix(r.DocID, "demo://resource/") || r.URL != r.DocID || r.Channel != "mcp:everything" || r.Title == "" {
				t.Errorf("result %+v: want a resource of the server, by its URI", r)
			}
		}
		doc, err := src.Fetch(t.Context(), res[0].DocID)
		if err != nil || !strings.Contains(strings.ToLower(doc.Text), "subscri") {
			t.Errorf("the best resource: %v\n%.300s", err, doc.Text)
		}
	})
	t.Run("text", func(t *testing.T) {
		res, err := everything(t, mcpsource.Mapping{SearchTool: "echo", QueryArg: "message"}, mcpsource.Options{}).Search(t.Context(), "raft leader election", 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].Channel != "mcp:everything" || !strings.Contains(res[0].Snippet, "Echo: raft leader election") {
			t.Errorf("results %+v, want the tool's text as one document", res)
		}
	})
	t.Run("tool error", func(t *testing.T) {
		_, err := everything(t, mcpsource.Mapping{SearchTool: "get-sum", QueryArg: "a"}, mcpsource.Options{}).Search(t.Context(), "not a number", 3)
		var te *mcpsource.ToolError
		if !errors.As(err, &te) || te.Server != "everything" || te.Tool != "get-sum" {
			t.Fatalf("err %v, want a *ToolError of everything's get-sum", err)
		}
		if !strings.Contains(err.Error(), "mcp server everything: tool get-sum:") {
			t.Errorf("err %q does not say which server and tool failed", err)
		}
	})
	t.Run("large result", func(t *testing.T) {
		const max = 256 << 10
		src := everything(t, mcpsource.Mapping{SearchTool: "echo", QueryArg: "message"}, mcpsource.Options{MaxText: max})
		query := strings.Repeat("consensus ", 300_000) // 3 MB echoed back
		res, err := src.Search(t.Context(), query, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || len(res[0].Snippet) > 2100 {
			t.Fatalf("%d results: want one with a bounded snippet", len(res))
		}
		doc, err := src.Fetch(t.Context(), res[0].DocID)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Text) > max+200 || !strings.Contains(doc.Text, "cut: the result was") {
			t.Errorf("document of %d bytes: want at most %d, marked as cut", len(doc.Text), max)
		}
	})
	t.Run("resource links", func(t *testing.T) {
		src := everything(t, mcpsource.Mapping{SearchTool: "get-resource-links", SearchArgs: map[string]string{"count": "4"}}, mcpsource.Options{})
		res, err := src.Search(t.Context(), "plaintext resource", 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 4 || !strings.HasPrefix(res[0].DocID, "demo://resource/dynamic/text/") || !strings.Contains(res[0].Snippet, "plaintext resource") {
			t.Fatalf("results %+v, want the four linked resources read, the plain text ones first", res)
		}
	})
	t.Run("progress and cancellation", func(t *testing.T) {
		var mu sync.Mutex
		var seen []mcpsource.Progress
		first := make(chan struct{})
		src := everything(t, mcpsource.Mapping{SearchTool: "trigger-long-running-operation", SearchArgs: map[string]string{"duration": "60", "steps": "120"}},
			mcpsource.Options{Progress: func(p mcpsource.Progress) {
				mu.Lock()
				defer mu.Unlock()
				if seen = append(seen, p); len(seen) == 1 {
					close(first)
				}
			}})
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			<-first
			cancel()
		}()
		_, err := src.Search(ctx, "x", 3)
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "tool trigger-long-running-operation") {
			t.Fatalf("err %v, want the cancellation, naming the tool", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if seen[0].Tool != "trigger-long-running-operation" || seen[0].Total != 120 || seen[0].Progress < 1 {
			t.Errorf("progress %+v", seen[0])
		}
		// The session is still usable after a cancelled call.
		if _, err := src.Tools(t.Context()); err != nil {
			t.Error(err)
		}
	})
}
