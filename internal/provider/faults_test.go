package provider_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/provider"
)

// t0 is when the fake clocks of the tests start.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Each fault ends in a success after retries or in a clear error, and the
// waits are the ones asked for, on an injected clock.
func TestFaults(t *testing.T) {
	const text = "Go added generics in 1.18 [1]."
	tests := []struct {
		name      string
		replies   []reply
		stream    bool
		wantErr   error  // nil: success with text
		wantMsg   string // in the error
		wantWaits []time.Duration
	}{
		{"429 with Retry-After, then success",
			[]reply{{status: 429, header: map[string]string{"Retry-After": "3"}, file: "openai_429.json"}, {file: "openai_text.json"}},
			false, nil, "", []time.Duration{3 * time.Second}},
		{"429 with retry-after-ms",
			[]reply{{status: 429, header: map[string]string{"Retry-After-Ms": "1500"}, file: "openai_429.json"}, {file: "openai_text.json"}},
			false, nil, "", []time.Duration{1500 * time.Millisecond}},
		{"500 twice, then success with backoff",
			[]reply{{status: 500, file: "openai_500.json"}, {status: 502, file: "openai_500.json"}, {file: "openai_text.json"}},
			false, nil, "", []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{"500 every time",
			[]reply{{status: 500, file: "openai_500.json"}, {status: 500, file: "openai_500.json"}, {status: 500, file: "openai_500.json"}, {status: 500, file: "openai_500.json"}},
			false, provider.ErrUnavailable, "The server had an error", []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}},
		{"stream truncated before any text is retried",
			[]reply{{file: "openai_text_truncated_early.sse"}, {file: "openai_text.sse"}},
			true, nil, "", []time.Duration{250 * time.Millisecond}},
		{"stream truncated after text is an error, not a short answer",
			[]reply{{file: "openai_text_truncated_late.sse"}, {file: "openai_text.sse"}},
			true, provider.ErrTruncated, "stream ended early", nil},
		{"malformed event after text is an error",
			[]reply{{file: "openai_text_malformed.sse"}},
			true, provider.ErrMalformed, "malformed reply", nil},
		{"OpenRouter's mid-stream error chunk is retried",
			[]reply{{file: "openrouter_midstream_error.sse"}, {file: "openai_text.sse"}},
			true, nil, "", []time.Duration{250 * time.Millisecond}},
		{"malformed JSON reply is retried",
			[]reply{{file: "openai_malformed.json"}, {file: "openai_text.json"}},
			false, nil, "", []time.Duration{250 * time.Millisecond}},
		{"bad key names the variable, no retry",
			[]reply{{status: 401, file: "openai_401.json"}},
			false, provider.ErrBadKey, "check OPENAI_API_KEY", nil},
		{"bad request says what was rejected, no retry",
			[]reply{{status: 400, file: "openai_400.json"}},
			false, provider.ErrBadRequest, "Invalid value for 'max_completion_tokens'", nil},
		{"error body that is not JSON",
			[]reply{{status: 403, file: "openai_malformed.json"}},
			false, provider.ErrBadKey, "HTTP 403", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.replies...)
			clk := clock.NewFake(t0)
			m := retried(openAIModel(t, s, provider.Config{}), clk)
			var opts []llms.CallOption
			var streamed string
			if tt.stream {
				opts = append(opts, llms.WithStreamingFunc(func(_ context.Context, c []byte) error { streamed += string(c); return nil }))
			}
			var resp *llms.ContentResponse
			var err error
			waits := clk.Drive(func() { resp, err = m.GenerateContent(context.Background(), human("generics?"), opts...) })
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err %v, want success", err)
				}
				if resp.Choices[0].Content != text || (tt.stream && streamed != text) {
					t.Errorf("content %q, streamed %q", resp.Choices[0].Content, streamed)
				}
			} else {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("err %v, want %v containing %q", err, tt.wantErr, tt.wantMsg)
				}
				if strings.Contains(err.Error(), "openai: openai") {
					t.Errorf("doubled prefix: %v", err)
				}
			}
			if fmt.Sprint(waits) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits %v, want %v", waits, tt.wantWaits)
			}
			if got, want := len(s.requests()), len(tt.wantWaits)+1; got != want {
				t.Errorf("%d requests, want %d", got, want)
			}
		})
	}
}

