package deepresearchtest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// maxOTLPBody bounds one export request the OTLPServer reads.
const maxOTLPBody = 32 << 20

// OTLPSpan is one span an OTLPServer received, flattened: its IDs in hex
// (ParentID "" for a root), its attributes and its resource's by key
// (strings, int64, float64, bool; arrays as []any).
type OTLPSpan struct {
	TraceID, SpanID, ParentID string
	Name                      string
	// Kind is the OTLP span kind: 1 internal, 2 server, 3 client, 4
	// producer, 5 consumer.
	Kind       int
	Attributes map[string]any
	Resource   map[string]any
	// Error is the status message of a span whose status is an error; ""
	// for the others.
	Error  string
	Failed bool
	// StartNanos and EndNanos are the span's times, in Unix nanoseconds.
	StartNanos, EndNanos uint64
}

// OTLPServer is a local OpenTelemetry collector: it speaks OTLP over
// HTTP — POST /v1/traces with an ExportTraceServiceRequest and POST
// /v1/metrics with an ExportMetricsServiceRequest, as protobuf
// (application/x-protobuf) or JSON (application/json), gzip-compressed or
// not, each answered with its service's response in the same encoding —
// and keeps every span (Spans) and metric data point (Points) it
// receives. Point an exporter (otlptracehttp, otlpmetrichttp,
// OTEL_EXPORTER_OTLP_ENDPOINT) at its URL. Close it when done.
type OTLPServer struct {
	*httptest.Server

	mu     sync.Mutex
	spans  []OTLPSpan
	points []OTLPPoint
}

// NewOTLPServer starts an OTLPServer.
func NewOTLPServer() *OTLPServer {
	s := &OTLPServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", s.traces)
	mux.HandleFunc("POST /v1/metrics", s.metrics)
	s.Server = httptest.NewServer(mux)
	return s
}

// Spans returns the spans received so far, in the order they arrived.
func (s *OTLPServer) Spans() []OTLPSpan {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.spans)
}

func (s *OTLPServer) traces(w http.ResponseWriter, r *http.Request) {
	var req collectortrace.ExportTraceServiceRequest
	ct, ok := readOTLP(w, r, &req)
	if !ok {
		return
	}
	var got []OTLPSpan
	for _, rs := range req.GetResourceSpans() {
		res := attrMap(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				got = append(got, OTLPSpan{
					TraceID: hex.EncodeToString(sp.GetTraceId()), SpanID: hex.EncodeToString(sp.GetSpanId()),
					ParentID: hex.EncodeToString(sp.GetParentSpanId()), Name: sp.GetName(), Kind: int(sp.GetKind()),
					Attributes: attrMap(sp.GetAttributes()), Resource: res,
					Failed: sp.GetStatus().GetCode() == 2, Error: sp.GetStatus().GetMessage(),
					StartNanos: sp.GetStartTimeUnixNano(), EndNanos: sp.GetEndTimeUnixNano(),
				})
			}
		}
	}
	s.mu.Lock()
	s.spans = append(s.spans, got...)
	s.mu.Unlock()
	writeOTLP(w, ct, &collectortrace.ExportTraceServiceResponse{})
}

// readOTLP decodes the body of an OTLP/HTTP export request into msg:
// protobuf or JSON by its Content-Type, gzip-compressed or not, at most
// maxOTLPBody bytes. It answers a request it cannot decode itself and
// returns false; else the request's content type, for the response.
func readOTLP(w http.ResponseWriter, r *http.Request, msg proto.Message) (string, bool) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/x-protobuf" && ct != "application/json" {
		http.Error(w, fmt.Sprintf("unsupported content type %q: OTLP/HTTP is application/x-protobuf or application/json", ct), http.StatusUnsupportedMediaType)
		return "", false
	}
	var body io.Reader = http.MaxBytesReader(w, r.Body, maxOTLPBody)
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, "gzip: "+err.Error(), http.StatusBadRequest)
			return "", false
		}
		defer zr.Close()
		body = io.LimitReader(zr, maxOTLPBody)
	default:
		http.Error(w, fmt.Sprintf("unsupported content encoding %q", enc), http.StatusUnsupportedMediaType)
		return "", false
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return "", false
	}
	unmarshal := proto.Unmarshal
	if ct == "application/json" {
		unmarshal = protojson.Unmarshal
	}
	if err := unmarshal(data, msg); err != nil {
		http.Error(w, fmt.Sprintf("not an %s: %v", msg.ProtoReflect().Descriptor().Name(), err), http.StatusBadRequest)
		return "", false
	}
	return ct, true
}

// writeOTLP answers an export request with msg in the request's encoding.
func writeOTLP(w http.ResponseWriter, ct string, msg proto.Message) {
	marshal := proto.Marshal
	if ct == "application/json" {
		marshal = protojson.Marshal
	}
	out, _ := marshal(msg)
	w.Header().Set("Content-Type", ct)
	w.Write(out) //nolint:errcheck // the exporter retries
}

func attrMap(kvs []*commonpb.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = anyValue(kv.GetValue())
	}
	return m
}

func anyValue(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, anyValue(e))
		}
		return out
	case *commonpb.AnyValue_BytesValue:
		return x.BytesValue
	}
	return nil
}
