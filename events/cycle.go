package events

// CycleStartedData is the payload of CycleStarted: the tasks of the
// cycle's wave of agents. In cycle 1 they are the plan; in later cycles
// each is a follow-up that names the gap it closes and the part of the
// plan it serves. Every agent event of the cycle carries Event.Cycle.
type CycleStartedData struct {
	// Cycle numbers the cycle, from 1.
	Cycle int `json:"cycle"`
	// Tasks are the cycle's tasks, one an agent.
	Tasks []PlanTask `json:"tasks"`
}

// Kinds of gap an assessment names (Gap.Kind).
const (
	// GapUncovered is a part of the question, or some of its key terms,
	// that no cited finding covers.
	GapUncovered = "uncovered"
	// GapReference is a name, title, link or cross-reference found in a
	// cited source that the question asks about and no source read
	// explains.
	GapReference = "reference"
	// GapSingleSource is a claim that rests on one source only.
	GapSingleSource = "single_source"
	// GapDisagreement is sources that disagree.
	GapDisagreement = "disagreement"
	// GapUnanswered is a part the written report leaves unanswered (the
	// report's check of itself against the question's parts).
	GapUnanswered = "unanswered"
	// GapLowTier is a claim whose every cited source is of a low tier
	// (a forum or a content farm, by the run's table of source tiers).
	GapLowTier = "low_tier"
)

// Gap is something the findings so far do not settle.
type Gap struct {
	// Kind is one of the Gap* constants; a model may name others.
	Kind string `json:"kind"`
	// Part is the ID of the plan task the gap belongs to ("t2"); "" for
	// the question as a whole.
	Part string `json:"part,omitempty"`
	// Detail says what is missing, in a few words.
	Detail string `json:"detail"`
}

// Why the research loop ended (AssessedData.Decision when it ends there,
// RunFinishedData.LoopEnd).
const (
	// LoopContinue is the decision to run another cycle.
	LoopContinue = "continue"
	// LoopAnswered: the assessment found the question answered.
	LoopAnswered = "answered"
	// LoopNoFollowUps: gaps remain, but no follow-up task would search
	// anything not searched already.
	LoopNoFollowUps = "no_follow_ups"
	// LoopMaxCycles: the run's cycle cap (research.max_cycles) was reached.
	LoopMaxCycles = "max_cycles"
	// LoopMaxAgents: the run's agent cap (research.max_run_agents) left no
	// agent for another cycle.
	LoopMaxAgents = "max_agents"
	// LoopNoNewSources: the last cycle added no source to the findings.
	LoopNoNewSources = "no_new_sources"
	// LoopBudget: a run budget (tokens, cost or time) was reached;
	// RunFinishedData.Stopped says which.
	LoopBudget = "budget"
	// LoopAssessFailed: the assessment's model call failed; the report is
	// written from what was found.
	LoopAssessFailed = "assessment_failed"
	// LoopPlanRejected: a person rejected a later cycle's plan
	// (review every_cycle); the report is written from what was found.
	LoopPlanRejected = "plan_rejected"
)

// AssessedData is the payload of Assessed: what the assessment of the
// merged findings after a cycle found, and what the loop does next.
type AssessedData struct {
	// Cycle is the cycle whose findings were assessed.
	Cycle int `json:"cycle"`
	// Covered lists the IDs of the plan's parts the findings answer.
	Covered []string `json:"covered"`
	// Gaps are what the findings do not settle yet.
	Gaps []Gap `json:"gaps"`
	// Done is the assessment's own verdict: the question is answered.
	Done bool `json:"done"`
	// Decision is LoopContinue, or why the loop ends here (a Loop*
	// constant): the assessment's verdict, or a cap that leaves no room
	// for the follow-ups it asked for.
	Decision string `json:"decision"`
	// Reason is the assessment's reason, in a sentence.
	Reason string `json:"reason,omitempty"`
}

func (CycleStartedData) EventType() Type { return CycleStarted }
func (AssessedData) EventType() Type     { return Assessed }
