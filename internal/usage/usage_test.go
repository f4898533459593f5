package usage_test

import (
	"encoding/json"
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
