// Package agent runs one research agent: a tool loop in which a model
// searches and reads sources, then one streamed turn in which it writes a
// cited intermediate report.
//
// Search results pass the relevance and content filters of
// internal/relevance first; every document that survives them gets a
// local citation number the first time the agent sees it (the same
// document, by canonical URL or by ID, keeps its number), and tool
// results show the model those numbers. The
// report is streamed through a citeproc.Processor in Keep mode over the
// agent's mapping, so its text is passed on unchanged while the agent
// learns which sources it cited and which numbers it made up. Merging the
// numbering of several agents is collapse's job, not this package's.
//
// Run does its work on the calling goroutine, but for the searches of one
// turn: when the model asks for several at once, they (with their
// relevance judgements) run in goroutines Run owns and waits for before
// the turn goes on. They change nothing the agent holds; the numbering,
// the filter's memory and every hook then advance on the calling
// goroutine, in the order of the calls, so the outcome does not depend on
// which search finished first.
package agent

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

const (
	// minReportTokens is the least completion the report turn is allowed,
	// however much the research loop spent.
	minReportTokens = 256
	defaultChannel  = "search"
)

// Task is one research task of a plan.
type Task struct {
	// Index is the task's position in the plan, from 0.
	Index int
	// ID is "t1", "t2", … (Index+1).
	ID       string
	Title    string
	Question string
	// Objective is the user's question the task is part of (Plan sets
	// it); "" means Question. Sources are judged against both.
	Objective string
	// Cycle is the research cycle the task runs in (1 for the plan's
	// tasks; Plan sets it).
	Cycle int
	// Part is, for a follow-up task, the ID of the plan task whose part of
	// the question it serves ("" for the question as a whole); Gap is what
	// it closes.
	Part, Gap string
	// Known is what earlier cycles of the run found (nil in the first):
	// the agent is shown it, and a search already run is not run again.
	Known *Known
	// Read are documents (DocIDs of the search backend) the agent reads
	// before its first turn: each is fetched, numbered as a source and
	// opened as an open call would (the conversation holds the call and
	// its result), at most MaxRead of them, each a tool call of the
	// budget. A document that cannot be fetched is left out. The research
	// loop sets it to follow a reference to a document by its name.
	Read []string
}

// MaxRead caps Task.Read.
const MaxRead = 3

// Known is what a run found before a follow-up task started, shown to
// its agent so that it builds on it instead of repeating it. Its text
// comes from sources and models: it is shown as data, a line each.
type Known struct {
	// Findings digests the merged findings so far, one line each, without
	// citation markers (the agent's own numbering is not theirs).
	Findings []string
	// Sources are the sources already read and cited ("Title — URL").
	Sources []string
	// Searches are the queries already run. The agent does not run them
	// again: such a call is answered with a note instead of results.
	Searches []string
}

// Budget bounds one Run. Zero (or negative) fields take the defaults.
type Budget struct {
	// MaxToolCalls caps the tool calls executed (default 8). Calls past
	// the cap are answered with a budget message instead of run, and the
	// agent goes on to write its report.
	MaxToolCalls int
	// MaxTokens caps the tokens (prompt + completion, as the model reports
	// them) of the whole Run (default 16000): the agent stops calling tools
	// when the next turn would leave less than a quarter of the budget for
	// the report, and the report turn's completion is capped
	// (llms.WithMaxTokens) at what remains.
	MaxTokens int
	// Timeout bounds the whole Run (default 2 minutes). Past it, Run
	// returns an error matching ErrTimeout and context.DeadlineExceeded.
	Timeout time.Duration
}

// WithDefaults returns b with its zero (or negative) fields set to the
// defaults (research.max_tool_calls, .max_tokens, .agent_timeout).
func (b Budget) WithDefaults() Budget {
	b.MaxToolCalls = defaults.PositiveOr(b.MaxToolCalls, defaults.MaxToolCalls)
	b.MaxTokens = defaults.PositiveOr(b.MaxTokens, defaults.MaxTokens)
	b.Timeout = defaults.PositiveOr(b.Timeout, defaults.AgentTimeout)
	return b
}

