package usage

import (
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/tmc/langchaingo/llms"
)

// perMessage is what OpenAI's chat format adds to each message (role and
// separators), by its own published counting recipe.
const perMessage = 4

// encoding loads cl100k_base from the BPE tables compiled into the binary
// (tiktoken-go-loader): tiktoken-go would otherwise download them at run
// time. The loader is set process-wide, which also keeps langchaingo's
// llms.CountTokens offline. The first call parses the table (tens of
// milliseconds); later calls share it.
var encoding = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	return tiktoken.GetEncoding("cl100k_base")
})

// Count returns the number of cl100k_base tokens in s, counted offline.
// It is exact for OpenAI's GPT-4-era models and an estimate, usually within
// a fifth, for other providers' tokenizers. If the tables cannot be loaded
// it falls back to one token per four bytes.
func Count(s string) int {
	if s == "" {
		return 0
	}
	enc, err := encoding()
	if err != nil {
		return (len(s) + 3) / 4
	}
	return len(enc.Encode(s, nil, nil))
}

// Estimate counts a call's usage offline, for providers that report none:
// the prompt is every text part, tool call and tool result of msgs plus
// perMessage tokens for each message; the completion is the reply's text
// and tool calls. Calls is 1.
func Estimate(msgs []llms.MessageContent, reply *llms.ContentChoice) Usage {
	u := Usage{Calls: 1}
	for _, m := range msgs {
		u.PromptTokens += perMessage
		for _, p := range m.Parts {
			u.PromptTokens += Count(partText(p))
		}
	}
	if reply != nil {
		u.CompletionTokens = Count(reply.Content)
		for _, tc := range reply.ToolCalls {
			if tc.FunctionCall != nil {
				u.CompletionTokens += Count(tc.FunctionCall.Name) + Count(tc.FunctionCall.Arguments)
			}
		}
	}
	return u
}

func partText(p llms.ContentPart) string {
	switch p := p.(type) {
	case llms.TextContent:
		return p.Text
	case llms.ToolCall:
		if p.FunctionCall == nil {
			return ""
		}
		return p.FunctionCall.Name + " " + p.FunctionCall.Arguments
	case llms.ToolCallResponse:
		return p.Name + " " + p.Content
	case llms.CachedContent:
		return partText(p.ContentPart)
	}
	// Images and binary parts: their tokens depend on the provider's
	// vision pricing, not on text; not counted.
	return ""
}
