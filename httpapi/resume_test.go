package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/internal/usage"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// holdAfter is the offline model that answers n calls, then holds every
// later one until its context ends; held is closed when the first is
// held.
type holdAfter struct {
	llms.Model
	n    int
	mu   sync.Mutex
	seen int
	held chan struct{}
}

func (h *holdAfter) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	if purpose.Of(ctx) == purpose.Clarifier {
		return h.Model.GenerateContent(ctx, msgs, opts...) // asks nothing; not counted
	}
	h.mu.Lock()
	h.seen++
	hold := h.seen > h.n
	if h.seen == h.n+1 {
		close(h.held)
	}
	h.mu.Unlock()
	if hold {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	return h.Model.GenerateContent(ctx, msgs, opts...)
}

func storedEvents(t *testing.T, st *sqlitestore.Store, id string) []events.Event {
	t.Helper()
	stored, err := st.Logged(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []events.Event
	for _, e := range stored {
		var ev events.Event
		if err := json.Unmarshal(e.JSON, &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// TestShutdownAndResume: a server that shuts down leaves its runs
// interrupted with nothing of their stopping stored; the next server on
// the store resumes them, and they finish as an uninterrupted run does.
func TestShutdownAndResume(t *testing.T) {
	dir := t.TempDir()
	whole := newEnv(t, envOpts{dir: t.TempDir()})
	wid, err := whole.runs.Start(t.Context(), deepresearch.Request{Question: "How are undersea cables repaired?"})
	if err != nil {
		t.Fatal(err)
	}
	whole.events(wid, 0)
	wantMD := storedMarkdown(t, whole.store, wid)

	model := &holdAfter{Model: deepresearchtest.Model(0), n: 3, held: make(chan struct{})}
	e := newEnv(t, envOpts{model: model, dir: dir})
	id, err := e.runs.Start(t.Context(), deepresearch.Request{Question: "How are undersea cables repaired?"})
	if err != nil {
		t.Fatal(err)
	}
	<-model.held
	e.close() // the server shuts down mid-research
	st, err := sqlitestore.Open(t.Context(), dir+"/runs.db", sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := st.Get(t.Context(), id)
	cut := storedEvents(t, st, id)
	st.Close()
	if run.Status != runstore.Interrupted || len(cut) == 0 {
		t.Fatalf("after the shutdown the run is %s with %d events", run.Status, len(cut))
	}
	for _, ev := range cut {
		if ev.Type == events.AgentFailed || ev.Type == events.Error || ev.Type == events.RunFinished {
			t.Errorf("the shutdown stored %s: %+v", ev.Type, ev.Data)
		}
	}

	// The same model (a kind the journal names), holding nothing now.
	e2 := newEnv(t, envOpts{dir: dir, model: &holdAfter{Model: deepresearchtest.Model(0), n: 1 << 30, held: make(chan struct{})}})
	ids, err := e2.runs.Resume(t.Context())
	if err != nil || len(ids) != 1 || ids[0] != id {
		t.Fatalf("Resume = %v, %v", ids, err)
	}
	after, _ := e2.events(id, uint64(len(cut)))
	run, _ = e2.store.Get(t.Context(), id)
	if run.Status != runstore.Finished || run.Attempts != 2 {
		t.Fatalf("the resumed run is %s after %d attempts: %s", run.Status, run.Attempts, run.Error)
	}
	all := storedEvents(t, e2.store, id)
	for i, ev := range all {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i+1, ev.Seq)
		}
	}
	if len(all) != len(cut)+len(after) || all[len(cut)].Type != events.RunResumed {
		t.Errorf("%d events after %d stored; the first new one is %s", len(after), len(cut), all[len(cut)].Type)
	}
	if md := storedMarkdown(t, e2.store, id); md != wantMD {
		t.Errorf("the resumed report differs:\n%s\n---\n%s", md, wantMD)
	}
}

func storedMarkdown(t *testing.T, st *sqlitestore.Store, id string) string {
	t.Helper()
	b, err := st.Report(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := deepresearch.LoadReport(b)
	if err != nil {
		t.Fatal(err)
	}
	md, err := rep.Render(render.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	return string(md)
}

// TestResumeGivesUp: a run interrupted more often than allowed ends
// failed, saying why, and costs nothing more.
func TestResumeGivesUp(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlitestore.Open(t.Context(), dir+"/runs.db", sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	st.Create(ctx, sqlitestore.Run{ID: "crashy", Question: "q", Options: json.RawMessage(`{"question":"q"}`), Origin: runstore.OriginServer})
	st.Start(ctx, "crashy")
	st.Finish(ctx, "crashy", runstore.Interrupted, usage.Usage{}, "killed")
	for range 2 {
		st.Reopen(ctx, "crashy")
		st.Finish(ctx, "crashy", runstore.Interrupted, usage.Usage{}, "killed")
	}
	st.Close()
	e := newEnv(t, envOpts{dir: dir, maxResumes: 2})
	ids, err := e.runs.Resume(ctx)
	if err != nil || len(ids) != 0 {
		t.Fatalf("Resume = %v, %v", ids, err)
	}
	run, _ := e.store.Get(ctx, "crashy")
	if run.Status != runstore.Failed || !strings.Contains(run.Error, "interrupted 3 times") {
		t.Errorf("the run is %s: %s", run.Status, run.Error)
	}
}

// startSignal is a RunRecorder that tells started of each run it starts.
type startSignal struct {
	deepresearch.RunRecorder
	started chan string
}

func (s startSignal) Start(ctx context.Context, req deepresearch.Request, opts deepresearch.RunOptions) (*deepresearch.Run, error) {
	run, err := s.RunRecorder.Start(ctx, req, opts)
	if err == nil {
		s.started <- run.ID()
	}
	return run, err
}

// TestKeepResuming (issue 29): a run interrupted after the server started
// — its process, killed within its lease, seen gone once the lease passed
// — is taken up at the server's next look (KeepResuming), not at its next
// start, and finishes.
func TestKeepResuming(t *testing.T) {
	dir := t.TempDir()
	started := make(chan string, 4)
	e := newEnv(t, envOpts{dir: dir, wrap: func(r deepresearch.RunRecorder) deepresearch.RunRecorder { return startSignal{r, started} }})
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { e.runs.KeepResuming(ctx, time.Minute) })
	defer func() { stop(); wg.Wait() }()
	e.armedFor(time.Minute)

	// Another process's run, interrupted by the store once its lease
	// passed.
	other, err := sqlitestore.Open(t.Context(), dir+"/runs.db", sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const q = "How are undersea cables repaired?"
	other.Create(ctx, sqlitestore.Run{ID: "0123456789abcdef", Question: q, Options: json.RawMessage(`{"question":"` + q + `"}`), Origin: runstore.OriginServer})
	other.Start(ctx, "0123456789abcdef")
	other.Finish(ctx, "0123456789abcdef", runstore.Interrupted, usage.Usage{}, "the process running it stopped before it ended")
	other.Close()

	e.clock.Advance(time.Minute)
	if id := <-started; id != "0123456789abcdef" {
		t.Fatalf("resumed %s", id)
	}
	e.ended("0123456789abcdef")
	run, _ := e.store.Get(t.Context(), "0123456789abcdef")
	if run.Status != runstore.Finished || run.Attempts != 2 {
		t.Errorf("the run is %s after %d attempts: %s", run.Status, run.Attempts, run.Error)
	}
}
