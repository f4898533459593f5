package verify

import "context"

// Fallback asks Primary (a model, say) whether each citing sentence is
// supported, and when its answer is unusable (a model that cannot answer
// in the strict JSON asked for, a failed call) judges lexically instead:
// a check is never failed by its judge. Like every Judge it is called
// from one goroutine at a time.
type Fallback struct {
	Primary Judge
	Lexical Lexical
	// OnFail, when not nil, is told each unusable answer of Primary
	// before the lexical judge answers instead.
	OnFail func(error)
	failed error // Primary's first unusable answer
}

// Judge implements Judge: Primary's verdicts, else Lexical's. An error
// of a done ctx is returned as it is.
func (j *Fallback) Judge(ctx context.Context, claims []Claim) ([]Verdict, error) {
	v, err := j.Primary.Judge(ctx, claims)
	if err == nil || ctx.Err() != nil {
		return v, err
	}
	if j.OnFail != nil {
		j.OnFail(err)
	}
	if j.failed == nil {
		j.failed = err
	}
	return j.Lexical.Judge(ctx, claims)
}

// Name names what judged: "llm", or "lexical (llm failed: …)" once
// Primary's answer was unusable; a nil *Fallback is the lexical check
// alone ("lexical").
func (j *Fallback) Name() string {
	switch {
	case j == nil:
		return "lexical"
	case j.failed != nil:
		return "lexical (llm failed: " + j.failed.Error() + ")"
	}
	return "llm"
}
