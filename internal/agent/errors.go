package agent

import (
	"errors"
	"fmt"

	"github.com/deepresearch/deepresearch/events"
)

var (
	// ErrTimeout is the cause of the context of a Run that ran past
	// Budget.Timeout. The error Run returns then also matches
	// context.DeadlineExceeded.
	ErrTimeout = errors.New("agent: task timed out")
	// ErrNoChoices reports a model response without choices.
	ErrNoChoices = errors.New("agent: model returned no choices")
	// ErrSearch reports an agent none of whose searches succeeded.
	ErrSearch = errors.New("agent: search failed")
	// ErrEmptyQuestion reports a Plan call without a question.
	ErrEmptyQuestion = errors.New("agent: empty question")
)

// Stages name where a Run or Plan failed: the words of events.Stage.
const (
	StageResearch = string(events.StageResearch) // a tool-loop model turn
	StageReport   = string(events.StageReport)   // the report-writing turn
	StagePlan     = string(events.StagePlan)     // the planner call
)

// Error is a failure of one task at one stage. It unwraps to the cause.
type Error struct {
	Task  Task
	Stage string
	Err   error
}

// Error reads "agent: task 2 "History": report: <cause>". Tasks are
// numbered from 1 (Index+1, matching their "t2" IDs).
func (e *Error) Error() string {
	return fmt.Sprintf("agent: task %d %q: %s: %v", e.Task.Index+1, e.Task.Title, e.Stage, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
