package verify

import (
	"errors"
	"fmt"
)

// Sentinel errors.
var (
	// ErrSources is returned for a sources list that cannot be used: a
	// number that is not positive, or two sources under one number.
	ErrSources = errors.New("verify: unusable sources")
	// ErrJudge is returned when the judge fails or answers out of format.
	ErrJudge = errors.New("verify: judge failed")
	// ErrTooLarge is returned for a report longer than MaxReportBytes or
	// with more than MaxCitations citation markers, or whose cited sources
	// hold more than MaxSourceBytes of text in all: what verify reads is
	// bounded, and so is the memory it takes (linear in what it reads).
	ErrTooLarge = errors.New("verify: input too large")
)

// The most verify reads: the report (16 MiB, as cite reads), its citation
// markers, and the text of the sources it cites, in all.
const (
	MaxReportBytes = 16 << 20
	MaxCitations   = 250_000
	MaxSourceBytes = 16 << 20
)

func tooManyCitations() error {
	return fmt.Errorf("%w: the report has more than %d citations", ErrTooLarge, MaxCitations)
}

// JudgeError says which batch of claims a judge failed on, and why.
type JudgeError struct {
	// Batch is the 0-based batch index; First and Count the claims it held.
	Batch, First, Count int
	Err                 error
}

func (e *JudgeError) Error() string {
	return fmt.Sprintf("verify: judging claims %d-%d (batch %d): %v", e.First+1, e.First+e.Count, e.Batch+1, e.Err)
}

// Unwrap returns both ErrJudge and the cause.
func (e *JudgeError) Unwrap() []error { return []error{ErrJudge, e.Err} }
