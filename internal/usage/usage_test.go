package usage_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/usage"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		info map[string]any
		want usage.Usage
	}{
		{"ints", map[string]any{"PromptTokens": 10, "CompletionTokens": 5, "TotalTokens": 15}, usage.Usage{PromptTokens: 10, CompletionTokens: 5, Calls: 1}},
		{"int64 and float64", map[string]any{"PromptTokens": int64(10), "CompletionTokens": 5.0}, usage.Usage{PromptTokens: 10, CompletionTokens: 5, Calls: 1}},
		{"json.Number", map[string]any{"PromptTokens": json.Number("7"), "CompletionTokens": json.Number("2.0")}, usage.Usage{PromptTokens: 7, CompletionTokens: 2, Calls: 1}},
		{"anthropic keys", map[string]any{"InputTokens": 3, "OutputTokens": 4}, usage.Usage{PromptTokens: 3, CompletionTokens: 4, Calls: 1}},
		{"only total", map[string]any{"TotalTokens": 9}, usage.Usage{PromptTokens: 9, CompletionTokens: 0, Calls: 1}},
		{"missing", nil, usage.Usage{PromptTokens: 0, CompletionTokens: 0, Calls: 1}},
		{"wrong types", map[string]any{"PromptTokens": "10", "CompletionTokens": nil}, usage.Usage{PromptTokens: 0, CompletionTokens: 0, Calls: 1}},
	}
	for _, tt := range tests {
		if got := usage.Of(&llms.ContentChoice{GenerationInfo: tt.info}); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestOfProviderKeys(t *testing.T) {
	tests := []struct {
		name string
		info map[string]any
		want usage.Usage
	}{
		{"gemini usageMetadata, raw", map[string]any{"promptTokenCount": int32(11), "candidatesTokenCount": int32(9)}, usage.Usage{PromptTokens: 11, CompletionTokens: 9, Calls: 1}},
		{"openai wire names", map[string]any{"prompt_tokens": 12.0, "completion_tokens": 3.0}, usage.Usage{PromptTokens: 12, CompletionTokens: 3, Calls: 1}},
		{"anthropic wire names", map[string]any{"input_tokens": 5, "output_tokens": 6}, usage.Usage{PromptTokens: 5, CompletionTokens: 6, Calls: 1}},
		{"ollama native", map[string]any{"prompt_eval_count": 26, "eval_count": 290}, usage.Usage{PromptTokens: 26, CompletionTokens: 290, Calls: 1}},
	}
	for _, tt := range tests {
		if got := usage.Of(&llms.ContentChoice{GenerationInfo: tt.info}); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// Count uses the BPE tables compiled into the binary: this machine cannot
// reach the address tiktoken-go downloads from, so a count here proves it
// never does.
func TestCountOffline(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Go added generics in 1.18.", 9},
	}
	for _, tt := range tests {
		if got := usage.Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestEstimate(t *testing.T) {
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "hello world"),
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{Name: "search", Content: "hello world"}}},
	}
	reply := &llms.ContentChoice{Content: "hello world", ToolCalls: []llms.ToolCall{{FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{}`}}}}
	got := usage.Estimate(msgs, reply)
	want := usage.Usage{
		PromptTokens:     4 + 2 + 4 + usage.Count("search hello world"),
		CompletionTokens: 2 + usage.Count("search") + usage.Count("{}"),
		Calls:            1,
	}
	if got != want {
		t.Errorf("Estimate = %+v, want %+v", got, want)
	}
}

func BenchmarkCount(b *testing.B) {
	text := strings.Repeat("Go added generics in version 1.18, released in March 2022. ", 50)
	usage.Count(text) // load the tables outside the loop
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		usage.Count(text)
	}
}
