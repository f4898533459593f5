package telemetry

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestPropagation: a span started under Begin carries the run ID; its
// trace context, injected into message headers as traceparent and
// extracted on the other side, makes the receiver's span (from another
// provider, as on another machine) a child of the sender's, in the same
// trace, with the receiver's run ID.
func TestPropagation(t *testing.T) {
	sent, got := tracetest.NewSpanRecorder(), tracetest.NewSpanRecorder()
	coordinator := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sent))
	worker := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(got))

	ctx, run := Begin(context.Background(), coordinator, SpanRun, "r1", trace.SpanKindInternal)
	actx, agent := Start(ctx, SpanAgent, trace.SpanKindInternal)
	h := map[string][]string{}
	Inject(actx, h)
	if len(h["Traceparent"]) != 1 {
		t.Fatalf("headers %v: no traceparent", h)
	}
	wctx, serve := Begin(Extract(context.Background(), h), worker, SpanServe, "r1", trace.SpanKindConsumer)
	_, chat := Start(wctx, "chat m", trace.SpanKindClient)
	chat.End()
	serve.End()
	agent.End()
	run.End()

	if n := len(sent.Ended()); n != 2 {
		t.Fatalf("the coordinator ended %d spans, want 2", n)
	}
	a := sent.Ended()[0]
	w := got.Ended()
	if len(w) != 2 || w[1].Name() != SpanServe || w[0].Name() != "chat m" {
		t.Fatalf("the worker's spans: %v", w)
	}
	if w[1].Parent().SpanID() != a.SpanContext().SpanID() || w[1].SpanContext().TraceID() != a.SpanContext().TraceID() {
		t.Errorf("the worker's span is not a child of the agent's")
	}
	if w[0].Parent().SpanID() != w[1].SpanContext().SpanID() {
		t.Errorf("the model call is not a child of the worker's span")
	}
	for _, s := range append(sent.Ended(), w...) {
		found := false
		for _, kv := range s.Attributes() {
			found = found || kv.Key == RunID && kv.Value.AsString() == "r1"
		}
		if !found {
			t.Errorf("span %s has no run ID", s.Name())
		}
	}
}

// TestNoProvider: without a provider, or under no span, nothing records
// and no context is changed.
func TestNoProvider(t *testing.T) {
	ctx := context.Background()
	c1, s1 := Begin(ctx, nil, SpanRun, "r", trace.SpanKindInternal)
	c2, s2 := Start(ctx, SpanAgent, trace.SpanKindInternal)
	if c1 != ctx || c2 != ctx || s1.IsRecording() || s2.IsRecording() {
		t.Error("a span without a provider records or changes the context")
	}
	End(s2, nil)
	h := map[string][]string{}
	Inject(ctx, h)
	if len(h) != 0 {
		t.Errorf("headers without a span: %v", h)
	}
}

// TestText: control characters but newline and tab go, long text is cut on a rune boundary.
func TestText(t *testing.T) {
	if got := Text("a\x1b[31mb\nc"); got != "a[31mb\nc" {
		t.Errorf("Text = %q", got)
	}
	long := strings.Repeat("é", 400) // 800 bytes
	got := Text(long)
	if !utf8.ValidString(got) || len(got) > maxAttrBytes+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("Text of 800 bytes = %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}
