package deepresearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/search"
)

var formats = []render.Format{render.Markdown, render.HTML, render.JSON, render.YAML, render.XML, render.Mermaid, render.DOCX, render.CSL, render.BibTeX}

// roundTrip stores rep as JSON, reloads it and checks that every format
// renders byte for byte the same.
func roundTrip(t *testing.T, rep *deepresearch.Report) {
	t.Helper()
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	back, err := deepresearch.LoadReport(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range formats {
		want, err := rep.Render(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got, err := back.Render(f)
		if err != nil {
			t.Fatalf("%s after reload: %v", f, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs after a JSON round trip:\n got %.300q\nwant %.300q", f, got, want)
		}
		if len(want) == 0 {
			t.Errorf("%s rendered nothing", f)
		}
	}
}

func TestReportSurvivesStorage(t *testing.T) {
	for _, style := range []cite.Style{cite.Markdown, cite.Plain, cite.Footnote, cite.HTML} {
		t.Run(string(style), func(t *testing.T) {
			r := newResearcher(t, deepresearch.Config{})
			rep, err := research(context.Background(), r, deepresearch.Request{Question: question, Style: style}, nil)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, rep)
		})
	}
	t.Run("findings after a writer failure", func(t *testing.T) {
		r := newResearcher(t, deepresearch.Config{Model: writerDown(), MaxRetries: -1})
		rep, err := runWith(context.Background(), r, question, nil)
		if err == nil || rep.Complete() {
			t.Fatalf("want a failed writer, got %v", err)
		}
		roundTrip(t, rep)
		// The findings come in the format asked for.
		doc, err := rep.Render(render.JSON)
		if err != nil || !json.Valid(doc) || !strings.Contains(string(doc), `"_citations"`) {
			t.Errorf("findings as JSON: %v %.200q", err, doc)
		}
		page, err := rep.Render(render.HTML)
		if err != nil || !strings.Contains(string(page), "<h1>Findings:") {
			t.Errorf("findings as HTML: %v %.300q", err, page)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		for _, in := range []string{`{"version": 99}`, `not json`, `{"version": 1, "style": "gothic"}`} {
			if _, err := deepresearch.LoadReport([]byte(in)); err == nil {
				t.Errorf("LoadReport(%s) accepted", in)
			}
		}
	})
}

// TestRequestOptions: per-run options need no new Researcher.
func TestRequestOptions(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{})
	rec := &recorder{}
	rep, err := research(context.Background(), r, deepresearch.Request{
		Question: question, RunID: "run-42", MaxTasks: 2, Style: "plain",
	}, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID != "run-42" || rec.events[0].RunID != "run-42" {
		t.Errorf("run ID %q / %q, want run-42", rep.RunID, rec.events[0].RunID)
	}
	if n := len(rep.Sections); n != 2 {
		t.Errorf("%d tasks, want 2", n)
	}
	if rep.Style != "plain" || strings.Contains(rep.Text, "](") {
		t.Errorf("style %q, text %.200q: want plain markers", rep.Style, rep.Text)
	}
	if _, err := research(context.Background(), r, deepresearch.Request{Question: "  "}, nil); !errors.Is(err, deepresearch.ErrConfig) || !strings.Contains(err.Error(), "empty") {
		t.Errorf("a blank question: %v", err)
	}
	if _, err := research(context.Background(), r, deepresearch.Request{Question: "q", Style: "gothic"}, nil); !errors.Is(err, deepresearch.ErrConfig) {
		t.Errorf("a bad style: %v", err)
	}
}

// TestCanceledStreamHasNoGap: a canceled run still delivers its own
// account of its end, with no gap in the sequence numbers.
func TestCanceledStreamHasNoGap(t *testing.T) { synctest.Test(t, testCanceledStreamHasNoGap) }

// testCanceledStreamHasNoGap runs in a synctest bubble: the model's latency
// passes on the bubble's clock, not for real.
func testCanceledStreamHasNoGap(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{Model: extractive.New(extractive.Options{Latency: 20 * time.Millisecond})})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []events.Event
	run, err := r.Start(ctx, deepresearch.Request{Question: question}, deepresearch.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for e := range run.Events() {
		got = append(got, e)
		if e.Type == events.AgentStarted {
			cancel()
		}
	}
	_, runErr := run.Wait()
	if !errors.Is(runErr, context.Canceled) {
		t.Fatalf("run error %v, want context.Canceled", runErr)
	}
	for i, e := range got {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d: a gap", i+1, e.Seq)
		}
	}
	if last := got[len(got)-1]; last.Type != events.Error {
		t.Errorf("the last event is %s, want error", last.Type)
	}
	var canceled int
	for _, e := range got {
		if d, ok := e.Data.(events.AgentFailedData); ok && d.Kind == events.FailCanceled {
			canceled++
		}
	}
	if canceled == 0 {
		t.Errorf("no agent.failed … canceled event among %d events", len(got))
	}
}

// stuckModel ignores its context on research turns until released, as a
// provider client without deadlines would.
type stuckModel struct {
	llms.Model
	release chan struct{}
	entered chan struct{}
	once    sync.Once
}

func (m *stuckModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			if tp, ok := p.(llms.TextContent); ok && strings.Contains(tp.Text, "Research task:") {
				m.once.Do(func() { close(m.entered) })
				<-m.release
				return nil, errors.New("released")
			}
		}
	}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

// TestDeadlineWithStuckAgent: after cancellation a run waits StopGrace for
// its agents, then returns, naming those that had not stopped.
func TestDeadlineWithStuckAgent(t *testing.T) { synctest.Test(t, testDeadlineWithStuckAgent) }

// testDeadlineWithStuckAgent runs in a synctest bubble: the grace is timed on
// the bubble's clock, which moves once every goroutine (the stuck agents too)
// is blocked.
func testDeadlineWithStuckAgent(t *testing.T) {
	m := &stuckModel{Model: extractive.New(extractive.Options{}), release: make(chan struct{}), entered: make(chan struct{})}
	r := newResearcher(t, deepresearch.Config{Model: m, MaxRetries: -1, StopGrace: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer close(m.release) // the stuck agents finish on their own, after the test (synctest waits)
	rec := &recorder{}
	done := make(chan error)
	go func() {
		_, err := runWith(ctx, r, question, rec.sink)
		done <- err
	}()
	<-m.entered
	canceled := time.Now()
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("err = %v, want context.Canceled naming the agents still running", err)
	}
	if d := time.Since(canceled); d != time.Second {
		t.Errorf("the run returned %v after the cancellation, want after StopGrace (1s)", d)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	last := rec.events[len(rec.events)-1]
	if last.Type != events.Error {
		t.Errorf("last event %s, want error", last.Type)
	}
	for i, e := range rec.events {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i+1, e.Seq)
		}
	}
}

// TestCloseStopsRuns: Close cancels runs in progress with ErrClosed and
// later runs fail at once.
func TestCloseStopsRuns(t *testing.T) { synctest.Test(t, testCloseStopsRuns) }

// testCloseStopsRuns runs in a synctest bubble: the model's latency passes on
// the bubble's clock, not for real.
func testCloseStopsRuns(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{Model: extractive.New(extractive.Options{Latency: 20 * time.Millisecond})})
	started := make(chan struct{})
	var once sync.Once
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := runWith(context.Background(), r, question, func(e events.Event) {
				if e.Type == events.AgentStarted {
					once.Do(func() { close(started) })
				}
			})
			errs <- err
		}()
	}
	<-started
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := <-errs; !errors.Is(err, deepresearch.ErrClosed) {
			t.Errorf("a run cut short by Close returned %v, want ErrClosed", err)
		}
	}
	if _, err := runWith(context.Background(), r, question, nil); !errors.Is(err, deepresearch.ErrClosed) {
		t.Errorf("a run after Close returned %v, want ErrClosed", err)
	}
}

