package events

import (
	"encoding/json"

	"github.com/deepresearch/deepresearch/source"
)

// PlanTask is one research task of the plan.
type PlanTask struct {
	// Index is the task's position in the plan, from 0. It is the Agent of
	// every event the task's agent emits.
	Index int `json:"index"`
	// ID is the planner's stable name for the task.
	ID string `json:"id"`
	// Title is the short heading of the task; it is the Section of the
	// agent's events and of the final report.
	Title string `json:"title"`
	// Question is what the agent researches.
	Question string `json:"question"`
	// Cycle is the research cycle the task runs in, from 1 (0: the plan
	// before any cycle).
	Cycle int `json:"cycle,omitempty"`
	// Part is, for a follow-up task, the ID of the plan task whose part
	// of the question it serves; "" for the plan's own tasks and for a
	// follow-up on the question as a whole.
	Part string `json:"part,omitempty"`
	// Gap is, for a follow-up task, the gap it closes.
	Gap string `json:"gap,omitempty"`
}

// RunStartedData is the payload of RunStarted.
type RunStartedData struct {
	// Question is the user's question.
	Question string `json:"question"`
	// Config holds the settings that shape the run (model, limits), as
	// the producer chooses to show them; it must hold JSON values and must
	// not hold secrets. After decoding, numbers are float64.
	Config map[string]any `json:"config,omitempty"`
}

// PlanData is the payload of PlanReady.
type PlanData struct {
	// Tasks are the plan's research tasks, in plan order.
	Tasks []PlanTask `json:"tasks"`
}

// AgentStartedData is the payload of AgentStarted.
type AgentStartedData struct {
	// Task is the task the agent researches; its Index is the Agent of
	// the agent's events.
	Task PlanTask `json:"task"`
}

// SearchData is the payload of SearchIssued.
type SearchData struct {
	// Query is the search the agent issued.
	Query string `json:"query"`
	// Results counts the results the search returned.
	Results int `json:"results"`
}

// SourceData is the payload of SourceFound: Number is the number under
// which the agent's report may cite Source.
type SourceData struct {
	// Number is the agent's own number for the source, from 1.
	Number int `json:"number"`
	// Source is the document found.
	Source source.Source `json:"source"`
}

// DeltaData is the payload of AgentDelta: the next piece of an agent's
// intermediate report. Concatenating an agent's deltas in Seq order gives
// its whole report.
type DeltaData struct {
	// Text is the next piece of the agent's report, as written.
	Text string `json:"text"`
}

// ReportDeltaData is the payload of ReportDelta: the next piece of the
// final report. Concatenating the deltas in Seq order gives the report.
type ReportDeltaData struct {
	// Text is the next piece of the report, citations rendered.
	Text string `json:"text"`
}

// CitedSource is a source an agent's report cited, under the agent's own
// number for it.
type CitedSource struct {
	// Number is the agent's number for the source (SourceData.Number).
	Number int `json:"number"`
	// Source is the source cited.
	Source source.Source `json:"source"`
}

// CitedData is the payload of AgentCited: the sources the agent's report
// cited, in order of first citation.
type CitedData struct {
	// Sources are the sources cited, in order of first citation.
	Sources []CitedSource `json:"sources"`
}

// AgentFinishedData is the payload of AgentFinished.
type AgentFinishedData struct {
	// ToolCalls is how many tools (searches, reads) the agent called.
	ToolCalls int `json:"tool_calls"`
	// Cited is how many distinct sources the report cited.
	Cited int `json:"cited"`
	// Usage is the model work the agent did.
	Usage Usage `json:"usage"`
	// DurationMS is the agent's wall time in milliseconds.
	DurationMS int64 `json:"duration_ms"`
}

// Kinds of agent failure, for AgentFailedData.Kind.
const (
	FailError    = "error"    // the agent returned an error
	FailPanic    = "panic"    // the agent panicked; Error holds the panic value
	FailTimeout  = "timeout"  // the agent ran past its time limit
	FailCanceled = "canceled" // the run was canceled
)

