package deepresearch_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/worker"
)

// journals is an in-memory JournalStore.
type journals struct {
	mu   sync.Mutex
	runs map[string][][]byte
}

func (j *journals) AppendJournal(_ context.Context, run string, entry []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.runs == nil {
		j.runs = map[string][][]byte{}
	}
	j.runs[run] = append(j.runs[run], slices.Clone(entry))
	return nil
}

func (j *journals) Journal(_ context.Context, run string) ([][]byte, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.runs[run]), nil
}

// counted is the offline model, counting the calls it completes by
// request (as a provider bills them) and by stage.
type counted struct {
	llms.Model
	mu       sync.Mutex
	done     map[string]int // request key → completed calls
	byStage  map[purpose.Purpose]int
	requests int
}

func newCounted() *counted {
	return &counted{Model: deepresearchtest.Model(0), done: map[string]int{}, byStage: map[purpose.Purpose]int{}}
}

func (c *counted) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	key, _ := journal.ModelKey(msgs, o)
	resp, err := c.Model.GenerateContent(ctx, msgs, opts...)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	if err == nil {
		c.done[key]++
		c.byStage[purpose.Of(ctx)]++
	}
	return resp, err
}

func (c *counted) completed() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.done)
}

func durableResearcher(t *testing.T, model llms.Model, index string) *deepresearch.Researcher {
	t.Helper()
	return newResearcher(t, deepresearch.Config{Model: model, Search: deepresearchtest.Corpus(t, filepath.Join("testdata", "corpus"), index), MaxRetries: -1})
}

var tenQuestions = []string{
	"How were transatlantic telegraph cables laid and repaired?",
	"How are undersea cables repaired at sea?",
	"What limits the capacity of a submarine cable?",
	"Which ships laid the first transatlantic cable?",
	"How are cable faults located?",
	"What is a cable repeater?",
	"How is a submarine cable protected near the shore?",
	"What does the glossary say about splicing?",
	"How do operators plan cable maintenance?",
	"What engineering problems did early cables have?",
}

