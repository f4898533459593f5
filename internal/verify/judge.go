package verify

import "context"

// Claim is one question put to a Judge: does Source support Sentence?
type Claim struct {
	Sentence string
	Source   Source
}

// Verdict is a Judge's answer on one Claim.
type Verdict struct {
	Supported bool
	// Score is the judge's confidence that the source supports the
	// sentence, in [0, 1].
	Score float64
	// Evidence is the passage of the source that supports the sentence (or
	// comes closest); nil when the judge gives none.
	Evidence *Evidence
	// Reason is the judge's one-line reason, when it gives one.
	Reason string
}

// Judge decides whether sources support sentences. Judge returns one
// Verdict per claim, in order, or an error; it is called once per Check
// with every claim that needs a verdict (a judge that calls a model splits
// them into batches itself). Implementations must be safe to call from one
// goroutine at a time; Check never calls a Judge concurrently.
type Judge interface {
	Judge(ctx context.Context, claims []Claim) ([]Verdict, error)
}
