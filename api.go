package deepresearch

import (
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/output"
	"github.com/deepresearch/deepresearch/internal/search"
	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// Types callers see, defined in the internal packages.
type (
	// Event is one thing that happened in a run; see the events' Type.
	Event = events.Event
	// EventType names an event ("agent.search", "report.delta", …).
	EventType = events.Type
	// Payload is an event's typed detail: one of the *Data types below.
	Payload = events.Payload
	// Source is a retrieved document a report can cite.
	Source = source.Source
	// Usage counts model calls and tokens.
	Usage = usage.Usage
	// Budget bounds one research agent: tool calls, tokens and time.
	Budget = agent.Budget
	// SearchBackend is what research agents search and read.
	SearchBackend = search.Backend
	// SearchResult is one passage a search returned.
	SearchResult = search.Result
	// Document is a whole document a SearchBackend returns.
	Document = search.Document
	// Reference is one entry of the final report's reference list.
	Reference = finalreport.Reference
	// MergedSource is a source of the merged numbering of all agents.
	MergedSource = collapse.Source
	// Style is how citations are rendered in the report text: Markdown,
	// Plain, Footnote or HTML. Its text form (a Request's JSON, settings)
	// is its name ("markdown", "plain", "footnote", "html"), read by its
	// UnmarshalText, which refuses other names with an error wrapping
	// ErrStyle; the zero Style is the default.
	Style = citeproc.Style
	// JSONReport is the report as structured data with a citation sidecar.
	JSONReport = finalreport.Document
	// Provenance is seed 003's account of a report's sources (sources,
	// collections_used, source_types, citation_format,
	// formatted_citations), part of JSONReport; Report.Provenance gives
	// it alone.
	Provenance = finalreport.Provenance
	// PlanTask is one research task of a plan.
	PlanTask = events.PlanTask
	// SourceRelevance is what the sources reconciler said of a source it
	// kept: o_relevance, q_relevance (QueryScore) and reasoning.
	SourceRelevance = source.Relevance
	// QueryScore is a source's relevance to one search of its task.
	QueryScore = source.QueryScore
)

// Event payloads, for type switches on Event.Data. They are aliases of
// the types of the event vocabulary (internal/events), so that a type
// switch on Event.Data matches them; each one's comment shows its fields
// as they are (a test holds the comments to the types), since go doc does
// not follow an alias into an internal package.
type (

	// RunStartedData is the payload of RunStarted.
	//
	// Its fields:
	//
	//	// Question is the user's question.
	//	Question string `json:"question"`
	//	// Config holds the settings that shape the run (model, limits), as
	//	// the producer chooses to show them; it must hold JSON values and must
	//	// not hold secrets. After decoding, numbers are float64.
	//	Config map[string]any `json:"config,omitempty"`
	RunStartedData = events.RunStartedData

	// PlanData is the payload of PlanReady.
	//
	// Its fields:
	//
	//	Tasks []PlanTask `json:"tasks"`
	PlanData = events.PlanData

	// CycleStartedData is the payload of CycleStarted: the tasks of the
	// cycle's wave of agents. In cycle 1 they are the plan; in later cycles
	// each is a follow-up that names the gap it closes and the part of the
	// plan it serves. Every agent event of the cycle carries Event.Cycle.
	//
	// Its fields:
	//
	//	// Cycle numbers the cycle, from 1.
	//	Cycle int        `json:"cycle"`
	//	Tasks []PlanTask `json:"tasks"`
	CycleStartedData = events.CycleStartedData

	// AssessedData is the payload of Assessed: what the assessment of the
	// merged findings after a cycle found, and what the loop does next.
	//
	// Its fields:
	//
	//	// Cycle is the cycle whose findings were assessed.
	//	Cycle int `json:"cycle"`
	//	// Covered lists the IDs of the plan's parts the findings answer.
	//	Covered []string `json:"covered"`
	//	Gaps    []Gap    `json:"gaps"`
	//	// Done is the assessment's own verdict: the question is answered.
	//	Done bool `json:"done"`
	//	// Decision is LoopContinue, or why the loop ends here (a Loop*
	//	// constant): the assessment's verdict, or a cap that leaves no room
	//	// for the follow-ups it asked for.
	//	Decision string `json:"decision"`
	//	// Reason is the assessment's reason, in a sentence.
	//	Reason string `json:"reason,omitempty"`
	AssessedData = events.AssessedData

	// Gap is something the findings so far do not settle.
	//
	// Its fields:
	//
	//	// Kind is one of the Gap* constants; a model may name others.
	//	Kind string `json:"kind"`
	//	// Part is the ID of the plan task the gap belongs to ("t2"); "" for
	//	// the question as a whole.
	//	Part string `json:"part,omitempty"`
	//	// Detail says what is missing, in a few words.
	//	Detail string `json:"detail"`
	Gap = events.Gap

	// AgentStartedData is the payload of AgentStarted.
	//
	// Its fields:
	//
	//	Task PlanTask `json:"task"`
	AgentStartedData = events.AgentStartedData

	// SearchData is the payload of SearchIssued.
	//
	// Its fields:
	//
	//	Query   string `json:"query"`
	//	Results int    `json:"results"`
	SearchData = events.SearchData

	// SourceData is the payload of SourceFound: Number is the number under
	// which the agent's report may cite Source.
	//
	// Its fields:
	//
	//	Number int           `json:"number"`
	//	Source source.Source `json:"source"`
	SourceData = events.SourceData

	// DeltaData is the payload of AgentDelta: the next piece of an agent's
	// intermediate report. Concatenating an agent's deltas in Seq order gives
	// its whole report.
	//
	// Its fields:
	//
	//	Text string `json:"text"`
	DeltaData = events.DeltaData

	// CitedData is the payload of AgentCited: the sources the agent's report
	// cited, in order of first citation.
	//
	// Its fields:
	//
	//	Sources []CitedSource `json:"sources"`
	CitedData = events.CitedData

	// CitedSource is a source an agent's report cited, under the agent's own
	// number for it.
	//
	// Its fields:
	//
	//	Number int           `json:"number"`
	//	Source source.Source `json:"source"`
	CitedSource = events.CitedSource

	// AgentFinishedData is the payload of AgentFinished.
	//
	// Its fields:
	//
	//	// ToolCalls is how many tools (searches, reads) the agent called.
	//	ToolCalls int `json:"tool_calls"`
	//	// Cited is how many distinct sources the report cited.
	//	Cited int         `json:"cited"`
	//	Usage usage.Usage `json:"usage"`
	//	// DurationMS is the agent's wall time in milliseconds.
	//	DurationMS int64 `json:"duration_ms"`
	AgentFinishedData = events.AgentFinishedData

	// AgentFailedData is the payload of AgentFailed.
	//
	// Its fields:
	//
	//	Error string `json:"error"`
	//	// Kind is one of FailError, FailPanic, FailTimeout, FailCanceled.
	//	Kind string `json:"kind"`
	AgentFailedData = events.AgentFailedData

	// MergedData is the payload of SourcesMerged.
	//
	// Its fields:
	//
	//	Sources []MergedSource `json:"sources"`
	//	// Unknown counts citation markers in the agent reports that resolved
	//	// to no source and were dropped.
	//	Unknown int `json:"unknown"`
	MergedData = events.MergedData

	// FilteredData is the payload of SourcesFiltered.
	//
	// Its fields:
	//
	//	// Query is the search whose results were filtered.
	//	Query string `json:"query"`
	//	// Judge names what scored relevance: "lexical", "llm", or a fallback.
	//	Judge   string          `json:"judge"`
	//	Kept    []FilterVerdict `json:"kept"`
	//	Dropped []FilterVerdict `json:"dropped"`
	FilteredData = events.FilteredData

	// FilterVerdict is what the filters decided about one search result.
	//
	// Its fields:
	//
	//	// Key identifies the result (its canonical URL, or "id:" and its ID).
	//	Key   string `json:"key"`
	//	Title string `json:"title,omitempty"`
	//	URL   string `json:"url,omitempty"`
	//	// Score is its relevance to the task and the question, 0..1.
	//	Score  float64 `json:"score"`
	//	Reason string  `json:"reason"`
	//	// Check is the filter that decided: "substance", "relevance" or
	//	// "duplicate".
	//	Check string `json:"check"`
	//	// DuplicateOf is the key of the kept result a duplicate repeats.
	//	DuplicateOf string `json:"duplicate_of,omitempty"`
	//	// Queries is its relevance to each search of the task so far, beside
	//	// Score, its relevance to the task's objective (seed 001's
	//	// q_relevance and o_relevance); Reason is seed 001's reasoning (320
	//	// bytes at most).
	//	Queries []source.QueryScore `json:"q_relevance,omitempty"`
	FilterVerdict = events.FilterVerdict

	// VerifiedData is the payload of ReportVerified.
	//
	// Its fields:
	//
	//	Citations   int `json:"citations"`
	//	Supported   int `json:"supported"`
	//	Unsupported int `json:"unsupported"`
	//	Fabricated  int `json:"fabricated"`
	//	Duplicates  int `json:"duplicates"`
	//	// Score is the share of citations whose source supports them, 0..1.
	//	Score float64 `json:"score"`
	//	// Action is what was done with unsupported citations: keep, flag or
	//	// remove.
	//	Action string `json:"action"`
	//	// Judge names what decided support: "lexical", "llm", or
	//	// "lexical (llm failed: …)" when the model's answer was unusable.
	//	Judge    string          `json:"judge,omitempty"`
	//	Problems []VerifyProblem `json:"problems,omitempty"`
	//	// Revised is the whole report text (as the report.delta events
	//	// rendered it) after the action changed it; empty when nothing
	//	// changed. It replaces the text the deltas added up to.
	//	Revised string `json:"revised,omitempty"`
	VerifiedData = events.VerifiedData

	// VerifyProblem is one problem the verification found.
	//
	// Its fields:
	//
	//	// Line is the line of the report body (from 1).
	//	Line int `json:"line"`
	//	// Severity is "error" or "warning"; Kind names the problem
	//	// ("unsupported", "no-source", "duplicate", …).
	//	Severity string `json:"severity"`
	//	Kind     string `json:"kind"`
	//	// Number is the reference number concerned, if any.
	//	Number  int    `json:"number,omitempty"`
	//	Message string `json:"message"`
	VerifyProblem = events.VerifyProblem

	// MergedSourceData is one entry of the run's merged numbering.
	//
	// Its fields:
	//
	//	// Number is the source's number in the final report.
	//	Number int           `json:"number"`
	//	Source source.Source `json:"source"`
	//	// CanonicalURL is the URL the source was de-duplicated by; empty for
	//	// sources without a URL.
	//	CanonicalURL string `json:"canonical_url,omitempty"`
	//	// FirstSeenSection is the section that cited the source first.
	//	FirstSeenSection string `json:"first_seen_section"`
	//	// UsedInSections lists every section that cited it, in plan order.
	//	UsedInSections []string `json:"used_in_sections"`
	MergedSourceData = events.MergedSource

	// ReportDeltaData is the payload of ReportDelta: the next piece of the
	// final report. Concatenating the deltas in Seq order gives the report.
	//
	// Its fields:
	//
	//	Text string `json:"text"`
	ReportDeltaData = events.ReportDeltaData

	// CitationData is the payload of Citation.
	//
	// Its fields:
	//
	//	Number int           `json:"number"`
	//	Source source.Source `json:"source"`
	CitationData = events.CitationData

	// ReportFinishedData is the payload of ReportFinished.
	//
	// Its fields:
	//
	//	References []Reference `json:"references"`
	//	// Unknown counts the citations the writer made of numbers that are no
	//	// merged source: each was dropped from the report.
	//	Unknown int `json:"unknown,omitempty"`
	ReportFinishedData = events.ReportFinishedData

	// EventReference is one entry of the final report's reference list.
	//
	// Its fields:
	//
	//	Number int           `json:"number"`
	//	Source source.Source `json:"source"`
	EventReference = events.Reference

	// RunFinishedData is the payload of RunFinished.
	//
	// Its fields:
	//
	//	// Usage is the total over the planner, the agents and the writer.
	//	Usage usage.Usage `json:"usage"`
	//	// DurationMS is the run's wall time in milliseconds.
	//	DurationMS int64 `json:"duration_ms"`
	//	// Agents counts the agents started, AgentsFailed those that failed.
	//	Agents       int `json:"agents"`
	//	AgentsFailed int `json:"agents_failed"`
	//	// Sources counts the merged sources, Citations the references of the
	//	// final report.
	//	Sources   int `json:"sources"`
	//	Citations int `json:"citations"`
	//	// Timings holds the milliseconds spent per stage, keyed by StageIndex
	//	// (when the local index was opened), StagePlan, StageResearch,
	//	// StageMerge, StageAssess, StageReport and StageVerify (research, merge
	//	// and assessment summed over the cycles).
	//	Timings map[Stage]int64 `json:"timings,omitempty"`
	//	// Stopped says which run budget stopped the research early ("the
	//	// run's token budget (… tokens) was reached"); empty when none did.
	//	Stopped string `json:"stopped,omitempty"`
	//	// CostUSD is the run's cost in dollars, where the models' prices are
	//	// known (0 otherwise).
	//	CostUSD float64 `json:"cost_usd,omitempty"`
	//	// Cycles counts the research cycles run; LoopEnd says why the loop
	//	// stopped (a Loop* constant).
	//	Cycles  int    `json:"cycles,omitempty"`
	//	LoopEnd string `json:"loop_end,omitempty"`
	RunFinishedData = events.RunFinishedData

	// ErrorData is the payload of Error.
	//
	// Its fields:
	//
	//	Error string `json:"error"`
	//	// Stage is where the run failed: StageIndex, StagePlan, StageResearch,
	//	// StageMerge, StageReport or StageVerify.
	//	Stage Stage `json:"stage"`
	ErrorData = events.ErrorData

	// RawData is the payload of an event whose type this version of the
	// package does not know. It keeps the data as received, and marshals back
	// to it, so events pass through unchanged.
	//
	// Its fields:
	//
	//	Type Type
	//	JSON json.RawMessage
	RawData = events.RawData
)

// Citation styles.
const (
	Markdown = citeproc.Markdown // [[1]](https://…)
	Plain    = citeproc.Plain    // [1]
	Footnote = citeproc.Footnote // [^1]
	HTML     = citeproc.HTML     // <sup><a href="…">[1]</a></sup>
)

// Event types, re-exported for switch statements.
const (
	RunStarted      = events.RunStarted
	PlanReady       = events.PlanReady
	CycleStarted    = events.CycleStarted
	Assessed        = events.Assessed
	AgentStarted    = events.AgentStarted
	SearchIssued    = events.SearchIssued
	SourceFound     = events.SourceFound
	AgentDelta      = events.AgentDelta
	AgentCited      = events.AgentCited
	AgentFinished   = events.AgentFinished
	AgentFailed     = events.AgentFailed
	SourcesMerged   = events.SourcesMerged
	SourcesFiltered = events.SourcesFiltered
	ReportDelta     = events.ReportDelta
	CitationFound   = events.Citation
	ReportFinished  = events.ReportFinished
	ReportVerified  = events.ReportVerified
	RunFinished     = events.RunFinished
	RunError        = events.Error
)

// Why the research loop ended (Report.LoopEnd, RunFinishedData.LoopEnd,
// AssessedData.Decision when it ends there).
const (
	LoopAnswered     = events.LoopAnswered     // the assessment found the question answered
	LoopNoFollowUps  = events.LoopNoFollowUps  // gaps left, but nothing new to search
	LoopMaxCycles    = events.LoopMaxCycles    // MaxCycles reached
	LoopMaxAgents    = events.LoopMaxAgents    // MaxRunAgents left no agent for another cycle
	LoopNoNewSources = events.LoopNoNewSources // the last cycle added no source
	LoopBudget       = events.LoopBudget       // a run budget; RunFinishedData.Stopped says which
	LoopAssessFailed = events.LoopAssessFailed // the assessment's call failed
)

// Kinds of agent failure (AgentFailedData.Kind, Failure.Kind).
const (
	FailError    = events.FailError
	FailPanic    = events.FailPanic
	FailTimeout  = events.FailTimeout
	FailCanceled = events.FailCanceled
)

// Stage is a part of a run (ErrorData.Stage, StageError.Stage, the keys
// of Report.TimingsMS, the stages ReplayOptions.Live runs live). Its
// Role is the role of the model its calls go to ("planner",
// "researcher", "writer": Config.Price's roles) and its Scope where a
// run's journal keeps them.
type Stage = events.Stage

// The stages of a run.
const (
	StageIndex    = events.StageIndex
	StagePlan     = events.StagePlan
	StageResearch = events.StageResearch
	StageMerge    = events.StageMerge
	StageAssess   = events.StageAssess // a key of Report.TimingsMS only: a failed assessment ends the loop, not the run
	StageReport   = events.StageReport
	StageVerify   = events.StageVerify
)

// Format is a document format Report.Render writes.
type Format = output.Format

// Report formats for Report.Render.
const (
	FormatMarkdown = output.Markdown // "md": the report and its reference list
	FormatHTML     = output.HTML     // "html": a standalone page with clickable citations
	FormatJSON     = output.JSON     // "json": blocks, references, sources used, stats and a citation sidecar
	FormatYAML     = output.YAML     // "yaml": the JSON document as YAML, with the same sidecar
	FormatCSL      = output.CSL      // "csl-json": the reference list as CSL-JSON
	FormatBibTeX   = output.BibTeX   // "bibtex": the reference list as BibTeX
	FormatXML      = output.XML      // "xml": the JSON document as XML, valid against ReportXMLSchema
	FormatMermaid  = output.Mermaid  // "mermaid": the citation graph (question, sections, references) as a Mermaid flowchart
	FormatDOCX     = output.DOCX     // "docx": a Word document with linked citations, the reference list and the verification summary (binary)
	FormatPDF      = output.PDF      // "pdf": the report printed by a headless Chromium (RenderContext), with the verification summary (binary)
)

// ParseFormat returns the format named s: "md" (or "markdown"), "html",
// "json", "yaml", "xml", "mermaid", "docx", "pdf", "csl-json" or "bibtex"; "" is
// FormatMarkdown. Other names are
// an error wrapping ErrFormat. Every front end parses formats with it
// (settings, ?format=, the MCP tools), Format.MediaType is the
// Content-Type a server answers with, and Format.Binary says which
// formats are binary files (FormatDOCX, FormatPDF) that are not to be printed on a
// terminal or filtered as text.
func ParseFormat(s string) (Format, error) { return output.ParseFormat(s) }

// Action is what verification does with a citation whose source does not
// support the sentence that cites it (Config.Unsupported).
type Action = output.Action

// The actions on unsupported citations.
const (
	UnsupportedKeep   = output.Keep   // "keep": leave it; the report's Verification lists it
	UnsupportedFlag   = output.Flag   // "flag": keep it, marked "[unsupported: n]"
	UnsupportedRemove = output.Remove // "remove": drop it from the report
)

// ParseAction returns the action named s: "keep", "flag" or "remove"; ""
// is UnsupportedFlag, the default. Other names are an error wrapping
// ErrAction.
func ParseAction(s string) (Action, error) { return output.ParseAction(s) }
