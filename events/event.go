package events

import "time"

// Type names a kind of event. The dotted names are the wire format and are
// stable: consumers switch on them.
type Type string

// The event types, in the order a run produces them.
const (
	// RunStarted opens a run (RunStartedData).
	RunStarted Type = "run.started"
	// PlanReady carries the research tasks the planner produced (PlanData).
	PlanReady Type = "plan"
	// CycleStarted opens a research cycle: the wave of agents it launches,
	// each with the gap it closes (CycleStartedData).
	CycleStarted Type = "cycle.started"
	// AgentStarted says an agent began its task (AgentStartedData).
	AgentStarted Type = "agent.started"
	// SearchIssued reports a search an agent ran and how many results it
	// returned (SearchData).
	SearchIssued Type = "agent.search"
	// SourceFound reports a source an agent may cite, under the number its
	// report uses for it (SourceData).
	SourceFound Type = "agent.source"
	// AgentDelta is a piece of an agent's intermediate report text
	// (DeltaData).
	AgentDelta Type = "agent.delta"
	// AgentCited lists the sources an agent's report cited (CitedData).
	AgentCited Type = "agent.cited"
	// AgentFinished says an agent completed its report (AgentFinishedData).
	AgentFinished Type = "agent.finished"
	// AgentFailed says an agent gave up; the run goes on without its report
	// (AgentFailedData).
	AgentFailed Type = "agent.failed"
	// SourcesFiltered says which search results an agent's relevance and
	// duplicate filters kept and dropped, with scores and reasons
	// (FilteredData). Dropped results get no number and cannot be cited.
	SourcesFiltered Type = "sources.filtered"
	// SourcesMerged carries the one numbering all agent reports were moved
	// onto (MergedData), after each cycle: numbers given in earlier cycles
	// never change.
	SourcesMerged Type = "sources.merged"
	// Assessed says what the assessment of a cycle's merged
	// findings found and decided: the parts covered, the gaps, and whether
	// another cycle follows (AssessedData).
	Assessed Type = "research.assessed"
	// ReportDelta is a piece of the final report text (ReportDeltaData).
	ReportDelta Type = "report.delta"
	// Citation reports a citation the final report made, the first time it
	// is made (CitationData).
	Citation Type = "report.citation"
	// ReportFinished carries the final report's reference list
	// (ReportFinishedData).
	ReportFinished Type = "report.finished"
	// ReportVerified says what checking every citation of the final report
	// against its source's text found (VerifiedData). It follows
	// ReportFinished; the report as rendered reflects its action.
	ReportVerified Type = "report.verified"
	// RunFinished closes a run with its totals (RunFinishedData). It is the
	// last event of a run that completed.
	RunFinished Type = "run.finished"
	// Error reports a run-level failure in a stage (ErrorData).
	Error Type = "error"
)

// WhileAgentRuns reports whether t is an event an agent emits while it
// runs, from agent.started to agent.cited: what another process that runs
// an agent (a worker) may report of it. The run emits every other event
// itself — the agent's agent.finished or agent.failed included — and
// takes none of them from outside.
func WhileAgentRuns(t Type) bool {
	switch t {
	case AgentStarted, SearchIssued, SourceFound, AgentDelta, AgentCited, SourcesFiltered:
		return true
	}
	return false
}

// Event is one thing that happened in a run.
type Event struct {
	// RunID identifies the run; every event of a run carries the same ID.
	RunID string
	// Seq numbers the run's events from 1, without gaps.
	Seq uint64
	// Time is when the event was emitted, by the emitter's clock.
	Time time.Time
	// Type says what happened; it always equals Data.EventType().
	Type Type
	// Agent is the plan index of the agent the event belongs to, or -1 for
	// run-level events.
	Agent int
	// Section is the title of the agent's task, or "" for run-level events.
	Section string
	// Cycle is the research cycle the event belongs to, from 1: the
	// cycle.started and research.assessed events of a cycle and every
	// event of its agents carry it. It is 0 for the run's other events.
	Cycle int
	// Data holds the details: one of the payload structs of this package,
	// matching Type, or RawData for a type this version does not know.
	Data Payload
}

// Payload is the typed detail of an event. The payload structs of this
// package implement it with value receivers; consumers switch on the
// concrete type or on Event.Type.
type Payload interface {
	// EventType returns the Type of the events that carry this payload.
	EventType() Type
}
