package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/usage"
	"github.com/deepresearch/deepresearch/natsrun"
)

// TestTracesAcrossWorkers runs a question as a coordinator process (`run
// --nats`) with a worker process (`worker --nats`) over an embedded
// JetStream server, both with telemetry.otlp http and the standard
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real OTLP/HTTP receiver, and
// reads the spans back: one trace for the run, whose agents' spans on the
// coordinator are the parents of the worker's (agent.serve, with the
// model calls, searches and reads under it), the trace context having
// crossed NATS in the task messages' headers; every span carries the run
// ID, and each process names itself in its resource.
func TestTracesAcrossWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts coordinator and worker processes")
	}
	isolate(t)
	otlp := deepresearchtest.NewOTLPServer()
	defer otlp.Close()
	nsrv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer nsrv.Close()
	t.Setenv("DEEPRESEARCH_TELEMETRY_OTLP", "http")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // ms: the worker's spans leave while it runs
	absCorpus, _ := filepath.Abs(corpus)
	common := func() []string {
		return []string{"--corpus", absCorpus, "--index", filepath.Join(t.TempDir(), "i.db"), "--nats", nsrv.URL()}
	}
	w, wout := spawn(t, "cli", append([]string{"worker"}, common()...)...)
	w.drain.Go(func() { io.Copy(io.Discard, wout) })
	evFile := filepath.Join(t.TempDir(), "events.jsonl")
	c, cout := spawn(t, "cli", append([]string{"run", question, "--progress", "never", "--max-cycles", "1", "--events", evFile,
		"--store", filepath.Join(t.TempDir(), "runs.db")}, common()...)...)
	stuck := time.AfterFunc(3*time.Minute, func() { c.cmd.Process.Kill() }) // a failure timeout only
	report, _ := io.ReadAll(cout)
	stuck.Stop()
	if err := c.cmd.Wait(); err != nil || !strings.Contains(string(report), "## References") {
		t.Fatalf("run --nats: %v\n%s\n%s", err, report, c.log())
	}
	c.drain.Wait()
	w.stop() // flushes what the worker still holds

	spans := otlp.Spans()
	var runs []deepresearchtest.OTLPSpan
	byID := map[string]deepresearchtest.OTLPSpan{}
	for _, s := range spans {
		byID[s.SpanID] = s
		if s.Name == "run" {
			runs = append(runs, s)
		}
	}
	if len(runs) != 1 {
		t.Fatalf("%d run spans, want 1 (of %d spans)", len(runs), len(spans))
	}
	root := runs[0]
	runID := root.Attributes["deepresearch.run_id"]
	pids := map[string]any{"run": fmt.Sprint(c.cmd.Process.Pid), "worker": fmt.Sprint(w.cmd.Process.Pid)}
	names := map[string]map[string]int{"run": {}, "worker": {}} // span names by command
	for _, s := range spans {
		if s.TraceID != root.TraceID {
			t.Errorf("span %s is in trace %s, not the run's %s", s.Name, s.TraceID, root.TraceID)
		}
		if s.Attributes["deepresearch.run_id"] != runID {
			t.Errorf("span %s has run ID %v, want %v", s.Name, s.Attributes["deepresearch.run_id"], runID)
		}
		cmd, _ := s.Resource["deepresearch.command"].(string)
		if names[cmd] == nil {
			t.Errorf("span %s from command %q", s.Name, cmd)
			continue
		}
		if pid := fmt.Sprint(s.Resource["process.pid"]); pid != pids[cmd] {
			t.Errorf("span %s of %s has process.pid %s, want %s", s.Name, cmd, pid, pids[cmd])
		}
		name := s.Name
		if s.Attributes["gen_ai.operation.name"] == "chat" {
			name = "chat"
		}
		names[cmd][name]++
		if s.Name == "agent.serve" {
			p, ok := byID[s.ParentID]
			if !ok || p.Name != "agent" || p.Resource["deepresearch.command"] != "run" || p.Attributes["deepresearch.agent.remote"] != true {
				t.Errorf("the worker's agent.serve span has parent %+v, want the coordinator's remote agent span", p)
			}
		}
		if cmd == "worker" && s.Name != "agent.serve" {
			if p, ok := byID[s.ParentID]; !ok || p.Resource["deepresearch.command"] != "worker" {
				t.Errorf("the worker's %s span has no parent on the worker", s.Name)
			}
		}
	}
	for _, want := range []string{"run", "plan", "cycle", "agent", "write", "verify", "chat"} {
		if names["run"][want] == 0 {
			t.Errorf("no %s span from the coordinator: %v", want, names["run"])
		}
	}
	for _, want := range []string{"agent.serve", "chat", "search", "fetch"} {
		if names["worker"][want] == 0 {
			t.Errorf("no %s span from the worker: %v", want, names["worker"])
		}
	}
	if names["run"]["agent"] != names["worker"]["agent.serve"] {
		t.Errorf("%d agent spans on the coordinator, %d agent.serve on the worker", names["run"]["agent"], names["worker"]["agent.serve"])
	}

	// The metrics: each process counts its own model calls, so their
	// tokens add up to the run's usage, counted once; the coordinator
	// counts the run.
	usage := finishedUsage(t, evFile)
	tokens := map[string]map[string]float64{} // by command, by token type
	calls := 0
	for _, p := range lastPoints(otlp.Points(), "gen_ai.client.token.usage") {
		cmd, _ := p.Resource["deepresearch.command"].(string)
		typ, _ := p.Attributes["gen_ai.token.type"].(string)
		if tokens[cmd] == nil {
			tokens[cmd] = map[string]float64{}
		}
		tokens[cmd][typ] += p.Sum
		if typ == "input" {
			calls += int(p.Count)
		}
	}
	if tokens["run"]["input"] == 0 || tokens["worker"]["input"] == 0 {
		t.Errorf("tokens by command %v: want the coordinator's and the worker's", tokens)
	}
	if in, out := tokens["run"]["input"]+tokens["worker"]["input"], tokens["run"]["output"]+tokens["worker"]["output"]; int(in) != usage.PromptTokens || int(out) != usage.CompletionTokens || calls != usage.Calls {
		t.Errorf("the processes' metrics count %v input and %v output tokens in %d calls; the run's usage %+v", in, out, calls, usage)
	}
	runsByCommand := map[string]float64{}
	for _, p := range lastPoints(otlp.Points(), "deepresearch.runs") {
		if p.Attributes["deepresearch.run.status"] != "finished" {
			t.Errorf("a run counted as %v", p.Attributes["deepresearch.run.status"])
		}
		runsByCommand[p.Resource["deepresearch.command"].(string)] += p.Value
	}
	if runsByCommand["run"] != 1 || len(runsByCommand) != 1 {
		t.Errorf("runs counted by command %v, want one by the coordinator", runsByCommand)
	}
}

