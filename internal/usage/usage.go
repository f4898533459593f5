// Package usage reads the token usage providers report and adds it up.
package usage

import (
	"encoding/json"
	"math"

	"github.com/deepresearch/deepresearch/events"
	"github.com/tmc/langchaingo/llms"
)

// Usage counts the model work done; it is the events package's, so that
// event payloads carry it without linking the counting below.
type Usage = events.Usage

// The names providers give prompt and completion tokens, in the order
// they are tried: langchaingo's normalised keys (OpenAI, Gemini), then
// Anthropic's, then the raw wire names of OpenAI, Anthropic, Gemini's
// usageMetadata and Ollama's native API.
var (
	promptKeys = []string{"PromptTokens", "InputTokens", "prompt_tokens", "input_tokens",
		"promptTokenCount", "prompt_token_count", "prompt_eval_count"}
	completionKeys = []string{"CompletionTokens", "OutputTokens", "completion_tokens", "output_tokens",
		"candidatesTokenCount", "candidates_token_count", "eval_count"}
)

// Of reads the token usage a provider reported for one call, from
// GenerationInfo under any of the names providers use (see promptKeys).
// Missing keys count as zero; int, int32, int64, float64 and json.Number
// values are accepted. internal/provider fills in an offline count
// (Estimate) where a provider reports none.
func Of(c *llms.ContentChoice) Usage {
	u := Usage{Calls: 1}
	if c == nil {
		return u
	}
	u.PromptTokens = firstInt(c.GenerationInfo, promptKeys...)
	u.CompletionTokens = firstInt(c.GenerationInfo, completionKeys...)
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		// Only a total: count it as prompt, so budgets still see it.
		u.PromptTokens = firstInt(c.GenerationInfo, "TotalTokens", "total_tokens")
	}
	return u
}

func firstInt(info map[string]any, keys ...string) int {
	for _, k := range keys {
		if v, ok := info[k]; ok {
			if n, ok := toInt(v); ok {
				return n
			}
		}
	}
	return 0
}

func toInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int32:
		return int(v), true
	case int64:
		return int(v), true
	case uint32:
		return int(v), true
	case uint64:
		return int(v), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, false
		}
		return int(v), true
	case float32:
		return int(v), true
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			f, err := v.Float64()
			return int(f), err == nil
		}
		return int(n), true
	}
	return 0, false
}
