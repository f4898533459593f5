package deepresearch_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/golden"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/verify"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const question = "How were transatlantic telegraph cables laid and repaired?"

// failingTask is the title of one task the offline planner makes of
// question (the question narrowed to one side of "laid and repaired").
const failingTask = "Transatlantic telegraph cables laid"

// newResearcher returns a researcher over the test corpus with its own
// index. Its tests wrap the built-in model, which cannot judge, so it
// judges relevance and support lexically unless the test names a judge
// model (embed_test.go tests the model judging).
func newResearcher(t testing.TB, cfg deepresearch.Config) *deepresearch.Researcher {
	t.Helper()
	if cfg.Judges.Relevance == nil && cfg.Judges.Verify == nil {
		cfg.Judges.Lexical = true
	}
	if cfg.Search == nil {
		cfg.Search = deepresearchtest.Corpus(t, filepath.Join("testdata", "corpus"), "")
	}
	r, err := deepresearch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// recorder collects a run's events.
type recorder struct {
	mu     sync.Mutex
	events []events.Event
}

func (r *recorder) sink(e events.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) of(t events.Type) []events.Event {
	var out []events.Event
	for _, e := range r.events {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

// TestRunGolden checks the offline run against the report written before
// research became a loop. A single pass (MaxCycles 1) writes it byte for
// byte; so does the default loop, whose assessment finds every part of
// this question covered after the first cycle (the golden is unchanged
// on purpose: the loop adds research only where it finds a gap).
func TestRunGolden(t *testing.T) {
	for _, tc := range []struct {
		name      string
		maxCycles int
		end       string
	}{
		{"single pass", 1, events.LoopMaxCycles},
		{"loop", 0, events.LoopAnswered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: tc.maxCycles}})
			rec := &recorder{}
			rep, err := runWith(context.Background(), r, question, rec.sink)
			if err != nil {
				t.Fatal(err)
			}
			// The corpus lives wherever the repository is checked out.
			abs, _ := filepath.Abs(filepath.Join("testdata", "corpus"))
			got := strings.ReplaceAll(rep.Markdown(), "file://"+abs, "file://CORPUS")
			golden.Check(t, "golden/report.md", got)
			checkCitations(t, rep, rec)
			if rep.Cycles != 1 || rep.LoopEnd != tc.end {
				t.Errorf("%d cycles, loop end %q; want 1, %q", rep.Cycles, rep.LoopEnd, tc.end)
			}
		})
	}
}

// checkCitations asserts the product's promise about a finished report.
// resolved returns the citations of body's markers, each resolved by
// refs, and fails the test for a marker that resolves to nothing.
func resolved(t *testing.T, body string, refs *citeproc.Mapping) []citeproc.Citation {
	t.Helper()
	p := citeproc.New(&strings.Builder{}, citeproc.Config{Mode: citeproc.Keep, Mapping: refs})
	p.WriteString(body)
	p.Close()
	if u := p.Unknowns(); len(u) > 0 {
		t.Errorf("markers that resolve to nothing: %v", u)
	}
	return p.Cited()
}

