package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/runstore"
)

// holding is a model that holds every call but the clarifier's until
// release is closed (or the call's context ends); held is closed at the
// first call it holds.
type holding struct {
	llms.Model
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func (h *holding) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	if purpose.Of(ctx) != purpose.Clarifier {
		h.once.Do(func() { close(h.held) })
		select {
		case <-h.release:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	return h.Model.GenerateContent(ctx, msgs, opts...)
}

// newRuns returns a Runs over an in-memory store whose runs r records.
func newRuns(t *testing.T, r deepresearch.RunRecorder, opts deepresearch.RunsOptions) (*deepresearch.Runs, *deepresearchtest.Store) {
	t.Helper()
	st := deepresearchtest.NewStore(nil)
	rs, err := deepresearch.NewRuns(r, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	return rs, st
}

// connectEliciting is connect with a client that takes elicitation,
// answering each form with answer.
func connectEliciting(t *testing.T, opts Options, answer func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, opts, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return answer(req) },
	})
}

// recv receives from ch, failing the test when nothing comes in two
// minutes (a failure bound, not a timing assertion).
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(2 * time.Minute):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

// errFailingWriter is the error of a writer that fails.
var errFailingWriter = errors.New("the writer is down")

// decode decodes a tool result's structured content into out.
func decode(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
}

// onlyRun returns the one run st holds.
func onlyRun(t *testing.T, st deepresearch.Store) runstore.Run {
	t.Helper()
	runs, err := st.List(context.Background(), 0)
	if err != nil || len(runs) != 1 {
		t.Fatalf("the store holds %d runs (%v)", len(runs), err)
	}
	return runs[0]
}

// TestResearchThroughRuns: with Options.Runs the research tool's run is
// kept in the Runs' store, and gives what a run of the Researcher gives:
// the cited report, or, when the writer failed, a tool error carrying the
// agents' findings.
func TestResearchThroughRuns(t *testing.T) {
	runs, st := newRuns(t, newResearcher(t, nil), deepresearch.RunsOptions{Origin: runstore.OriginCLI})
	cs := connect(t, Options{Runs: runs})
	var rep Report
	res := call(t, cs, "research", map[string]any{"question": "How are submarine cables repaired?", "style": "plain"}, &rep)
	if !strings.HasPrefix(rep.Markdown, "# How are submarine cables repaired") || len(rep.References) == 0 || !rep.Complete || contentText(res) != rep.Markdown {
		t.Errorf("report %+v", rep)
	}
	if run := onlyRun(t, st); run.Status != runstore.Finished || run.Origin != runstore.OriginCLI || !strings.Contains(string(run.Options), `"style":"plain"`) {
		t.Errorf("the stored run: %s, origin %s, request %s", run.Status, run.Origin, run.Options)
	} else if rep.RunID != run.ID {
		t.Errorf("the result names run %q, the store keeps %q", rep.RunID, run.ID)
	}

	down, _ := newRuns(t, newResearcher(t, func(m llms.Model) llms.Model {
		return deepresearchtest.FailingWriter(m, errFailingWriter)
	}), deepresearch.RunsOptions{})
	cs = connect(t, Options{Runs: down})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "research", Arguments: map[string]any{"question": "How are submarine cables repaired?"}})
	if err != nil || !res.IsError {
		t.Fatalf("a failed writer: %v, %+v", err, res)
	}
	var findings Report
	decode(t, res, &findings)
	if findings.Complete || !strings.Contains(findings.Error, errFailingWriter.Error()) || !strings.Contains(findings.Markdown, "## References") {
		t.Errorf("a failed writer gave %+v", findings)
	}
}

// TestConcurrencyCap: over MCP as over HTTP (httpapi's TestConcurrencyCap),
// a run beyond the Runs' MaxRuns is refused, saying how many run, and the
// run in progress is not disturbed.
func TestConcurrencyCap(t *testing.T) {
	h := &holding{held: make(chan struct{}), release: make(chan struct{})}
	runs, st := newRuns(t, newResearcher(t, func(m llms.Model) llms.Model { h.Model = m; return h }), deepresearch.RunsOptions{MaxRuns: 1})
	cs := connect(t, Options{Runs: runs})
	first := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "research", Arguments: map[string]any{"question": "How are submarine cables repaired?"}})
		if err != nil {
			t.Error(err)
		}
		first <- res
	}()
	recv(t, h.held, "call held") // the first run researches
	if got := toolError(t, cs, "research", map[string]any{"question": "What causes submarine cable faults?"}); !strings.Contains(got, "1 runs are in progress") {
		t.Errorf("a second run: %q", got)
	}
	close(h.release)
	if res := recv(t, first, "result of the first call"); res == nil || res.IsError {
		t.Fatalf("the first run: %+v", res)
	}
	if run := onlyRun(t, st); run.Status != runstore.Finished {
		t.Errorf("the first run is %s: %s", run.Status, run.Error)
	}
}

