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

func geminiModel(t *testing.T, s *server, getenv func(string) string) llms.Model {
	return mustNew(t, provider.Config{Provider: provider.GoogleAI, BaseURL: s.URL, Tools: provider.ToolsNative}, getenv)
}

func TestGeminiGenerateContent(t *testing.T) {
	s := newServer(t, reply{file: "gemini_generate.json"})
	m := geminiModel(t, s, env("GEMINI_API_KEY", "gm-test"))
	resp, err := m.GenerateContent(context.Background(), human("generics?"))
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Choices[0].Content; c != "Go added generics in 1.18 [1]." {
		t.Errorf("content %q", c)
	}
	if u := usage.Of(resp.Choices[0]); u.PromptTokens != 11 || u.CompletionTokens != 9 {
		t.Errorf("usage %+v, want 11/9", u)
	}
	req := s.requests()[0]
	if req.Path != "/v1beta/models/gemini-2.5-flash:generateContent" || req.Header.Get("X-Goog-Api-Key") != "gm-test" {
		t.Errorf("request %s?%s with key %q", req.Path, req.Query, req.Header.Get("X-Goog-Api-Key"))
	}
	want := `map[contents:[map[parts:[map[text:generics?]] role:user]] systemInstruction:map[parts:[map[text:You are a careful researcher.]]]]`
	if got := fmt.Sprint(req.Body); got != want {
		t.Errorf("request body\n got %s\nwant %s", got, want)
	}
}

func TestGeminiStream(t *testing.T) {
	s := newServer(t, reply{file: "gemini_stream.sse", chunk: 16})
	m := geminiModel(t, s, env("GOOGLE_API_KEY", "gk-test"))
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
	if req := s.requests()[0]; req.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || req.Query != "alt=sse" {
		t.Errorf("request %s?%s", req.Path, req.Query)
	}
	if u := usage.Of(resp.Choices[0]); u.PromptTokens != 11 || u.CompletionTokens != 9 {
		t.Errorf("usage %+v, want 11/9", u)
	}
}

// langchaingo's googleai v0.1.14 stops the stream and reports success when the callback
// fails; the caller gets the callback's error.
func TestGeminiStreamingCallbackErrorIsReturned(t *testing.T) {
	s := newServer(t, reply{file: "gemini_stream.sse"})
	m := geminiModel(t, s, env("GOOGLE_API_KEY", "gk-test"))
	stop := errors.New("reader went away")
	_, err := m.GenerateContent(context.Background(), human("generics?"),
		llms.WithStreamingFunc(func(context.Context, []byte) error { return stop }))
	if !errors.Is(err, stop) {
		t.Fatalf("err %v, want the callback's error", err)
	}
}

func TestGeminiFunctionCalls(t *testing.T) {
	s := newServer(t, reply{file: "gemini_functioncall.json"})
	m := geminiModel(t, s, env("GOOGLE_API_KEY", "gk-test"))
	resp, err := m.GenerateContent(context.Background(), human("generics?"), llms.WithTools(tools))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range resp.Choices[0].ToolCalls {
		names = append(names, c.FunctionCall.Name+" "+c.FunctionCall.Arguments)
	}
	if got := strings.Join(names, "; "); got != `search {"query":"go generics"}; fetch {"url":"https://example.com/a"}` {
		t.Errorf("tool calls %q", got)
	}
	wantTools := `[map[functionDeclarations:[map[description:Search the web. name:search parameters:map[properties:map[query:map[type:STRING]] required:[query] type:OBJECT]] map[description:Read a page. name:fetch parameters:map[properties:map[url:map[type:STRING]] required:[url] type:OBJECT]]]]]`
	if got := fmt.Sprint(s.requests()[0].Body["tools"]); got != wantTools {
		t.Errorf("tools sent\n got %s\nwant %s", got, wantTools)
	}
}

func TestGeminiBadKey(t *testing.T) {
	s := newServer(t, reply{status: 400, file: "gemini_400_key.json"})
	m := geminiModel(t, s, env("GEMINI_API_KEY", "bad"))
	_, err := m.GenerateContent(context.Background(), human("generics?"))
	if !errors.Is(err, provider.ErrBadKey) || !strings.Contains(err.Error(), "check GEMINI_API_KEY") || len(s.requests()) != 1 {
		t.Fatalf("err %v after %d requests, want ErrBadKey naming GEMINI_API_KEY, once", err, len(s.requests()))
	}
}

// A tool conversation reaches Gemini as model functionCall and user
// functionResponse parts, the response named after its call.
func TestGeminiToolHistory(t *testing.T) {
	s := newServer(t, reply{file: "gemini_generate.json"})
	m := geminiModel(t, s, env("GOOGLE_API_KEY", "gk-test"))
	msgs := append(human("generics?"),
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "call_gemini_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"query":"go"}`}},
		}},
		llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: "call_gemini_1", Content: "[1] go.dev"},
		}},
	)
	if _, err := m.GenerateContent(context.Background(), msgs, llms.WithTools(tools)); err != nil {
		t.Fatal(err)
	}
	want := `[map[parts:[map[text:generics?]] role:user] map[parts:[map[functionCall:map[args:map[query:go] name:search]]] role:model] map[parts:[map[functionResponse:map[name:search response:map[content:[1] go.dev]]]] role:user]]`
	if got := fmt.Sprint(s.requests()[0].Body["contents"]); got != want {
		t.Errorf("contents\n got %s\nwant %s", got, want)
	}
}

func TestGeminiStreamErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		want error
	}{
		{"truncated", "gemini_stream_truncated.sse", provider.ErrTruncated},
		{"malformed", "openai_text_malformed.sse", provider.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{file: tt.file})
			m := geminiModel(t, s, env("GOOGLE_API_KEY", "gk-test"))
			_, err := m.GenerateContent(context.Background(), human("generics?"),
				llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
}