func checkCitations(t *testing.T, rep *deepresearch.Report, rec *recorder) {
	t.Helper()
	if len(rep.References) == 0 {
		t.Fatal("the report cites nothing")
	}
	// References are numbered 1..K, with no two for one resource.
	byKey := map[string]int{}
	for i, ref := range rep.References {
		if ref.Number != i+1 {
			t.Errorf("reference %d is numbered %d", i+1, ref.Number)
		}
		k := canon.Key(ref.URL)
		if k == "" {
			k = "id:" + ref.ID
		}
		k += "#" + ref.Location.Part // two pages of one PDF are one reference; two sheets two
		if prev, dup := byKey[k]; dup {
			t.Errorf("references %d and %d are the same resource %s", prev, ref.Number, k)
		}
		byKey[k] = ref.Number
	}
	// Every marker resolves, and first citations come in order 1, 2, 3…
	// A reference cited at several pages is bound at each: every pinpoint
	// ("[2, p. 7]") resolves to a page the reference lists.
	refs := citeproc.NewMapping(nil)
	for _, ref := range rep.References {
		if len(ref.Locations) == 0 {
			refs.Add(ref.Number, ref.Source)
		}
		for _, loc := range ref.Locations {
			src := ref.Source
			src.Location = loc
			if err := refs.Add(ref.Number, src); err != nil {
				t.Error(err)
			}
		}
	}
	var firsts []int
	for _, c := range resolved(t, rep.Body, refs) {
		if !slices.Contains(firsts, c.Number) {
			firsts = append(firsts, c.Number)
		}
	}
	for i, n := range firsts {
		if n != i+1 {
			t.Errorf("citation %d first appears as [%d]: not in order of first appearance", i+1, n)
		}
	}
	if len(firsts) != len(rep.References) {
		t.Errorf("%d references but %d cited", len(rep.References), len(firsts))
	}
	// Every cited source was retrieved during the run: zero fabricated.
	retrieved := map[string]bool{}
	for _, e := range rec.of(events.SourceFound) {
		retrieved[e.Data.(events.SourceData).Source.ID] = true
	}
	for _, ref := range rep.References {
		if !retrieved[ref.ID] {
			t.Errorf("reference [%d] %s was never retrieved", ref.Number, ref.ID)
		}
	}
	// Citation events come before the report text that uses them.
	var text strings.Builder
	seen := map[int]bool{}
	for _, e := range rec.events {
		switch d := e.Data.(type) {
		case events.CitationData:
			seen[d.Number] = true
		case events.ReportDeltaData:
			text.WriteString(d.Text)
			p := citeproc.New(&strings.Builder{}, citeproc.Config{Mode: citeproc.Keep, Mapping: refs})
			p.WriteString(text.String())
			p.Close()
			for _, c := range p.Cited() {
				if !seen[c.Number] {
					t.Fatalf("report text cites [%d] before its citation event", c.Number)
				}
			}
		}
	}
	final := text.String()
	for _, e := range rec.of(events.ReportVerified) {
		if d := e.Data.(events.VerifiedData); d.Revised != "" {
			final = d.Revised // the verification changed the streamed text
		}
	}
	if final != rep.Text {
		t.Errorf("report deltas do not add up to the report text")
	}
	// Sequence numbers are 1, 2, 3… with no gap.
	for i, e := range rec.events {
		if e.Seq != uint64(i+1) || e.RunID != rep.RunID {
			t.Fatalf("event %d has seq %d run %q", i, e.Seq, e.RunID)
		}
	}
}

// faultyModel wraps the extractive model and misbehaves on the research
// turns of one task.
type faultyModel struct {
	llms.Model
	task  string        // the task title it misbehaves on
	fault string        // "error", "panic" or "hang"
	hung  chan struct{} // "hang": receives once the hang has begun (buffered)
}

func (m faultyModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	for _, msg := range msgs {
		if msg.Role != llms.ChatMessageTypeHuman {
			continue
		}
		for _, part := range msg.Parts {
			if tp, ok := part.(llms.TextContent); ok && strings.Contains(tp.Text, "Research task: "+m.task) {
				switch m.fault {
				case "error":
					return nil, errors.New("provider returned 500")
				case "panic":
					panic("agent bug")
				case "hang":
					select {
					case m.hung <- struct{}{}:
					default:
					}
					<-ctx.Done()
					return nil, context.Cause(ctx)
				}
			}
		}
	}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

func TestAgentFailuresDoNotFailTheRun(t *testing.T) {
	for _, tc := range []struct{ fault, kind string }{
		{"error", events.FailError},
		{"panic", events.FailPanic},
		{"hang", events.FailTimeout},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			model := faultyModel{Model: extractive.New(extractive.Options{}), task: failingTask, fault: tc.fault, hung: make(chan struct{}, 1)}
			// A fake clock: the hanging agent times out when the test
			// advances it, after the healthy agents are done, and no
			// test waits on a real timeout.
			clock := deepresearchtest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			r := newResearcher(t, deepresearch.Config{Model: model, Clock: clock, MaxRetries: -1})
			rec := &recorder{}
			finished := make(chan struct{}, 4)
			var rep *deepresearch.Report
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				rep, err = runWith(context.Background(), r, question, func(e events.Event) {
					rec.sink(e)
					if e.Type == events.AgentFinished {
						finished <- struct{}{}
					}
				})
			}()
			if tc.fault == "hang" {
				// The hanging agent armed its time limit before its model
				// call began; the others are done.
				<-model.hung
				for range 2 {
					<-finished
				}
				clock.Advance(config.Defaults().Research.AgentTimeout)
			}
			<-done
			if err != nil {
				t.Fatalf("run failed: %v", err)
			}
			failed := rec.of(events.AgentFailed)
			if len(failed) != 1 {
				t.Fatalf("want 1 agent.failed event, got %d", len(failed))
			}
			if d := failed[0].Data.(events.AgentFailedData); d.Kind != tc.kind || failed[0].Section != failingTask {
				t.Errorf("agent.failed = %+v in section %q, want kind %s", d, failed[0].Section, tc.kind)
			}
			if n := len(rec.of(events.AgentFinished)); n != 2 {
				t.Errorf("want the 2 other agents to finish, got %d", n)
			}
			if !strings.Contains(rep.Markdown(), "“"+failingTask+"” ("+tc.kind+")") {
				t.Errorf("the report does not say which part is missing:\n%s", rep.Markdown())
			}
			var withFailure int
			for _, s := range rep.Sections {
				if s.Failure != nil {
					withFailure++
				}
			}
			if withFailure != 1 {
				t.Errorf("want 1 failed section, got %d", withFailure)
			}
			checkCitations(t, rep, rec)
		})
	}
}

