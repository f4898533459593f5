// Package extractive is the built-in offline model: a deterministic
// extractive summariser that implements langchaingo's llms.Model with no
// network and no weights.
//
// It is not a language model. It never writes a sentence of its own beyond
// fixed phrases ("Research complete."); its reports are sentences copied
// from the tool results it was shown, ranked by how many of the question's
// key terms they share. It exists so that the whole pipeline — planning,
// parallel research with tool calls, citation tracking, streaming, the
// final report — runs offline, in tests, examples and benchmarks, and
// behaves the way a real provider does at the protocol level: it returns
// tool calls with IDs, streams text through CallOptions.StreamingFunc,
// reports StopReason and token usage, and honours context cancellation.
//
// # Protocol
//
// The model learns its job from the purpose the call's context is marked
// with (internal/purpose: purpose.With(ctx, purpose.Planner)); the prompts are
// written for a real LLM and hold nothing for this model. Without a
// purpose, a legacy first line "Role: planner | researcher | reporter |
// writer" of the first system message (or of the first message) is read;
// without either, the role is read from the conversation's shape: one
// that offers tools is researched, one with tool results is reported on,
// one whose human message has a "## Findings" part is written up, and one
// with a "Max tasks:" line is planned.
//
// The four roles:
//
//   - planner: a human message holds the lines "Question: <q>" and
//     "Max tasks: <n>". The reply is JSON text, no tool calls:
//     {"tasks":[{"title":"…","question":"…"},…]} with at most n tasks:
//     the question itself, then one task per side of a comparison of two
//     terms ("keys and tokens"; a coordination of two clauses, "run a
//     program and capture what it prints", is not split) or per named key
//     phrase of the question.
//
//   - researcher: tools search {"query"}, open {"source"} and think
//     {"thought"} are offered; the task question is the first
//     "Question: <q>" line of a human message (else the first human
//     message), the user's question the line "This task is part of the
//     research on: <q>" (else the task question). With no tool calls yet
//     it calls search up to five times in parallel, with distinct
//     queries made only of the questions' own words (never words of a
//     template): the user's question as written, when the task is it,
//     then key terms and phrases; after search results and no open yet
//     it opens the one or two best matching sources not yet opened; then
//     it replies "Research complete." without tool calls.
//
//   - reporter: no tools; the tool results are in the conversation. The
//     reply is a few paragraphs of sentences copied from the tool results,
//     each followed by " [n]", n being the number of the source block it
//     came from: first the best sentence of each of five sources on the
//     subject as a whole (their title and text cover the key terms):
//     sources named after the subject, then the first search's results in
//     its order, then the others by reciprocal rank fusion over all
//     searches; a short source with no sentence of prose (a terse entry)
//     is quoted whole. Then sentences chosen by coverage of the task's and
//     the user's key terms with redundancy removed (maximal marginal
//     relevance). Only sentences relevant to the task are quoted; with
//     none, the reply is NoEvidence.
//
//   - writer: no tools; the human message is in the writer format below.
//     The reply is markdown: "# <title>" (from the question), an
//     introduction made of the two best sentences that bear on the
//     question, then "## <section title>" for each findings section with
//     the best sentence of each source it cites (up to six), then its
//     best sentences up to four, every sentence with its markers exactly
//     as written. A sentence that does not bear on the question (shares
//     fewer than two of its key terms, with the titles of the sources it
//     cites) is never in the introduction, and in the Overview section
//     only as the one quote of a source no bearing sentence cites. It
//     cites nothing that is not in the findings.
//
//   - clarifier: a human message holds "Question: <q>" and "Max
//     questions: <n>". The reply is always {"questions":[]}: the model
//     cannot tell an ambiguous question from a clear one, so it never asks.
//
//   - assessor, section, frame: the research loop's assessment of a
//     cycle's findings (assess.go: a JSON verdict, gaps and follow-ups,
//     from the question's uncovered words and the names in the cited
//     passages), one section of a long report from its findings, and the
//     title and introduction around written sections (sections.go). By
//     shape: a "Max follow-up tasks:" line, a "Section:" line, a
//     "## Sections" part.
//
// The writer's human message:
//
//	Question: <q>
//
//	## Findings
//
//	### <section title>
//	<text with [n] markers, global numbers>
//
//	### <section title>
//	…
//
//	## Sources
//	[n] Title — URL
//
// Tool results are read in the format internal/agent writes: blocks
//
//	[n] Title
//	URL: …
//	Location: …
//	<text>
//
// separated by blank lines. A conversation with an unknown role gets an
// extractive summary of its last human message (or of its tool results,
// when tools have run).
package extractive

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/clock"
)

