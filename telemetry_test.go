package deepresearch_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/search"
)

// otlpProvider returns a tracer provider that exports to srv over
// OTLP/HTTP (protobuf), as a collector receives spans, and the function
// that flushes it.
func otlpProvider(t *testing.T, srv *deepresearchtest.OTLPServer) (*sdktrace.TracerProvider, func()) {
	t.Helper()
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	return tp, func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTracesOfARun runs a question with a reviewed plan and a tracer
// provider exporting to a real OTLP/HTTP receiver, and reads the spans
// back: one trace, rooted at the run's span; a span per stage the
// telemetry promises (plan, the person's wait, cycle, agent, model call,
// search, document read, write, verification), each a child of the span
// that contains its work, each carrying the run's ID; model calls with
// the GenAI semantic conventions' operation, model and token counts.
func TestTracesOfARun(t *testing.T) {
	srv := deepresearchtest.NewOTLPServer()
	defer srv.Close()
	tp, flush := otlpProvider(t, srv)
	names := map[string]string{"planner": "extractive:builtin", "researcher": "extractive:builtin", "writer": "extractive:builtin"}
	price := func(_ string, u events.Usage) float64 {
		return float64(u.PromptTokens)*2e-6 + float64(u.CompletionTokens)*8e-6
	}
	r := newResearcher(t, deepresearch.Config{Telemetry: deepresearch.Telemetry{TracerProvider: tp, ModelNames: names}, Price: price, Limits: deepresearch.Limits{MaxCycles: 1, MaxTasks: 2}})
	hooks := &deepresearch.Hooks{Review: func(_ context.Context, p deepresearch.Plan) (deepresearch.Plan, error) { return p, nil }}
	rep, err := research(context.Background(), r, deepresearch.Request{Question: question, Review: deepresearch.ReviewFirstPlan, Hooks: hooks}, nil)
	if err != nil {
		t.Fatal(err)
	}
	flush()

	spans := srv.Spans()
	byID := map[string]deepresearchtest.OTLPSpan{}
	count := map[string]int{}
	traces := map[string]bool{}
	var root deepresearchtest.OTLPSpan
	for _, s := range spans {
		byID[s.SpanID] = s
		traces[s.TraceID] = true
		count[kindOf(s)]++
		if s.ParentID == "" {
			if root.SpanID != "" {
				t.Errorf("two root spans: %s and %s", root.Name, s.Name)
			}
			root = s
		}
		if got := s.Attributes["deepresearch.run_id"]; got != rep.RunID {
			t.Errorf("span %s has run ID %v, want %s", s.Name, got, rep.RunID)
		}
		if s.Failed {
			t.Errorf("span %s failed: %s", s.Name, s.Error)
		}
	}
	if len(traces) != 1 {
		t.Fatalf("%d traces, want one per run", len(traces))
	}
	if root.Name != "run" {
		t.Fatalf("root span %q, want run", root.Name)
	}
	for _, name := range []string{"plan", "person.wait", "cycle", "agent", "chat", "search", "fetch", "write", "verify"} {
		if count[name] == 0 {
			t.Errorf("no %s span; got %v", name, count)
		}
	}
	// Each span's parent is the span of the stage that contains it.
	parents := map[string][]string{
		"plan": {"run"}, "person.wait": {"plan"}, "cycle": {"run"}, "agent": {"cycle"}, "write": {"run"}, "verify": {"run"},
		"search": {"agent"}, "fetch": {"agent"}, "chat": {"plan", "agent", "write", "run"},
	}
	var in, out int64
	var cost float64
	for _, s := range spans {
		if s.ParentID == "" {
			continue
		}
		p, ok := byID[s.ParentID]
		if !ok {
			t.Errorf("span %s has a parent that was not exported", s.Name)
			continue
		}
		if want := parents[kindOf(s)]; !slices.Contains(want, kindOf(p)) {
			t.Errorf("span %s is a child of %s, want one of %q", s.Name, p.Name, want)
		}
		if kindOf(s) == "chat" {
			if s.Attributes["gen_ai.operation.name"] != "chat" || s.Attributes["gen_ai.request.model"] != "builtin" || s.Attributes["gen_ai.provider.name"] != "extractive" {
				t.Errorf("model call span %s: %v", s.Name, s.Attributes)
			}
			i, _ := s.Attributes["gen_ai.usage.input_tokens"].(int64)
			o, _ := s.Attributes["gen_ai.usage.output_tokens"].(int64)
			c, _ := s.Attributes["deepresearch.cost_usd"].(float64)
			in, out, cost = in+i, out+o, cost+c
		}
	}
	if in != int64(rep.Usage.PromptTokens) || out != int64(rep.Usage.CompletionTokens) {
		t.Errorf("model call spans count %d input and %d output tokens; the report %+v", in, out, rep.Usage)
	}
	if want := price("", rep.Usage); math.Abs(cost-want) > 1e-9 {
		t.Errorf("model call spans cost $%g; the run's usage costs $%g", cost, want)
	}
	if n := count["chat"]; n != rep.Usage.Calls {
		t.Errorf("%d model call spans; the report counts %d calls", n, rep.Usage.Calls)
	}
}

// kindOf is a span's name without the model of a model call's
// ("chat builtin" is chat).
func kindOf(s deepresearchtest.OTLPSpan) string {
	if s.Attributes["gen_ai.operation.name"] != nil {
		return "chat"
	}
	return s.Name
}

// TestTracesOfAWebRun: with web search, each page fetched over HTTP has
// its fetch.page span (url.full, the run's ID) under the search or read
// that fetched it, in the run's one trace.
func TestTracesOfAWebRun(t *testing.T) {
	web, err := deepresearchtest.NewWebServer(search.Document{DocID: "cables.html", Title: "Cable repair",
		Text: "Cable ships repair undersea cables by grappling the cable from the seabed and splicing in a new length."})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	srv := deepresearchtest.NewOTLPServer()
	defer srv.Close()
	tp, flush := otlpProvider(t, srv)
	s := config.Defaults()
	s.Search.Providers, s.Search.SearxngURL = []string{"searxng"}, web.URL
	s.Fetch.Allow = []string{strings.TrimPrefix(web.URL, "http://")}
	s.Corpus.Index = filepath.Join(t.TempDir(), "index.db")
	s.Research.MaxCycles = 1
	cfg, err := config.ResearcherConfig(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Telemetry.TracerProvider = tp
	r, err := deepresearch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := runWith(context.Background(), r, "How do cable ships repair undersea cables?", nil)
	if err != nil {
		t.Fatal(err)
	}
	flush()
	spans := srv.Spans()
	byID := map[string]deepresearchtest.OTLPSpan{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	pages := 0
	for _, s := range spans {
		if s.TraceID != spans[0].TraceID || s.Attributes["deepresearch.run_id"] != rep.RunID {
			t.Errorf("span %s: trace %s, run %v", s.Name, s.TraceID, s.Attributes["deepresearch.run_id"])
		}
		if s.Name != "fetch.page" {
			continue
		}
		pages++
		if u, _ := s.Attributes["url.full"].(string); !strings.HasPrefix(u, web.URL+"/") {
			t.Errorf("fetch.page of %q", u)
		}
		if p := byID[s.ParentID]; p.Name != "search" && p.Name != "fetch" {
			t.Errorf("fetch.page under %q", p.Name)
		}
	}
	if pages == 0 {
		t.Errorf("no fetch.page span among %d spans", len(spans))
	}
}