func TestAllAgentsFailing(t *testing.T) { synctest.Test(t, testAllAgentsFailing) }

// testAllAgentsFailing runs in a synctest bubble: each failing call is retried
// (MaxRetries defaults to 2), and the backoffs wait on the bubble's clock,
// not for real.
func testAllAgentsFailing(t *testing.T) {
	model := faultyModel{Model: extractive.New(extractive.Options{}), task: "", fault: "error"}
	r := newResearcher(t, deepresearch.Config{Model: model})
	start := time.Now()
	_, err := runWith(context.Background(), r, question, nil)
	if !errors.Is(err, deepresearch.ErrNoResearch) {
		t.Fatalf("want ErrNoResearch, got %v", err)
	}
	// Two backoffs: [250ms, 500ms] then [500ms, 1s], agents in parallel.
	if d := time.Since(start); d < 750*time.Millisecond || d > 1500*time.Millisecond {
		t.Errorf("the retries waited %v, want two backoffs (0.75s to 1.5s)", d)
	}
}

func TestCancelStopsEverything(t *testing.T) { synctest.Test(t, testCancelStopsEverything) }

// testCancelStopsEverything runs in a synctest bubble: the model's latency
// passes on the bubble's clock, not for real.
func testCancelStopsEverything(t *testing.T) {
	// A slow model, so that the run is mid-research when it is canceled.
	r := newResearcher(t, deepresearch.Config{Model: extractive.New(extractive.Options{Latency: 50 * time.Millisecond}), Limits: deepresearch.Limits{Parallelism: 2}})
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	rec := &recorder{}
	_, err := runWith(ctx, r, question, func(e events.Event) {
		rec.sink(e)
		if e.Type == events.AgentStarted {
			once.Do(cancel)
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	// Every agent that started stopped, and the run said why; goleak (in
	// TestMain) checks that no goroutine outlived it.
	if n := len(rec.of(events.ReportFinished)); n != 0 {
		t.Errorf("a canceled run finished its report")
	}
	if n := len(rec.of(events.Error)); n != 1 {
		t.Errorf("want one error event, got %d", n)
	}
}

// TestRunEvents: Run.Events is lossless whenever it is called — a caller
// that ranges from the start and one that comes after the run has ended
// both read every event, in order, the same — and ranging over it from
// several goroutines at once is safe.
func TestRunEvents(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{})
	run, err := r.Start(context.Background(), deepresearch.Request{Question: question}, deepresearch.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var live [3][]events.Event
	var wg sync.WaitGroup
	for i := range live {
		wg.Go(func() {
			for e := range run.Events() {
				live[i] = append(live[i], e)
			}
		})
	}
	rep, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	var late []events.Event
	for e := range run.Events() {
		late = append(late, e)
	}
	if late[0].Type != events.RunStarted || late[len(late)-1].Type != events.RunFinished || late[0].RunID != run.ID() || rep.RunID != run.ID() {
		t.Errorf("the events start with %s and end with %s", late[0].Type, late[len(late)-1].Type)
	}
	for i, e := range late {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i+1, e.Seq)
		}
	}
	for i := range live {
		if !slices.EqualFunc(live[i], late, func(a, b events.Event) bool { return a.Seq == b.Seq && a.Type == b.Type }) {
			t.Errorf("caller %d read %d events as they happened; the run has %d", i, len(live[i]), len(late))
		}
	}

	// Stopping a range early stops nothing; Cancel stops the run, and
	// Wait returns once it has (goleak checks that nothing is left).
	run, err = r.Start(context.Background(), deepresearch.Request{Question: question}, deepresearch.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for e := range run.Events() {
		if e.Type == events.AgentStarted {
			break
		}
	}
	run.Cancel()
	if _, err := run.Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled run: %v", err)
	}
}

func TestFormats(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{Style: cite.Footnote})
	rep, err := runWith(context.Background(), r, question, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Text, "[^1]") || !strings.Contains(rep.Markdown(), "[^1]: ") {
		t.Errorf("footnote style not used:\n%s", rep.Markdown())
	}
	html, err := rep.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", `href="#ref-1"`, `<li id="ref-1"`, "<h2>References</h2>"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	doc, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Citations) == 0 {
		t.Fatal("empty citation sidecar")
	}
	for _, c := range doc.Citations {
		var i int
		if _, err := fmtSscanf(c.Path, "/blocks/%d", &i); err != nil || i >= len(doc.Blocks) {
			t.Errorf("sidecar path %q does not point at a block", c.Path)
			continue
		}
		for _, sid := range c.SIDs {
			if sid < 1 || sid > len(doc.References) {
				t.Errorf("sidecar cites %d, not a reference", sid)
			}
			if !strings.Contains(doc.Blocks[i], "["+itoa(sid)+"]") {
				t.Errorf("block %d does not cite [%d]", i, sid)
			}
		}
	}
	// The envelope: every reference is a source used, with an excerpt of
	// what was read; the corpus's documents are local, in their folders.
	if len(doc.SourcesUsed) != len(doc.References) || len(doc.SourceTypes) != len(doc.References) {
		t.Errorf("%d sources used, %d source types for %d references", len(doc.SourcesUsed), len(doc.SourceTypes), len(doc.References))
	}
	for i, u := range doc.SourcesUsed {
		if ref := doc.References[i]; u.SID != ref.Number || u.URL != ref.URL || !u.Cited || u.Text == "" || u.Type != "local" || u.Modified == "" {
			t.Errorf("sources_used[%d] = %+v for reference %+v", i, u, ref)
		}
		if u.Relevance == nil || u.Objective <= 0 || len(u.Queries) == 0 || u.Reasoning == "" {
			t.Errorf("sources_used[%d]: relevance %+v", i, u.Relevance)
		}
	}
	if len(doc.CollectionsUsed) == 0 || slices.Contains(doc.CollectionsUsed, "web_search") || doc.CitationFormat != "internal_kb" {
		t.Errorf("collections_used = %q, citation_format %q (offline: the corpus alone)", doc.CollectionsUsed, doc.CitationFormat)
	}
	if st := doc.Stats; st.Rounds != rep.Cycles || st.Rounds == 0 || st.Bytes != len(doc.Text) || st.Citations != "present" || st.Validated != "passed" {
		t.Errorf("stats = %+v (cycles %d)", st, rep.Cycles)
	}
	// The YAML report's sidecar holds like the JSON report's.
	for _, f := range []render.Format{render.JSON, render.YAML} {
		b, err := rep.Render(f)
		if err != nil {
			t.Fatal(err)
		}
		check := verify.CheckSidecar
		if f == render.YAML {
			check = verify.CheckYAMLSidecar
		}
		if probs, err := check(b, "/_citations"); err != nil || len(probs) != 0 {
			t.Errorf("%s sidecar: %v %+v", f, err, probs)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	if _, err := deepresearch.New(deepresearch.Config{Limits: deepresearch.Limits{MaxTasks: -1}}); !errors.Is(err, deepresearch.ErrConfig) {
		t.Fatalf("want ErrConfig, got %v", err)
	}
}

// flakyOnce fails the first call it sees, like a provider's transient 503.
type flakyOnce struct {
	llms.Model
	mu     sync.Mutex
	failed bool
}

func (m *flakyOnce) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	first := !m.failed
	m.failed = true
	m.mu.Unlock()
	if first {
		return nil, errors.New("503 service unavailable")
	}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

func TestFailedProviderCallIsRetried(t *testing.T) {
	// The retry's backoff waits on a fake clock, advanced once it is armed.
	clock := deepresearchtest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	r := newResearcher(t, deepresearch.Config{Model: &flakyOnce{Model: extractive.New(extractive.Options{})}, Clock: clock})
	armed := clock.Armed()
	go func() { <-armed; clock.Advance(time.Second) }()
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, question, rec.sink)
	if err != nil {
		t.Fatalf("a transient failure of the planner call failed the run: %v", err)
	}
	if n := len(rec.of(events.AgentFailed)); n != 0 {
		t.Errorf("%d agents failed", n)
	}
	checkCitations(t, rep, rec)
	// The retry is counted, and the envelope tells it.
	if rep.Retries != 1 {
		t.Errorf("Retries = %d, want 1", rep.Retries)
	}
	if env := envelopeOf(t, rep); env.Retries != 1 || !env.OK || !env.Finished {
		t.Errorf("envelope %+v: want ok, finished, 1 retry", env)
	}
}

