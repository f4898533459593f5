// Package purpose tells a model what a call is for (planning, an agent's
// tool loop, its report, the final report, a relevance judgement),
// through the call's context, without a word of it reaching the prompt or
// the wire. (A run's stages — index, plan, research, merge, report,
// verify — are another thing: see the events package.)
//
// Real models learn their job from the prompt; the built-in extractive
// model (internal/extractive) has no language understanding and reads the
// purpose from the context instead. A metadata call option
// (llms.WithMetadata) was the other way, and is not used: in langchaingo
// v0.1.14 it replaces the whole metadata map (losing provider switches
// such as openai:use_legacy_max_tokens) and the OpenAI adapter sends it to
// the API, which rejects metadata unless "store" is enabled
// (tmc/langchaingo#1484).
package purpose

import "context"

// Purpose names a kind of model call.
type Purpose string

// The purposes of a run's model calls.
const (
	Planner    Purpose = "planner"    // split the question into tasks
	Researcher Purpose = "researcher" // the tool loop of an agent
	Reporter   Purpose = "reporter"   // an agent's report turn
	Writer     Purpose = "writer"     // the final report
	Relevance  Purpose = "relevance"  // batched relevance judgement of sources
	Assessor   Purpose = "assessor"   // after a cycle: is the question answered, what is missing
	Section    Purpose = "section"    // one section of a report written section by section
	Frame      Purpose = "frame"      // the introduction and summary around written sections
	Clarifier  Purpose = "clarifier"  // before planning: does the question need clarifying
)

type key struct{}

// With returns ctx marked with p.
func With(ctx context.Context, p Purpose) context.Context {
	return context.WithValue(ctx, key{}, p)
}

// Of returns the purpose ctx is marked with, or "".
func Of(ctx context.Context) Purpose {
	p, _ := ctx.Value(key{}).(Purpose)
	return p
}
