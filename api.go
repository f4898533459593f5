package deepresearch

import (
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/events"
	"github.com/deepresearch/deepresearch/internal/finalreport"
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
	// Style is how citations are rendered in the report text.
	Style = citeproc.Style
	// JSONReport is the report as structured data with a citation sidecar.
	JSONReport = finalreport.Document
	// PlanTask is one research task of a plan.
	PlanTask = events.PlanTask
)

// Event payloads, for type switches on Event.Data.
type (
	RunStartedData     = events.RunStartedData
	PlanData           = events.PlanData
	CycleStartedData   = events.CycleStartedData
	AssessedData       = events.AssessedData
	Gap                = events.Gap
	AgentStartedData   = events.AgentStartedData
	SearchData         = events.SearchData
	SourceData         = events.SourceData
	DeltaData          = events.DeltaData
	CitedData          = events.CitedData
	CitedSource        = events.CitedSource
	AgentFinishedData  = events.AgentFinishedData
	AgentFailedData    = events.AgentFailedData
	MergedData         = events.MergedData
	FilteredData       = events.FilteredData
	FilterVerdict      = events.FilterVerdict
	VerifiedData       = events.VerifiedData
	VerifyProblem      = events.VerifyProblem
	MergedSourceData   = events.MergedSource
	ReportDeltaData    = events.ReportDeltaData
	CitationData       = events.CitationData
	ReportFinishedData = events.ReportFinishedData
	EventReference     = events.Reference
	RunFinishedData    = events.RunFinishedData
	ErrorData          = events.ErrorData
	RawData            = events.RawData
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

// Stages of a run (ErrorData.Stage, StageError.Stage, the keys of
// Report.TimingsMS).
const (
	StageIndex    = events.StageIndex
	StagePlan     = events.StagePlan
	StageResearch = events.StageResearch
	StageMerge    = events.StageMerge
	StageReport   = events.StageReport
	StageVerify   = events.StageVerify
	StageAssess   = events.StageAssess // a key of Report.TimingsMS only: a failed assessment ends the loop, not the run
)

// Report formats for Report.Render.
const (
	FormatMarkdown = "md"
	FormatHTML     = "html"
	FormatJSON     = "json"
	FormatCSL      = "csl-json" // the reference list as CSL-JSON
	FormatBibTeX   = "bibtex"   // the reference list as BibTeX
)

// styleNames are the names of the citation styles, as settings and
// requests spell them.
var styleNames = map[string]Style{"markdown": Markdown, "plain": Plain, "footnote": Footnote, "html": HTML}

// ParseStyle returns the style named "markdown", "plain", "footnote" or
// "html"; "" is Markdown.
func ParseStyle(name string) (Style, error) {
	if name == "" {
		return Markdown, nil
	}
	if s, ok := styleNames[name]; ok {
		return s, nil
	}
	return 0, configErrorf("style %q: want markdown, plain, footnote or html", name)
}

// StyleName is the name ParseStyle reads for s.
func StyleName(s Style) string {
	for name, st := range styleNames {
		if st == s {
			return name
		}
	}
	return ""
}
