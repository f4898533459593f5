package deepresearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/search"
)

// The documents of the scripted runs: the first names a person the
// question asks about; only the second says what else he invented; the
// third is on something else.
var loopDocs = []search.Document{
	{DocID: "atlantic.md", URL: "https://example.org/atlantic-1858", Title: "The 1858 Atlantic Cable",
		Text: "The 1858 Atlantic cable carried the first telegraph messages between Ireland and Newfoundland.\n\n" +
			"Its signalling theory was worked out by William Thomson, who showed why long submarine lines slow the signals down.\n\n" +
			"The cable failed after three weeks when its insulation broke down."},
	{DocID: "thomson.md", URL: "https://example.org/thomson", Title: "William Thomson, Inventor",
		Text: "William Thomson invented the mirror galvanometer, which detected the faint currents of long submarine telegraph lines.\n\n" +
			"Thomson also invented the siphon recorder, which wrote incoming telegraph messages on paper tape."},
	{DocID: "harbours.md", URL: "https://example.org/harbours", Title: "Harbours",
		Text: "Harbours shelter ships from storms behind breakwaters of stone and concrete."},
}

const loopQuestion = "Who worked out the signalling theory of the 1858 Atlantic cable, and what else did that person invent?"

// script is a model that answers the way the test says, over the real
// OpenAI wire format (it sits behind deepresearchtest.OpenAIServer): the
// plan, each agent's searches and the assessments are scripted; the
// agents' reports and the final report come from the offline model,
// which quotes the sources it was shown.
type script struct {
	plan string // the planner's reply
	// search returns an agent's query for its task question.
	search func(task string) string
	// assess returns the assessment's reply; in is the assessor's
	// message, n counts the assessments so far (from 1).
	assess func(n int, in string) string

	// onCall, if set, sees every call first; it may hold it, or fail it.
	onCall func(ctx context.Context, system, human string) error

	// clarify, if set, is the clarifier's reply; write, if set, writes
	// the final report from the writer's message.
	clarify string
	write   func(human string) string

	offline llms.Model

	mu       sync.Mutex
	assessed []string // the assessor's messages, in order
	planned  []string // the planner's messages, in order
}

func (s *script) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, f := range opts {
		f(&o)
	}
	system, human := "", ""
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				switch m.Role {
				case llms.ChatMessageTypeSystem:
					system += t.Text
				case llms.ChatMessageTypeHuman:
					human += t.Text + "\n"
				}
			}
		}
	}
	if s.onCall != nil {
		if err := s.onCall(ctx, system, human); err != nil {
			return nil, err
		}
	}
	reply := func(text string) (*llms.ContentResponse, error) {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text, StopReason: "stop",
			GenerationInfo: map[string]any{"PromptTokens": 100, "CompletionTokens": 20, "TotalTokens": 120}}}}, nil
	}
	switch {
	case strings.HasPrefix(system, "You plan"):
		s.mu.Lock()
		s.planned = append(s.planned, human)
		s.mu.Unlock()
		return reply(s.plan)
	case strings.HasPrefix(system, "You decide whether") && s.clarify != "":
		return reply(s.clarify)
	case strings.HasPrefix(system, "You are the writer") && s.write != nil:
		return reply(s.write(human))
	case strings.HasPrefix(system, "You lead a deep-research job") && s.assess == nil:
		return nil, errors.New("script: no assessment is scripted") // the run goes on as after a failed assessment
	case strings.HasPrefix(system, "You lead a deep-research job"):
		s.mu.Lock()
		s.assessed = append(s.assessed, human)
		n := len(s.assessed)
		s.mu.Unlock()
		return reply(s.assess(n, human))
	case len(o.Tools) > 0:
		for _, m := range msgs {
			if m.Role == llms.ChatMessageTypeTool {
				return reply("Research complete.")
			}
		}
		task := ""
		for _, line := range strings.Split(human, "\n") {
			if q, ok := strings.CutPrefix(line, "Question: "); ok && task == "" {
				task = q
			}
		}
		args, _ := json.Marshal(map[string]string{"query": s.search(task)})
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{StopReason: "tool_calls",
			ToolCalls:      []llms.ToolCall{{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "search", Arguments: string(args)}}},
			GenerationInfo: map[string]any{"PromptTokens": 100, "CompletionTokens": 10, "TotalTokens": 110}}}}, nil
	}
	return s.offline.GenerateContent(ctx, msgs, opts...)
}

