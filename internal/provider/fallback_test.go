package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/golden"
	"github.com/deepresearch/deepresearch/internal/provider"
)

func TestParseToolCalls(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // "name args;" per call
		rest       string
	}{
		{"fenced json", "I will search.\n```json\n{\"tool\": \"search\", \"arguments\": {\"query\": \"go\"}}\n```", `search {"query": "go"};`, "I will search."},
		{"fence without language", "```\n{\"tool\":\"fetch\",\"arguments\":{\"url\":\"https://go.dev\"}}\n```", `fetch {"url":"https://go.dev"};`, ""},
		{"bare object amid prose", `Let me look: {"name": "search", "args": {"query": "go"}} and then answer.`, `search {"query": "go"};`, "Let me look:  and then answer."},
		{"array of calls", `[{"tool":"search","arguments":{"query":"a"}},{"tool":"fetch","arguments":{"url":"https://b"}}]`, `search {"query":"a"};fetch {"url":"https://b"};`, ""},
		{"arguments as a string", `{"tool":"search","arguments":"{\"query\":\"go\"}"}`, `search {"query":"go"};`, ""},
		{"openai-shaped function object", `{"function":{"name":"search","arguments":{"query":"go"}}}`, `search {"query":"go"};`, ""},
		{"tool_calls wrapper", `{"tool_calls":[{"name":"search","parameters":{"query":"go"}}]}`, `search {"query":"go"};`, ""},
		{"missing arguments", `{"tool":"search"}`, `search {};`, ""},
		{"null arguments", `{"tool":"search","arguments":null}`, `search {};`, ""},
		{"unknown tool is not a call", `{"tool":"rm_rf","arguments":{}}`, ``, `{"tool":"rm_rf","arguments":{}}`},
		{"plain answer", "Go added generics in 1.18 [1].", ``, "Go added generics in 1.18 [1]."},
		{"JSON that is data, not a call", "The config is {\"query\": 3}.", ``, "The config is {\"query\": 3}."},
		{"truncated JSON", "```json\n{\"tool\": \"search\", \"arguments\": {\"query\": \"go", ``, "```json\n{\"tool\": \"search\", \"arguments\": {\"query\": \"go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, rest := provider.ParseToolCalls(tt.text, tools)
			var b strings.Builder
			for i, c := range calls {
				if c.ID != fmt.Sprintf("call_text_%d", i+1) || c.Type != "function" {
					t.Errorf("call %d: id %q type %q", i, c.ID, c.Type)
				}
				fmt.Fprintf(&b, "%s %s;", c.FunctionCall.Name, c.FunctionCall.Arguments)
			}
			if b.String() != tt.want || rest != tt.rest {
				t.Errorf("got %q rest %q\nwant %q rest %q", b.String(), rest, tt.want, tt.rest)
			}
		})
	}
}

func TestToolPrompt(t *testing.T) {
	golden.Check(t, "tool_prompt.golden", provider.ToolPrompt(tools))
}

// In text mode the conversation's earlier calls and results are written as
// the protocol's JSON and as user turns.
func TestToolFallbackTextConversation(t *testing.T) {
	s := newServer(t, reply{file: "openai_text.json"})
	m := mustNew(t, provider.Config{Provider: provider.OpenAI, BaseURL: s.URL + "/v1", Tools: provider.ToolsText}, env())
	msgs := append(human("generics?"),
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "call_text_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"query":"go"}`}},
		}},
		llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: "call_text_1", Name: "search", Content: "[1] go.dev: Go 1.18 adds generics."},
		}},
	)
	var streamed string
	resp, err := m.GenerateContent(context.Background(), msgs, llms.WithTools(tools),
		llms.WithStreamingFunc(func(_ context.Context, c []byte) error { streamed += string(c); return nil }))
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Choices[0]; len(c.ToolCalls) != 0 || c.Content != "Go added generics in 1.18 [1]." || streamed != c.Content {
		t.Errorf("content %q, calls %v, streamed %q", c.Content, c.ToolCalls, streamed)
	}
	req := s.requests()[0]
	if req.Body["tools"] != nil || req.Body["stream"] == true {
		t.Errorf("text mode sent tools or streamed: %v", req.Body)
	}
	var roles []string
	for _, msg := range req.Body["messages"].([]any) {
		msg := msg.(map[string]any)
		roles = append(roles, fmt.Sprintf("%s: %.40q", msg["role"], fmt.Sprint(msg["content"])))
	}
	golden.Check(t, "tool_fallback_conversation.golden", strings.Join(roles, "\n")+"\n")
}

// A model that was offered tools natively but wrote its call as JSON text
// (common with local models) gets that call read out of its text.
func TestToolFallbackReadsNativeTextCall(t *testing.T) {
	s := newServer(t, reply{file: "openai_text_toolcall.json"})
	m := mustNew(t, provider.Config{Provider: provider.Ollama, Name: "gemma2:2b"}, env("OLLAMA_HOST", s.URL))
	resp, err := m.GenerateContent(context.Background(), human("generics?"), llms.WithTools(tools))
	if err != nil {
		t.Fatal(err)
	}
	if got := callsOf(resp); got != `call_text_1 search {"query": "go generics"};` || s.requests()[0].Body["tools"] == nil {
		t.Errorf("calls %q", got)
	}
}

// Whatever the text, ParseToolCalls returns only calls of offered tools
// whose arguments are a JSON object, and never panics.
func FuzzParseToolCalls(f *testing.F) {
	for _, s := range []string{
		"```json\n{\"tool\": \"search\", \"arguments\": {\"query\": \"go\"}}\n```",
		`[{"tool":"search","arguments":{"query":"a"}},{"tool":"fetch","arguments":"{\"url\":1}"}]`,
		`{"function":{"name":"fetch","arguments":"[1]"}} {"tool_calls":[{"name":"search"}]}`,
		"``` ``` {\"tool\":",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		calls, _ := provider.ParseToolCalls(text, tools)
		for _, c := range calls {
			var args map[string]any
			if (c.FunctionCall.Name != "search" && c.FunctionCall.Name != "fetch") || json.Unmarshal([]byte(c.FunctionCall.Arguments), &args) != nil || args == nil {
				t.Fatalf("call %+v from %q", c.FunctionCall, text)
			}
		}
	})
}
