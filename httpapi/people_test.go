package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/runstore"
)

// asking is the offline model behind a clarifier that asks two
// questions; it records the planner's messages.
type asking struct {
	llms.Model
	mu      sync.Mutex
	planned []string
}

func (m *asking) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	switch purpose.Of(ctx) {
	case purpose.Clarifier:
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{StopReason: "stop", Content: `{"questions":[` +
			`{"question":"Which cables: telegraph or fibre?","assumption":"telegraph"},{"question":"Which ocean?","assumption":"the Atlantic"}]}`}}}, nil
	case purpose.Planner:
		m.mu.Lock()
		for _, msg := range msgs {
			if msg.Role == llms.ChatMessageTypeHuman {
				m.planned = append(m.planned, msg.Parts[0].(llms.TextContent).Text)
			}
		}
		m.mu.Unlock()
	}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

// until follows a run's events until one of type t, and returns it.
func (e *env) until(id string, t events.Type) events.Event {
	e.t.Helper()
	res := e.do("GET", "/v1/research/"+id+"/events", "")
	defer res.Body.Close()
	var got events.Event
	readSSE(e.t, res.Body, func(s sse) bool {
		if s.event != string(t) {
			return s.event != "end"
		}
		if err := json.Unmarshal([]byte(s.data), &got); err != nil {
			e.t.Fatal(err)
		}
		return false
	})
	if got.Type != t {
		e.t.Fatalf("run %s ended without %s", id, t)
	}
	return got
}

func (e *env) status(id string) string {
	e.t.Helper()
	var v struct {
		Status string `json:"status"`
	}
	readJSON(e.t, e.do("GET", "/v1/research/"+id, ""), &v)
	return v.Status
}

func (e *env) post(path, body string, want int) {
	e.t.Helper()
	res := e.do("POST", path, body)
	defer res.Body.Close()
	if res.StatusCode != want {
		b, _ := io.ReadAll(res.Body)
		e.t.Fatalf("POST %s: %s %s, want %d", path, res.Status, b, want)
	}
}

// TestClarifyOverHTTP: a run whose model asks two questions is
// needs_input with a clarification.requested event; POST …/input answers
// them, the answers reach the planner, and the run finishes.
func TestClarifyOverHTTP(t *testing.T) {
	m := &asking{Model: deepresearchtest.Model(0)}
	e := newEnv(t, envOpts{model: m, maxBody: 1 << 20})
	id := e.start("How were undersea cables laid?").ID
	ev := e.until(id, events.ClarificationRequested)
	if qs := ev.Data.(events.ClarificationData).Questions; len(qs) != 2 || qs[1].Question != "Which ocean?" {
		t.Fatalf("questions %+v", qs)
	}
	if st := e.status(id); st != string(runstore.NeedsInput) {
		t.Fatalf("status %s, want needs_input", st)
	}
	e.post("/v1/research/"+id+"/plan", `{"action":"accept"}`, http.StatusConflict) // not waiting for that
	// An answer over the limit is refused before the run reads it; the
	// run still waits for its answers.
	e.post("/v1/research/"+id+"/input", `{"answers":["`+strings.Repeat("a", deepresearch.MaxTextBytes+1)+`"]}`, http.StatusBadRequest)
	e.post("/v1/research/"+id+"/input", `{"answers":["telegraph, 1850-1870","the Atlantic"]}`, http.StatusAccepted)
	e.ended(id)
	if st := e.status(id); st != string(runstore.Finished) {
		t.Fatalf("status %s, want finished", st)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.planned) != 1 || !strings.Contains(m.planned[0], "Which cables: telegraph or fibre? → telegraph, 1850-1870") {
		t.Errorf("the planner's messages: %q", m.planned)
	}
	e.post("/v1/research/"+id+"/input", `{"answers":["again"]}`, http.StatusConflict)
}

// reviewSignal wraps a RunRecorder: reviewing is sent on (unbuffered) each time a run's
// plan review hook is called (the run is stored awaiting_plan by then).
type reviewSignal struct {
	deepresearch.RunRecorder
	reviewing chan struct{}
}

func (rs reviewSignal) Start(ctx context.Context, req deepresearch.Request, opts deepresearch.RunOptions) (*deepresearch.Run, error) {
	opts.Waiting = func(s runstore.Status) {
		if s == runstore.AwaitingPlan {
			rs.reviewing <- struct{}{}
		}
	}
	return rs.RunRecorder.Start(ctx, req, opts)
}