// downBackend fails every call, as a search service that is down.
type downBackend struct{}

func (downBackend) Search(context.Context, string, int) ([]search.Result, error) {
	return nil, errors.New("search service unavailable (503)")
}
func (downBackend) Fetch(context.Context, string) (search.Document, error) {
	return search.Document{}, errors.New("search service unavailable (503)")
}

// TestEverySearchFailing: a backend whose every call fails is a failed run
// with the cause, not an empty success.
func TestEverySearchFailing(t *testing.T) {
	r, err := deepresearch.New(deepresearch.Config{Search: downBackend{}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec := &recorder{}
	_, err = runWith(context.Background(), r, question, rec.sink)
	if !errors.Is(err, deepresearch.ErrNoResearch) || !errors.Is(err, deepresearch.ErrSearch) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err = %v, want ErrNoResearch with the search error", err)
	}
	var se *deepresearch.StageError
	if !errors.As(err, &se) || se.Stage != events.StageResearch {
		t.Errorf("err %v is not a research-stage StageError", err)
	}
}

// TestIndexFailureStage: a corpus that cannot be indexed (its folder gone
// since New) fails at the index stage, and the message says so once.
func TestIndexFailureStage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := deepresearch.New(deepresearch.Config{Search: deepresearchtest.Corpus(t, dir, filepath.Join(t.TempDir(), "i.db"))})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	_, err = runWith(context.Background(), r, question, rec.sink)
	var se *deepresearch.StageError
	if !errors.As(err, &se) || se.Stage != events.StageIndex || !errors.Is(err, corpus.ErrCorpus) {
		t.Fatalf("err = %v, want an index-stage StageError matching ErrCorpus", err)
	}
	msg := err.Error()
	for _, doubled := range []string{"deepresearch: deepresearch:", "corpus: corpus:"} {
		if strings.Contains(msg, doubled) {
			t.Errorf("message %q repeats %q", msg, doubled)
		}
	}
	if d := rec.of(events.Error); len(d) != 1 || d[0].Data.(events.ErrorData).Stage != events.StageIndex {
		t.Errorf("error events %v, want one at the index stage", d)
	}
}

