package provider_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/usage"
)

func openAIModel(t *testing.T, s *server, cfg provider.Config) llms.Model {
	cfg.Provider = provider.OpenAI
	cfg.Name = "gpt-4.1-mini"
	return mustNew(t, cfg, env("OPENAI_API_KEY", "sk-test", "OPENAI_BASE_URL", s.URL+"/v1"))
}

func callsOf(resp *llms.ContentResponse) string {
	var b strings.Builder
	for _, c := range resp.Choices[0].ToolCalls {
		fmt.Fprintf(&b, "%s %s %s;", c.ID, c.FunctionCall.Name, c.FunctionCall.Arguments)
	}
	return b.String()
}

// Two tool calls whose argument deltas interleave, replayed whole and a
// few bytes at a time: langchaingo alone would splice them together.
func TestOpenAIParallelToolCalls(t *testing.T) {
	for _, chunk := range []int{0, 1, 2, 7, 64} {
		t.Run(fmt.Sprintf("chunk=%d", chunk), func(t *testing.T) {
			s := newServer(t, reply{file: "openai_tools_interleaved.sse", chunk: chunk})
			m := openAIModel(t, s, provider.Config{Tools: provider.ToolsNative})
			var streamed string
			resp, err := m.GenerateContent(context.Background(), human("generics?"), llms.WithTools(tools),
				llms.WithStreamingFunc(func(_ context.Context, c []byte) error { streamed += string(c); return nil }))
			if err != nil {
				t.Fatal(err)
			}
			want := `call_a1 search {"query": "go generics"};call_b2 fetch {"url": "https://example.com/a"};`
			if got := callsOf(resp); got != want {
				t.Errorf("tool calls\n got %s\nwant %s", got, want)
			}
			if streamed != "" {
				t.Errorf("a tool-calling turn streamed %q to the caller", streamed)
			}
			if u := usage.Of(resp.Choices[0]); u.PromptTokens != 81 || u.CompletionTokens != 40 {
				t.Errorf("usage %+v, want 81/40", u)
			}
			req := s.requests()[0]
			if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != "Bearer sk-test" {
				t.Errorf("request %s with Authorization %q", req.Path, req.Header.Get("Authorization"))
			}
			if _, ok := req.Body["temperature"]; ok {
				t.Errorf("temperature sent though none was set: %v", req.Body["temperature"])
			}
			if req.Body["stream"] != true || len(req.Body["tools"].([]any)) != 2 {
				t.Errorf("request body %v: want stream and two tools", req.Body)
			}
		})
	}
}

func TestOpenAIStreamText(t *testing.T) {
	zero := 0.0
	tests := []struct {
		name    string
		cfg     provider.Config
		opts    []llms.CallOption
		checkRq func(t *testing.T, body map[string]any)
	}{
		{"defaults", provider.Config{}, nil, func(t *testing.T, body map[string]any) {
			if _, ok := body["temperature"]; ok {
				t.Error("temperature sent though none was set")
			}
		}},
		{"explicit zero temperature", provider.Config{Temperature: &zero}, nil, func(t *testing.T, body map[string]any) {
			if body["temperature"] != 0.0 {
				t.Errorf("temperature %v, want 0", body["temperature"])
			}
		}},
		{"legacy max_tokens for llama.cpp", provider.Config{LegacyMaxTokens: true}, []llms.CallOption{llms.WithMaxTokens(100)}, func(t *testing.T, body map[string]any) {
			if body["max_tokens"] != 100.0 || body["max_completion_tokens"] != nil {
				t.Errorf("max_tokens %v, max_completion_tokens %v; want 100 and none", body["max_tokens"], body["max_completion_tokens"])
			}
		}},
		{"modern max_completion_tokens", provider.Config{}, []llms.CallOption{llms.WithMaxTokens(100)}, func(t *testing.T, body map[string]any) {
			if body["max_completion_tokens"] != 100.0 || body["max_tokens"] != nil {
				t.Errorf("max_tokens %v, max_completion_tokens %v; want none and 100", body["max_tokens"], body["max_completion_tokens"])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{file: "openai_text.sse", chunk: 3})
			m := openAIModel(t, s, tt.cfg)
			var streamed []string
			opts := append(tt.opts, llms.WithStreamingFunc(func(_ context.Context, c []byte) error { streamed = append(streamed, string(c)); return nil }))
			resp, err := m.GenerateContent(context.Background(), human("generics?"), opts...)
			if err != nil {
				t.Fatal(err)
			}
			const want = "Go added generics in 1.18 [1]."
			if got := strings.Join(streamed, ""); got != want || resp.Choices[0].Content != want || len(streamed) != 2 {
				t.Errorf("streamed %q, content %q; want %q in two chunks", streamed, resp.Choices[0].Content, want)
			}
			if u := usage.Of(resp.Choices[0]); u.PromptTokens != 12 || u.CompletionTokens != 9 {
				t.Errorf("usage %+v, want 12/9", u)
			}
			tt.checkRq(t, s.requests()[0].Body)
		})
	}
}

