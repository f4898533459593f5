package deepresearchtest

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"

	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// OTLPPoint is one metric data point an OTLPServer received, flattened:
// the metric's name, unit and type, the point's attributes and its
// resource's by key (as OTLPSpan's), and its value.
type OTLPPoint struct {
	Metric, Unit string
	// Type is the metric's data type: "sum", "gauge", "histogram",
	// "exponential_histogram" or "summary" (the last two without values
	// here).
	Type string
	// Monotonic is a sum's; Cumulative says the point is a running total
	// since StartNanos (the SDK's default temporality), not a delta.
	Monotonic, Cumulative bool
	Attributes            map[string]any
	Resource              map[string]any
	// Value is a sum's or gauge's value (an integer one converted).
	Value float64
	// Count, Sum, Bounds and BucketCounts are a histogram's.
	Count        uint64
	Sum          float64
	Bounds       []float64
	BucketCounts []uint64
	// StartNanos and TimeNanos are the point's interval, in Unix
	// nanoseconds.
	StartNanos, TimeNanos uint64
	// ExemplarTraces are the trace IDs (hex) of the point's exemplars:
	// the traces of spans its measurements were recorded under.
	ExemplarTraces []string
}

// Points returns the metric data points received so far, in the order
// they arrived. An exporter with cumulative temporality sends every
// series again at each export: Last picks the newest.
func (s *OTLPServer) Points() []OTLPPoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.points)
}

// Last returns the newest point of each series (attribute set) of the
// metric named name, in the order the series first arrived: with
// cumulative temporality, each series' total.
func (s *OTLPServer) Last(name string) []OTLPPoint {
	var order []string
	last := map[string]OTLPPoint{}
	for _, p := range s.Points() {
		if p.Metric != name {
			continue
		}
		k := seriesKey(p.Attributes)
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = p
	}
	out := make([]OTLPPoint, len(order))
	for i, k := range order {
		out[i] = last[k]
	}
	return out
}

// seriesKey identifies a series by its attributes, sorted by key.
func seriesKey(attrs map[string]any) string {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%v\x00", k, attrs[k])
	}
	return b.String()
}

// metrics is POST /v1/metrics: an ExportMetricsServiceRequest, read as
// traces reads its request.
func (s *OTLPServer) metrics(w http.ResponseWriter, r *http.Request) {
	var req collectormetrics.ExportMetricsServiceRequest
	ct, ok := readOTLP(w, r, &req)
	if !ok {
		return
	}
	got := MetricPoints(&req)
	s.mu.Lock()
	s.points = append(s.points, got...)
	s.mu.Unlock()
	writeOTLP(w, ct, &collectormetrics.ExportMetricsServiceResponse{})
}

// MetricPoints flattens the data points of an OTLP metrics export request
// (as a gRPC MetricsService server receives it) into OTLPPoints.
func MetricPoints(req *collectormetrics.ExportMetricsServiceRequest) []OTLPPoint {
	var out []OTLPPoint
	for _, rm := range req.GetResourceMetrics() {
		res := attrMap(rm.GetResource().GetAttributes())
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				base := OTLPPoint{Metric: m.GetName(), Unit: m.GetUnit(), Resource: res}
				switch d := m.GetData().(type) {
				case *metricspb.Metric_Sum:
					base.Type, base.Monotonic = "sum", d.Sum.GetIsMonotonic()
					base.Cumulative = d.Sum.GetAggregationTemporality() == metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
					for _, dp := range d.Sum.GetDataPoints() {
						out = append(out, numberPoint(base, dp))
					}
				case *metricspb.Metric_Gauge:
					base.Type = "gauge"
					for _, dp := range d.Gauge.GetDataPoints() {
						out = append(out, numberPoint(base, dp))
					}
				case *metricspb.Metric_Histogram:
					base.Type = "histogram"
					base.Cumulative = d.Histogram.GetAggregationTemporality() == metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
					for _, dp := range d.Histogram.GetDataPoints() {
						p := base
						p.Attributes = attrMap(dp.GetAttributes())
						p.Count, p.Sum = dp.GetCount(), dp.GetSum()
						p.Bounds, p.BucketCounts = dp.GetExplicitBounds(), dp.GetBucketCounts()
						p.StartNanos, p.TimeNanos = dp.GetStartTimeUnixNano(), dp.GetTimeUnixNano()
						p.ExemplarTraces = exemplarTraces(dp.GetExemplars())
						out = append(out, p)
					}
				case *metricspb.Metric_ExponentialHistogram:
					base.Type = "exponential_histogram"
					out = append(out, base)
				case *metricspb.Metric_Summary:
					base.Type = "summary"
					out = append(out, base)
				}
			}
		}
	}
	return out
}

func numberPoint(base OTLPPoint, dp *metricspb.NumberDataPoint) OTLPPoint {
	p := base
	p.Attributes = attrMap(dp.GetAttributes())
	switch v := dp.GetValue().(type) {
	case *metricspb.NumberDataPoint_AsInt:
		p.Value = float64(v.AsInt)
	case *metricspb.NumberDataPoint_AsDouble:
		p.Value = v.AsDouble
	}
	p.StartNanos, p.TimeNanos = dp.GetStartTimeUnixNano(), dp.GetTimeUnixNano()
	p.ExemplarTraces = exemplarTraces(dp.GetExemplars())
	return p
}

func exemplarTraces(ex []*metricspb.Exemplar) []string {
	var out []string
	for _, e := range ex {
		if id := e.GetTraceId(); len(id) > 0 {
			out = append(out, hex.EncodeToString(id))
		}
	}
	return out
}
