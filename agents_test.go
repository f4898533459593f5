package deepresearch_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/worker"
)

// wireRunner is a worker.Runner that does what a JetStream runner does
// with a job, minus the network: the job and the result cross as JSON,
// and the agent runs on another Researcher (the worker's) with
// ServeAgent, reporting its events live as attempt 1. With lose set, each
// task's first attempt reports the first half of its events live and its
// result is thrown away, as when a worker dies mid-task; a second
// attempt runs it again, reporting its events live as attempt 2, and its
// result is returned. With mangle set too, the lost attempt's streamed
// text was another than the second's (a model that answered otherwise).
type wireRunner struct {
	worker  *deepresearch.Researcher
	journal deepresearch.JournalStore
	lose    bool
	mangle  bool
}

func (w wireRunner) RunAgent(ctx context.Context, job worker.Job, progress worker.Progress) (*worker.Result, error) {
	b, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	var got worker.Job
	if err := json.Unmarshal(b, &got); err != nil {
		return nil, err
	}
	attempt, n := 1, 0
	live := func(e events.Event) {
		progress(attempt, n, wire(e))
		n++
	}
	if w.lose {
		lost, err := w.worker.ServeAgent(ctx, got, w.journal, nil)
		if err != nil {
			return nil, err
		}
		for i, e := range lost.Events[:len(lost.Events)/2] {
			if d, ok := e.Data.(events.DeltaData); ok && w.mangle {
				e.Data = events.DeltaData{Text: strings.ToUpper(d.Text)}
			}
			progress(1, i, wire(e))
		}
		attempt = 2
	}
	res, err := w.worker.ServeAgent(ctx, got, w.journal, live)
	if err != nil {
		return nil, err
	}
	if b, err = json.Marshal(res); err != nil {
		return nil, err
	}
	var out worker.Result
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", b, err)
	}
	return &out, nil
}

// wire returns e as it comes out of JSON.
func wire(e events.Event) events.Event {
	b, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	var out events.Event
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// memJournal is a JournalStore in memory.
type memJournal struct {
	mu   sync.Mutex
	runs map[string][][]byte
}

func (m *memJournal) AppendJournal(_ context.Context, run string, entry []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.runs == nil {
		m.runs = map[string][][]byte{}
	}
	m.runs[run] = append(m.runs[run], append([]byte(nil), entry...))
	return nil
}

func (m *memJournal) Journal(_ context.Context, run string) ([][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.runs[run]...), nil
}

// agentTypes is the event types of each agent, in order.
func agentTypes(evs []events.Event) map[int][]events.Type {
	out := map[int][]events.Type{}
	for _, e := range evs {
		if e.Agent >= 0 {
			out[e.Agent] = append(out[e.Agent], e.Type)
		}
	}
	return out
}

// TestAgentRunnerSeam runs the offline question with its agents run
// through the runner seam, on another Researcher, their jobs and results
// crossing as JSON: the report is the in-process one byte for byte, every
// citation resolves, and each agent's events are the in-process ones,
// once, numbered by the run without gaps — also when every task's first
// attempt is lost halfway through, its events reported live (the second
// attempt's retrace them). When the lost attempt streamed another text,
// a stream.reset gives the text that stands, and each agent's text as a
// subscriber rebuilds it is the in-process one.
func TestAgentRunnerSeam(t *testing.T) {
	base := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	baseRec := &recorder{}
	want, err := runWith(context.Background(), base, question, baseRec.sink)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		lose, mangle bool
	}{{"one attempt", false, false}, {"first attempt lost", true, false}, {"lost attempt wrote otherwise", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			remote := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
			r := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Agents: wireRunner{worker: remote, lose: tc.lose, mangle: tc.mangle}})
			rec := &recorder{}
			rep, err := runWith(context.Background(), r, question, rec.sink)
			if err != nil {
				t.Fatal(err)
			}
			if got, w := rep.Markdown(), want.Markdown(); got != w {
				t.Errorf("report through the seam differs:\n%s\nin process:\n%s", got, w)
			}
			checkCitations(t, rep, rec)
			for i, e := range rec.events {
				if e.Seq != uint64(i+1) {
					t.Fatalf("event %d has seq %d", i, e.Seq)
				}
			}
			got, w := agentTypes(rec.events), agentTypes(baseRec.events)
			if len(got) != len(w) {
				t.Fatalf("%d agents with events; want %d", len(got), len(w))
			}
			resets := 0
			for a, types := range w {
				// A reset stands for the deltas it replaces: where one
				// was, the deltas are not counted.
				skip := func(ty events.Type) bool { return tc.mangle && ty == events.AgentDelta }
				var kept, wantKept []events.Type
				for _, ty := range got[a] {
					if ty == events.StreamReset {
						resets++
					}
					if ty != events.StreamReset && !skip(ty) {
						kept = append(kept, ty)
					}
				}
				for _, ty := range types {
					if !skip(ty) {
						wantKept = append(wantKept, ty)
					}
				}
				if !tc.mangle && len(kept) != len(got[a]) {
					t.Errorf("agent %d: a stream.reset though no attempt wrote otherwise: %v", a, got[a])
				}
				if fmt.Sprint(kept) != fmt.Sprint(wantKept) {
					t.Errorf("agent %d events %v; in process %v", a, got[a], types)
				}
				if g, w := streamedText(rec.events, a), streamedText(baseRec.events, a); g != w {
					t.Errorf("agent %d streamed %q; in process %q", a, g, w)
				}
			}
			if tc.mangle && resets == 0 {
				t.Error("no stream.reset replaced the lost attempt's text")
			}
		})
	}
}