// A server that stalls never hangs the caller: the caller's deadline ends
// the call with the context's error, not retried.
func TestStallEndsWithCallersContext(t *testing.T) {
	s := newServer(t, reply{stall: true})
	clk := clock.NewFake(t0)
	m := retried(openAIModel(t, s, provider.Config{}), clk)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); <-s.stalled; cancel(context.DeadlineExceeded) }()
	var err error
	waits := clk.Drive(func() { _, err = m.GenerateContent(ctx, human("generics?")) })
	<-done
	if !errors.Is(err, context.DeadlineExceeded) || len(waits) != 0 {
		t.Fatalf("err %v after %d waits, want the deadline and no retry", err, len(waits))
	}
}

// A stalled attempt is abandoned at the attempt timeout and retried.
func TestStallRetriedAfterAttemptTimeout(t *testing.T) {
	s := newServer(t, reply{stall: true}, reply{file: "openai_text.json"})
	clk := clock.NewFake(t0)
	m := retried(openAIModel(t, s, provider.Config{}), clk)
	m.AttemptTimeout = time.Minute
	type result struct {
		resp *llms.ContentResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := m.GenerateContent(context.Background(), human("generics?"))
		done <- result{resp, err}
	}()
	<-s.stalled // the first attempt armed its time limit, then stalled
	backoff := clk.Armed()
	clk.Advance(time.Minute) // the attempt's time limit passes
	<-backoff                // the retry waits its backoff
	if n := clk.Pending(); n != 1 {
		t.Fatalf("%d timers pending, want the backoff's", n)
	}
	clk.Advance(250 * time.Millisecond) // Backoff 500ms, unjittered: half of it
	r := <-done
	if r.err != nil || r.resp.Choices[0].Content == "" || len(s.requests()) != 2 {
		t.Fatalf("err %v after %d requests, want success after one retry", r.err, len(s.requests()))
	}
}

// A model that rejects tools is asked again through the text protocol, and
// its JSON answer becomes a tool call.
func TestToolsRejectedFallsBackToText(t *testing.T) {
	s := newServer(t, reply{status: 400, file: "ollama_400_tools.json"}, reply{file: "openai_text_toolcall.json"}, reply{file: "openai_text_toolcall.json"})
	m := mustNew(t, provider.Config{Provider: provider.Ollama, Name: "gemma2:2b"}, env("OLLAMA_HOST", s.URL))
	for i := range 2 {
		resp, err := m.GenerateContent(context.Background(), human("generics?"), llms.WithTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := callsOf(resp), `call_text_1 search {"query": "go generics"};`; got != want {
			t.Errorf("call %d: tool calls %q, want %q", i, got, want)
		}
		if c := resp.Choices[0].Content; c != "I will look this up first." {
			t.Errorf("call %d: content %q", i, c)
		}
	}
	reqs := s.requests()
	if len(reqs) != 3 || reqs[0].Body["tools"] == nil || reqs[1].Body["tools"] != nil || reqs[2].Body["tools"] != nil {
		t.Fatalf("want native tools once, then text twice; got %d requests", len(reqs))
	}
	sys := reqs[1].Body["messages"].([]any)[0].(map[string]any)
	if !strings.Contains(fmt.Sprint(sys["content"]), "### search") {
		t.Errorf("system prompt lacks the tool section: %v", sys["content"])
	}
}

// Anthropic's mid-stream overloaded_error event is retried like a 529.
func TestAnthropicOverloadedMidStream(t *testing.T) {
	s := newServer(t, reply{file: "anthropic_overloaded.sse"}, reply{file: "anthropic_text.sse"})
	clk := clock.NewFake(t0)
	m := retried(anthropicModel(t, s), clk)
	var streamed string
	var resp *llms.ContentResponse
	var err error
	waits := clk.Drive(func() {
		resp, err = m.GenerateContent(context.Background(), human("generics?"),
			llms.WithStreamingFunc(func(_ context.Context, c []byte) error { streamed += string(c); return nil }))
	})
	if err != nil || streamed != "Go added generics in 1.18 [1]." || resp.Choices[0].Content != streamed || len(waits) != 1 {
		t.Fatalf("err %v, streamed %q, %d waits", err, streamed, len(waits))
	}
}
