package deepresearch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/mcpsource"
)

// notes are the files of the in-process MCP server of TestResearchThroughMCP.
var notes = map[string]string{
	"/notes/raft.md": "# Raft\n\nRaft elects a leader with randomized election timeouts. " +
		"The leader replicates its log to the followers, and an entry is committed once a majority of servers store it.\n",
	"/notes/bread.md": "# Bread\n\nKnead the dough for ten minutes and let it rise for an hour.\n",
}

// notesServer is an MCP server (the official Go SDK's) shaped like the
// npm filesystem server: search_files lists paths by a glob, read_text_file
// reads one.
func notesServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	type listIn struct {
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "search_files", Annotations: ro},
		func(_ context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "/notes/bread.md\n/notes/raft.md"}}}, nil, nil
		})
	type readIn struct {
		Path string `json:"path"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "read_text_file", Annotations: ro},
		func(_ context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: notes[in.Path]}}}, nil, nil
		})
	return s
}

// TestResearchThroughMCP researches a question over an MCP server's
// files with the built-in model: the report cites the file by its path on
// the channel mcp:notes, its citations verify, and the run replays from
// its journal with the server gone.
func TestResearchThroughMCP(t *testing.T) {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := notesServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes, err := mcpsource.New("notes", mcpsource.Server{Transport: ct, Tools: mcpsource.Mapping{
		SearchTool: "search_files", SearchArgs: map[string]string{"path": "/notes", "pattern": "**/*.md"}}}, mcpsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := deepresearch.New(deepresearch.Config{Search: notes, Limits: deepresearch.Limits{MaxCycles: 1, MaxTasks: 2}})
	if err != nil {
		t.Fatal(err)
	}
	js := &journals{}
	rep, err := researchJournaled(ctx, r, deepresearch.Request{Question: "How does Raft elect a leader and commit log entries?", RunID: "mcp1"}, js, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_ = ss.Wait() // the server's session ends with the Researcher
	var cited bool
	for _, ref := range rep.References {
		if ref.Channel != "mcp:notes" || !strings.HasPrefix(ref.URL, "file:///notes/") {
			t.Errorf("reference %+v: want a file of the MCP server, on its channel", ref.Source)
		}
		if ref.URL == "file:///notes/raft.md" && ref.Path() == "/notes/raft.md" {
			cited = true
		}
	}
	if !cited {
		t.Fatalf("the report does not cite /notes/raft.md by its path:\n%s", rep.Markdown())
	}
	if v := rep.Verification; v == nil || v.Summary.Supported == 0 || v.Summary.Fabricated != 0 {
		t.Errorf("verification %+v: want supported citations, none fabricated", v)
	}
	entries, _ := js.Journal(ctx, "mcp1")
	again, stats, err := deepresearch.Replay(ctx, entries, deepresearch.ReplayOptions{}, nil)
	if err != nil {
		t.Fatalf("replay with the server gone: %v", err)
	}
	if stats.Missed != 0 || stats.Live != 0 || again.Markdown() != rep.Markdown() {
		t.Errorf("replay %+v: want every call answered from the journal and the same report", stats)
	}
}
