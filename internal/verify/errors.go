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
)

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