// writerDown is the offline model behind a provider that is down once
// the research is done.
func writerDown() llms.Model {
	return deepresearchtest.FailingWriter(extractive.New(extractive.Options{}), errors.New("502 bad gateway"))
}

func TestWriterFailureKeepsFindings(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{Model: writerDown(), MaxRetries: -1})
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, question, rec.sink)
	if err == nil || !strings.Contains(err.Error(), "502") {
		t.Fatalf("want the writer's error, got %v", err)
	}
	if d := rec.of(events.Error); len(d) != 1 || d[0].Data.(events.ErrorData).Stage != events.StageReport {
		t.Fatalf("want one error event at the report stage, got %v", d)
	}
	findings, ferr := rep.Findings()
	if ferr != nil {
		t.Fatal(ferr)
	}
	for _, s := range rep.Sections {
		if !strings.Contains(findings, "## "+s.Task.Title) {
			t.Errorf("findings lack section %q", s.Task.Title)
		}
	}
	if !strings.Contains(findings, "## References") || !strings.Contains(findings, "[1]") {
		t.Errorf("findings have no references:\n%s", findings)
	}
	// The Report renders them, in every format: what every front end
	// gives when the writer failed.
	if rep.Complete() {
		t.Error("a report whose writer failed is complete")
	}
	if md, err := rep.Render(render.Markdown); err != nil || string(md) != findings {
		t.Errorf("Render(md) = %v, not the findings", err)
	}
	for _, f := range formats {
		if _, err := rep.Render(f); err != nil {
			t.Errorf("Render(%s): %v", f, err)
		}
	}
	if refs, err := rep.Cited(); err != nil || len(refs) == 0 || refs[0].Number != 1 {
		t.Errorf("Cited() = %v, %v; want the findings' references", refs, err)
	}
	roundTrip(t, rep)
}