// Options configures a Model. The zero value answers immediately.
type Options struct {
	// Latency makes every GenerateContent call wait this long before it
	// answers, to simulate a provider's round trip in benchmarks. The wait
	// ends early, with the context's error, when ctx is done.
	Latency time.Duration
	// Clock times the Latency wait; nil means the real clock.
	Clock clock.Clock
}

// Model is the extractive model. It holds no state between calls and is
// safe for concurrent use. Its replies depend only on the messages, the
// offered tools and the options.
type Model struct {
	opts Options
}

var _ llms.Model = (*Model)(nil)

// New returns a model.
func New(opts Options) *Model { return &Model{opts: opts} }

// Stop reasons, as OpenAI-compatible providers report them.
const (
	StopReasonStop      = "stop"
	StopReasonToolCalls = "tool_calls"
)

// chunkWords is how many words each streamed chunk carries.
const chunkWords = 3

// GenerateContent answers the conversation according to its role (see the
// package documentation). When the reply has no tool calls and
// CallOptions.StreamingFunc is set, the content is also delivered through
// it in chunks of a few words that concatenate to Content exactly; an
// error from StreamingFunc ends the call with that error. Token usage
// (estimated as one token per four bytes, rounded up) is reported in
// GenerationInfo under "PromptTokens", "CompletionTokens" and
// "TotalTokens".
func (m *Model) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	if err := m.wait(ctx); err != nil {
		return nil, err
	}

	choice := m.answer(ctx, msgs, toolNames(opts))
	prompt := promptTokens(msgs, opts.Tools)
	completion := completionTokens(choice)
	choice.GenerationInfo = map[string]any{
		"PromptTokens":     prompt,
		"CompletionTokens": completion,
		"TotalTokens":      prompt + completion,
	}
	if len(choice.ToolCalls) > 0 {
		choice.StopReason = StopReasonToolCalls
		fc := *choice.ToolCalls[0].FunctionCall
		choice.FuncCall = &fc
	} else {
		choice.StopReason = StopReasonStop
		if opts.StreamingFunc != nil {
			if err := stream(ctx, choice.Content, opts.StreamingFunc); err != nil {
				return nil, err
			}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

// Call answers a single human prompt. A prompt whose first line is a role
// line is answered in that role.
func (m *Model) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// wait waits the Latency, or returns the context's cause when ctx is done
// (at once when it is done already).
func (m *Model) wait(ctx context.Context) error {
	return clock.Sleep(ctx, clock.Or(m.opts.Clock), m.opts.Latency)
}

func (m *Model) answer(ctx context.Context, msgs []llms.MessageContent, tools map[string]bool) *llms.ContentChoice {
	role := roleOf(ctx, msgs)
	if role == RoleUnknown {
		switch {
		case len(tools) > 0:
			role = RoleResearcher
		case len(toolResults(msgs)) > 0:
			role = RoleReporter
		case field(msgs, "Max follow-up tasks") != "":
			role = RoleAssessor
		case field(msgs, "Section") != "":
			role = RoleSection
		case hasSections(msgs):
			role = RoleFrame
		case hasFindings(msgs):
			role = RoleWriter
		case field(msgs, "Max tasks") != "":
			role = RolePlanner
		case field(msgs, "Max questions") != "":
			role = RoleClarifier
		}
	}
	switch role {
	case RolePlanner:
		return &llms.ContentChoice{Content: plan(msgs)}
	case RoleResearcher:
		return research(msgs, tools)
	case RoleReporter:
		return &llms.ContentChoice{Content: report(msgs)}
	case RoleWriter:
		return &llms.ContentChoice{Content: shape(msgs, write(msgs))}
	case RoleAssessor:
		return &llms.ContentChoice{Content: assess(msgs)}
	case RoleSection:
		return &llms.ContentChoice{Content: writeSection(msgs)}
	case RoleFrame:
		return &llms.ContentChoice{Content: writeFrame(msgs)}
	case RoleClarifier:
		return &llms.ContentChoice{Content: `{"questions":[]}`}
	}
	return &llms.ContentChoice{Content: summarize(msgs)}
}

func toolNames(opts llms.CallOptions) map[string]bool {
	names := map[string]bool{}
	for _, t := range opts.Tools {
		if t.Function != nil {
			names[t.Function.Name] = true
		}
	}
	for _, f := range opts.Functions {
		names[f.Name] = true
	}
	return names
}

// stream delivers content through fn in chunks of a few words, checking
// ctx before each chunk.
func stream(ctx context.Context, content string, fn func(context.Context, []byte) error) error {
	for _, c := range chunks(content, chunkWords) {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err := fn(ctx, []byte(c)); err != nil {
			return err
		}
	}
	return nil
}

// chunks splits s into pieces of n words, each with the whitespace that
// follows it; the pieces concatenate to s.
func chunks(s string, n int) []string {
	var out []string
	start, words := 0, 0
	inWord := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if !space && !inWord {
			if words == n {
				out = append(out, s[start:i])
				start, words = i, 0
			}
			words++
		}
		inWord = !space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// tokensOf estimates the tokens of n bytes of text: one per four, rounded
// up.
func tokensOf(n int) int { return (n + 3) / 4 }

func promptTokens(msgs []llms.MessageContent, tools []llms.Tool) int {
	n := 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				n += len(p.Text)
			case llms.ToolCall:
				if p.FunctionCall != nil {
					n += len(p.FunctionCall.Name) + len(p.FunctionCall.Arguments)
				}
			case llms.ToolCallResponse:
				n += len(p.Content)
			}
		}
	}
	for _, t := range tools {
		if t.Function != nil {
			n += len(t.Function.Name) + len(t.Function.Description) + len(fmt.Sprint(t.Function.Parameters))
		}
	}
	return tokensOf(n)
}

