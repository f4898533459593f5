package provider_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/provider"
)

// BenchmarkOpenAIToolStream measures one streamed tool-calling turn
// against a local server, through this package's transport (stream checks,
// tool calls assembled by index) and wrapper: the overhead a real call pays
// on top of the provider's own latency.
func BenchmarkOpenAIToolStream(b *testing.B) {
	data, err := os.ReadFile("testdata/openai_tools_interleaved.sse")
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(data)
	}))
	defer srv.Close()
	m, err := provider.New(context.Background(), provider.Config{Provider: provider.OpenAI, BaseURL: srv.URL + "/v1", Tools: provider.ToolsNative}, nil)
	if err != nil {
		b.Fatal(err)
	}
	msgs := human("generics?")
	stream := llms.WithStreamingFunc(func(context.Context, []byte) error { return nil })
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := m.GenerateContent(context.Background(), msgs, llms.WithTools(tools), stream)
		if err != nil || len(resp.Choices[0].ToolCalls) != 2 {
			b.Fatal(err)
		}
	}
}