// streamedText is agent's report text as a subscriber rebuilds it from
// its deltas and stream resets.
func streamedText(evs []events.Event, agent int) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Agent != agent {
			continue
		}
		switch d := e.Data.(type) {
		case events.DeltaData:
			b.WriteString(d.Text)
		case events.StreamResetData:
			b.Reset()
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// failingRunner fails every job, as a runner whose tasks are dead does.
type failingRunner struct{}

func (failingRunner) RunAgent(context.Context, worker.Job, worker.Progress) (*worker.Result, error) {
	return nil, errors.New("task failed on every delivery")
}

// TestAgentRunnerFails: a runner that fails every agent fails the run as
// agents failing in process do (no research), and says why.
func TestAgentRunnerFails(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Agents: failingRunner{}})
	rec := &recorder{}
	_, err := runWith(context.Background(), r, question, rec.sink)
	if !errors.Is(err, deepresearch.ErrNoResearch) {
		t.Fatalf("err %v; want ErrNoResearch", err)
	}
	failed := rec.of(events.AgentFailed)
	if len(failed) == 0 || len(failed) != len(rec.of(events.AgentStarted)) {
		t.Fatalf("%d agents failed of %d started", len(failed), len(rec.of(events.AgentStarted)))
	}
}

// callLog is a model that remembers every call it completed, by the hash
// of its messages, and cancels its run after the limit-th completed call.
type callLog struct {
	llms.Model
	mu     sync.Mutex
	seen   map[[32]byte]int
	calls  int
	limit  int
	cancel context.CancelFunc
}

func (m *callLog) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
	if err != nil {
		return resp, err
	}
	b, _ := json.Marshal(msgs)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen[sha256.Sum256(b)]++
	m.calls++
	if m.calls == m.limit && m.cancel != nil {
		m.cancel()
	}
	return resp, nil
}

// TestServeAgentReplaysJournal: an attempt at a task stopped after its
// first completed model call leaves that call in the run's journal; the
// next attempt, on another Researcher, answers it from the journal, so
// the model sees no completed call twice, and the agent finishes.
func TestServeAgentReplaysJournal(t *testing.T) {
	model := &callLog{Model: extractive.New(extractive.Options{}), seen: map[[32]byte]int{}, limit: 1}
	st := &memJournal{}
	job := worker.Job{RunID: "run1", Question: question, SearchLimit: 5,
		Task: worker.Task{ID: "t1", Title: "Cables laid", Question: "How were transatlantic telegraph cables laid?", Cycle: 1}}

	ctx, cancel := context.WithCancel(context.Background())
	model.cancel = cancel
	first := newResearcher(t, deepresearch.Config{Model: model, MaxRetries: -1})
	if _, err := first.ServeAgent(ctx, job, st, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("first attempt: %v; want it canceled", err)
	}
	cancel()
	if n, _ := st.Journal(context.Background(), "run1"); len(n) == 0 {
		t.Fatal("the first attempt journaled nothing")
	}
	model.mu.Lock()
	model.cancel, model.calls = nil, 0
	model.mu.Unlock()
	second := newResearcher(t, deepresearch.Config{Model: model, MaxRetries: -1})
	res, err := second.ServeAgent(context.Background(), job, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Output == nil || res.Output.Report == "" {
		t.Fatalf("second attempt: no report (failure %+v)", res.Failure)
	}
	for h, n := range model.seen {
		if n > 1 {
			t.Errorf("the model completed a call %d times (%x)", n, h[:4])
		}
	}
	if len(res.Events) == 0 || res.Events[0].Type != events.AgentStarted {
		t.Errorf("events of the second attempt: %v", res.Events)
	}
}

// TestServeAgentRefusesBadJob: a job without a run, task ID or question
// is refused by name before anything runs.
func TestServeAgentRefusesBadJob(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{})
	ok := worker.Job{RunID: "r", Task: worker.Task{ID: "t1", Question: "q"}}
	for name, mut := range map[string]func(*worker.Job){
		"no run":      func(j *worker.Job) { j.RunID = "" },
		"no task ID":  func(j *worker.Job) { j.Task.ID = "" },
		"no question": func(j *worker.Job) { j.Task.Question = "" },
		"limit":       func(j *worker.Job) { j.SearchLimit = 500 },
	} {
		t.Run(name, func(t *testing.T) {
			j := ok
			mut(&j)
			if _, err := r.ServeAgent(context.Background(), j, nil, nil); !errors.Is(err, worker.ErrJob) {
				t.Fatalf("err %v; want worker.ErrJob", err)
			}
		})
	}
}

