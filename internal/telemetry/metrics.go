package telemetry

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Instrument names: the GenAI semantic conventions' client metrics, then
// the project's own.
const (
	MetricTokens       = "gen_ai.client.token.usage"        // histogram, {token}, per model call and token type
	MetricCallDuration = "gen_ai.client.operation.duration" // histogram, s, per model call
	MetricRuns         = "deepresearch.runs"                // counter, {run}, by final status
	MetricRunDuration  = "deepresearch.run.duration"        // histogram, s, by final status
	MetricCost         = "deepresearch.cost"                // counter, USD, by model
	MetricSearches     = "deepresearch.searches"            // counter, {search}, by channel and outcome
	MetricFetches      = "deepresearch.fetches"             // counter, {document}, by channel and outcome
	MetricCitations    = "deepresearch.citations"           // counter, {citation}, by verdict
	MetricAgentsFailed = "deepresearch.agents.failed"       // counter, {agent}, by failure kind
	tokenTypeInput     = "input"
	tokenTypeOutput    = "output"
	OutcomeOK          = "ok"        // a search with results, a document read
	OutcomeEmpty       = "empty"     // a search without results
	OutcomeNotFound    = "not_found" // a document the backend does not hold
	OutcomeError       = "error"     // any other failure
	VerdictSupported   = "supported"
	VerdictUnsupported = "unsupported"
	VerdictFabricated  = "fabricated"
	errorTypeOther     = "_OTHER" // error.type of a failure without a better name (semantic conventions)
	errorTypeCanceled  = "canceled"
	errorTypeDeadline  = "timeout"
)

// Metric attribute keys beyond the span attributes'.
const (
	GenAITokenType = attribute.Key("gen_ai.token.type")
	ErrorType      = attribute.Key("error.type")
	RunStatus      = attribute.Key("deepresearch.run.status")
	Channel        = attribute.Key("deepresearch.channel")
	Outcome        = attribute.Key("deepresearch.outcome")
	Verdict        = attribute.Key("deepresearch.citation.verdict")
	FailureKind    = attribute.Key("deepresearch.failure.kind")
)

// Bucket boundaries: the GenAI semantic conventions' advice for tokens and
// call durations; minutes to hours for runs.
var (
	tokenBuckets = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	callBuckets  = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	runBuckets   = []float64{1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200}
)

// Metrics holds the instruments of a Researcher's runs, made once from a
// metric.MeterProvider (NewMetrics). Its methods are safe for concurrent
// use and do nothing on a nil *Metrics, so a seam records through
// MetricsFrom(ctx) whether or not metrics are on.
//
// Attributes are low-cardinality by design: no run ID, question or URL
// (exemplars link a measurement to the span it was recorded under).
type Metrics struct {
	tokens       metric.Int64Histogram
	callDuration metric.Float64Histogram
	runs         metric.Int64Counter
	runDuration  metric.Float64Histogram
	cost         metric.Float64Counter
	searches     metric.Int64Counter
	fetches      metric.Int64Counter
	citations    metric.Int64Counter
	agentsFailed metric.Int64Counter
}

// NewMetrics makes the instruments with mp's meter of ScopeName; a nil mp
// is no metrics (nil, nil).
func NewMetrics(mp metric.MeterProvider) (*Metrics, error) {
	if mp == nil {
		return nil, nil
	}
	m := mp.Meter(ScopeName)
	var x Metrics
	var errs []error
	collect := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	x.tokens, err = m.Int64Histogram(MetricTokens, metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used by each model call."),
		metric.WithExplicitBucketBoundaries(tokenBuckets...))
	collect(err)
	x.callDuration, err = m.Float64Histogram(MetricCallDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of each model call."),
		metric.WithExplicitBucketBoundaries(callBuckets...))
	collect(err)
	x.runs, err = m.Int64Counter(MetricRuns, metric.WithUnit("{run}"),
		metric.WithDescription("Research runs ended, by final status."))
	collect(err)
	x.runDuration, err = m.Float64Histogram(MetricRunDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of each research run, by final status."),
		metric.WithExplicitBucketBoundaries(runBuckets...))
	collect(err)
	x.cost, err = m.Float64Counter(MetricCost, metric.WithUnit("USD"),
		metric.WithDescription("Dollars spent on model calls, by model (with model prices)."))
	collect(err)
	x.searches, err = m.Int64Counter(MetricSearches, metric.WithUnit("{search}"),
		metric.WithDescription("Search calls, by the channel of their results and outcome."))
	collect(err)
	x.fetches, err = m.Int64Counter(MetricFetches, metric.WithUnit("{document}"),
		metric.WithDescription("Document reads, by channel and outcome."))
	collect(err)
	x.citations, err = m.Int64Counter(MetricCitations, metric.WithUnit("{citation}"),
		metric.WithDescription("Citations of final reports checked, by verdict."))
	collect(err)
	x.agentsFailed, err = m.Int64Counter(MetricAgentsFailed, metric.WithUnit("{agent}"),
		metric.WithDescription("Research agents that failed, by failure kind."))
	collect(err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("telemetry: the instruments of %s: %w", ScopeName, err)
	}
	return &x, nil
}

