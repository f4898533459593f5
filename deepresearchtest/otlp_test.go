package deepresearchtest_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"testing"

	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/deepresearch/deepresearch/deepresearchtest"
)

// metricsExport is an export of a cumulative counter's one series and a
// histogram's, with total, as an SDK sends them at each interval.
func metricsExport(total int64) *collectormetrics.ExportMetricsServiceRequest {
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	cumulative := metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
	return &collectormetrics.ExportMetricsServiceRequest{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", "deepresearch")}},
		ScopeMetrics: []*metricspb.ScopeMetrics{{Metrics: []*metricspb.Metric{
			{Name: "deepresearch.runs", Unit: "{run}", Data: &metricspb.Metric_Sum{Sum: &metricspb.Sum{
				IsMonotonic: true, AggregationTemporality: cumulative,
				DataPoints: []*metricspb.NumberDataPoint{{Attributes: []*commonpb.KeyValue{str("deepresearch.run.status", "finished")},
					Value: &metricspb.NumberDataPoint_AsInt{AsInt: total}}},
			}}},
			{Name: "gen_ai.client.token.usage", Unit: "{token}", Data: &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{
				AggregationTemporality: cumulative,
				DataPoints: []*metricspb.HistogramDataPoint{{Attributes: []*commonpb.KeyValue{str("gen_ai.token.type", "input")},
					Count: uint64(total), Sum: proto.Float64(float64(100 * total)), ExplicitBounds: []float64{64, 256}, BucketCounts: []uint64{0, uint64(total), 0},
					Exemplars: []*metricspb.Exemplar{{TraceId: bytes.Repeat([]byte{0xab}, 16)}}}},
			}}},
		}}},
	}}}
}

// TestOTLPServerMetrics posts metric exports to /v1/metrics as an
// exporter does, in JSON and in gzip-compressed protobuf, and reads the
// points back: all of them in order (Points), and the newest of each
// series (Last); a body of another type is refused with 415.
func TestOTLPServerMetrics(t *testing.T) {
	srv := deepresearchtest.NewOTLPServer()
	defer srv.Close()
	post := func(body []byte, ct string, gz bool) int {
		t.Helper()
		if gz {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(body) //nolint:errcheck // a bytes.Buffer
			zw.Close()
			body = b.Bytes()
		}
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/metrics", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		if gz {
			req.Header.Set("Content-Encoding", "gzip")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	js, err := protojson.Marshal(metricsExport(1))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := proto.Marshal(metricsExport(2))
	if err != nil {
		t.Fatal(err)
	}
	if code := post(js, "application/json", false); code != http.StatusOK {
		t.Fatalf("JSON: %d", code)
	}
	if code := post(pb, "application/x-protobuf", true); code != http.StatusOK {
		t.Fatalf("gzip protobuf: %d", code)
	}
	if code := post(js, "text/plain", false); code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d, want 415", code)
	}
	if n := len(srv.Points()); n != 4 {
		t.Fatalf("%d points, want 4: %+v", n, srv.Points())
	}
	runs := srv.Last("deepresearch.runs")
	if len(runs) != 1 || runs[0].Value != 2 || !runs[0].Monotonic || !runs[0].Cumulative || runs[0].Type != "sum" ||
		runs[0].Attributes["deepresearch.run.status"] != "finished" || runs[0].Resource["service.name"] != "deepresearch" {
		t.Errorf("deepresearch.runs: %+v", runs)
	}
	tok := srv.Last("gen_ai.client.token.usage")
	if len(tok) != 1 || tok[0].Type != "histogram" || tok[0].Count != 2 || tok[0].Sum != 200 || tok[0].Unit != "{token}" ||
		len(tok[0].BucketCounts) != 3 || tok[0].BucketCounts[1] != 2 || len(tok[0].ExemplarTraces) != 1 || tok[0].ExemplarTraces[0] != "abababababababababababababababab" {
		t.Errorf("gen_ai.client.token.usage: %+v", tok)
	}
}