// TestPlanReviewSurvivesRestart: review_plan stops the run awaiting_plan;
// the server shuts down and another starts on the store: the run is still
// waiting, GET …/plan shows the plan, and an edited plan (one task
// removed, one added) posted to it is what the run researches; the edits
// are in plan.accepted.
func TestPlanReviewSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	signal := func(ch chan struct{}) func(deepresearch.RunRecorder) deepresearch.RunRecorder {
		return func(r deepresearch.RunRecorder) deepresearch.RunRecorder {
			return reviewSignal{RunRecorder: r, reviewing: ch}
		}
	}
	first := make(chan struct{})
	e := newEnv(t, envOpts{dir: dir, wrap: signal(first)})
	res := e.do("POST", "/v1/research", `{"question":"How were transatlantic telegraph cables laid and repaired?","review_plan":true,"max_tasks":3}`)
	var s started
	readJSON(t, res, &s)
	id := s.ID
	<-first
	if st := e.status(id); st != string(runstore.AwaitingPlan) {
		t.Fatalf("status %s, want awaiting_plan", st)
	}
	var proposed deepresearch.Plan
	readJSON(t, e.do("GET", "/v1/research/"+id+"/plan", ""), &proposed)
	if len(proposed.Tasks) < 2 {
		t.Fatalf("plan %+v", proposed)
	}
	e.close() // the server restarts while the run waits

	again := make(chan struct{})
	e2 := newEnv(t, envOpts{dir: dir, wrap: signal(again)})
	if ids, err := e2.runs.Resume(t.Context()); err != nil || !slices.Equal(ids, []string{id}) {
		t.Fatalf("Resume = %v, %v", ids, err)
	}
	<-again
	if st := e2.status(id); st != string(runstore.AwaitingPlan) {
		t.Fatalf("after the restart the run is %s, want awaiting_plan", st)
	}
	var shown deepresearch.Plan
	readJSON(t, e2.do("GET", "/v1/research/"+id+"/plan", ""), &shown)
	if !slices.Equal(taskTitles(shown.Tasks), taskTitles(proposed.Tasks)) {
		t.Fatalf("after the restart the plan is %q, was %q", taskTitles(shown.Tasks), taskTitles(proposed.Tasks))
	}
	edited := shown
	edited.Tasks = append(slices.Clone(shown.Tasks[:1]), events.PlanTask{Title: "Cable ships", Question: "Which ships laid the transatlantic telegraph cables?"})
	b, _ := json.Marshal(edited)
	e2.post("/v1/research/"+id+"/plan", string(b), http.StatusAccepted)
	e2.ended(id)
	run, _ := e2.store.Get(t.Context(), id)
	if run.Status != runstore.Finished {
		t.Fatalf("the run is %s: %s", run.Status, run.Error)
	}
	var acc *events.PlanAcceptedData
	ran := make([]string, len(edited.Tasks))
	for _, ev := range storedEvents(t, e2.store, id) {
		switch d := ev.Data.(type) {
		case events.PlanAcceptedData:
			acc = &d
		case events.AgentStartedData:
			if d.Task.Cycle <= 1 && d.Task.Index < len(edited.Tasks) {
				ran[d.Task.Index] = d.Task.Title // by plan position: agents start in any order
			}
		}
	}
	if acc == nil || !acc.Edited || !slices.Equal(acc.Added, []string{"Cable ships"}) || len(acc.Removed) != len(shown.Tasks)-1 {
		t.Fatalf("plan.accepted: %+v", acc)
	}
	if want := taskTitles(edited.Tasks); !slices.Equal(ran, want) {
		t.Errorf("researched %q, want %q", ran, want)
	}
	md := storedMarkdown(t, e2.store, id)
	if !strings.Contains(md, "## Cable ships") {
		t.Errorf("the report has no section for the added task:\n%s", md)
	}
}

// TestPlanTimeout: a plan not reviewed in time is researched as proposed,
// or the run ends failed, as Config says.
func TestPlanTimeout(t *testing.T) {
	for _, action := range []deepresearch.TimeoutAction{deepresearch.TimeoutProceed, deepresearch.TimeoutCancel} {
		t.Run(string(action), func(t *testing.T) {
			ch := make(chan struct{})
			e := newEnv(t, envOpts{planTimeout: time.Hour, planAction: action,
				wrap: func(r deepresearch.RunRecorder) deepresearch.RunRecorder {
					return reviewSignal{RunRecorder: r, reviewing: ch}
				}})
			res := e.do("POST", "/v1/research", `{"question":"How were undersea cables repaired?","review_plan":true}`)
			var s started
			readJSON(t, res, &s)
			<-ch
			e.armedFor(time.Hour) // the plan's deadline
			e.clock.Advance(time.Hour)
			e.ended(s.ID)
			want := runstore.Finished
			if action == deepresearch.TimeoutCancel {
				want = runstore.Failed
			}
			if st := e.status(s.ID); st != string(want) {
				t.Errorf("status %s, want %s", st, want)
			}
		})
	}
}

