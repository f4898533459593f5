// Package telemetry opens the OpenTelemetry spans of a run: the run's
// own, then one per cycle, agent, model call, search, fetch, verification
// and wait for a person, each a child of the span in its context.
//
// Only Begin takes a trace.TracerProvider: it starts a run's root span
// (or a worker's span continuing a run's trace), and every later span
// comes from the provider that made the span in its context (Start), so
// no package below the root passes a tracer around. Without a provider,
// or under a span that does not record, Start costs one context lookup
// and returns a span that does nothing. The package reads no
// environment; the front ends build the provider (docs/telemetry.md).
//
// Every span carries the run's ID (RunID), which Begin puts in the
// context. Span names and attributes are listed in docs/telemetry.md;
// model calls follow OpenTelemetry's GenAI semantic conventions.
//
// Metrics travel the same way: NewMetrics makes a run's instruments once
// from a metric.MeterProvider, WithMetrics puts them in a run's context,
// and each seam records through MetricsFrom(ctx), which is nil (and
// records nothing) without them (metrics.go).
package telemetry

import (
	"context"
	"net/http"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/internal/termsafe"
)

// ScopeName is the instrumentation scope of every span.
const ScopeName = "github.com/deepresearch/deepresearch"

// Span names.
const (
	SpanRun      = "run"         // a whole run, the root
	SpanCycle    = "cycle"       // one research cycle
	SpanAgent    = "agent"       // one agent task, run here or handed to a worker
	SpanServe    = "agent.serve" // an agent task run by a worker for a coordinator
	SpanSearch   = "search"      // one search call
	SpanFetch    = "fetch"       // one read of a document an agent asked for
	SpanPage     = "fetch.page"  // one fetch of a web page over HTTP (a cache miss)
	SpanVerify   = "verify"      // the verification of the final report
	SpanWait     = "person.wait" // a wait for a person: plan review, clarifying answers
	SpanPlan     = "plan"        // clarifying questions and the plan
	SpanWrite    = "write"       // the final report
	OpChat       = "chat"        // gen_ai.operation.name of model calls
	maxAttrBytes = 512           // bound on untrusted text put in an attribute
)

// Attribute keys beyond OpenTelemetry's semantic conventions.
const (
	RunID       = attribute.Key("deepresearch.run_id")
	Question    = attribute.Key("deepresearch.question")
	Cycle       = attribute.Key("deepresearch.cycle")
	TaskID      = attribute.Key("deepresearch.task.id")
	TaskTitle   = attribute.Key("deepresearch.task.title")
	Remote      = attribute.Key("deepresearch.agent.remote")
	Role        = attribute.Key("deepresearch.role")
	CostUSD     = attribute.Key("deepresearch.cost_usd")
	Query       = attribute.Key("deepresearch.search.query")
	Results     = attribute.Key("deepresearch.search.results")
	DocID       = attribute.Key("deepresearch.document.id")
	WaitFor     = attribute.Key("deepresearch.wait.for")
	Unsupported = attribute.Key("deepresearch.verify.unsupported")
	Checked     = attribute.Key("deepresearch.verify.citations")
)

// Semantic-convention keys (GenAI and URL).
const (
	GenAIOperation    = attribute.Key("gen_ai.operation.name")
	GenAIProvider     = attribute.Key("gen_ai.provider.name")
	GenAIModel        = attribute.Key("gen_ai.request.model")
	GenAIInputTokens  = attribute.Key("gen_ai.usage.input_tokens")
	GenAIOutputTokens = attribute.Key("gen_ai.usage.output_tokens")
	URLFull           = attribute.Key("url.full")
)

type runKey struct{}

// noop is a span that records nothing.
var noop = trace.SpanFromContext(context.Background())

// Begin starts a span named name with tp's tracer, as a child of the span
// in ctx (a remote one, for a worker continuing a coordinator's trace),
// and puts runID in the returned context so that every span below it
// carries it. A nil tp returns ctx and a span that does nothing.
func Begin(ctx context.Context, tp trace.TracerProvider, name, runID string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if tp == nil {
		return ctx, noop
	}
	ctx = context.WithValue(ctx, runKey{}, runID)
	return tp.Tracer(ScopeName).Start(ctx, name, trace.WithSpanKind(kind),
		trace.WithAttributes(append(attrs, RunID.String(runID))...))
}

// Start starts a span named name as a child of the span in ctx, with the
// tracer of the provider that made that span, carrying the run ID Begin
// put in ctx. Under no span, or one that does not record, it returns ctx
// and a span that does nothing.
func Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, noop
	}
	if id, ok := ctx.Value(runKey{}).(string); ok {
		attrs = append(attrs, RunID.String(id))
	}
	return parent.TracerProvider().Tracer(ScopeName).Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// End ends span, marking it failed with err when err is not nil.
func End(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, Text(err.Error()))
	}
	span.End()
}

// Text bounds untrusted text (a query, a title, a URL, an error) for an
// attribute: without the control characters termsafe drops, cut at
// maxAttrBytes on a rune boundary and marked "…".
func Text(s string) string {
	s = termsafe.Text(s)
	if len(s) <= maxAttrBytes {
		return s
	}
	cut := maxAttrBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Model splits a model's "provider:name" (as model.prices keys it) into
// the GenAI provider and model attributes; an empty name gives none.
func Model(providerName string) []attribute.KeyValue {
	if providerName == "" {
		return nil
	}
	p, name, ok := strings.Cut(providerName, ":")
	if !ok {
		return []attribute.KeyValue{GenAIModel.String(providerName)}
	}
	return []attribute.KeyValue{GenAIProvider.String(p), GenAIModel.String(name)}
}

// propagator carries W3C trace context (traceparent, tracestate).
var propagator = propagation.TraceContext{}

// Inject writes the trace context of the span in ctx into h (a message's
// headers), as W3C traceparent and tracestate. It writes nothing when
// ctx has no valid span.
func Inject(ctx context.Context, h map[string][]string) {
	propagator.Inject(ctx, propagation.HeaderCarrier(http.Header(h)))
}

// Extract returns ctx carrying the remote span context of the W3C trace
// context in h, for the spans of the work a message asks for to continue
// its sender's trace; ctx unchanged when h carries none.
func Extract(ctx context.Context, h map[string][]string) context.Context {
	return propagator.Extract(ctx, propagation.HeaderCarrier(http.Header(h)))
}