func (s *script) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, opts...)
}

// thomsonSearch searches the person by name when the task names him, and
// the cable otherwise.
func thomsonSearch(task string) string {
	if strings.Contains(task, "Thomson") {
		return "William Thomson invented"
	}
	return "1858 Atlantic cable signalling theory"
}

// followUp asks for the person's other inventions after the first cycle
// and finds the question answered after the second.
func followUp(n int, _ string) string {
	if n == 1 {
		return `{"done": false, "reason": "what else the person invented is not covered",
 "covered": ["t1"],
 "gaps": [{"kind": "reference", "part": "t1", "detail": "William Thomson, named in [1], is who the question asks about"}],
 "tasks": [{"title": "William Thomson", "question": "What else did William Thomson invent?", "part": "t1", "gap": "reference: William Thomson"}]}`
	}
	return `{"done": true, "reason": "both parts are answered", "covered": ["t1"], "gaps": [], "tasks": []}`
}

const onePart = `{"tasks":[{"title":"Signalling theory","question":"Who worked out the signalling theory of the 1858 Atlantic cable, and what else did that person invent?"}]}`

// scriptedResearcher serves s over the OpenAI wire format and returns a
// Researcher whose every model call goes through a real OpenAI client.
func scriptedResearcher(t *testing.T, s *script, cfg deepresearch.Config) *deepresearch.Researcher {
	t.Helper()
	s.offline = extractive.New(extractive.Options{})
	srv := deepresearchtest.NewOpenAIServer(s, deepresearchtest.OpenAIOptions{})
	t.Cleanup(srv.Close)
	m, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithToken("test-key"), openai.WithModel("scripted"))
	if err != nil {
		t.Fatal(err)
	}
	backend, err := deepresearchtest.NewBackend(loopDocs...)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model, cfg.Search, cfg.Channel = m, backend, "web"
	r, err := deepresearch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestLoopClosesAGap: cycle 1 finds the person but not what else he did;
