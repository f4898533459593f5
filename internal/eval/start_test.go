package eval_test

import (
	"context"

	"github.com/deepresearch/deepresearch"
)

// startWait starts req as opts say and waits for its report.
func startWait(ctx context.Context, r *deepresearch.Researcher, req deepresearch.Request, opts deepresearch.RunOptions) (*deepresearch.Report, error) {
	run, err := r.Start(ctx, req, opts)
	if err != nil {
		return nil, err
	}
	return run.Wait()
}