func taskTitles(ts []events.PlanTask) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Title)
	}
	return out
}

// TestChatClarifies: over the OpenAI-compatible endpoint, the assistant's
// reply to an ambiguous question is the clarifying questions; the next
// turn, with the history, answers them, and the answers reach the
// planner.
func TestChatClarifies(t *testing.T) {
	m := &asking{Model: deepresearchtest.Model(0)}
	e := newEnv(t, envOpts{model: m})
	q := "How were undersea cables laid?"
	var c1 struct {
		Choices []struct {
			Message struct{ Role, Content string } `json:"message"`
		} `json:"choices"`
	}
	body, _ := json.Marshal(map[string]any{"model": ModelID, "messages": []map[string]string{{"role": "user", "content": q}}})
	readJSON(t, e.do("POST", "/v1/chat/completions", string(body)), &c1)
	reply := c1.Choices[0].Message.Content
	if !strings.Contains(reply, "1. Which cables: telegraph or fibre?") || !strings.Contains(reply, "2. Which ocean?") {
		t.Fatalf("the first reply does not ask: %q", reply)
	}
	body, _ = json.Marshal(map[string]any{"model": ModelID, "messages": []map[string]string{
		{"role": "user", "content": q}, {"role": "assistant", "content": reply}, {"role": "user", "content": "Telegraph cables, in the Atlantic."}}})
	var c2 struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		DeepResearch struct {
			RunID  string `json:"run_id"`
			Status string `json:"status"`
		} `json:"deepresearch"`
	}
	readJSON(t, e.do("POST", "/v1/chat/completions", string(body)), &c2)
	if c2.DeepResearch.Status != string(runstore.Finished) || !strings.Contains(c2.Choices[0].Message.Content, "[1]") {
		t.Fatalf("the second turn: %+v", c2)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.planned) != 1 || !strings.Contains(m.planned[0], "→ Telegraph cables, in the Atlantic.") || !strings.Contains(m.planned[0], "Question: "+q) {
		t.Errorf("the planner's messages: %q", m.planned)
	}
}

// askSignal wraps a RunRecorder: asking is sent on (unbuffered) each time a
// run's Ask hook is called, reviewing each time its Review hook is.
type askSignal struct {
	deepresearch.RunRecorder
	asking, reviewing chan struct{}
}

func (as askSignal) Start(ctx context.Context, req deepresearch.Request, opts deepresearch.RunOptions) (*deepresearch.Run, error) {
	opts.Waiting = func(s runstore.Status) {
		switch s {
		case runstore.NeedsInput:
			as.asking <- struct{}{}
		case runstore.AwaitingPlan:
			as.reviewing <- struct{}{}
		}
	}
	return as.RunRecorder.Start(ctx, req, opts)
}

