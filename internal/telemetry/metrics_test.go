package telemetry

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestMetrics records through MetricsFrom with the SDK's manual reader:
// without Metrics in the context nothing is recorded and nothing fails;
// a failed call has its duration with error.type (canceled for a canceled
// context, _OTHER for the rest) and no tokens; a successful one its
// tokens by type and its cost; a search's and a read's channel and
// outcome; citations by verdict, none for a verdict counted zero times.
func TestMetrics(t *testing.T) {
	if m, err := NewMetrics(nil); m != nil || err != nil {
		t.Fatalf("NewMetrics(nil) = %v, %v", m, err)
	}
	ctx := context.Background()
	MetricsFrom(ctx).RecordCall(ctx, Call{Model: "openai:gpt-4o", In: 5}) // no Metrics: nothing happens
	reader := sdkmetric.NewManualReader()
	m, err := NewMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		t.Fatal(err)
	}
	ctx = WithMetrics(ctx, m)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	MetricsFrom(ctx).RecordCall(ctx, Call{Model: "openai:gpt-4o", Role: "writer", Seconds: 2, In: 100, Out: 40, Cost: 0.5, Priced: true})
	MetricsFrom(ctx).RecordCall(canceled, Call{Model: "openai:gpt-4o", Role: "writer", Seconds: 1, Err: canceled.Err()})
	MetricsFrom(ctx).RecordCall(ctx, Call{Model: "openai:gpt-4o", Role: "writer", Seconds: 1, Err: errors.New("500")})
	MetricsFrom(ctx).RecordSearch(ctx, "web", OutcomeOK)
	MetricsFrom(ctx).RecordFetch(ctx, "", OutcomeNotFound)
	MetricsFrom(ctx).RecordCitations(ctx, 3, 0, 1)

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // "metric{attrs}" → value
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			switch d := md.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					got[md.Name+attrs(p.Attributes)] = fmt.Sprint(p.Value)
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					got[md.Name+attrs(p.Attributes)] = fmt.Sprint(p.Value)
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					got[md.Name+attrs(p.Attributes)] = fmt.Sprintf("%d/%d", p.Count, p.Sum)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					got[md.Name+attrs(p.Attributes)] = fmt.Sprintf("%d/%g", p.Count, p.Sum)
				}
			}
		}
	}
	model := "gen_ai.operation.name=chat,gen_ai.provider.name=openai,gen_ai.request.model=gpt-4o,deepresearch.role=writer"
	want := map[string]string{
		"gen_ai.client.token.usage{" + model + ",gen_ai.token.type=input}":        "1/100",
		"gen_ai.client.token.usage{" + model + ",gen_ai.token.type=output}":       "1/40",
		"gen_ai.client.operation.duration{" + model + "}":                         "1/2",
		"gen_ai.client.operation.duration{" + model + ",error.type=canceled}":     "1/1",
		"gen_ai.client.operation.duration{" + model + ",error.type=_OTHER}":       "1/1",
		"deepresearch.cost{" + model + "}":                                        "0.5",
		"deepresearch.searches{deepresearch.outcome=ok,deepresearch.channel=web}": "1",
		"deepresearch.fetches{deepresearch.outcome=not_found}":                    "1",
		"deepresearch.citations{deepresearch.citation.verdict=supported}":         "3",
		"deepresearch.citations{deepresearch.citation.verdict=fabricated}":        "1",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d series, want %d: %v", len(got), len(want), got)
	}
}

// attrs writes a point's attributes in the order the test names them.
func attrs(set attribute.Set) string {
	order := []attribute.Key{GenAIOperation, GenAIProvider, GenAIModel, Role, GenAITokenType, ErrorType, Outcome, Channel, Verdict}
	s := "{"
	for _, k := range order {
		if v, ok := set.Value(k); ok {
			if s != "{" {
				s += ","
			}
			s += string(k) + "=" + v.Emit()
		}
	}
	return s + "}"
}