func completionTokens(c *llms.ContentChoice) int {
	n := len(c.Content)
	for _, tc := range c.ToolCalls {
		n += len(tc.FunctionCall.Name) + len(tc.FunctionCall.Arguments)
	}
	return tokensOf(n)
}

// summarize is the answer for a conversation without a known role: the
// three most central sentences of the last human message, in their order.
func summarize(msgs []llms.MessageContent) string {
	text := ""
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llms.ChatMessageTypeHuman {
			text = textOf(msgs[i])
			break
		}
	}
	var sents []string
	for _, p := range paragraphs(text) {
		sents = append(sents, sentences(p)...)
	}
	if len(sents) <= 3 {
		return strings.Join(sents, " ")
	}
	freq := map[string]int{}
	for _, s := range sents {
		for st := range stemSet(s) {
			freq[st]++
		}
	}
	type scored struct {
		i     int
		score float64
	}
	var ss []scored
	for i, s := range sents {
		sum, n := 0, 0
		for st := range stemSet(s) {
			sum += freq[st]
			n++
		}
		sc := 0.0
		if n > 0 {
			sc = float64(sum)/float64(n) + 0.5/float64(i+1)
		}
		ss = append(ss, scored{i, sc})
	}
	best := topIndexes(len(ss), 3, func(i int) float64 { return ss[i].score })
	var out []string
	for _, i := range best {
		out = append(out, sents[i])
	}
	return strings.Join(out, " ")
}

// topIndexes returns the indexes of the k highest scores (ties to the
// lower index), in ascending index order.
func topIndexes(n, k int, score func(int) float64) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(score(b), score(a)) })
	if len(idx) > k {
		idx = idx[:k]
	}
	slices.Sort(idx)
	return idx
}
