package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/purpose"
)

// scripted is a protocol double for llms.Model: it answers each
// GenerateContent call with the next scripted turn and records what it was
// asked. Like a real provider it streams a reply without tool calls
// through StreamingFunc (in two pieces), unless noStream is set.
type scripted struct {
	turns    []turn
	noStream bool

	mu    sync.Mutex
	calls []request
}

// turn is one scripted reply: a choice, or an error.
type turn struct {
	choice *llms.ContentChoice
	err    error
}

type request struct {
	msgs      []llms.MessageContent
	tools     []llms.Tool
	streaming bool
	purpose   purpose.Purpose // what the call's context said it was for
}

func reply(text string) turn {
	return turn{choice: &llms.ContentChoice{Content: text, StopReason: "stop",
		GenerationInfo: map[string]any{"PromptTokens": 100, "CompletionTokens": len(text) / 4}}}
}

func calls(cs ...llms.ToolCall) turn {
	return turn{choice: &llms.ContentChoice{ToolCalls: cs, StopReason: "tool_calls",
		GenerationInfo: map[string]any{"PromptTokens": 100, "CompletionTokens": 10}}}
}

func tc(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

func (s *scripted) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	s.mu.Lock()
	i := len(s.calls)
	s.calls = append(s.calls, request{msgs: append([]llms.MessageContent(nil), msgs...), tools: opts.Tools, streaming: opts.StreamingFunc != nil, purpose: purpose.Of(ctx)})
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := reply("Nothing more to say.")
	if i < len(s.turns) {
		t = s.turns[i]
	}
	if t.err != nil {
		return nil, t.err
	}
	c := *t.choice
	if len(c.ToolCalls) == 0 && opts.StreamingFunc != nil && !s.noStream {
		half := len(c.Content) / 2
		for _, part := range []string{c.Content[:half], c.Content[half:]} {
			if err := opts.StreamingFunc(ctx, []byte(part)); err != nil {
				return nil, err
			}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{&c}}, nil
}

func (s *scripted) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, options...)
}

// toolContents returns the tool responses the model saw in call i, by
// tool call ID.
func (s *scripted) toolContents(i int) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	if i >= len(s.calls) {
		panic(fmt.Sprintf("call %d not made; %d calls", i, len(s.calls)))
	}
	for _, m := range s.calls[i].msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out[r.ToolCallID] = r.Content
			}
		}
	}
	return out
}
