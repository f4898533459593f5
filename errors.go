package deepresearch

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/engine"
)

// Sentinel errors; match them with errors.Is.
var (
	// ErrConfig reports invalid settings or an invalid Request.
	ErrConfig = errors.New("invalid config")
	// ErrNoResearch reports a run in which no research agent produced a
	// report; the error also wraps the first agent's cause.
	ErrNoResearch = engine.ErrNoResearch
	// ErrSearch reports an agent none of whose searches succeeded.
	ErrSearch = agent.ErrSearch
	// ErrTimeout is the cause of an agent that ran past its time limit.
	ErrTimeout = agent.ErrTimeout
	// ErrClosed reports a run started after, or cut short by, Close.
	ErrClosed = errors.New("researcher closed")
	// ErrNoReport reports a Report with neither a final report nor
	// findings to render.
	ErrNoReport = errors.New("the run produced no report")
	// ErrNoEstimate reports a Runs whose recorder cannot estimate a run
	// (Runs.Estimate).
	ErrNoEstimate = errors.New("this server's researcher cannot estimate a run")
)

// Causes a front end cancels a run's context with
// (context.WithCancelCause); a stored run (RunOptions.Store) keeps its end by them.
var (
	// ErrCanceledByClient: the caller canceled the run (status canceled).
	ErrCanceledByClient = errors.New("canceled by the client")
	// ErrShutdown: the process stopped before the run ended (status
	// interrupted).
	ErrShutdown = errors.New("the server shut down")
	// ErrTimeLimit: the run went past the time a front end allows it
	// (status failed).
	ErrTimeLimit = errors.New("the run went past its time limit")
)

// Errors of Runs: why it refused what it was asked, in a *RunsError
// that names the run and says it for the caller (RunsError.Message).
var (
	// ErrTooManyRuns: RunsOptions.MaxRuns runs are in progress; a front
	// end asks its caller to retry later (HTTP: 429).
	ErrTooManyRuns = errors.New("too many runs in progress")
	// ErrRunsClosed: the Runs is closing, and starts no run.
	ErrRunsClosed = errors.New("runs closed")
	// ErrNotWaiting: the run does not wait for what it was given (answers
	// to a run that asks none, a review of a plan it does not propose).
	ErrNotWaiting = errors.New("the run does not wait for that")
	// ErrRunElsewhere: the run is in progress in another process that
	// shares the store; only that process reaches it.
	ErrRunElsewhere = errors.New("the run is in progress in another process")
	// ErrAnswered: the run took another person's word first, or went on
	// without one (its review time ran out).
	ErrAnswered = errors.New("the run was answered already")
	// ErrRunStopped: the run stopped before it kept a person's word.
	ErrRunStopped = errors.New("the run stopped before it kept the word")
	// ErrReviewTimeout ends a run whose plan was not reviewed within
	// RunsOptions.ReviewTimeout, when OnReviewTimeout is TimeoutCancel.
	ErrReviewTimeout = errors.New("the plan was not reviewed in time")
	// ErrResumedTooOften: the interrupted run was taken up
	// RunsOptions.MaxResumes times already; it is not taken up again, and
	// ends failed.
	ErrResumedTooOften = errors.New("the run was interrupted too often to be resumed")
)

// RunsError is what a Runs refused, and why: Err is one of the errors of
// Runs above (or runstore.ErrNotFound, runstore.ErrExists, runstore.ErrFinished), Problem the
// sentence for the caller who asked. It unwraps to Err.
type RunsError struct {
	Run     string // the run's ID
	Err     error
	Problem string // e.g. "run 0123 is running, not needs_input"
}

func (e *RunsError) Error() string { return "deepresearch: " + e.Problem }

// Message is the problem for the caller, without the package's prefix.
func (e *RunsError) Message() string { return e.Problem }

// Unwrap returns Err.
func (e *RunsError) Unwrap() error { return e.Err }

// StageError is a run that failed in one stage. Its message reads
// "deepresearch: STAGE: cause"; it unwraps to the cause, so errors.Is finds
// the sentinels above and context.Canceled.
type StageError struct {
	// Stage is where the run failed: events.StageIndex, StagePlan, StageResearch,
	// StageMerge, StageReport or StageVerify (a bad Request fails at
	// StagePlan, before anything runs).
	Stage events.Stage
	Err   error
}

func (e *StageError) Error() string {
	return "deepresearch: " + string(e.Stage) + ": " + e.Err.Error()
}
func (e *StageError) Unwrap() error { return e.Err }

// RequestError is a Request that cannot run: the member at fault, by the
// name of its JSON form ("question", "max_tasks", …), and what is wrong
// with it. It matches ErrConfig.
type RequestError struct {
	Field   string
	Problem string // e.g. "is 17; it must be between 1 and 16 (or left out for the default)"
}

func (e *RequestError) Error() string {
	return "deepresearch: invalid request: " + e.Message()
}

// Message is the problem for the caller who sent the request: the member
// and what is wrong with it, without the package's prefix.
func (e *RequestError) Message() string { return strconv.Quote(e.Field) + " " + e.Problem }

// Is reports whether target is ErrConfig.
func (e *RequestError) Is(target error) bool { return target == ErrConfig }

func configErrorf(format string, args ...any) error {
	return fmt.Errorf("deepresearch: %w: %s", ErrConfig, fmt.Sprintf(format, args...))
}