// the assessment asks for him; cycle 2 finds it. Numbers given in cycle 1
// do not change, and the report passes the citation checks.
func TestLoopClosesAGap(t *testing.T) {
	s := &script{plan: onePart, search: thomsonSearch, assess: followUp}
	r := scriptedResearcher(t, s, deepresearch.Config{})
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, loopQuestion, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	checkCitations(t, rep, rec)

	if rep.Cycles != 2 || rep.LoopEnd != events.LoopAnswered {
		t.Errorf("cycles %d, loop end %q; want 2, %q", rep.Cycles, rep.LoopEnd, events.LoopAnswered)
	}
	cited := map[string]bool{}
	for _, ref := range rep.References {
		cited[ref.ID] = true
	}
	if !cited["atlantic.md"] || !cited["thomson.md"] {
		t.Errorf("the report cites %v; want the first hop and the second", rep.References)
	}

	// Cycle 1's numbers hold after cycle 2: the first sources.merged is a
	// prefix of the last, and of the report's Sources.
	merged := rec.of(events.SourcesMerged)
	if len(merged) != 2 {
		t.Fatalf("%d sources.merged events, want one per cycle", len(merged))
	}
	first := merged[0].Data.(events.MergedData).Sources
	last := merged[1].Data.(events.MergedData).Sources
	if len(first) == 0 || len(last) <= len(first) {
		t.Fatalf("merged %d sources after cycle 1 and %d after cycle 2", len(first), len(last))
	}
	for i, s := range first {
		if last[i].Number != s.Number || last[i].Source.ID != s.Source.ID || rep.Sources[i].ID != s.Source.ID {
			t.Errorf("source %s was [%d] after cycle 1, [%d] %s after cycle 2", s.Source.ID, s.Number, last[i].Number, last[i].Source.ID)
		}
	}
	// The second assessment saw the first source under its number.
	if len(s.assessed) != 2 || !strings.Contains(s.assessed[1], "[1] The 1858 Atlantic Cable") ||
		!strings.Contains(s.assessed[1], "Closes: reference: William Thomson") {
		t.Errorf("the second assessment's input lacks the cycle-1 source or the follow-up's gap:\n%s", strings.Join(s.assessed, "\n----\n"))
	}

	// Events: a cycle.started per cycle, with the follow-up and its gap;
	// every agent event carries its cycle; run.finished says how the
	// loop ended.
	cycles := rec.of(events.CycleStarted)
	if len(cycles) != 2 {
		t.Fatalf("%d cycle.started events, want 2", len(cycles))
	}
	c2 := cycles[1].Data.(events.CycleStartedData)
	if c2.Cycle != 2 || len(c2.Tasks) != 1 || c2.Tasks[0].Part != "t1" || c2.Tasks[0].Gap != "reference: William Thomson" || c2.Tasks[0].ID != "t2" {
		t.Errorf("cycle 2 = %+v", c2)
	}
	assessed := rec.of(events.Assessed)
	if len(assessed) != 2 || assessed[0].Data.(events.AssessedData).Decision != events.LoopContinue ||
		assessed[1].Data.(events.AssessedData).Decision != events.LoopAnswered {
		t.Errorf("research.assessed events: %+v", assessed)
	}
	for _, e := range rec.events {
		if e.Agent < 0 {
			continue
		}
		if want := e.Agent + 1; e.Cycle != want { // task t1 ran in cycle 1, t2 in cycle 2
			t.Errorf("event %d %s of agent %d carries cycle %d, want %d", e.Seq, e.Type, e.Agent, e.Cycle, want)
		}
	}
	fin := rec.of(events.RunFinished)[0].Data.(events.RunFinishedData)
	if fin.Cycles != 2 || fin.LoopEnd != events.LoopAnswered || fin.Agents != 2 {
		t.Errorf("run.finished: cycles %d, loop end %q, agents %d", fin.Cycles, fin.LoopEnd, fin.Agents)
	}
	// The follow-up's findings are reported under the part they serve.
	if len(rep.Sections) != 2 || rep.Sections[1].Task.Part != "t1" || rep.Sections[1].Task.Cycle != 2 {
		t.Errorf("sections: %+v", rep.Sections)
	}
	roundTrip(t, rep)
}

