package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/search"
)

// TestMain checks that a run leaves no goroutine behind: its agents,
// section writers and relays are the engine's to wait for.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var docs = []search.Document{
	{DocID: "cables/1858.md", URL: "https://example.org/cables/1858", Title: "The 1858 Atlantic cable",
		Text: "The first transatlantic telegraph cable was completed in August 1858.\n\n" +
			"The 1858 cable failed after three weeks, when its insulation broke down under a high voltage."},
	{DocID: "cables/1866.md", URL: "https://example.org/cables/1866", Title: "The 1866 Atlantic cable",
		Text: "The Great Eastern laid the durable 1866 transatlantic telegraph cable.\n\n" +
			"The 1866 cable carried messages for years, with a better insulated copper core."},
}

const question = "Why did the 1858 transatlantic telegraph cable fail, and what did the 1866 cable change?"

// params are engine.Params of a run of question over docs with the
// offline model, its events collected in evs.
func params(t *testing.T, backend search.Backend, evs *[]events.Event) engine.Params {
	t.Helper()
	c := deepresearchtest.NewClock(time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC))
	meter := &engine.Meter{Start: c.Now(), Now: c.Now}
	model := deepresearchtest.Model(0)
	var mu sync.Mutex
	em := events.NewEmitter("r1", c, events.SinkFunc(func(e events.Event) {
		mu.Lock()
		defer mu.Unlock()
		*evs = append(*evs, e)
	}))
	t.Cleanup(em.Close)
	plan := []agent.Task{
		{Index: 0, ID: "t1", Title: "The 1858 cable", Question: "Why did the 1858 transatlantic telegraph cable fail?", Objective: question},
		{Index: 1, ID: "t2", Title: "The 1866 cable", Question: "What did the 1866 transatlantic telegraph cable change?", Objective: question},
	}
	return engine.Params{RunID: "r1", Question: question, MaxTasks: 2, Parallelism: 2, SearchLimit: 5, MaxCycles: 1,
		Style: cite.Markdown, Budget: agent.Budget{MaxToolCalls: 4, MaxTokens: 16000, Timeout: time.Minute}, Plan: plan,
		Model: func(role string) llms.Model { return meter.Model(role, model) }, Backend: backend, Meter: meter,
		Emitter: em, Log: zerolog.Nop(), Clock: c, Agents: engine.Agents{StopGrace: time.Second, Log: zerolog.Nop()},
		Tiers: func(s []cite.MergedSource) []cite.MergedSource { return s }}
}

// TestRunReturnsItsWorkingState: the engine researches a plan and
// returns, with the published report, the state it wrote it from — the
// merged numbering every section and reference resolves in, the
// sections in plan order, the stages' timings, the texts read of the
// cited sources — and leaves the run's own events (run.started,
// run.finished) to the root.
func TestRunReturnsItsWorkingState(t *testing.T) {
	backend, err := deepresearchtest.NewBackend(docs...)
	if err != nil {
		t.Fatal(err)
	}
	var evs []events.Event
	p := params(t, backend, &evs)
	res, stage, err := engine.Run(context.Background(), p)
	if err != nil {
		t.Fatalf("Run failed in %s: %v", stage, err)
	}
	if res.Final == nil || len(res.Final.References) == 0 {
		t.Fatalf("no published report with references: %+v", res.Final)
	}
	for i, s := range res.Sources {
		if s.Number != i+1 {
			t.Fatalf("source %d numbered %d: the merged numbering has a gap", i+1, s.Number)
		}
	}
	if len(res.Sections) != 2 || res.Sections[0].Task.ID != "t1" || res.Sections[1].Task.ID != "t2" {
		t.Fatalf("sections %+v, want t1 then t2", res.Sections)
	}
	for _, sec := range res.Sections {
		if sec.Failure != nil || sec.Text == "" {
			t.Errorf("section %s: failure %v, text %q", sec.Task.ID, sec.Failure, sec.Text)
		}
		if len(finalreport.CitedIn(sec.Text, res.Sources)) == 0 {
			t.Errorf("section %s cites none of the merged sources: %q", sec.Task.ID, sec.Text)
		}
	}
	for _, ref := range res.Final.References {
		n := 0
		for _, s := range res.Sources {
			if s.ID == ref.ID && s.URL == ref.URL {
				n = s.Number
			}
		}
		if n == 0 || !strings.Contains(res.SourceTexts[n], "cable") {
			t.Errorf("reference %d (%s): merged source %d, read text %q", ref.Number, ref.ID, n, res.SourceTexts[n])
		}
	}
	for _, s := range []events.Stage{events.StageResearch, events.StageMerge, events.StageReport} {
		if _, ok := res.Timings[s]; !ok {
			t.Errorf("no %s timing in %v", s, res.Timings)
		}
	}
	if res.Cycles != 1 || res.End != events.LoopMaxCycles || res.Agents != 2 || res.Failed != 0 {
		t.Errorf("cycles %d (%s), agents %d, failed %d; want 1 (%s), 2, 0", res.Cycles, res.End, res.Agents, res.Failed, events.LoopMaxCycles)
	}
	if p.Meter.Usage().Total() == 0 {
		t.Error("the meter counted no call")
	}
	for _, e := range evs {
		if e.Type == events.RunStarted || e.Type == events.RunFinished {
			t.Errorf("the engine emitted %s, the root's to emit", e.Type)
		}
	}
}

// failingBackend fails every search.
type failingBackend struct{}

var errDown = errors.New("the index is down")

func (failingBackend) Search(context.Context, string, int) ([]search.Result, error) {
	return nil, errDown
}
func (failingBackend) Fetch(_ context.Context, id string) (search.Document, error) {
	return search.Document{}, fmt.Errorf("%s: %w", id, errDown)
}

// TestRunWithoutResearch: when every agent fails the research stage
// fails with ErrNoResearch, wrapping the first agent's cause, and the
// Result still holds each task's section with its failure.
func TestRunWithoutResearch(t *testing.T) {
	var evs []events.Event
	res, stage, err := engine.Run(context.Background(), params(t, failingBackend{}, &evs))
	if !errors.Is(err, engine.ErrNoResearch) || !errors.Is(err, errDown) || stage != events.StageResearch {
		t.Fatalf("Run = %v in %q; want ErrNoResearch wrapping %v, in the research stage", err, stage, errDown)
	}
	if res.Final != nil || res.SourceTexts != nil {
		t.Errorf("a failed research returned a report (%v) or source texts (%v)", res.Final, res.SourceTexts)
	}
	if len(res.Sections) != 2 || res.Failed != 2 || res.Sections[0].Failure == nil || res.Sections[1].Failure == nil {
		t.Errorf("sections %+v (failed %d); want both tasks, each with its failure", res.Sections, res.Failed)
	}
	if res.Sources == nil || len(res.Sources) != 0 {
		t.Errorf("sources %#v; want an empty numbering, not nil", res.Sources)
	}
}
