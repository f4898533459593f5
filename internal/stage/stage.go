// Package stage tells a model which stage of a run a call belongs to,
// through the call's context, without a word of it reaching the prompt or
// the wire.
//
// Real models learn their job from the prompt; the built-in extractive
// model (internal/extractive) has no language understanding and reads the
// stage from the context instead. A metadata call option
// (llms.WithMetadata) was the other way, and is not used: in langchaingo
// v0.1.14 it replaces the whole metadata map (losing provider switches
// such as openai:use_legacy_max_tokens) and the OpenAI adapter sends it to
// the API, which rejects metadata unless "store" is enabled
// (tmc/langchaingo#1484).
package stage

import "context"

// Stage names a kind of model call.
type Stage string

// The stages of a run.
const (
	Planner    Stage = "planner"    // split the question into tasks
	Researcher Stage = "researcher" // the tool loop of an agent
	Reporter   Stage = "reporter"   // an agent's report turn
	Writer     Stage = "writer"     // the final report
	Relevance  Stage = "relevance"  // batched relevance judgement of sources
	Assessor   Stage = "assessor"   // after a cycle: is the question answered, what is missing
	Section    Stage = "section"    // one section of a report written section by section
	Frame      Stage = "frame"      // the introduction and summary around written sections
)

type key struct{}

// With returns ctx marked with s.
func With(ctx context.Context, s Stage) context.Context {
	return context.WithValue(ctx, key{}, s)
}

// Of returns the stage ctx is marked with, or "".
func Of(ctx context.Context) Stage {
	s, _ := ctx.Value(key{}).(Stage)
	return s
}
