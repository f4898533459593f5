package events

// Events of a run that waits for a person: clarifying questions before
// planning, and a plan to review before research starts. They come
// between RunStarted and the first CycleStarted — and, for a run that has
// every cycle's plan reviewed, the plan events come again after each
// cycle's Assessed.
const (
	// ClarificationRequested carries the questions a run asks before it
	// plans (ClarificationData); the run waits for answers, or proceeds on
	// the stated assumptions when nobody can answer.
	ClarificationRequested Type = "clarification.requested"
	// ClarificationAnswered carries the answers the run got, or that it
	// went on without (Answered false) (ClarificationAnsweredData).
	ClarificationAnswered Type = "clarification.answered"
	// PlanReviewRequested carries the plan a run waits to have reviewed
	// (PlanReviewData).
	PlanReviewRequested Type = "plan.review_requested"
	// PlanAccepted carries the plan the run researches after review, and
	// how it differs from the one proposed (PlanAcceptedData).
	PlanAccepted Type = "plan.accepted"
)

// Clarification is a clarifying question, the assumption the run makes
// without an answer, and the answer when there is one.
type Clarification struct {
	// Question is what the run asks.
	Question string `json:"question"`
	// Assumption is what the run assumes when nobody answers.
	Assumption string `json:"assumption,omitempty"`
	// Answer is the person's answer; empty when there was none.
	Answer string `json:"answer,omitempty"`
}

// ClarificationData is the payload of ClarificationRequested.
type ClarificationData struct {
	// Questions are the questions asked, with their assumptions.
	Questions []Clarification `json:"questions"`
}

// ClarificationAnsweredData is the payload of ClarificationAnswered.
type ClarificationAnsweredData struct {
	// Questions are the questions asked, with the answers given.
	Questions []Clarification `json:"questions"`
	// Answered is false when the run went on without answers, on the
	// questions' assumptions.
	Answered bool `json:"answered"`
}

// PlanReviewData is the payload of PlanReviewRequested.
type PlanReviewData struct {
	// Tasks are the proposed plan's tasks, in plan order.
	Tasks []PlanTask `json:"tasks"`
	// MaxCycles is the run's cycle budget, which the review may change.
	MaxCycles int `json:"max_cycles,omitempty"`
	// Cycle is the research cycle the tasks are for: 0 for the first
	// plan, 2 and later for a later cycle's follow-ups (review
	// every_cycle).
	Cycle int `json:"cycle,omitempty"`
}

// PlanAcceptedData is the payload of PlanAccepted: the plan as accepted,
// and the edits a person made to the proposed one.
type PlanAcceptedData struct {
	// Tasks are the accepted plan's tasks, in plan order.
	Tasks []PlanTask `json:"tasks"`
	// MaxCycles is the run's cycle budget as the reviewed plan gives it
	// (0: it gave none, and the budget is unchanged); Cycle as in
	// PlanReviewData.
	MaxCycles int `json:"max_cycles,omitempty"`
	Cycle     int `json:"cycle,omitempty"`
	// Edited is true when the accepted plan differs from the proposed one.
	Edited bool `json:"edited,omitempty"`
	// Added, Removed and Reworded are the titles of tasks added, removed
	// and given a new question (by title).
	Added    []string `json:"added,omitempty"`
	Removed  []string `json:"removed,omitempty"`
	Reworded []string `json:"reworded,omitempty"`
}

func (ClarificationData) EventType() Type         { return ClarificationRequested }
func (ClarificationAnsweredData) EventType() Type { return ClarificationAnswered }
func (PlanReviewData) EventType() Type            { return PlanReviewRequested }
func (PlanAcceptedData) EventType() Type          { return PlanAccepted }