// Hooks observe a Run. Nil fields are skipped. They are called
// synchronously on Run's goroutine (Delta from inside the model's
// streaming callback), in the order the events happen; a slow hook slows
// the agent.
type Hooks struct {
	// Search is called after each successful search with its query and
	// the number of results.
	Search func(query string, results int)
	// Source is called when a source is registered in the agent's mapping,
	// once per local number, before the tool result that shows it.
	Source func(number int, src source.Source)
	// ToolCall is called before each tool call is executed.
	ToolCall func(name string, args string)
	// Delta is called with the report text as it streams (the Keep-mode
	// output of citeproc: the model's text, unchanged).
	Delta func(text string)
	// Cited is called once, after the report, with the sources it cited in
	// order of first citation.
	Cited func(cited []citeproc.Citation)
	// Filtered is called after each search with what the relevance and
	// content filters kept and dropped (the sources.filtered event),
	// before the Source calls of the sources kept.
	Filtered func(relevance.Report)
}

// Config configures Run. Model and Search are required.
type Config struct {
	Model  llms.Model
	Search search.Backend
	Budget Budget
	// SearchLimit is the number of results per search call (default 5).
	SearchLimit int
	// Canonical maps a URL to the key under which results of the same
	// document share a number (canon.Key); nil compares URLs exactly.
	// Results without a URL are compared by DocID.
	Canonical func(string) string
	// Channel is the source.Source.Channel of the sources this agent
	// registers (default "search").
	Channel string
	Hooks   Hooks
	// Stop, if set, is asked before each research turn; when it returns
	// true the agent stops researching and writes its report from what it
	// has (a run-wide budget was reached).
	Stop func() bool
	// Clock arms the Budget.Timeout timer; nil means the real clock.
	Clock clock.Clock
	// Relevance judges search results before the model sees them; nil
	// means relevance.Lexical (offline key-term coverage).
	Relevance relevance.Judge
}

// Result is what one agent produced.
type Result struct {
	Task Task
	// Report is the report with the agent's local [n] markers, exactly as
	// the model wrote it.
	Report string
	// Sources holds every source the agent retrieved, by local number.
	Sources map[int]source.Source
	// Texts holds, by local number, the text of each source the model was
	// shown (search snippets, opened documents): what its citations can be
	// checked against.
	Texts map[int]string
	// Relevance holds, by local number, what the relevance filter said of
	// each source when it kept it (its best-scored passage).
	Relevance map[int]source.Relevance
	// Cited lists the sources the report cited, in order of first citation.
	Cited []citeproc.Citation
	// Unknown lists numbers the report cited that the agent never
	// retrieved.
	Unknown []citeproc.Unknown
	// Usage sums all model calls of the Run.
	Usage Usage
	// ToolCalls counts the tool calls executed.
	ToolCalls int
}

