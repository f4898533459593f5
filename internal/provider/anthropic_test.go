package provider_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/usage"
)

func anthropicModel(t *testing.T, s *server) llms.Model {
	return mustNew(t, provider.Config{Provider: provider.Anthropic, Tools: provider.ToolsNative},
		env("ANTHROPIC_API_KEY", "sk-ant-test", "ANTHROPIC_BASE_URL", s.URL+"/v1"))
}

func TestAnthropicStream(t *testing.T) {
	for _, chunk := range []int{0, 1, 5} {
		t.Run(fmt.Sprintf("chunk=%d", chunk), func(t *testing.T) {
			s := newServer(t, reply{file: "anthropic_text.sse", chunk: chunk})
			m := anthropicModel(t, s)
			var streamed string
			resp, err := m.GenerateContent(context.Background(), human("generics?"),
				llms.WithStreamingFunc(func(_ context.Context, c []byte) error { streamed += string(c); return nil }))
			if err != nil {
				t.Fatal(err)
			}
			const want = "Go added generics in 1.18 [1]."
			if streamed != want || resp.Choices[0].Content != want {
				t.Errorf("streamed %q, content %q", streamed, resp.Choices[0].Content)
			}
			if u := usage.Of(resp.Choices[0]); u.PromptTokens != 25 || u.CompletionTokens != 15 {
				t.Errorf("usage %+v, want 25/15", u)
			}
			req := s.requests()[0]
			if req.Path != "/v1/messages" || req.Header.Get("X-Api-Key") != "sk-ant-test" || req.Header.Get("Anthropic-Version") == "" {
				t.Errorf("request %s, headers %v", req.Path, req.Header)
			}
			if _, ok := req.Body["temperature"]; ok {
				t.Error("temperature sent though none was set")
			}
			if req.Body["system"] != "You are a careful researcher." || req.Body["model"] != "claude-sonnet-4-5" {
				t.Errorf("system %v, model %v", req.Body["system"], req.Body["model"])
			}
		})
	}
}

// A history whose assistant turn holds text and two tool calls, and whose
// tool turn holds two results, reaches Anthropic whole: the adapter alone
// would send only the first part of each.
func TestAnthropicMultiPartHistory(t *testing.T) {
	s := newServer(t, reply{file: "anthropic_tools.json"})
	m := anthropicModel(t, s)
	msgs := append(human("generics?"),
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.TextContent{Text: "Searching and reading."},
			llms.ToolCall{ID: "toolu_a", Type: "function", FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"query":"go"}`}},
			llms.ToolCall{ID: "toolu_b", Type: "function", FunctionCall: &llms.FunctionCall{Name: "fetch", Arguments: `{"url":"https://go.dev"}`}},
		}},
		llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: "toolu_a", Name: "search", Content: "[1] go.dev"},
			llms.ToolCallResponse{ToolCallID: "toolu_b", Name: "fetch", Content: "Go is a language."},
		}},
	)
	resp, err := m.GenerateContent(context.Background(), msgs, llms.WithTools(tools))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := callsOf(resp), `toolu_01 search {"query":"go generics"};toolu_02 fetch {"url":"https://example.com/a"};`; got != want {
		t.Errorf("tool calls\n got %s\nwant %s", got, want)
	}
	var shape []string
	for _, m := range s.requests()[0].Body["messages"].([]any) {
		m := m.(map[string]any)
		var blocks []string
		for _, b := range m["content"].([]any) {
			b := b.(map[string]any)
			blocks = append(blocks, fmt.Sprintf("%v:%v", b["type"], firstNonNil(b["id"], b["tool_use_id"])))
		}
		shape = append(shape, m["role"].(string)+"["+strings.Join(blocks, " ")+"]")
	}
	want := "user[text:] assistant[text: tool_use:toolu_a tool_use:toolu_b] user[tool_result:toolu_a tool_result:toolu_b]"
	if got := strings.Join(shape, " "); got != want {
		t.Errorf("messages sent\n got %s\nwant %s", got, want)
	}
	if c := resp.Choices; len(c) != 1 || c[0].Content != "I will search and read." || c[0].ToolCalls[0].Type != "function" {
		t.Errorf("want one choice holding the text and both calls, got %d", len(c))
	}
	if u := usage.Of(resp.Choices[0]); u.PromptTokens != 120 || u.CompletionTokens != 60 {
		t.Errorf("usage %+v, want 120/60 counted once", u)
	}
}

// firstNonNil is the first of a and b that is not nil, else "".
func firstNonNil(a, b any) any {
	if a != nil {
		return a
	}
	if b != nil {
		return b
	}
	return ""
}

func TestAnthropicErrors(t *testing.T) {
	tests := []struct {
		name    string
		rep     reply
		stream  bool
		want    error
		wantMsg string
	}{
		{"bad key", reply{status: 401, file: "anthropic_401.json"}, false, provider.ErrBadKey, "check ANTHROPIC_API_KEY"},
		{"truncated stream", reply{file: "anthropic_text_truncated.sse"}, true, provider.ErrTruncated, "stream ended early"},
		{"overloaded", reply{status: 529, file: "anthropic_401.json"}, false, provider.ErrUnavailable, "HTTP 529"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.rep)
			var opts []llms.CallOption
			if tt.stream {
				opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			}
			_, err := anthropicModel(t, s).GenerateContent(context.Background(), human("generics?"), opts...)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("err %v, want %v containing %q", err, tt.want, tt.wantMsg)
			}
		})
	}
}