type metricsKey struct{}

// WithMetrics returns ctx carrying m, for the seams below it (model calls,
// searches, reads, verification, agents) to record through MetricsFrom.
func WithMetrics(ctx context.Context, m *Metrics) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, metricsKey{}, m)
}

// MetricsFrom returns the Metrics WithMetrics put in ctx; nil (which
// records nothing) when none.
func MetricsFrom(ctx context.Context) *Metrics {
	m, _ := ctx.Value(metricsKey{}).(*Metrics)
	return m
}

// Call is one model call of role, made with model ("provider:name", as
// Model splits it), that took seconds and failed with err or used in and
// out tokens (recorded only for a call that succeeded). cost is the
// call's dollars when priced.
type Call struct {
	Model, Role string
	Seconds     float64
	In, Out     int
	Cost        float64
	Priced      bool
	Err         error
}

// RecordCall records c: its duration (with error.type when it failed),
// its input and output tokens and its cost.
func (m *Metrics) RecordCall(ctx context.Context, c Call) {
	if m == nil {
		return
	}
	attrs := append([]attribute.KeyValue{GenAIOperation.String(OpChat), Role.String(c.Role)}, Model(c.Model)...)
	if c.Err != nil {
		m.callDuration.Record(ctx, c.Seconds, metric.WithAttributes(append(attrs, ErrorType.String(errorType(ctx, c.Err)))...))
		return
	}
	m.callDuration.Record(ctx, c.Seconds, metric.WithAttributes(attrs...))
	m.tokens.Record(ctx, int64(c.In), metric.WithAttributes(append(attrs, GenAITokenType.String(tokenTypeInput))...))
	m.tokens.Record(ctx, int64(c.Out), metric.WithAttributes(append(attrs, GenAITokenType.String(tokenTypeOutput))...))
	if c.Priced {
		m.cost.Add(ctx, c.Cost, metric.WithAttributes(attrs...))
	}
}

// errorType names a failed call's error class: canceled, timeout or the
// conventions' _OTHER (error messages are not low-cardinality).
func errorType(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(context.Cause(ctx), context.Canceled):
		return errorTypeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return errorTypeDeadline
	}
	return errorTypeOther
}

// RecordRun records a run that ended with status after seconds.
func (m *Metrics) RecordRun(ctx context.Context, status string, seconds float64) {
	if m == nil {
		return
	}
	attrs := metric.WithAttributes(RunStatus.String(status))
	m.runs.Add(ctx, 1, attrs)
	m.runDuration.Record(ctx, seconds, attrs)
}

// RecordSearch records one search call whose results came from channel
// ("" when none did) with outcome.
func (m *Metrics) RecordSearch(ctx context.Context, channel, outcome string) {
	if m == nil {
		return
	}
	m.searches.Add(ctx, 1, metric.WithAttributes(channelAttrs(channel, outcome)...))
}

// RecordFetch records one document read from channel ("" when the
// backend does not say) with outcome.
func (m *Metrics) RecordFetch(ctx context.Context, channel, outcome string) {
	if m == nil {
		return
	}
	m.fetches.Add(ctx, 1, metric.WithAttributes(channelAttrs(channel, outcome)...))
}

func channelAttrs(channel, outcome string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{Outcome.String(outcome)}
	if channel != "" {
		attrs = append(attrs, Channel.String(Text(channel)))
	}
	return attrs
}

// RecordCitations records the verdicts of a report's checked citations.
func (m *Metrics) RecordCitations(ctx context.Context, supported, unsupported, fabricated int) {
	if m == nil {
		return
	}
	for _, v := range []struct {
		verdict string
		n       int
	}{{VerdictSupported, supported}, {VerdictUnsupported, unsupported}, {VerdictFabricated, fabricated}} {
		if v.n > 0 {
			m.citations.Add(ctx, int64(v.n), metric.WithAttributes(Verdict.String(v.verdict)))
		}
	}
}

// RecordAgentFailed records an agent that failed with kind (the failure's
// kind: error, canceled, timeout…).
func (m *Metrics) RecordAgentFailed(ctx context.Context, kind string) {
	if m == nil {
		return
	}
	m.agentsFailed.Add(ctx, 1, metric.WithAttributes(FailureKind.String(kind)))
}
