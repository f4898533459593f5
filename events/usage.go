package events

// Usage counts the model work done: tokens in prompts and completions and
// the number of model calls.
type Usage struct {
	// PromptTokens counts the tokens sent to models.
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens counts the tokens models wrote.
	CompletionTokens int `json:"completion_tokens"`
	// Calls counts the model calls.
	Calls int `json:"calls"`
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		Calls:            u.Calls + o.Calls,
	}
}

// Total returns PromptTokens + CompletionTokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }
