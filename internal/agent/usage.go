package agent

import (
	"encoding/json"
	"math"

	"github.com/tmc/langchaingo/llms"
)

// Usage counts the model calls of a Run or Plan and the tokens the model
// reported for them.
type Usage struct {
	PromptTokens, CompletionTokens, Calls int
}

// Total is PromptTokens + CompletionTokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens, u.Calls + v.Calls}
}

// usageOf reads the token usage a provider reported for one call. OpenAI
// compatible providers put it in GenerationInfo as "PromptTokens" and
// "CompletionTokens"; Anthropic-style "InputTokens"/"OutputTokens" are read
// too. Missing keys count as zero; int, int32, int64, float64 and
// json.Number values are accepted.
func usageOf(c *llms.ContentChoice) Usage {
	u := Usage{Calls: 1}
	if c == nil {
		return u
	}
	u.PromptTokens = firstInt(c.GenerationInfo, "PromptTokens", "InputTokens", "prompt_tokens", "input_tokens")
	u.CompletionTokens = firstInt(c.GenerationInfo, "CompletionTokens", "OutputTokens", "completion_tokens", "output_tokens")
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
