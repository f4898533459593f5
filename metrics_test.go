package deepresearch_test

import (
	"context"
	"math"
	"testing"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
)

// otlpMeterProvider returns a meter provider that exports to srv over
// OTLP/HTTP (protobuf) with a periodic reader, as the front ends build
// it, and the function that flushes it.
func otlpMeterProvider(t *testing.T, srv *deepresearchtest.OTLPServer) (*sdkmetric.MeterProvider, func()) {
	t.Helper()
	exp, err := otlpmetrichttp.New(context.Background(), otlpmetrichttp.WithEndpointURL(srv.URL+"/v1/metrics"))
	if err != nil {
		t.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	return mp, func() {
		if err := mp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// sumOf adds up the values (sums and gauges) or the sums (histograms) of
// points whose attributes include every one of want.
func sumOf(points []deepresearchtest.OTLPPoint, want map[string]any) (total float64, count uint64) {
	for _, p := range points {
		if !hasAttrs(p, want) {
			continue
		}
		if p.Type == "histogram" {
			total, count = total+p.Sum, count+p.Count
		} else {
			total, count = total+p.Value, count+1
		}
	}
	return total, count
}

func hasAttrs(p deepresearchtest.OTLPPoint, want map[string]any) bool {
	for k, v := range want {
		if p.Attributes[k] != v {
			return false
		}
	}
	return true
}

// TestMetricsOfARun runs a priced question with a meter provider
// exporting to a real OTLP/HTTP receiver (and a tracer provider beside
// it), and reads the metrics back: the GenAI token histogram adds up to
// the run's Usage by token type, with the model's provider and name; one
// operation duration per model call; one run counted as finished, with
// its duration; the cost counter equals the run's usage priced; searches
// and document reads as many as their spans; the citations by verdict as
// the report's verification counts them; no failed agent.
func TestMetricsOfARun(t *testing.T) {
	srv := deepresearchtest.NewOTLPServer()
	defer srv.Close()
	mp, flushMetrics := otlpMeterProvider(t, srv)
	tp, flushSpans := otlpProvider(t, srv)
	names := map[string]string{"planner": "extractive:builtin", "researcher": "extractive:builtin", "writer": "extractive:builtin"}
	price := func(_ string, u events.Usage) float64 {
		return float64(u.PromptTokens)*2e-6 + float64(u.CompletionTokens)*8e-6
	}
	r := newResearcher(t, deepresearch.Config{Telemetry: deepresearch.Telemetry{MeterProvider: mp, TracerProvider: tp, ModelNames: names}, Price: price, Limits: deepresearch.Limits{MaxCycles: 1, MaxTasks: 2}})
	rep, err := startWait(context.Background(), r, deepresearch.Request{Question: question}, deepresearch.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flushSpans()
	flushMetrics()

	model := map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "extractive", "gen_ai.request.model": "builtin"}
	tokens := srv.Last("gen_ai.client.token.usage")
	if len(tokens) == 0 {
		t.Fatalf("no gen_ai.client.token.usage among %d points", len(srv.Points()))
	}
	for _, p := range tokens {
		if p.Type != "histogram" || p.Unit != "{token}" || !p.Cumulative || !hasAttrs(p, model) {
			t.Errorf("token usage point %+v", p)
		}
		if typ := p.Attributes["gen_ai.token.type"]; typ != "input" && typ != "output" {
			t.Errorf("gen_ai.token.type %v", typ)
		}
	}
	in, calls := sumOf(tokens, map[string]any{"gen_ai.token.type": "input"})
	out, _ := sumOf(tokens, map[string]any{"gen_ai.token.type": "output"})
	if int(in) != rep.Usage.PromptTokens || int(out) != rep.Usage.CompletionTokens || int(calls) != rep.Usage.Calls {
		t.Errorf("token usage: %v input and %v output tokens in %d calls; the run's Usage %+v", in, out, calls, rep.Usage)
	}
	if _, n := sumOf(srv.Last("gen_ai.client.operation.duration"), model); int(n) != rep.Usage.Calls {
		t.Errorf("%d operation durations; %d calls", n, rep.Usage.Calls)
	}
	for _, p := range srv.Last("gen_ai.client.operation.duration") {
		if p.Unit != "s" || p.Attributes["error.type"] != nil {
			t.Errorf("operation duration point %+v", p)
		}
	}
	if cost, _ := sumOf(srv.Last("deepresearch.cost"), model); math.Abs(cost-price("", rep.Usage)) > 1e-9 {
		t.Errorf("deepresearch.cost $%g; the run's usage costs $%g", cost, price("", rep.Usage))
	}

	runs := srv.Last("deepresearch.runs")
	if len(runs) != 1 || runs[0].Value != 1 || runs[0].Attributes["deepresearch.run.status"] != "finished" || !runs[0].Monotonic {
		t.Errorf("deepresearch.runs %+v, want one finished run", runs)
	}
	if d := srv.Last("deepresearch.run.duration"); len(d) != 1 || d[0].Count != 1 || d[0].Unit != "s" {
		t.Errorf("deepresearch.run.duration %+v", d)
	}

	spans := map[string]int{}
	for _, s := range srv.Spans() {
		spans[s.Name]++
	}
	searches, _ := sumOf(srv.Last("deepresearch.searches"), nil)
	fetches, _ := sumOf(srv.Last("deepresearch.fetches"), nil)
	if int(searches) != spans["search"] || int(fetches) != spans["fetch"] || searches == 0 {
		t.Errorf("%v searches and %v reads counted; %d search and %d fetch spans", searches, fetches, spans["search"], spans["fetch"])
	}
	for _, p := range append(srv.Last("deepresearch.searches"), srv.Last("deepresearch.fetches")...) {
		if o := p.Attributes["deepresearch.outcome"]; o == "error" || o == nil {
			t.Errorf("%s: outcome %v", p.Metric, o)
		}
		if p.Attributes["deepresearch.outcome"] == "ok" && p.Attributes["deepresearch.channel"] != "corpus" {
			t.Errorf("%s: channel %v, want corpus", p.Metric, p.Attributes["deepresearch.channel"])
		}
	}

	v := rep.Verification
	if v == nil || v.Summary.Supported == 0 {
		t.Fatalf("verification %+v", v)
	}
	cites := srv.Last("deepresearch.citations")
	for verdict, want := range map[string]int{"supported": v.Summary.Supported, "unsupported": v.Summary.Unsupported, "fabricated": v.Summary.Fabricated} {
		if got, _ := sumOf(cites, map[string]any{"deepresearch.citation.verdict": verdict}); int(got) != want {
			t.Errorf("%d %s citations counted; the verification has %d", int(got), verdict, want)
		}
	}
	if f := srv.Last("deepresearch.agents.failed"); len(f) != 0 {
		t.Errorf("failed agents counted in a run without failures: %+v", f)
	}
}

// TestMetricsOfAFailedRun: a run with an agent whose model calls fail
// and a writer whose provider is down counts the failed agent (by its
// kind) and the run by its final status (failed); the failed calls'
// durations carry error.type, and only the calls that succeeded have
// tokens.
func TestMetricsOfAFailedRun(t *testing.T) {
	srv := deepresearchtest.NewOTLPServer()
	defer srv.Close()
	mp, flush := otlpMeterProvider(t, srv)
	model := faultyModel{Model: writerDown(), task: failingTask, fault: "error"}
	r := newResearcher(t, deepresearch.Config{Telemetry: deepresearch.Telemetry{MeterProvider: mp}, Model: model, Limits: deepresearch.Limits{MaxCycles: 1}, MaxRetries: -1})
	rep, err := startWait(context.Background(), r, deepresearch.Request{Question: question}, deepresearch.RunOptions{})
	if err == nil {
		t.Fatal("a run whose writer is down succeeded")
	}
	flush()
	if f := srv.Last("deepresearch.agents.failed"); len(f) != 1 || f[0].Value != 1 || f[0].Attributes["deepresearch.failure.kind"] != "error" {
		t.Errorf("deepresearch.agents.failed %+v, want one agent failed with an error", f)
	}
	runs := srv.Last("deepresearch.runs")
	if len(runs) != 1 || runs[0].Attributes["deepresearch.run.status"] != "failed" || runs[0].Value != 1 {
		t.Errorf("deepresearch.runs %+v, want one failed run", runs)
	}
	d := srv.Last("gen_ai.client.operation.duration")
	if _, n := sumOf(d, map[string]any{"error.type": "_OTHER"}); n == 0 {
		t.Errorf("no failed model call's duration: %+v", d)
	}
	in, calls := sumOf(srv.Last("gen_ai.client.token.usage"), map[string]any{"gen_ai.token.type": "input"})
	if rep == nil || int(in) != rep.Usage.PromptTokens || int(calls) != rep.Usage.Calls {
		t.Errorf("%v input tokens in %d calls counted; the run's findings %+v", in, calls, rep)
	}
}
