package deepresearch

import (
	"context"

	"github.com/deepresearch/deepresearch/internal/telemetry"
)

// observeRun starts the metrics of a run (Config.Telemetry.MeterProvider): it puts
// the Researcher's instruments in ctx for every seam below, and returns
// the function that records the run's end, its final status (runEnd's)
// and duration by the run's clock, given the run's error.
func (r *Researcher) observeRun(ctx context.Context) (context.Context, func(error)) {
	if r.metrics == nil {
		return ctx, func(error) {}
	}
	start := r.cfg.Clock.Now()
	ctx = telemetry.WithMetrics(ctx, r.metrics)
	return ctx, func(err error) {
		status, _ := runEnd(ctx, err)
		r.metrics.RecordRun(ctx, string(status), r.cfg.Clock.Now().Sub(start).Seconds())
	}
}

// observeCitations counts the citations of a checked report by verdict.
func observeCitations(ctx context.Context, v *Verification) {
	if v != nil {
		telemetry.MetricsFrom(ctx).RecordCitations(ctx, v.Summary.Supported, v.Summary.Unsupported, v.Summary.Fabricated)
	}
}