// TestLoopEnds: each cap and condition that ends the loop ends it, and
// run.finished and the report say which.
func TestLoopEnds(t *testing.T) {
	always := func(n int, _ string) string { return followUp(1, "") } // never done
	for _, tc := range []struct {
		name    string
		cfg     deepresearch.Config
		s       *script
		cycles  int
		end     string
		stopped string // in run.finished and the report's note
	}{
		{name: "one cycle", cfg: deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}},
			s: &script{plan: onePart, search: thomsonSearch, assess: always}, cycles: 1, end: events.LoopMaxCycles},
		{name: "cycle cap", cfg: deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 2}},
			s: &script{plan: onePart, search: thomsonSearch, assess: always}, cycles: 2, end: events.LoopMaxCycles},
		{name: "agent cap", cfg: deepresearch.Config{Limits: deepresearch.Limits{MaxRunAgents: 1}},
			s: &script{plan: onePart, search: thomsonSearch, assess: always}, cycles: 1, end: events.LoopMaxAgents},
		{name: "nothing new found", cfg: deepresearch.Config{},
			s:      &script{plan: onePart, search: func(string) string { return "1858 Atlantic cable signalling theory" }, assess: always},
			cycles: 2, end: events.LoopNoNewSources},
		{name: "no follow-up", cfg: deepresearch.Config{},
			s: &script{plan: onePart, search: thomsonSearch, assess: func(int, string) string {
				return `{"done": false, "reason": "unsure", "gaps": [{"kind": "single_source", "detail": "one source"}], "tasks": []}`
			}}, cycles: 1, end: events.LoopNoFollowUps},
		{name: "token budget", cfg: deepresearch.Config{Limits: deepresearch.Limits{MaxRunTokens: 300}},
			s: &script{plan: onePart, search: thomsonSearch, assess: always}, cycles: 1, end: events.LoopBudget,
			stopped: "the run's token budget (300 tokens) was reached"},
		{name: "cost budget", cfg: deepresearch.Config{Limits: deepresearch.Limits{MaxCost: 0.05}, Price: func(string, events.Usage) float64 { return 0.01 }},
			s: &script{plan: onePart, search: thomsonSearch, assess: always}, cycles: 1, end: events.LoopBudget,
			stopped: "the run's cost budget ($0.05) was reached"},
		{name: "the assessment fails", cfg: deepresearch.Config{MaxRetries: -1},
			s: &script{plan: onePart, search: thomsonSearch, assess: always, onCall: func(_ context.Context, system, _ string) error {
				if strings.HasPrefix(system, "You lead") {
					return errors.New("assessor unavailable")
				}
				return nil
			}}, cycles: 1, end: events.LoopAssessFailed},
		{name: "unusable assessment", cfg: deepresearch.Config{},
			s:      &script{plan: onePart, search: thomsonSearch, assess: func(int, string) string { return "I cannot tell." }},
			cycles: 1, end: events.LoopAnswered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := scriptedResearcher(t, tc.s, tc.cfg)
			rec := &recorder{}
			rep, err := runWith(context.Background(), r, loopQuestion, rec.sink)
			if err != nil {
				t.Fatal(err)
			}
			checkCitations(t, rep, rec)
			fin := rec.of(events.RunFinished)[0].Data.(events.RunFinishedData)
			if fin.Cycles != tc.cycles || fin.LoopEnd != tc.end || rep.Cycles != tc.cycles || rep.LoopEnd != tc.end {
				t.Errorf("run.finished: %d cycles, %q; report: %d, %q; want %d, %q", fin.Cycles, fin.LoopEnd, rep.Cycles, rep.LoopEnd, tc.cycles, tc.end)
			}
			if fin.Stopped != tc.stopped {
				t.Errorf("run.finished stopped = %q, want %q", fin.Stopped, tc.stopped)
			}
			if tc.stopped != "" && !strings.Contains(rep.Markdown(), "Research stopped early: "+tc.stopped) {
				t.Errorf("the report does not say which budget stopped it:\n%s", rep.Markdown())
			}
			if n := len(rec.of(events.CycleStarted)); n != tc.cycles {
				t.Errorf("%d cycle.started events, want %d", n, tc.cycles)
			}
		})
	}
}

// TestLoopTimeBudget: a run past its time budget starts no cycle, its
// agents write up, and the report and run.finished say so. The model
// takes a minute of the fake clock per call.
func TestLoopTimeBudget(t *testing.T) {
	clock := deepresearchtest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := slowModel{Model: extractive.New(extractive.Options{}), clock: clock, per: time.Minute}
	r := newResearcher(t, deepresearch.Config{Model: m, Clock: clock, Limits: deepresearch.Limits{MaxRunTime: 3 * time.Minute}, Budget: deepresearch.Budget{Timeout: time.Hour}})
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, question, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	checkCitations(t, rep, rec)
	const stopped = "the run's time budget (3m0s) was reached"
	fin := rec.of(events.RunFinished)[0].Data.(events.RunFinishedData)
	if fin.Stopped != stopped || fin.LoopEnd != events.LoopBudget || fin.Cycles != 1 {
		t.Errorf("run.finished: stopped %q, loop end %q, %d cycles", fin.Stopped, fin.LoopEnd, fin.Cycles)
	}
	if !strings.Contains(rep.Markdown(), "Research stopped early: "+stopped) {
		t.Errorf("the report does not say the time budget stopped it:\n%s", rep.Markdown())
	}
}