// AgentFailedData is the payload of AgentFailed.
type AgentFailedData struct {
	// Error is the failure, as text.
	Error string `json:"error"`
	// Kind is one of FailError, FailPanic, FailTimeout, FailCanceled.
	Kind string `json:"kind"`
}

// FilterVerdict is what the filters decided about one search result.
type FilterVerdict struct {
	// Key identifies the result (its canonical URL, or "id:" and its ID).
	Key string `json:"key"`
	// Title and URL are the result's, where it has them.
	Title string `json:"title,omitempty"`
	URL   string `json:"url,omitempty"`
	// Score is its relevance to the task and the question, 0..1.
	Score float64 `json:"score"`
	// Reason says why the filter decided as it did, in a sentence.
	Reason string `json:"reason"`
	// Check is the filter that decided: "substance", "relevance" or
	// "duplicate".
	Check string `json:"check"`
	// DuplicateOf is the key of the kept result a duplicate repeats.
	DuplicateOf string `json:"duplicate_of,omitempty"`
	// Queries is its relevance to each search of the task so far, beside
	// Score, its relevance to the task's objective (seed 001's
	// q_relevance and o_relevance); Reason is seed 001's reasoning (320
	// bytes at most).
	Queries []source.QueryScore `json:"q_relevance,omitempty"`
}

// FilteredData is the payload of SourcesFiltered.
type FilteredData struct {
	// Query is the search whose results were filtered.
	Query string `json:"query"`
	// Judge names what scored relevance: "lexical", "llm", or a fallback.
	Judge string `json:"judge"`
	// Kept and Dropped are the verdicts on the results kept and dropped,
	// in the search's order.
	Kept    []FilterVerdict `json:"kept"`
	Dropped []FilterVerdict `json:"dropped"`
}

// MergedSource is one entry of the run's merged numbering.
type MergedSource struct {
	// Number is the source's number in the final report.
	Number int `json:"number"`
	// Source is the merged source.
	Source source.Source `json:"source"`
	// CanonicalURL is the URL the source was de-duplicated by; empty for
	// sources without a URL.
	CanonicalURL string `json:"canonical_url,omitempty"`
	// FirstSeenSection is the section that cited the source first.
	FirstSeenSection string `json:"first_seen_section"`
	// UsedInSections lists every section that cited it, in plan order.
	UsedInSections []string `json:"used_in_sections"`
}

// MergedData is the payload of SourcesMerged.
type MergedData struct {
	// Sources is the merged numbering, by Number.
	Sources []MergedSource `json:"sources"`
	// Unknown counts citation markers in the agent reports that resolved
	// to no source and were dropped.
	Unknown int `json:"unknown"`
}

// CitationData is the payload of Citation.
type CitationData struct {
	// Number is the source's number in the report.
	Number int `json:"number"`
	// Source is the source the report cited first under Number.
	Source source.Source `json:"source"`
}

// Reference is one entry of the final report's reference list.
type Reference struct {
	// Number is the reference's number in the report text.
	Number int `json:"number"`
	// Source is the source referred to.
	Source source.Source `json:"source"`
}

// ReportFinishedData is the payload of ReportFinished.
type ReportFinishedData struct {
	// References is the report's reference list, by Number.
	References []Reference `json:"references"`
	// Unknown counts the citations the writer made of numbers that are no
	// merged source: each was dropped from the report.
	Unknown int `json:"unknown,omitempty"`
}

// VerifyProblem is one problem the verification found.
type VerifyProblem struct {
	// Line is the line of the report body (from 1).
	Line int `json:"line"`
	// Severity is "error" or "warning"; Kind names the problem
	// ("unsupported", "no-source", "duplicate", …).
	Severity string `json:"severity"`
	Kind     string `json:"kind"` // see Severity
	// Number is the reference number concerned, if any.
	Number int `json:"number,omitempty"`
	// Message says what is wrong, in a sentence.
	Message string `json:"message"`
}