func TestFailedAgentUsageIsCounted(t *testing.T) {
	// The failing agent's research turns reach the model (and cost tokens)
	// before its report turn fails.
	model := faultyModel{Model: extractive.New(extractive.Options{}), task: "No such task", fault: "error"}
	base := newResearcher(t, deepresearch.Config{Model: model, MaxRetries: -1})
	ok, err := runWith(context.Background(), base, question, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newResearcher(t, deepresearch.Config{Model: reportTurnFails{extractive.New(extractive.Options{}), failingTask}, MaxRetries: -1})
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, question, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.of(events.AgentFailed)) != 1 {
		t.Fatalf("want one failed agent")
	}
	var finished events.Usage
	for _, e := range rec.of(events.AgentFinished) {
		finished = finished.Add(e.Data.(events.AgentFinishedData).Usage)
	}
	// Plan, the three healthy agents and the writer account for less than
	// the run's total: the rest is what the failed agent spent.
	if rep.Usage.Calls <= finished.Calls+2 || rep.Usage.Calls >= ok.Usage.Calls+1 {
		t.Errorf("run usage %d calls: healthy agents %d, whole healthy run %d; the failed agent's calls are not counted", rep.Usage.Calls, finished.Calls, ok.Usage.Calls)
	}
}

// reportTurnFails fails the report turn of one task.
type reportTurnFails struct {
	llms.Model
	task string
}

func (m reportTurnFails) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	if purpose.Of(ctx) == purpose.Reporter {
		for _, msg := range msgs {
			for _, part := range msg.Parts {
				if tp, ok := part.(llms.TextContent); ok && strings.Contains(tp.Text, "Research task: "+m.task) {
					return nil, errors.New("500 internal error")
				}
			}
		}
	}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}