// Run researches one task: tool turns (search, open, think) until the
// model answers without tool calls or the budget is spent, then a report
// turn without tools, streamed through Hooks.Delta.
//
// Turns that offer tools never set a StreamingFunc (langchaingo v0.1.14
// pushes tool-call JSON into it and garbles parallel calls); only the
// report turn streams. A model that never calls the StreamingFunc still
// works: its returned content is used.
//
// Errors: the Result returned with an error holds what the Run spent
// (Usage, ToolCalls) but no usable report. A model error ends the Run with
// an *Error naming the stage
// (StageResearch or StageReport); the caller decides about retries. Search
// backend failures, unknown source numbers and malformed tool arguments
// are reported to the model as tool errors and the loop goes on. When ctx
// is done (or Budget.Timeout passes) Run returns context.Cause of its
// context.
func Run(ctx context.Context, cfg Config, task Task) (*Result, error) {
	if cfg.Model == nil || cfg.Search == nil {
		return nil, &Error{Task: task, Stage: StageResearch, Err: fmt.Errorf("config needs a Model and a Search backend")}
	}
	b := cfg.Budget.WithDefaults()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := clock.Or(cfg.Clock).AfterFunc(b.Timeout, func() {
		cancel(fmt.Errorf("%w after %v: %w", ErrTimeout, b.Timeout, context.DeadlineExceeded))
	})
	defer stop()

	r := &runner{ctx: ctx, cfg: cfg, budget: b, task: task, s: newSession(cfg, task), res: &Result{Task: task}}
	// On failure the Result still says what was spent (Usage, ToolCalls),
	// so a run's accounting includes failed agents; its Report is partial.
	if err := r.research(); err != nil {
		return r.res, r.fail(StageResearch, err)
	}
	if len(r.s.sources) == 0 && r.s.searchErr != nil {
		// Every search failed: a report now could only say nothing, and
		// the run must learn why.
		return r.res, r.fail(StageResearch, fmt.Errorf("%w: %d searches failed, the last with: %w", ErrSearch, r.s.searchFails, r.s.searchErr))
	}
	if err := r.report(); err != nil {
		return r.res, r.fail(StageReport, err)
	}
	r.res.Sources = r.s.Sources()
	r.res.Texts = maps.Clone(r.s.texts)
	r.res.Relevance = maps.Clone(r.s.relevance)
	return r.res, nil
}

type runner struct {
	ctx    context.Context
	cfg    Config
	budget Budget
	task   Task
	s      *session
	res    *Result
	conv   []llms.MessageContent // the research conversation, without system prompt
}

// fail turns err into Run's error: the context's cause when it is done,
// else an *Error for the stage.
func (r *runner) fail(stage string, err error) error {
	if r.ctx.Err() != nil {
		return context.Cause(r.ctx)
	}
	return &Error{Task: r.task, Stage: stage, Err: err}
}

// research runs the tool loop.
func (r *runner) research() error {
	system := llms.TextParts(llms.ChatMessageTypeSystem, fmt.Sprintf(researcherPrompt, r.budget.MaxToolCalls))
	r.conv = []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, taskMessage(r.task))}
	if err := r.readFirst(); err != nil {
		return err
	}
	for turn := 1; ; turn++ {
		if r.ctx.Err() != nil {
			return context.Cause(r.ctx)
		}
		if turn > 1 && r.cfg.Stop != nil && r.cfg.Stop() {
			return nil
		}
		msgs := append([]llms.MessageContent{system}, r.conv...)
		resp, err := r.cfg.Model.GenerateContent(purpose.With(r.ctx, purpose.Researcher), msgs, llms.WithTools(toolDefs))
		if err != nil {
			return err
		}
		choice, err := firstChoice(resp)
		if err != nil {
			return err
		}
		u := usageOf(choice)
		r.res.Usage = r.res.Usage.Add(u)

		calls := assemble(choice, turn)
		ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		if choice.Content != "" {
			ai.Parts = append(ai.Parts, llms.TextPart(choice.Content))
		}
		for _, c := range calls {
			ai.Parts = append(ai.Parts, c)
		}
		if len(ai.Parts) > 0 {
			r.conv = append(r.conv, ai)
		}
		if len(calls) == 0 {
			return nil
		}

		stop := false
		resultBytes := 0
		found := r.s.findAll(r.ctx, calls, r.budget.MaxToolCalls-r.res.ToolCalls)
		for i, c := range calls {
			var content string
			if r.res.ToolCalls >= r.budget.MaxToolCalls {
				content = toolError("tool call budget spent; this call was not run. Stop calling tools.")
				stop = true
			} else {
				if h := r.cfg.Hooks.ToolCall; h != nil {
					h(c.FunctionCall.Name, c.FunctionCall.Arguments)
				}
				content, err = r.s.execute(r.ctx, c, found[i])
				if err != nil {
					return err
				}
				r.res.ToolCalls++
			}
			resultBytes += len(content)
			r.conv = append(r.conv, llms.MessageContent{
				Role:  llms.ChatMessageTypeTool,
				Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: c.ID, Name: c.FunctionCall.Name, Content: content}},
			})
		}
		if stop || r.res.ToolCalls >= r.budget.MaxToolCalls {
			return nil
		}
		// The next turn's prompt holds at least this turn's prompt, its
		// completion and the new tool results.
		next := u.PromptTokens + u.CompletionTokens + (resultBytes+3)/4
		if r.res.Usage.Total()+next > r.budget.MaxTokens-r.budget.MaxTokens/4 {
			return nil
		}
	}
}