// slowModel advances a fake clock by per on every call.
type slowModel struct {
	llms.Model
	clock *deepresearchtest.Clock
	per   time.Duration
}

func (m slowModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	m.clock.Advance(m.per)
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

// TestLoopChecksTheReport: the assessment finds the question answered,
// but the report leaves a part unanswered; a cycle remains, so the part
// is researched again before the report is published.
func TestLoopChecksTheReport(t *testing.T) {
	twoParts := `{"tasks":[{"title":"Signalling theory","question":"Who worked out the signalling theory of the 1858 Atlantic cable?"},
 {"title":"Other inventions","question":"What else did the person behind the signalling theory invent?"}]}`
	search := func(task string) string {
		switch {
		case strings.Contains(task, "galvanometer"):
			return "William Thomson invented"
		case strings.Contains(task, "else"):
			return "harbours breakwaters"
		}
		return "1858 Atlantic cable signalling theory"
	}
	assess := func(n int, in string) string {
		if strings.Contains(in, "## Unanswered by the report\n- t2") {
			return `{"done": false, "reason": "the report does not answer t2", "gaps": [{"kind": "unanswered", "part": "t2", "detail": "other inventions"}],
 "tasks": [{"title": "Galvanometer", "question": "Which galvanometer did William Thomson invent?", "part": "t2", "gap": "unanswered: t2"}]}`
		}
		return `{"done": true, "reason": "answered", "gaps": [], "tasks": []}`
	}
	s := &script{plan: twoParts, search: search, assess: assess}
	r := scriptedResearcher(t, s, deepresearch.Config{})
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, loopQuestion, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	checkCitations(t, rep, rec)
	if rep.Cycles != 2 || rep.LoopEnd != events.LoopAnswered {
		t.Errorf("%d cycles, loop end %q; want 2, %q", rep.Cycles, rep.LoopEnd, events.LoopAnswered)
	}
	cited := false
	for _, ref := range rep.References {
		cited = cited || ref.ID == "thomson.md"
	}
	if !cited {
		t.Errorf("the unanswered part was not researched again; references %v", rep.References)
	}
	// Only the accepted report was streamed: the deltas add up to it
	// (checkCitations), and its text names no part unanswered.
	if strings.Contains(rep.Markdown(), "does not answer part of the question") {
		t.Errorf("the report says a part is unanswered:\n%s", rep.Markdown())
	}
}

// TestLoopSaysWhatIsUnanswered: a part nothing answers, with no cycle
// left, is named in the report.
func TestLoopSaysWhatIsUnanswered(t *testing.T) {
	twoParts := `{"tasks":[{"title":"Signalling theory","question":"Who worked out the signalling theory of the 1858 Atlantic cable?"},
 {"title":"Price","question":"What did the 1858 cable cost to make?"}]}`
	s := &script{plan: twoParts, assess: func(int, string) string { return `{"done": true, "reason": "answered", "gaps": [], "tasks": []}` },
		search: func(task string) string {
			if strings.Contains(task, "cost") {
				return "harbours breakwaters"
			}
			return "1858 Atlantic cable signalling theory"
		}}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 2, MaxRunAgents: 2}})
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, loopQuestion, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	checkCitations(t, rep, rec)
	md := rep.Markdown()
	if !strings.Contains(md, "This report does not answer part of the question — “What did the 1858 cable cost to make?”") {
		t.Errorf("the report does not say which part is unanswered:\n%s", md)
	}
	if rep.LoopEnd != events.LoopMaxAgents {
		t.Errorf("loop end %q, want %q", rep.LoopEnd, events.LoopMaxAgents)
	}
}

// TestDefaultMaxCycles: the root's default is the settings' default.
func TestDefaultMaxCycles(t *testing.T) {
	if d := config.Defaults().Research.MaxCycles; d != defaults.MaxCycles {
		t.Errorf("config/defaults.yaml says max_cycles %d, defaults.MaxCycles is %d", d, defaults.MaxCycles)
	}
}