// hollowRunner answers every job with a result that has neither output
// nor failure (a worker of another version, say), or an empty report
// that spent tokens.
type hollowRunner struct{ empty bool }

func (h hollowRunner) RunAgent(context.Context, worker.Job, worker.Progress) (*worker.Result, error) {
	if h.empty {
		return &worker.Result{Output: &worker.Output{Usage: events.Usage{Calls: 1, PromptTokens: 100, CompletionTokens: 10}}}, nil
	}
	return &worker.Result{}, nil
}

// TestAgentRunnerHollowResults: such results fail their agents (no
// panic), and an empty report's spending is counted in the run's usage.
func TestAgentRunnerHollowResults(t *testing.T) {
	for _, empty := range []bool{false, true} {
		r := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Agents: hollowRunner{empty: empty}})
		rep, err := runWith(context.Background(), r, question, nil)
		if !errors.Is(err, deepresearch.ErrNoResearch) {
			t.Fatalf("empty %v: err %v; want ErrNoResearch", empty, err)
		}
		if empty && rep.Usage.PromptTokens < 100 {
			t.Errorf("the empty reports' usage is not counted: %+v", rep.Usage)
		}
	}
}

// TestServeAgentRefusesOtherSettings: a worker whose search channel or
// relevance judge is not the coordinator's refuses its jobs, naming the
// setting; the run's agents then fail, saying why, instead of writing a
// report from other sources than the run's.
func TestServeAgentRefusesOtherSettings(t *testing.T) {
	for name, c := range map[string]struct {
		cfg  deepresearch.Config
		want string
	}{
		"channel": {deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Channel: "web"}, "the search channel is corpus for the run and web here"},
		"judge":   {deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Judges: deepresearch.Judges{Relevance: &callLog{}}}, "the relevance judge is lexical for the run"},
	} {
		t.Run(name, func(t *testing.T) {
			remote := newResearcher(t, c.cfg)
			r := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Agents: wireRunner{worker: remote}})
			rec := &recorder{}
			_, err := runWith(context.Background(), r, question, rec.sink)
			if !errors.Is(err, deepresearch.ErrNoResearch) {
				t.Fatalf("err %v; want ErrNoResearch", err)
			}
			failed := rec.of(events.AgentFailed)
			if len(failed) == 0 {
				t.Fatal("no agent failed")
			}
			for _, e := range failed {
				if msg := e.Data.(events.AgentFailedData).Error; !strings.Contains(msg, c.want) {
					t.Errorf("agent failed with %q; want it to say %q", msg, c.want)
				}
			}
		})
	}
}

// journaledRunner is a wireRunner whose workers' journal the run can read
// (a worker.Journal), as natsrun.Agents's journal stream.
type journaledRunner struct{ wireRunner }

func (j journaledRunner) Journal(ctx context.Context, run string) ([][]byte, error) {
	return j.journal.Journal(ctx, run)
}

// TestAgentRunnerJournal: the agents' calls journaled where the workers
// run them are copied into the run's own journal as the run takes each
// result, so the run's journal alone replays the run offline to the same
// report; without a worker.Journal, it lacks them and the replay fails.
func TestAgentRunnerJournal(t *testing.T) {
	for _, readable := range []bool{true, false} {
		t.Run(fmt.Sprintf("workers' journal readable %v", readable), func(t *testing.T) {
			remote := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
			wr := wireRunner{worker: remote, journal: &memJournal{}}
			var runner worker.Runner = wr
			if readable {
				runner = journaledRunner{wr}
			}
			own := &memJournal{}
			r := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, Agents: runner})
			rep, err := researchJournaled(context.Background(), r, deepresearch.Request{Question: question, RunID: "run1"}, own, nil)
			if err != nil {
				t.Fatal(err)
			}
			entries, _ := own.Journal(context.Background(), "run1")
			var agentEntries int
			for _, e := range entries {
				if strings.Contains(string(e), `"scope":"researcher/`) {
					agentEntries++
				}
			}
			replayed, _, rerr := deepresearch.Replay(context.Background(), entries, deepresearch.ReplayOptions{}, nil)
			if !readable {
				if agentEntries != 0 || rerr == nil {
					t.Fatalf("without the workers' journal: %d agent entries, replay error %v; want none and a failed replay", agentEntries, rerr)
				}
				return
			}
			theirs, _ := wr.journal.Journal(context.Background(), "run1")
			if agentEntries == 0 || agentEntries != len(theirs) {
				t.Fatalf("the run's journal holds %d agent entries; the workers journaled %d", agentEntries, len(theirs))
			}
			if rerr != nil {
				t.Fatalf("replay of the run's journal: %v", rerr)
			}
			if replayed.Markdown() != rep.Markdown() {
				t.Errorf("the replayed report differs:\n%s\nthe run's:\n%s", replayed.Markdown(), rep.Markdown())
			}
		})
	}
}