// readFirst opens the task's Read documents before the first turn: each
// is numbered as a source, and the conversation gets an open call of it
// with the result, as if the model had made it.
func (r *runner) readFirst() error {
	var calls []llms.ToolCall
	var results []llms.MessageContent
	for i, id := range r.task.Read {
		if i == MaxRead || r.res.ToolCalls >= r.budget.MaxToolCalls {
			break
		}
		n, content, err := r.s.openDoc(r.ctx, id)
		if err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		call := llms.ToolCall{ID: fmt.Sprintf("call_0_%d", len(calls)+1), Type: "function",
			FunctionCall: &llms.FunctionCall{Name: ToolOpen, Arguments: fmt.Sprintf(`{"source":%d}`, n)}}
		if h := r.cfg.Hooks.ToolCall; h != nil {
			h(call.FunctionCall.Name, call.FunctionCall.Arguments)
		}
		r.res.ToolCalls++
		calls = append(calls, call)
		results = append(results, llms.MessageContent{Role: llms.ChatMessageTypeTool,
			Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: call.ID, Name: ToolOpen, Content: content}}})
	}
	if len(calls) == 0 {
		return nil
	}
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, c := range calls {
		ai.Parts = append(ai.Parts, c)
	}
	r.conv = append(append(r.conv, ai), results...)
	return nil
}

// report runs the report turn, streaming through a Keep-mode citeproc
// processor over the agent's mapping.
func (r *runner) report() error {
	msgs := make([]llms.MessageContent, 0, len(r.conv)+2)
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, reporterPrompt))
	msgs = append(msgs, r.conv...)
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, reportInstruction(r.task)))

	var raw strings.Builder
	proc := citeproc.New(deltaWriter(r.cfg.Hooks.Delta), citeproc.Config{Mode: citeproc.Keep, Mapping: r.s.mapping})
	streamFn := func(_ context.Context, chunk []byte) error {
		if len(chunk) == 0 {
			return nil
		}
		raw.Write(chunk)
		_, err := proc.Write(chunk)
		return err
	}
	opts := []llms.CallOption{llms.WithStreamingFunc(streamFn)}
	// The report turn gets what the budget has left, and at least a
	// small report's worth.
	opts = append(opts, llms.WithMaxTokens(max(r.budget.MaxTokens-r.res.Usage.Total(), minReportTokens)))
	resp, err := r.cfg.Model.GenerateContent(purpose.With(r.ctx, purpose.Reporter), msgs, opts...)
	if err != nil {
		return err
	}
	choice, err := firstChoice(resp)
	if err != nil {
		return err
	}
	r.res.Usage = r.res.Usage.Add(usageOf(choice))
	if raw.Len() == 0 && choice.Content != "" {
		// A provider that does not stream.
		raw.WriteString(choice.Content)
		if _, err := proc.WriteString(choice.Content); err != nil {
			return err
		}
	}
	if err := proc.Close(); err != nil {
		return err
	}
	r.res.Report = raw.String()
	r.res.Cited = proc.Cited()
	r.res.Unknown = proc.Unknowns()
	if h := r.cfg.Hooks.Cited; h != nil {
		h(r.res.Cited)
	}
	return nil
}

func firstChoice(resp *llms.ContentResponse) (*llms.ContentChoice, error) {
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return nil, ErrNoChoices
	}
	return resp.Choices[0], nil
}

// deltaWriter passes written text to fn.
type deltaWriter func(string)

func (f deltaWriter) Write(p []byte) (int, error) {
	if f != nil && len(p) > 0 {
		f(string(p))
	}
	return len(p), nil
}