// TestLoopWritesSectionsEarly: a long report (six parts) is written
// section by section, and the sections of the parts a cycle does not
// research are written while its agents run: here the last cycle's only
// agent waits, in its first call, until a section is being written.
func TestLoopWritesSectionsEarly(t *testing.T) {
	var parts []string
	for i := 1; i <= 6; i++ {
		parts = append(parts, fmt.Sprintf(`{"title":"Part %d","question":"Who worked out the signalling theory of the 1858 Atlantic cable (%d)?"}`, i, i))
	}
	sectionCalled := make(chan struct{})
	var once sync.Once
	s := &script{plan: `{"tasks":[` + strings.Join(parts, ",") + `]}`, search: thomsonSearch, assess: followUp}
	s.onCall = func(ctx context.Context, system, human string) error {
		switch {
		case strings.HasPrefix(system, "You write one section"):
			once.Do(func() { close(sectionCalled) })
		case strings.Contains(human, "Question: What else did William Thomson invent?") && !strings.Contains(human, "Research complete"):
			select { // the follow-up agent's calls wait for a section to be under way
			case <-sectionCalled:
			case <-ctx.Done():
			}
		}
		return nil
	}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxTasks: 6}})
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		// A regression would leave the agent waiting: fail before the
		// test binary's own deadline, saying why.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-5*time.Second))
		defer cancel()
	}
	rec := &recorder{}
	rep, err := runWith(ctx, r, loopQuestion, rec.sink)
	if err != nil {
		t.Fatalf("no section was written while the last cycle's agent ran: %v", err)
	}
	checkCitations(t, rep, rec)
	if rep.Cycles != 2 {
		t.Errorf("%d cycles, want 2", rep.Cycles)
	}
	// Sections follow the plan; the follow-up's findings are under part 1.
	md := rep.Markdown()
	last := -1
	for i := 1; i <= 6; i++ {
		at := strings.Index(md, fmt.Sprintf("\n## Part %d\n", i))
		if at < last {
			t.Fatalf("section %d missing or out of order:\n%s", i, md)
		}
		last = at
	}
	part1 := md[strings.Index(md, "\n## Part 1\n"):strings.Index(md, "\n## Part 2\n")]
	if !strings.Contains(part1, "siphon recorder") && !strings.Contains(part1, "mirror galvanometer") {
		t.Errorf("the follow-up's findings are not under the part they serve:\n%s", part1)
	}
}

// TestLoopSectionFailureKeepsFindings: a section the writer cannot write
// fails the run at the report stage, and the research is kept: the
// Report renders the findings of every cycle.
func TestLoopSectionFailureKeepsFindings(t *testing.T) {
	var parts []string
	for i := 1; i <= 6; i++ {
		parts = append(parts, fmt.Sprintf(`{"title":"Part %d","question":"Who worked out the signalling theory of the 1858 Atlantic cable (%d)?"}`, i, i))
	}
	s := &script{plan: `{"tasks":[` + strings.Join(parts, ",") + `]}`, search: thomsonSearch, assess: followUp,
		onCall: func(_ context.Context, system, _ string) error {
			if strings.HasPrefix(system, "You write one section") {
				return errors.New("writer unavailable")
			}
			return nil
		}}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxTasks: 6}, MaxRetries: -1})
	rep, err := runWith(context.Background(), r, loopQuestion, nil)
	var serr *deepresearch.StageError
	if !errors.As(err, &serr) || serr.Stage != events.StageReport || !strings.Contains(err.Error(), "writer unavailable") {
		t.Fatalf("err = %v; want a report-stage failure", err)
	}
	if rep == nil || rep.Complete() || len(rep.Sections) != 7 || rep.Cycles != 2 {
		t.Fatalf("report kept: %+v", rep)
	}
	md := rep.Markdown()
	if !strings.Contains(md, "# Findings:") || !strings.Contains(md, "siphon recorder") && !strings.Contains(md, "mirror galvanometer") {
		t.Errorf("the findings of both cycles are not rendered:\n%s", md)
	}
}