// TestAnswersSurviveRestart: a run answered over POST …/input and then
// waiting for its plan's review is interrupted by a server restart; the
// resumed run does not ask its questions again (their answers are in its
// journal), waits for the review only as long as was left of
// serve.plan_timeout (the deadline runs from when the plan was first
// shown), and, when it passes, researches the plan as proposed from the
// answers.
func TestAnswersSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	m := &asking{Model: deepresearchtest.Model(0)}
	sig := func(as askSignal) func(deepresearch.RunRecorder) deepresearch.RunRecorder {
		return func(r deepresearch.RunRecorder) deepresearch.RunRecorder { as.RunRecorder = r; return as }
	}
	first := askSignal{asking: make(chan struct{}), reviewing: make(chan struct{})}
	e := newEnv(t, envOpts{dir: dir, model: m, start: t0, planTimeout: time.Hour, wrap: sig(first)})
	res := e.do("POST", "/v1/research", `{"question":"How were undersea cables laid?","review_plan":true,"max_tasks":2,"max_cycles":1}`)
	var s started
	readJSON(t, res, &s)
	id := s.ID
	<-first.asking
	e.post("/v1/research/"+id+"/input", `{"answers":["telegraph, 1850-1870","the Atlantic"]}`, http.StatusAccepted)
	<-first.reviewing
	e.armedFor(time.Hour)
	e.clock.Advance(40 * time.Minute) // 20 minutes of the review's hour left
	e.close()

	m2 := &asking{Model: deepresearchtest.Model(0)}
	again := askSignal{asking: make(chan struct{}), reviewing: make(chan struct{})}
	e2 := newEnv(t, envOpts{dir: dir, model: m2, start: t0.Add(40 * time.Minute), planTimeout: time.Hour, wrap: sig(again)})
	if ids, err := e2.runs.Resume(t.Context()); err != nil || !slices.Equal(ids, []string{id}) {
		t.Fatalf("Resume = %v, %v", ids, err)
	}
	select {
	case <-again.asking:
		t.Fatal("the resumed run asked its clarifying questions again")
	case <-again.reviewing:
	}
	if st := e2.status(id); st != string(runstore.AwaitingPlan) {
		t.Fatalf("after the restart the run is %s, want awaiting_plan", st)
	}
	e2.armedFor(20 * time.Minute)
	e2.clock.Advance(20 * time.Minute)
	e2.ended(id)
	run, _ := e2.store.Get(t.Context(), id)
	if run.Status != runstore.Finished {
		t.Fatalf("the run is %s: %s", run.Status, run.Error)
	}
	var asked, answered int
	var ans events.ClarificationAnsweredData
	for _, ev := range storedEvents(t, e2.store, id) {
		switch d := ev.Data.(type) {
		case events.ClarificationData:
			asked++
		case events.ClarificationAnsweredData:
			answered++
			ans = d
		}
	}
	if asked != 1 || answered != 1 || !ans.Answered || ans.Questions[1].Answer != "the Atlantic" {
		t.Errorf("%d clarification.requested, %d clarification.answered (%+v)", asked, answered, ans)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.planned) != 1 || !strings.Contains(m.planned[0], "→ telegraph, 1850-1870") {
		t.Errorf("the planner's messages: %q", m.planned)
	}
}

