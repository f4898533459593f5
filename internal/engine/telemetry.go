package engine

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/search"
)

// Traced is b with a span for each search and document read, counted
// with the Metrics in their context; channel is the metrics' channel of
// results and documents that name none.
func Traced(b search.Backend, channel string) search.Backend {
	return tracedBackend{Backend: b, channel: channel}
}

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