// TestPlanTimeout: over MCP as over HTTP (httpapi's TestPlanTimeout), a
// plan not reviewed within the Runs' ReviewTimeout is researched as
// proposed, or the run ends failed, as OnReviewTimeout says; the review
// the client gives after that changes nothing.
func TestPlanTimeout(t *testing.T) {
	for _, action := range []deepresearch.TimeoutAction{deepresearch.TimeoutProceed, deepresearch.TimeoutCancel} {
		t.Run(string(action), func(t *testing.T) {
			c := deepresearchtest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
			r := newResearcherWith(t, deepresearch.Config{Clock: c}, nil)
			runs, st := newRuns(t, r, deepresearch.RunsOptions{Clock: c, ReviewTimeout: time.Hour, OnReviewTimeout: action})
			asked, answer := make(chan string, 1), make(chan struct{})
			cs := connectEliciting(t, Options{Runs: runs}, func(req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked <- req.Params.Message
				<-answer // the person takes longer than the review's hour
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"action": "reject"}}, nil
			})
			done := make(chan *mcp.CallToolResult, 1)
			go func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "research",
					Arguments: map[string]any{"question": "How are submarine cables repaired?", "review": "first_plan"}})
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			if form := recv(t, asked, "review form"); !strings.Contains(form, "The research plan for \"How are submarine cables repaired?\"") {
				t.Errorf("the review form says %q", form)
			}
			armed, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a failure bound, not a timing assertion
			defer cancel()
			if err := c.WaitArmed(armed, time.Hour); err != nil { // the review's deadline: the run waits
				t.Fatal("the review's deadline was not armed")
			}
			if run := onlyRun(t, st); run.Status != runstore.AwaitingPlan {
				t.Fatalf("the run is %s", run.Status)
			}
			c.Advance(time.Hour)
			if err := runs.Wait(t.Context(), onlyRun(t, st).ID); err != nil {
				t.Fatal(err)
			}
			close(answer)
			res := recv(t, done, "result of the call")
			run := onlyRun(t, st)
			switch action {
			case deepresearch.TimeoutProceed:
				if run.Status != runstore.Finished || res == nil || res.IsError {
					t.Errorf("the run is %s (%s), the result %+v", run.Status, run.Error, res)
				}
			case deepresearch.TimeoutCancel:
				if run.Status != runstore.Failed || res == nil || !res.IsError || !strings.Contains(contentText(res), deepresearch.ErrReviewTimeout.Error()) {
					t.Errorf("the run is %s (%s), the result %+v", run.Status, run.Error, res)
				}
			}
		})
	}
}

// TestReviewOverMCP: a client that takes elicitation reviews the plan of
// a request that asks for it: rejected, the run ends failed; accepted, it
// is researched. A client that cannot review is not asked, and its run
// does not wait.
func TestReviewOverMCP(t *testing.T) {
	for _, verdict := range []string{"accept", "reject"} {
		t.Run(verdict, func(t *testing.T) {
			runs, st := newRuns(t, newResearcher(t, nil), deepresearch.RunsOptions{})
			var forms int
			cs := connectEliciting(t, Options{Runs: runs}, func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				forms++
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"action": verdict}}, nil
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "research",
				Arguments: map[string]any{"question": "How are submarine cables repaired?", "review": "first_plan"}})
			if err != nil {
				t.Fatal(err)
			}
			run := onlyRun(t, st)
			want := map[string]runstore.Status{"accept": runstore.Finished, "reject": runstore.Failed}[verdict]
			if forms != 1 || run.Status != want || res.IsError != (verdict == "reject") {
				t.Errorf("%d forms; the run is %s (%s); the result's error: %v", forms, run.Status, run.Error, res.IsError)
			}
			if verdict == "reject" && !strings.Contains(contentText(res), deepresearch.ErrPlanRejected.Error()) {
				t.Errorf("a rejected plan: %q", contentText(res))
			}
		})
	}
	t.Run("no elicitation", func(t *testing.T) {
		runs, st := newRuns(t, newResearcher(t, nil), deepresearch.RunsOptions{})
		cs := connect(t, Options{Runs: runs})
		call(t, cs, "research", map[string]any{"question": "How are submarine cables repaired?", "review": "first_plan"}, nil)
		if run := onlyRun(t, st); run.Status != runstore.Finished || !strings.Contains(string(run.Options), `"review":"never"`) {
			t.Errorf("the run is %s, its request %s", run.Status, run.Options)
		}
	})
}

