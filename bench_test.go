package deepresearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/clock"
	"github.com/deepresearch/deepresearch/internal/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/heappeak"
	"github.com/deepresearch/deepresearch/internal/purpose"
)

// planOf8 answers the planner with eight tasks (the extractive planner
// makes one per side or phrase of the question) after the same latency as every other call, and
// passes every other call to the latency-injected extractive model.
type planOf8 struct {
	llms.Model
	latency time.Duration
}

func (m planOf8) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	if purpose.Of(ctx) == purpose.Planner {
		if err := clock.Sleep(ctx, clock.Real(), m.latency); err != nil {
			return nil, err
		}
		topics := []string{"telegraph cable 1858", "Great Eastern cable laying", "repeaters and amplifiers", "TAT-8 fibre",
			"cable faults and repair", "landing stations", "capacity growth", "cable construction armour"}
		var plan struct {
			Tasks []map[string]string `json:"tasks"`
		}
		for _, tp := range topics {
			plan.Tasks = append(plan.Tasks, map[string]string{"title": tp, "question": "What is known about " + tp + "?"})
		}
		b, _ := json.Marshal(plan)
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: string(b)}}}, nil
	}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

// BenchmarkOrchestration measures the orchestration overhead against a
// model whose every call takes a fixed time (20 ms, and 50 ms): 8 agents of
// 4 calls each. With
// parallelism 8 a run should take about the critical path (plan + slowest
// agent + final report); with parallelism 1 the research stage is serial.
// Metrics: x-critical is the run's wall time over the critical path;
// research-ms is the research stage alone.
func BenchmarkOrchestration(b *testing.B) {
	for _, bc := range []struct {
		latency time.Duration
		par     int
	}{{20 * time.Millisecond, 8}, {20 * time.Millisecond, 1}, {50 * time.Millisecond, 8}} {
		latency, par := bc.latency, bc.par
		b.Run(fmt.Sprintf("latency-%s/parallelism-%d", latency, par), func(b *testing.B) {
			model := planOf8{Model: extractive.New(extractive.Options{Latency: latency}), latency: latency}
			r := newResearcher(b, deepresearch.Config{Model: model, MaxTasks: 8, Parallelism: par})
			ctx := context.Background()
			if _, err := r.Run(ctx, question); err != nil { // builds the index
				b.Fatal(err)
			}
			var maxAgentCalls int
			var research time.Duration
			for b.Loop() {
				rec := &recorder{}
				rep, err := r.RunWith(ctx, question, rec.sink)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range rec.of(events.AgentFinished) {
					maxAgentCalls = max(maxAgentCalls, e.Data.(events.AgentFinishedData).Usage.Calls)
				}
				if n := len(rec.of(events.AgentFinished)); n != 8 {
					b.Fatalf("%d agents finished, want 8", n)
				}
				research += time.Duration(rep.TimingsMS[events.StageResearch]) * time.Millisecond
			}
			perRun := b.Elapsed() / time.Duration(b.N)
			critical := time.Duration(1+maxAgentCalls+1) * latency
			b.ReportMetric(float64(perRun)/float64(critical), "x-critical")
			b.ReportMetric(float64(research.Milliseconds())/float64(b.N), "research-ms")
			b.ReportMetric(float64(maxAgentCalls), "calls/agent")
		})
	}
}

// BenchmarkRun measures a whole offline run on the test corpus (4 agents,
// extractive model, no latency).
func BenchmarkRun(b *testing.B) {
	r := newResearcher(b, deepresearch.Config{})
	ctx := context.Background()
	if _, err := r.Run(ctx, question); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Run(ctx, question); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunPeakHeap reports the peak live heap during runs on the
// test corpus, sampled every millisecond (sampling slows the runs, so it
// is kept apart from BenchmarkRun's timings).
func BenchmarkRunPeakHeap(b *testing.B) {
	r := newResearcher(b, deepresearch.Config{})
	ctx := context.Background()
	if _, err := r.Run(ctx, question); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	stop := heappeak.Start()
	for b.Loop() {
		if _, err := r.Run(ctx, question); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(stop(), "peak-heap-MB")
}
