package deepresearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
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
// parallelism 8 a run should take about the critical path (the plan
// stage's calls, the slowest agent's, the writer's); with parallelism 1
// the research stage is serial.
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
			r := newResearcher(b, deepresearch.Config{Model: model, Limits: deepresearch.Limits{MaxTasks: 8, Parallelism: par, MaxCycles: 1}})
			ctx := context.Background()
			if _, err := runWith(ctx, r, question, nil); err != nil { // builds the index
				b.Fatal(err)
			}
			var maxAgentCalls, pathCalls int
			var research time.Duration
			for b.Loop() {
				rec := &recorder{}
				rep, err := runWith(ctx, r, question, rec.sink)
				if err != nil {
					b.Fatal(err)
				}
				agentCalls, slowest := 0, 0
				for _, e := range rec.of(events.AgentFinished) {
					n := e.Data.(events.AgentFinishedData).Usage.Calls
					agentCalls += n
					slowest = max(slowest, n)
				}
				if n := len(rec.of(events.AgentFinished)); n != 8 {
					b.Fatalf("%d agents finished, want 8", n)
				}
				// Every call but the agents' is on the path (the plan
				// stage's, the writer's, one after another), and the
				// slowest agent's.
				maxAgentCalls = max(maxAgentCalls, slowest)
				pathCalls = max(pathCalls, rep.Usage.Calls-agentCalls+slowest)
				research += time.Duration(rep.TimingsMS[events.StageResearch]) * time.Millisecond
			}
			perRun := b.Elapsed() / time.Duration(b.N)
			critical := time.Duration(pathCalls) * latency
			b.ReportMetric(float64(perRun)/float64(critical), "x-critical")
			b.ReportMetric(float64(research.Milliseconds())/float64(b.N), "research-ms")
			b.ReportMetric(float64(maxAgentCalls), "calls/agent")
			b.ReportMetric(float64(pathCalls), "path-calls")
		})
	}
}

// BenchmarkRun measures a whole offline run on the test corpus (4 agents,
// extractive model, no latency).
func BenchmarkRun(b *testing.B) {
	r := newResearcher(b, deepresearch.Config{})
	ctx := context.Background()
	if _, err := runWith(ctx, r, question, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := runWith(ctx, r, question, nil); err != nil {
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
	if _, err := runWith(ctx, r, question, nil); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	stop := heappeak.Start()
	for b.Loop() {
		if _, err := runWith(ctx, r, question, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(stop(), "peak-heap-MB")
}

// loopModel plans six tasks, asks for two follow-ups after the first
// cycle and finds the question answered after the second, each after the
// same latency as every other call; the latency-injected offline model
// answers the rest.
type loopModel struct {
	llms.Model
	latency time.Duration
}

func (m loopModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	s := purpose.Of(ctx)
	if s != purpose.Planner && s != purpose.Assessor {
		return m.Model.GenerateContent(ctx, msgs, opts...)
	}
	select {
	case <-time.After(m.latency):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	reply := `{"tasks":[{"title":"Telegraph 1858","question":"What is known about the 1858 telegraph cable?"},
{"title":"Great Eastern","question":"How did the Great Eastern lay cable?"},
{"title":"Repeaters","question":"What do repeaters and amplifiers do?"},
{"title":"TAT-8","question":"What was TAT-8 fibre?"},
{"title":"Faults","question":"How are cable faults repaired?"},
{"title":"Landing","question":"What are cable landing stations?"}]}`
	if s == purpose.Assessor {
		reply = `{"done":true,"reason":"answered","gaps":[],"tasks":[]}`
		for _, msg := range msgs {
			for _, p := range msg.Parts {
				if t, ok := p.(llms.TextContent); ok && strings.Contains(t.Text, "Cycle: 1 of") {
					reply = `{"done":false,"reason":"two gaps","gaps":[{"kind":"uncovered","part":"t5","detail":"ships"}],
"tasks":[{"title":"Repair ships","question":"Which ships repair cables?","part":"t5","gap":"repair ships"},
{"title":"Capacity","question":"How did cable capacity grow?","part":"t4","gap":"capacity"}]}`
				}
			}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: reply, StopReason: "stop"}}}, nil
}

// BenchmarkLoop measures a run of two cycles (six agents, then two
// follow-ups) written section by section, against its critical path: the
// plan, each cycle's slowest agent and its assessment, then the last
// section (written while the last assessment runs, if there is one) and
// the frame; the other sections are written while the last cycle runs.
// Every model call takes the latency. Metrics: x-critical is the run's
// wall time over the critical path.
func BenchmarkLoop(b *testing.B) {
	for _, latency := range []time.Duration{20 * time.Millisecond, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("latency-%s", latency), func(b *testing.B) {
			model := loopModel{Model: extractive.New(extractive.Options{Latency: latency}), latency: latency}
			r := newResearcher(b, deepresearch.Config{Model: model, Limits: deepresearch.Limits{MaxTasks: 6, Parallelism: 6}})
			ctx := context.Background()
			if _, err := runWith(ctx, r, question, nil); err != nil { // builds the index
				b.Fatal(err)
			}
			var ratio float64
			for b.Loop() {
				rec := &recorder{}
				start := time.Now()
				rep, err := runWith(ctx, r, question, rec.sink)
				if err != nil {
					b.Fatal(err)
				}
				wall := time.Since(start)
				if rep.Cycles != 2 || len(rec.of(events.AgentFinished)) != 8 {
					b.Fatalf("%d cycles, %d agents finished; want 2 and 8", rep.Cycles, len(rec.of(events.AgentFinished)))
				}
				slowest := map[int]int{}
				for _, e := range rec.of(events.AgentFinished) {
					slowest[e.Cycle] = max(slowest[e.Cycle], e.Data.(events.AgentFinishedData).Usage.Calls)
				}
				// The plan, each cycle's slowest agent, each assessment
				// made, then the frame; the last section is written beside
				// the last cycle's assessment, or alone when the loop ended
				// without one (a cycle that found nothing new).
				assessed := rec.of(events.Assessed)
				calls := 1 + len(assessed) + 1
				for _, n := range slowest {
					calls += n
				}
				if len(assessed) < rep.Cycles {
					calls++
				}
				ratio += float64(wall) / float64(time.Duration(calls)*latency)
			}
			b.ReportMetric(ratio/float64(b.N), "x-critical")
		})
	}
}
