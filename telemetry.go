package deepresearch

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/search"
)

// tracedBackend opens a span for each search and document read of the
// backend it wraps (a journal's, so a replayed call has its span too),
// and counts them with the Metrics in their context.
type tracedBackend struct {
	search.Backend
	channel string // the metrics' channel of results and documents that name none
}

func (b tracedBackend) Search(ctx context.Context, q string, limit int) ([]search.Result, error) {
	ctx, span := telemetry.Start(ctx, telemetry.SpanSearch, trace.SpanKindClient, telemetry.Query.String(telemetry.Text(q)))
	res, err := b.Backend.Search(ctx, q, limit)
	span.SetAttributes(telemetry.Results.Int(len(res)))
	telemetry.End(span, err)
	if m := telemetry.MetricsFrom(ctx); m != nil {
		outcome := telemetry.OutcomeOK
		switch {
		case err != nil:
			outcome = telemetry.OutcomeError
		case len(res) == 0:
			outcome = telemetry.OutcomeEmpty
		}
		m.RecordSearch(ctx, cmp.Or(resultChannels(res), b.channel), outcome)
	}
	return res, err
}

// resultChannels names the channels of a search's results: the one they
// share, or the several joined by "+" in order ("corpus+web"); "" when
// no result names one. Its values are bounded by the configured
// backends, as a metric attribute's must be.
func resultChannels(res []search.Result) string {
	var chans []string
	for _, r := range res {
		if r.Channel != "" && !slices.Contains(chans, r.Channel) {
			chans = append(chans, r.Channel)
		}
	}
	slices.Sort(chans)
	return strings.Join(chans, "+")
}

func (b tracedBackend) Fetch(ctx context.Context, id string) (search.Document, error) {
	ctx, span := telemetry.Start(ctx, telemetry.SpanFetch, trace.SpanKindClient, telemetry.DocID.String(telemetry.Text(id)))
	doc, err := b.Backend.Fetch(ctx, id)
	telemetry.End(span, err)
	if m := telemetry.MetricsFrom(ctx); m != nil {
		outcome := telemetry.OutcomeOK
		switch {
		case errors.Is(err, search.ErrNotFound):
			outcome = telemetry.OutcomeNotFound
		case err != nil:
			outcome = telemetry.OutcomeError
		}
		m.RecordFetch(ctx, cmp.Or(doc.Channel, b.channel), outcome)
	}
	return doc, err
}

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

// observeAgent counts an agent of a run that failed, by its failure's
// kind.
func observeAgent(ctx context.Context, o agentOutcome) {
	if o.err == nil {
		return
	}
	kind := events.FailError
	if o.failure != nil && o.failure.Kind != "" {
		kind = o.failure.Kind
	}
	telemetry.MetricsFrom(ctx).RecordAgentFailed(ctx, kind)
}

// observeCitations counts the citations of a checked report by verdict.
func observeCitations(ctx context.Context, v *Verification) {
	if v != nil {
		telemetry.MetricsFrom(ctx).RecordCitations(ctx, v.Summary.Supported, v.Summary.Unsupported, v.Summary.Fabricated)
	}
}

// agentSpan opens the span of one agent task of a cycle.
func agentSpan(ctx context.Context, task agent.Task, remote bool) (context.Context, trace.Span) {
	return telemetry.Start(ctx, telemetry.SpanAgent, trace.SpanKindInternal,
		telemetry.Cycle.Int(task.Cycle), telemetry.TaskID.String(task.ID), telemetry.TaskTitle.String(telemetry.Text(task.Title)),
		telemetry.Remote.Bool(remote))
}