// TestChatAnswers: the one message that answers a chat's clarifying
// questions is mapped to each question: by number, line by line, or, when
// it cannot be split, as one answer to the questions together.
func TestChatAnswers(t *testing.T) {
	asked := clarifyingReply([]events.Clarification{
		{Question: "Which cables: telegraph or fibre?", Assumption: "telegraph"},
		{Question: "Which ocean?", Assumption: "the Atlantic"},
	})
	both := "Which cables: telegraph or fibre? Which ocean?"
	for _, c := range []struct {
		name, reply string
		want        []deepresearch.Answer
	}{
		{"numbered", "1. fibre\n2) the Pacific", []deepresearch.Answer{{Question: "Which cables: telegraph or fibre?", Answer: "fibre"}, {Question: "Which ocean?", Answer: "the Pacific"}}},
		{"numbered, one left out", "2: the Pacific", []deepresearch.Answer{{Question: "Which ocean?", Answer: "the Pacific"}}},
		{"a line each", "fibre\n\nthe Pacific\n", []deepresearch.Answer{{Question: "Which cables: telegraph or fibre?", Answer: "fibre"}, {Question: "Which ocean?", Answer: "the Pacific"}}},
		{"one sentence", "Fibre cables, in the Pacific.", []deepresearch.Answer{{Question: both, Answer: "Fibre cables, in the Pacific."}}},
		{"a number out of range", "1. fibre\n3. what?", []deepresearch.Answer{{Question: both, Answer: "1. fibre\n3. what?"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := chatAnswers(strings.TrimPrefix(asked, clarifyLead), c.reply)
			if !slices.Equal(got, c.want) {
				t.Errorf("chatAnswers(%q) = %+v, want %+v", c.reply, got, c.want)
			}
		})
	}
	// An assistant message edited to ask more than a run asks is one
	// answer, not more answers than a run takes.
	many := clarifyLead + "\n\n1. a\n2. b\n3. c\n4. d"
	if got := chatAnswers(strings.TrimPrefix(many, clarifyLead), "1. w\n2. x\n3. y\n4. z"); len(got) != 1 {
		t.Errorf("four questions: %+v", got)
	}
}

// TestChatNumberedAnswers: over the OpenAI-compatible endpoint, a second
// turn that numbers its answers gives the planner each question with its
// own answer.
func TestChatNumberedAnswers(t *testing.T) {
	m := &asking{Model: deepresearchtest.Model(0)}
	e := newEnv(t, envOpts{model: m})
	q := "How were undersea cables laid?"
	reply := clarifyingReply([]events.Clarification{
		{Question: "Which cables: telegraph or fibre?", Assumption: "telegraph"},
		{Question: "Which ocean?", Assumption: "the Atlantic"},
	})
	body, _ := json.Marshal(map[string]any{"model": ModelID, "messages": []map[string]string{
		{"role": "user", "content": q}, {"role": "assistant", "content": reply}, {"role": "user", "content": "1. fibre\n2. the Pacific"}}})
	var c struct {
		DeepResearch struct {
			Status string `json:"status"`
		} `json:"deepresearch"`
	}
	readJSON(t, e.do("POST", "/v1/chat/completions", string(body)), &c)
	if c.DeepResearch.Status != string(runstore.Finished) {
		t.Fatalf("status %q", c.DeepResearch.Status)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.planned) != 1 || !strings.Contains(m.planned[0], "Which cables: telegraph or fibre? → fibre") || !strings.Contains(m.planned[0], "Which ocean? → the Pacific") {
		t.Errorf("the planner's messages: %q", m.planned)
	}
}

// TestChatNeverWaitsForReview: with the server's settings putting every
// plan to review, a chat completion still finishes: its client has no way
// to post a plan, so its run asks for no review (Request.Review never),
// while a /v1/research run still waits for one.
func TestChatNeverWaitsForReview(t *testing.T) {
	reviewing := make(chan struct{})
	e := newEnv(t, envOpts{people: deepresearch.PeopleDefaults{Review: deepresearch.ReviewEveryCycle},
		wrap: func(r deepresearch.RunRecorder) deepresearch.RunRecorder {
			return reviewSignal{RunRecorder: r, reviewing: reviewing}
		}})
	done := make(chan *http.Response, 1)
	go func() {
		done <- e.do("POST", "/v1/chat/completions", `{"model":"deepresearch","messages":[{"role":"user","content":"How are undersea cables repaired?"}]}`)
	}()
	var res *http.Response
	select {
	case res = <-done:
	case <-time.After(2 * time.Minute): // a failure bound, not a timing assertion
		t.Fatal("the chat completion waited for a plan review")
	}
	var body struct {
		Choices []struct{ Message struct{ Content string } }
	}
	readJSON(t, res, &body)
	if res.StatusCode != 200 || len(body.Choices) != 1 || !strings.Contains(body.Choices[0].Message.Content, "[1]") {
		t.Fatalf("chat completion: %d %+v", res.StatusCode, body)
	}
	run := e.start("How are undersea cables repaired?")
	<-reviewing
	if st := e.status(run.ID); st != string(runstore.AwaitingPlan) {
		t.Errorf("a research run under the same settings is %s, want awaiting_plan", st)
	}
}

// TestConcurrentReviewers (issue 29): of reviewers who post at once, one
// review is taken and every other gets 409 (not a 503 when the run ends);
// "tasks": [] is refused, not taken as accepting the plan proposed.
func TestConcurrentReviewers(t *testing.T) {
	for _, action := range []string{`{"action":"accept"}`, `{"action":"reject"}`} {
		t.Run(action, func(t *testing.T) {
			reviewing := make(chan struct{}, 4)
			e := newEnv(t, envOpts{wrap: func(r deepresearch.RunRecorder) deepresearch.RunRecorder {
				return reviewSignal{RunRecorder: r, reviewing: reviewing}
			}})
			res := e.do("POST", "/v1/research", `{"question":"How were undersea cables laid?","review_plan":true,"max_tasks":2,"max_cycles":1}`)
			var s started
			readJSON(t, res, &s)
			<-reviewing
			empty := e.do("POST", "/v1/research/"+s.ID+"/plan", `{"tasks":[]}`)
			empty.Body.Close()
			if empty.StatusCode != http.StatusBadRequest {
				t.Errorf(`"tasks": []: %d, want 400`, empty.StatusCode)
			}
			const n = 6
			codes := make(chan int, n)
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					res := e.do("POST", "/v1/research/"+s.ID+"/plan", action)
					res.Body.Close()
					codes <- res.StatusCode
				})
			}
			wg.Wait()
			close(codes)
			got := map[int]int{}
			for c := range codes {
				got[c]++
			}
			if got[http.StatusAccepted] != 1 || got[http.StatusConflict] != n-1 {
				t.Errorf("%d reviewers at once: %v, want one 202 and %d 409", n, got, n-1)
			}
			e.ended(s.ID)
		})
	}
}