// lastPoints is the newest point of each series of the metric named
// name, a series being a resource's attribute set (each process exports
// its own cumulative totals).
func lastPoints(points []deepresearchtest.OTLPPoint, name string) []deepresearchtest.OTLPPoint {
	var order []string
	last := map[string]deepresearchtest.OTLPPoint{}
	for _, p := range points {
		if p.Metric != name {
			continue
		}
		k := fmt.Sprint(p.Resource["process.pid"], p.Attributes)
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = p
	}
	out := make([]deepresearchtest.OTLPPoint, len(order))
	for i, k := range order {
		out[i] = last[k]
	}
	return out
}

// finishedUsage reads the run's usage from the run.finished event of the
// events file evFile.
func finishedUsage(t *testing.T, evFile string) usage.Usage {
	t.Helper()
	b, err := os.ReadFile(evFile)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				Usage usage.Usage `json:"usage"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("events: %v", err)
		}
		if ev.Type == "run.finished" {
			return ev.Data.Usage
		}
	}
	t.Fatalf("no run.finished event in %s", evFile)
	return usage.Usage{}
}

// grpcReceiver is an OTLP/gRPC trace receiver: the collector's
// TraceService, keeping the names and resources of the spans it gets.
type grpcReceiver struct {
	collectortrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []string // "command/name"
}

func (g *grpcReceiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		cmd := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "deepresearch.command" {
				cmd = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				g.spans = append(g.spans, cmd+"/"+sp.GetName())
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// grpcMetricsReceiver is an OTLP/gRPC metrics receiver: the collector's
// MetricsService, keeping the data points it gets.
type grpcMetricsReceiver struct {
	collectormetrics.UnimplementedMetricsServiceServer
	mu     sync.Mutex
	points []deepresearchtest.OTLPPoint
}

func (g *grpcMetricsReceiver) Export(_ context.Context, req *collectormetrics.ExportMetricsServiceRequest) (*collectormetrics.ExportMetricsServiceResponse, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.points = append(g.points, deepresearchtest.MetricPoints(req)...)
	return &collectormetrics.ExportMetricsServiceResponse{}, nil
}

// TestStartTelemetry: telemetry.otlp off (the default) or
// OTEL_SDK_DISABLED=true builds no provider; grpc exports to
// telemetry.endpoint (HOST:PORT) over OTLP/gRPC and http to a base URL
// (to which /v1/traces and /v1/metrics are added), each span and metric
// flushed when the command's stop function runs, under the command's
// name; OTEL_METRICS_EXPORTER=none keeps the traces without metrics, and
// an OTEL_METRIC_EXPORT_INTERVAL that is no number of milliseconds is
// refused.
func TestStartTelemetry(t *testing.T) {
	ctx := context.Background()
	s := config.Defaults()
	s.Env = map[string]string{}
	if p, stop, err := startTelemetry(ctx, s, "run"); p.tracer != nil || p.meter != nil || err != nil {
		t.Errorf("off: %v, %v", p, err)
	} else {
		stop()
	}
	s.Telemetry.OTLP = "http"
	s.Env["OTEL_SDK_DISABLED"] = "true"
	if p, _, err := startTelemetry(ctx, s, "run"); p.tracer != nil || p.meter != nil || err != nil {
		t.Errorf("disabled: %v, %v", p, err)
	}
	delete(s.Env, "OTEL_SDK_DISABLED")
	s.Env["OTEL_METRIC_EXPORT_INTERVAL"] = "5s"
	if _, _, err := startTelemetry(ctx, s, "run"); err == nil || !strings.Contains(err.Error(), "OTEL_METRIC_EXPORT_INTERVAL") {
		t.Errorf("an interval of 5s: %v", err)
	}
	s.Env["OTEL_METRIC_EXPORT_INTERVAL"] = "60000"
	s.Env["OTEL_METRICS_EXPORTER"] = "none"
	if p, stop, err := startTelemetry(ctx, s, "run"); p.tracer == nil || p.meter != nil || err != nil {
		t.Errorf("OTEL_METRICS_EXPORTER=none: %v, %v", p, err)
	} else {
		stop()
	}
	delete(s.Env, "OTEL_METRICS_EXPORTER")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	recv, mrecv := &grpcReceiver{}, &grpcMetricsReceiver{}
	gs := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(gs, recv)
	collectormetrics.RegisterMetricsServiceServer(gs, mrecv)
	go gs.Serve(l) //nolint:errcheck // ends with Stop
	defer gs.Stop()
	otlp := deepresearchtest.NewOTLPServer()
	defer otlp.Close()

	for _, c := range []struct{ mode, endpoint string }{{"grpc", l.Addr().String()}, {"http", otlp.URL + "/"}} {
		s.Telemetry = config.Telemetry{OTLP: c.mode, Endpoint: c.endpoint}
		p, stop, err := startTelemetry(ctx, s, "worker")
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		_, span := p.tracer.Tracer("test").Start(ctx, "probe-"+c.mode)
		span.End()
		counter, err := p.meter.Meter("test").Int64Counter("probe." + c.mode)
		if err != nil {
			t.Fatal(err)
		}
		counter.Add(ctx, 3)
		stop()
	}
	recv.mu.Lock()
	got := slices.Clone(recv.spans)
	recv.mu.Unlock()
	if !slices.Equal(got, []string{"worker/probe-grpc"}) {
		t.Errorf("the gRPC receiver got %q", got)
	}
	if sp := otlp.Spans(); len(sp) != 1 || sp[0].Name != "probe-http" || sp[0].Resource["deepresearch.command"] != "worker" || sp[0].Resource["service.name"] != "deepresearch" {
		t.Errorf("the HTTP receiver got %+v", sp)
	}
	mrecv.mu.Lock()
	gotPoints := slices.Clone(mrecv.points)
	mrecv.mu.Unlock()
	for name, points := range map[string][]deepresearchtest.OTLPPoint{"grpc": gotPoints, "http": otlp.Points()} {
		if len(points) != 1 || points[0].Metric != "probe."+name || points[0].Value != 3 || points[0].Resource["deepresearch.command"] != "worker" {
			t.Errorf("the %s metrics receiver got %+v", name, points)
		}
	}
}