// TestFilteredEvents: every search's results pass the relevance filter,
// which says what it kept and dropped; only kept results become sources.
func TestFilteredEvents(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{})
	rec := &recorder{}
	if _, err := runWith(context.Background(), r, question, rec.sink); err != nil {
		t.Fatal(err)
	}
	filtered := rec.of(events.SourcesFiltered)
	if len(filtered) == 0 {
		t.Fatal("no sources.filtered events")
	}
	kept := map[string]bool{}
	var dropped int
	for _, e := range filtered {
		d := e.Data.(events.FilteredData)
		for _, v := range d.Kept {
			kept[v.URL] = true
			// Seed 001's per-query relevance: one score per search of the
			// task so far, the last this one.
			if n := len(v.Queries); n == 0 || v.Queries[n-1].Query != d.Query || v.Queries[n-1].QID != strconv.Itoa(n) || len(v.Reason) > 320 {
				t.Errorf("kept %q: q_relevance %+v for the search %q, reason %q", v.Key, v.Queries, d.Query, v.Reason)
			}
		}
		for _, v := range d.Dropped {
			dropped++
			if v.Reason == "" || v.Check == "" {
				t.Errorf("dropped %q without a reason or check: %+v", v.Key, v)
			}
		}
	}
	for _, e := range rec.of(events.SourceFound) {
		if src := e.Data.(events.SourceData).Source; !kept[src.URL] {
			t.Errorf("source %s was registered but never kept by the filter", src.URL)
		}
	}
	t.Logf("%d filter events, %d kept, %d dropped", len(filtered), len(kept), dropped)
}

// TestMaxAgentsAcrossRuns: with MaxAgents, concurrent runs together never
// run more agents at once than the cap.
func TestMaxAgentsAcrossRuns(t *testing.T) { synctest.Test(t, testMaxAgentsAcrossRuns) }

// testMaxAgentsAcrossRuns runs in a synctest bubble: the model's latency
// passes on the bubble's clock, not for real.
func testMaxAgentsAcrossRuns(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	r := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxAgents: 2}, Model: extractive.New(extractive.Options{Latency: 5 * time.Millisecond})})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := runWith(context.Background(), r, question, func(e events.Event) {
				mu.Lock()
				defer mu.Unlock()
				switch e.Type {
				case events.AgentStarted:
					running++
					most = max(most, running)
				case events.AgentFinished, events.AgentFailed:
					running--
				}
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if most > 2 || most == 0 {
		t.Errorf("at most %d agents ran at once across 4 runs, want 1 or 2", most)
	}
}
