package mcpserver

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/purpose"
)

// asking is a model whose clarifier asks two questions; it records the
// planner's messages.
type asking struct {
	llms.Model
	mu      sync.Mutex
	planned []string
}

func (m *asking) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	switch purpose.Of(ctx) {
	case purpose.Clarifier:
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{StopReason: "stop", Content: `{"questions":[` +
			`{"question":"Telegraph or fibre cables?","assumption":"fibre"},{"question":"Which decade?","assumption":"this one"}]}`}}}, nil
	case purpose.Planner:
		m.mu.Lock()
		m.planned = append(m.planned, msgs[len(msgs)-1].Parts[0].(llms.TextContent).Text)
		m.mu.Unlock()
	}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

// TestResearchElicits: a client that supports elicitation is asked the
// clarifying questions in a form; its answers reach the planner.
func TestResearchElicits(t *testing.T) {
	var m *asking
	r := newResearcher(t, func(base llms.Model) llms.Model { m = &asking{Model: base}; return m })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(Options{Research: r}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var asked *mcp.ElicitParams
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = req.Params
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"q1": "fibre", "q2": "the 2010s"}}, nil
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	var rep Report
	call(t, cs, "research", map[string]any{"question": "How are submarine cables repaired?"}, &rep)
	if asked == nil || !strings.Contains(asked.Message, "questions") {
		t.Fatalf("no elicitation: %+v", asked)
	}
	if len(rep.Questions) != 0 || !rep.Complete || len(rep.References) == 0 {
		t.Errorf("report %+v", rep)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.planned) != 1 || !strings.Contains(m.planned[0], "Telegraph or fibre cables? → fibre") || !strings.Contains(m.planned[0], "Which decade? → the 2010s") {
		t.Errorf("the planner's messages: %q", m.planned)
	}
}

// TestResearchReturnsQuestions: a client without elicitation gets the
// questions as the result, nothing researched; a second call with the
// answers researches.
func TestResearchReturnsQuestions(t *testing.T) {
	var m *asking
	cs := connect(t, Options{Research: newResearcher(t, func(base llms.Model) llms.Model { m = &asking{Model: base}; return m })})
	var first Report
	res := call(t, cs, "research", map[string]any{"question": "How are submarine cables repaired?"}, &first)
	if len(first.Questions) != 2 || !strings.Contains(contentText(res), "1. Telegraph or fibre cables?") || first.Markdown != "" {
		t.Fatalf("first call: %+v %q", first, contentText(res))
	}
	var rep Report
	call(t, cs, "research", map[string]any{"question": "How are submarine cables repaired?",
		"answers": []map[string]string{{"question": "Telegraph or fibre cables?", "answer": "fibre"}}}, &rep)
	if !rep.Complete || len(rep.Questions) != 0 {
		t.Fatalf("second call: %+v", rep)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.planned) != 1 || !strings.Contains(m.planned[0], "Telegraph or fibre cables? → fibre") {
		t.Errorf("the planner's messages: %q", m.planned)
	}
}

// TestGarbageElicitationAnswer (issue 29): a client that answers the
// clarifying form (which the SDK asks on the research call's behalf) with
// something that is not an elicitation result gets a JSON-RPC error with a
// code — invalid params, naming what was wrong — never code 0.
func TestGarbageElicitationAnswer(t *testing.T) {
	r := newResearcher(t, func(base llms.Model) llms.Model { return &asking{Model: base} })
	for _, answer := range []string{`{"action":5}`, `"accept"`, `{"action":"accept","content":"nope"}`, `[1,2]`} {
		t.Run(answer, func(t *testing.T) {
			c := serveRawWith(t, Options{Research: r}, 0, `{"elicitation":{}}`)
			c.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"research","arguments":{"question":"How are submarine cables repaired?"}}}`)
			ask := c.elicitation()
			c.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":` + answer + `}`)
			got := c.reply()
			if got.Error == nil || got.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(got.Error.Message, "elicitation/create") {
				t.Errorf("the call's answer: %s %+v", got.Result, got.Error)
			}
		})
	}
}
