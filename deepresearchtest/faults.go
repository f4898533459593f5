package deepresearchtest

import (
	"context"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/purpose"
)

// FailingWriter returns m, failing with err every call that writes a
// run's final report, while the planning and the research go well: a
// test of a front end sees what it gives when the writer fails (what
// deepresearch.Report guarantees: the agents' merged findings). It knows
// the writer's calls by their context in process, and by their prompt
// behind an OpenAIServer; an err with a StatusCode() int method sets the
// status that server answers with.
func FailingWriter(m llms.Model, err error) llms.Model { return failingWriter{m, err} }

type failingWriter struct {
	llms.Model
	err error
}

func (f failingWriter) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	if purpose.Of(ctx) == purpose.Writer || writerPrompt(msgs) {
		return nil, f.err
	}
	return f.Model.GenerateContent(ctx, msgs, opts...)
}

func (f failingWriter) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, f, prompt, opts...)
}

// writerPrompt reports whether msgs are the final report's: its system
// prompt opens "You are the writer".
func writerPrompt(msgs []llms.MessageContent) bool {
	if len(msgs) == 0 || len(msgs[0].Parts) == 0 {
		return false
	}
	tp, ok := msgs[0].Parts[0].(llms.TextContent)
	return ok && strings.HasPrefix(tp.Text, "You are the writer")
}