// A tool turn that answers in text still gives the caller its text, once.
func TestOpenAIToolTurnTextReachesCallerOnce(t *testing.T) {
	s := newServer(t, reply{file: "openai_text.sse"})
	m := openAIModel(t, s, provider.Config{Tools: provider.ToolsNative})
	var streamed []string
	_, err := m.GenerateContent(context.Background(), human("generics?"), llms.WithTools(tools),
		llms.WithStreamingFunc(func(_ context.Context, c []byte) error { streamed = append(streamed, string(c)); return nil }))
	if err != nil || len(streamed) != 1 || streamed[0] != "Go added generics in 1.18 [1]." {
		t.Fatalf("streamed %q, err %v", streamed, err)
	}
}

func TestOllamaThroughV1(t *testing.T) {
	s := newServer(t, reply{file: "openai_text.json"})
	host := strings.TrimPrefix(s.URL, "http://") // OLLAMA_HOST is often host:port
	m := mustNew(t, provider.Config{Provider: provider.Ollama, Name: "llama3.1:8b"}, env("OLLAMA_HOST", host))
	resp, err := m.GenerateContent(context.Background(), human("generics?"))
	if err != nil {
		t.Fatal(err)
	}
	req := s.requests()[0]
	if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != "" || req.Body["model"] != "llama3.1:8b" {
		t.Errorf("request %s, Authorization %q, model %v", req.Path, req.Header.Get("Authorization"), req.Body["model"])
	}
	if resp.Choices[0].Content != "Go added generics in 1.18 [1]." {
		t.Errorf("content %q", resp.Choices[0].Content)
	}
}

// A local server that reports no usage is counted offline.
func TestUsageEstimatedWhenNotReported(t *testing.T) {
	s := newServer(t, reply{file: "openai_text_nousage.json"})
	m := mustNew(t, provider.Config{Provider: provider.OpenAI, Name: "local", BaseURL: s.URL + "/v1"}, env())
	msgs := human("generics?")
	resp, err := m.GenerateContent(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Choices[0]
	want := usage.Estimate(msgs, c)
	if got := usage.Of(c); got != want || got.CompletionTokens != usage.Count("Go added generics in 1.18.") || c.GenerationInfo["UsageEstimated"] != true {
		t.Errorf("usage %+v (estimated %v), want %+v", got, c.GenerationInfo["UsageEstimated"], want)
	}
}

func TestCheck(t *testing.T) {
	s := newServer(t, reply{file: "openai_text.json"}, reply{status: 401, file: "openai_401.json"})
	m := openAIModel(t, s, provider.Config{})
	if err := provider.Check(context.Background(), m); err != nil {
		t.Errorf("Check on a working server: %v", err)
	}
	if err := provider.Check(context.Background(), m); !errors.Is(err, provider.ErrBadKey) {
		t.Errorf("Check with a bad key: %v, want ErrBadKey", err)
	}
	ex := mustNew(t, provider.Config{Provider: provider.Extractive}, nil)
	if err := provider.Check(context.Background(), ex); err != nil {
		t.Errorf("Check on the extractive model: %v", err)
	}
	_ = time.Second
}