// TestReviewOldProtocol: a client of a protocol before multi-round-trip
// requests takes one form a call (the SDK asks it on the call's behalf):
// the plan's review when the question needs no clarifying, none when the
// clarifying form took the call's round — its run is then not reviewed,
// and does not wait for a review nobody can give.
func TestReviewOldProtocol(t *testing.T) {
	for _, tc := range []struct {
		name    string
		model   func(llms.Model) llms.Model
		form    string // what the one form asks
		answer  string
		status  runstore.Status
		isError bool
	}{
		{"review", nil, "The research plan for", `{"action":"accept","content":{"action":"reject"}}`, runstore.Failed, true},
		{"clarify first", func(m llms.Model) llms.Model { return &asking{Model: m} }, "questions", `{"action":"accept","content":{"q1":"fibre"}}`, runstore.Finished, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs, st := newRuns(t, newResearcher(t, tc.model), deepresearch.RunsOptions{})
			c := serveRawWith(t, Options{Runs: runs}, 0, `{"elicitation":{}}`)
			c.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"research","arguments":{"question":"How are submarine cables repaired?","review":"first_plan"}}}`)
			ask := c.elicitation()
			if !strings.Contains(ask.Params.Message, tc.form) {
				t.Fatalf("asked %q", ask.Params.Message)
			}
			c.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":` + tc.answer + `}`)
			got := c.reply()
			var res mcp.CallToolResult
			if got.Error != nil || json.Unmarshal(got.Result, &res) != nil || res.IsError != tc.isError {
				t.Errorf("the call's answer: %s %+v", got.Result, got.Error)
			}
			if run := onlyRun(t, st); run.Status != tc.status {
				t.Errorf("the run is %s: %s", run.Status, run.Error)
			}
		})
	}
}

// TestAskTool (issue 33): the ask tool follows up a run the research
// tool made (by its run_id): the answer cites the report's numbers, and
// is itself a stored run whose parent is the report's; an unknown run is
// a tool error.
func TestAskTool(t *testing.T) {
	runs, st := newRuns(t, newResearcher(t, nil), deepresearch.RunsOptions{})
	cs := connect(t, Options{Runs: runs})
	var rep Report
	call(t, cs, "research", map[string]any{"question": "How are submarine cables repaired?"}, &rep)
	if rep.RunID == "" {
		t.Fatalf("research returned no run_id: %+v", rep)
	}
	numbers := map[string]int{}
	for _, r := range rep.References {
		numbers[r.URL] = r.Number
	}
	var answer Report
	res := call(t, cs, "ask", map[string]any{"run_id": rep.RunID, "question": "How is the broken cable lifted from the seabed?"}, &answer)
	if answer.RunID == "" || answer.RunID == rep.RunID || len(answer.References) == 0 || !answer.Complete || contentText(res) != answer.Markdown {
		t.Fatalf("ask returned %+v", answer)
	}
	shared := false
	for _, r := range answer.References {
		if n, ok := numbers[r.URL]; ok {
			shared = true
			if r.Number != n {
				t.Errorf("the answer cites %s as [%d]; the report numbers it [%d]", r.URL, r.Number, n)
			}
		}
	}
	if !shared {
		t.Errorf("the answer cites none of the report's sources: %+v", answer.References)
	}
	if run, err := st.Get(t.Context(), answer.RunID); err != nil || run.Parent != rep.RunID || run.Status != runstore.Finished {
		t.Errorf("the stored follow-up: %+v, %v", run, err)
	}
	if got := toolError(t, cs, "ask", map[string]any{"run_id": "nope", "question": "why?"}); !strings.Contains(got, `no run "nope"`) {
		t.Errorf("an unknown run: %q", got)
	}
}