// VerifiedData is the payload of ReportVerified.
type VerifiedData struct {
	// Citations counts the citations checked; Supported those whose
	// source supports them, Unsupported those whose source does not,
	// Fabricated those of a source that does not exist or was never
	// retrieved; Duplicates counts the numbers that name a resource another
	// cited number names too.
	Citations   int `json:"citations"`
	Supported   int `json:"supported"`
	Unsupported int `json:"unsupported"`
	Fabricated  int `json:"fabricated"`
	Duplicates  int `json:"duplicates"`
	// Score is the share of citations whose source supports them, 0..1.
	Score float64 `json:"score"`
	// Action is what was done with unsupported citations: keep, flag or
	// remove.
	Action string `json:"action"`
	// Judge names what decided support: "lexical", "llm", or
	// "lexical (llm failed: …)" when the model's answer was unusable.
	Judge string `json:"judge,omitempty"`
	// Problems lists what the verification found, by line.
	Problems []VerifyProblem `json:"problems,omitempty"`
	// Revised is the whole report text (as the report.delta events
	// rendered it) after the action changed it; empty when nothing
	// changed. It replaces the text the deltas added up to.
	Revised string `json:"revised,omitempty"`
}

// RunFinishedData is the payload of RunFinished.
type RunFinishedData struct {
	// Usage is the total over the planner, the agents and the writer.
	Usage Usage `json:"usage"`
	// DurationMS is the run's wall time in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Agents counts the agents started, AgentsFailed those that failed.
	Agents       int `json:"agents"`
	AgentsFailed int `json:"agents_failed"`
	// Sources counts the merged sources, Citations the references of the
	// final report.
	Sources   int `json:"sources"`
	Citations int `json:"citations"`
	// Timings holds the milliseconds spent per stage, keyed by StageIndex
	// (when the local index was opened), StagePlan, StageResearch,
	// StageMerge, StageAssess, StageReport and StageVerify (research, merge
	// and assessment summed over the cycles).
	Timings map[Stage]int64 `json:"timings,omitempty"`
	// Stopped says which run budget stopped the research early ("the
	// run's token budget (… tokens) was reached"); empty when none did.
	Stopped string `json:"stopped,omitempty"`
	// CostUSD is the run's cost in dollars, where the models' prices are
	// known (0 otherwise).
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Cycles counts the research cycles run; LoopEnd says why the loop
	// stopped (a Loop* constant).
	Cycles  int    `json:"cycles,omitempty"`
	LoopEnd string `json:"loop_end,omitempty"`
}

// ErrorData is the payload of Error.
type ErrorData struct {
	// Error is the failure, as text.
	Error string `json:"error"`
	// Stage is where the run failed: StageIndex, StagePlan, StageResearch,
	// StageMerge, StageReport or StageVerify.
	Stage Stage `json:"stage"`
}

// RawData is the payload of an event whose type this version of the
// package does not know. It keeps the data as received, and marshals back
// to it, so events pass through unchanged.
type RawData struct {
	// Type is the event type as received.
	Type Type
	// JSON is the event's data as received.
	JSON json.RawMessage
}

func (RunStartedData) EventType() Type     { return RunStarted }
func (PlanData) EventType() Type           { return PlanReady }
func (AgentStartedData) EventType() Type   { return AgentStarted }
func (SearchData) EventType() Type         { return SearchIssued }
func (SourceData) EventType() Type         { return SourceFound }
func (DeltaData) EventType() Type          { return AgentDelta }
func (ReportDeltaData) EventType() Type    { return ReportDelta }
func (CitedData) EventType() Type          { return AgentCited }
func (AgentFinishedData) EventType() Type  { return AgentFinished }
func (AgentFailedData) EventType() Type    { return AgentFailed }
func (MergedData) EventType() Type         { return SourcesMerged }
func (FilteredData) EventType() Type       { return SourcesFiltered }
func (VerifiedData) EventType() Type       { return ReportVerified }
func (CitationData) EventType() Type       { return Citation }
func (ReportFinishedData) EventType() Type { return ReportFinished }
func (RunFinishedData) EventType() Type    { return RunFinished }
func (ErrorData) EventType() Type          { return Error }
func (r RawData) EventType() Type          { return r.Type }