// TestReplayTenRuns records ten runs and replays each from its journal
// alone: the same report, byte for byte, in every format, with every
// journaled call asked for and nothing called.
func TestReplayTenRuns(t *testing.T) {
	index := filepath.Join(t.TempDir(), "index.db")
	model := newCounted()
	r := durableResearcher(t, model, index)
	js := &journals{}
	ctx := context.Background()
	for i, q := range tenQuestions {
		id := fmt.Sprintf("run%02d", i)
		rep, err := researchJournaled(ctx, r, deepresearch.Request{Question: q, RunID: id}, js, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		calls := model.requests
		entries, _ := js.Journal(ctx, id)
		var evs recorder
		again, stats, err := deepresearch.Replay(ctx, entries, deepresearch.ReplayOptions{}, evs.sink)
		if err != nil {
			t.Fatalf("replay of %s: %v", id, err)
		}
		if model.requests != calls {
			t.Errorf("replay of %s called the model %d times", id, model.requests-calls)
		}
		if stats.Missed != 0 || stats.Unused != 0 || stats.Live != 0 || stats.Replayed == 0 {
			t.Errorf("replay of %s: %+v", id, stats)
		}
		for _, f := range []render.Format{render.Markdown, render.JSON, render.HTML} {
			a, _ := rep.Render(f)
			b, _ := again.Render(f)
			if string(a) != string(b) {
				t.Errorf("replay of %s renders %s differently:\n%s\n---\n%s", id, f, b, a)
			}
		}
		if again.RunID != id || len(evs.of(events.RunFinished)) != 1 {
			t.Errorf("replay of %s: run %q, %d run.finished events", id, again.RunID, len(evs.of(events.RunFinished)))
		}
	}
}

// kill is where an in-process crash is simulated: after the event that
// matches, nothing more is stored and the run is stopped.
type kill struct {
	name  string
	typ   events.Type
	nth   int // the nth event of typ
	stage string
}

// TestResumeAfterCrash cuts a run off at a point of each stage — as a
// killed process would be: nothing stored after that point — and resumes
// it from its journal and stored events. The resumed run's report is the
// uninterrupted run's, the log holds every event once and reads as the
// uninterrupted run's, and the model completed no call twice.
func TestResumeAfterCrash(t *testing.T) {
	index := filepath.Join(t.TempDir(), "index.db")
	ctx := context.Background()
	base := newCounted()
	r := durableResearcher(t, base, index)
	var full recorder
	want, err := researchJournaled(ctx, r, deepresearch.Request{Question: question, RunID: "whole"}, &journals{}, full.sink)
	if err != nil {
		t.Fatal(err)
	}
	wantMD := want.Markdown()
	wantView := viewOf(full.events)

	for _, k := range []kill{
		{"research: second search", events.SearchIssued, 2, "research"},
		{"research: an agent's report streaming", events.AgentDelta, 3, "research"},
		{"report streaming", events.ReportDelta, 4, "report"},
		{"verification", events.ReportFinished, 1, "verify"},
	} {
		t.Run(k.name, func(t *testing.T) {
			js := &journals{}
			model := newCounted()
			req := deepresearch.Request{Question: question, RunID: "whole"}
			var stored []events.Event
			var mu sync.Mutex
			seen, killed := 0, false
			rctx, cancel := context.WithCancel(ctx)
			r1 := durableResearcher(t, model, index)
			_, err := researchJournaled(rctx, r1, req, js, func(e events.Event) {
				mu.Lock()
				defer mu.Unlock()
				if killed {
					return
				}
				stored = append(stored, e)
				if e.Type == k.typ {
					if seen++; seen == k.nth {
						killed = true
						cancel()
					}
				}
			})
			cancel()
			if !killed || err == nil {
				t.Fatalf("the run was not cut off (err %v)", err)
			}
			r1.Close()
			before := model.completed()
			t.Logf("cut after %d events, %d calls completed, journal %d entries", len(stored), total(before), len(js.runs["whole"]))

			r2 := durableResearcher(t, model, index)
			var resumed recorder
			got, err := deepresearch.ResumeFromEvents(ctx, r2, req, js, stored, resumed.sink)
			if err != nil {
				t.Fatal(err)
			}
			if got.Markdown() != wantMD {
				t.Errorf("the resumed report differs:\n%s\n---want---\n%s", got.Markdown(), wantMD)
			}
			log := append(slices.Clone(stored), resumed.events...)
			for i, e := range log {
				if e.Seq != uint64(i+1) {
					t.Fatalf("event %d has seq %d", i+1, e.Seq)
				}
			}
			if v := viewOf(log); !reflect.DeepEqual(v, wantView) {
				t.Errorf("the log reads\n%+v\nwant\n%+v", v, wantView)
			}
			if first := resumed.events[0]; first.Type != events.RunResumed {
				t.Errorf("the new attempt opens with %s", first.Type)
			}
			if after := model.completed(); !reflect.DeepEqual(after, base.completed()) {
				twice := 0
				for key, n := range after {
					twice += max(0, n-base.completed()[key])
				}
				t.Errorf("%d completed calls made twice (%d before the crash, %d in all; an uninterrupted run makes %d)",
					twice, total(before), total(after), total(base.completed()))
			}
		})
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// view is a log as a consumer reads it: per agent, the events other than
// text, and the streamed text.
type view struct {
	Others map[int][]events.Type
	Text   map[int]string
}

func viewOf(log []events.Event) view {
	v := view{Others: map[int][]events.Type{}, Text: map[int]string{}}
	for _, e := range log {
		switch d := e.Data.(type) {
		case events.DeltaData:
			v.Text[e.Agent] += d.Text
		case events.ReportDeltaData:
			v.Text[e.Agent] += d.Text
		case events.StreamResetData:
			v.Text[e.Agent] = d.Text
		case events.RunResumedData:
		default:
			v.Others[e.Agent] = append(v.Others[e.Agent], e.Type)
		}
	}
	return v
}

// TestResumeRefusesOtherSettings: a journal recorded under some settings
// does not answer a run made under others.
func TestResumeRefusesOtherSettings(t *testing.T) {
	index := filepath.Join(t.TempDir(), "index.db")
	ctx := context.Background()
	js := &journals{}
	r := durableResearcher(t, newCounted(), index)
	req := deepresearch.Request{Question: question, RunID: "r1"}
	if _, err := researchJournaled(ctx, r, req, js, nil); err != nil {
		t.Fatal(err)
	}
	other := newResearcher(t, deepresearch.Config{Model: newCounted(), Search: deepresearchtest.Corpus(t, filepath.Join("testdata", "corpus"), index), Limits: deepresearch.Limits{MaxTasks: 2}})
	_, err := researchJournaled(ctx, other, req, js, nil)
	if !errors.Is(err, deepresearch.ErrJournalMismatch) || !strings.Contains(err.Error(), "max_tasks") {
		t.Errorf("err = %v, want ErrJournalMismatch naming max_tasks", err)
	}
}

// TestReplayLiveWriter: with the writer live, only the writer's calls
// reach a model; the rest of the run replays.
func TestReplayLiveWriter(t *testing.T) {
	index := filepath.Join(t.TempDir(), "index.db")
	ctx := context.Background()
	js := &journals{}
	r := durableResearcher(t, newCounted(), index)
	req := deepresearch.Request{Question: question, RunID: "r1"}
	want, err := researchJournaled(ctx, r, req, js, nil)
	if err != nil {
		t.Fatal(err)
	}
	live := newCounted()
	with := durableResearcher(t, live, index)
	entries, _ := js.Journal(ctx, "r1")
	got, stats, err := deepresearch.Replay(ctx, entries, deepresearch.ReplayOptions{Live: []events.Stage{events.StageReport}, With: with}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if live.requests == 0 || live.byStage[purpose.Writer] != live.requests || stats.Live != live.requests {
		t.Errorf("live calls by stage %v (stats %+v): want the writer's only", live.byStage, stats)
	}
	// The offline model writes alike: the report is the same.
	if got.Markdown() != want.Markdown() {
		t.Errorf("the report with a live writer differs")
	}
	// A stage whose calls are no journal stage of their own is refused by
	// name (an assessment's are the plan stage's).
	for _, s := range []events.Stage{"typist", events.StageIndex, events.StageAssess} {
		_, _, err = deepresearch.Replay(ctx, entries, deepresearch.ReplayOptions{Live: []events.Stage{s}, With: with}, nil)
		if !errors.Is(err, deepresearch.ErrConfig) || !strings.Contains(err.Error(), string(s)) {
			t.Errorf("live stage %s: %v", s, err)
		}
	}
}

// TestReplayRefusesUnknownJournals: a journal from a newer program, or one
// without a header, is refused by name.
func TestReplayRefusesUnknownJournals(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		entries [][]byte
		want    string
	}{
		{"newer", [][]byte{[]byte(`{"v":9,"kind":"header","header":{"program":"deepresearch v9"}}`)}, "format version 9 was written by a newer program"},
		{"no header", nil, "no header"},
	} {
		_, _, err := deepresearch.Replay(ctx, tc.entries, deepresearch.ReplayOptions{}, nil)
		if !errors.Is(err, deepresearch.ErrReplay) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestResumeRefusesOtherModel (issue 29): a run made with one provider's
// model, through the wrappers the provider puts around it, is journaled
// under the provider's and the model's names; resuming it with another
// model, or with the offline one, is refused, saying which model the run
// started with and which is configured now, in those words.
func TestResumeRefusesOtherModel(t *testing.T) {
	srv := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}), deepresearchtest.OpenAIOptions{})
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", "")
	index := filepath.Join(t.TempDir(), "index.db")
	researcher := func(provider, name string) *deepresearch.Researcher {
		s := config.Defaults()
		s.Corpus.Dir, s.Corpus.Index = filepath.Join("testdata", "corpus"), index
		s.Model.Provider, s.Model.Name, s.Model.BaseURL = provider, name, srv.URL+"/v1"
		s.Research.MaxCycles = 1
		r, err := config.NewResearcher(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	ctx := context.Background()
	js := &journals{}
	req := deepresearch.Request{Question: question, RunID: "r1"}
	if _, err := researchJournaled(ctx, researcher("openai", "gpt-a"), req, js, nil); err != nil {
		t.Fatal(err)
	}
	header := string(js.runs["r1"][0])
	if !strings.Contains(header, `"openai:gpt-a"`) || strings.Contains(header, "ToolFallback") {
		t.Errorf("the journal's header does not name the model:\n%s", header)
	}
	if _, err := researchJournaled(ctx, researcher("openai", "gpt-a"), req, js, nil); err != nil {
		t.Errorf("resuming with the same model: %v", err)
	}
	for _, tc := range []struct{ provider, name, want string }{
		{"openai", "gpt-b", "the planner model was openai:gpt-a when the run started, and is openai:gpt-b now"},
		{"extractive", "", "the planner model was openai:gpt-a when the run started, and is extractive now"},
	} {
		_, err := researchJournaled(ctx, researcher(tc.provider, tc.name), req, js, nil)
		if !errors.Is(err, deepresearch.ErrJournalMismatch) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "*") {
			t.Errorf("resuming with %s:%s: err = %v, want %q", tc.provider, tc.name, err, tc.want)
		}
	}
	// A worker with another model refuses the run's agents, naming both.
	job := worker.Job{RunID: "r1", Question: question, SearchLimit: 5,
		Task:     worker.Task{ID: "t1", Title: "Cables", Question: question, Cycle: 1},
		Settings: worker.Settings{Model: "openai:gpt-a", Judge: "openai:gpt-a", Channel: "corpus"}}
	_, err := researcher("openai", "gpt-b").ServeAgent(ctx, job, nil, nil)
	if !errors.Is(err, worker.ErrSettings) || !strings.Contains(err.Error(), "the researcher model is openai:gpt-a for the run and openai:gpt-b here") {
		t.Errorf("a worker with another model: %v", err)
	}
	// A journal written before models were named names every provider's
	// model by its wrapper's Go type: any provider's model resumes it,
	// the offline one does not.
	js.runs["r1"][0] = []byte(strings.ReplaceAll(header, `"openai:gpt-a"`, `"*provider.ToolFallback"`))
	if _, err := researchJournaled(ctx, researcher("openai", "gpt-b"), req, js, nil); err != nil {
		t.Errorf("resuming a legacy journal with a provider's model: %v", err)
	}
	if _, err := researchJournaled(ctx, researcher("extractive", ""), req, js, nil); !errors.Is(err, deepresearch.ErrJournalMismatch) {
		t.Errorf("resuming a legacy journal offline: %v", err)
	}
}
