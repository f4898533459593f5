package deepresearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/events"
)

// twoQuestions is a clarifier's reply asking two questions, in a code
// fence with prose around it, as real models do.
const twoQuestions = "Sure, two things first:\n```json\n" +
	`{"questions":[{"question":"Which cable do you mean, the 1858 or the 1866 one?","assumption":"the 1858 cable"},` +
	`{"question":"Should the report cover later inventions too?","assumption":"all of the person's inventions"}]}` + "\n```"

func taskTitles(tasks []events.PlanTask) []string {
	var out []string
	for _, t := range tasks {
		out = append(out, t.Title)
	}
	return out
}

// TestClarifyAnswersReachThePlanner: a model that asks two questions; the
// person's answers (through Hooks.Ask) reach the planner's prompt, the
// events carry questions and answers, and the report keeps them.
func TestClarifyAnswersReachThePlanner(t *testing.T) {
	s := &script{plan: onePart, search: thomsonSearch, clarify: twoQuestions}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	var asked []events.Clarification
	hooks := &deepresearch.Hooks{Ask: func(_ context.Context, qs []events.Clarification) ([]string, error) {
		asked = qs
		return []string{"the 1858 cable", "only the galvanometer and the recorder"}, nil
	}}
	rec := &recorder{}
	rep, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Hooks: hooks}, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || !strings.HasPrefix(asked[0].Question, "Which cable") || asked[0].Assumption != "the 1858 cable" {
		t.Fatalf("asked %+v", asked)
	}
	if len(s.planned) != 1 {
		t.Fatalf("planner called %d times", len(s.planned))
	}
	for _, want := range []string{"Clarifications:", "Which cable do you mean, the 1858 or the 1866 one? → the 1858 cable", "→ only the galvanometer and the recorder"} {
		if !strings.Contains(s.planned[0], want) {
			t.Errorf("planner's message lacks %q:\n%s", want, s.planned[0])
		}
	}
	req := rec.of(events.ClarificationRequested)
	ans := rec.of(events.ClarificationAnswered)
	if len(req) != 1 || len(ans) != 1 {
		t.Fatalf("%d clarification.requested, %d clarification.answered", len(req), len(ans))
	}
	if got := ans[0].Data.(events.ClarificationAnsweredData); !got.Answered || got.Questions[1].Answer != "only the galvanometer and the recorder" {
		t.Errorf("clarification.answered: %+v", got)
	}
	if plan := rec.of(events.PlanReady); len(plan) != 1 || req[0].Seq > plan[0].Seq {
		t.Errorf("the questions must come before the plan")
	}
	if len(rep.Clarifications) != 2 || rep.Clarifications[0].Answer != "the 1858 cable" {
		t.Errorf("report clarifications: %+v", rep.Clarifications)
	}
	if strings.Contains(rep.Text, "Assumed") {
		t.Errorf("an answered run states no assumption:\n%s", rep.Text)
	}
	checkCitations(t, rep, rec)
}

// TestClarifyWithNobodyToAsk: without Hooks.Ask the run proceeds, the
// planner gets no answers, and the report states its assumptions.
func TestClarifyWithNobodyToAsk(t *testing.T) {
	s := &script{plan: onePart, search: thomsonSearch, clarify: twoQuestions}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	rec := &recorder{}
	rep, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion}, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.planned[0], "Clarifications:") {
		t.Errorf("the planner got answers nobody gave:\n%s", s.planned[0])
	}
	for _, want := range []string{"the 1858 cable", "all of the person's inventions"} {
		if !strings.Contains(rep.Text, "Assumed") || !strings.Contains(rep.Text, want) {
			t.Errorf("the report does not state the assumption %q:\n%s", want, rep.Text)
		}
	}
	if ans := rec.of(events.ClarificationAnswered); len(ans) != 1 || ans[0].Data.(events.ClarificationAnsweredData).Answered {
		t.Errorf("clarification.answered: %+v", ans)
	}
}

// TestClarifyNever: a request that says never, one with answers given,
// and the offline model ask nothing.
func TestClarifyNever(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  deepresearch.Request
	}{
		{"never", deepresearch.Request{Question: loopQuestion, Clarify: deepresearch.ClarifyNever}},
		{"answered", deepresearch.Request{Question: loopQuestion, Answers: []deepresearch.Answer{{Question: "Which cable?", Answer: "1858"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{plan: onePart, search: thomsonSearch, clarify: twoQuestions}
			r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
			rec := &recorder{}
			hooks := &deepresearch.Hooks{Ask: func(context.Context, []events.Clarification) ([]string, error) {
				return nil, errors.New("asked")
			}}
			tc.req.Hooks = hooks
			if _, err := research(context.Background(), r, tc.req, rec.sink); err != nil {
				t.Fatal(err)
			}
			if n := len(rec.of(events.ClarificationRequested)); n != 0 {
				t.Errorf("%d clarification.requested", n)
			}
			if tc.name == "answered" && !strings.Contains(s.planned[0], "Which cable? → 1858") {
				t.Errorf("planner's message: %s", s.planned[0])
			}
		})
	}
	t.Run("offline", func(t *testing.T) {
		r := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
		rec := &recorder{}
		if _, err := research(context.Background(), r, deepresearch.Request{Question: "How do goroutines and channels work?"}, rec.sink); err != nil {
			t.Fatal(err)
		}
		if n := len(rec.of(events.ClarificationRequested)); n != 0 {
			t.Errorf("the offline model asked %d times", n)
		}
	})
}

// lengthWriter is a real model's writer as a double: it reads the target
// length from the writer's message and writes about that many words from
// the findings' sentences, cycling through them, with their citations.
func lengthWriter(human string) string {
	target := 400
	var sents []string
	inFindings := false
	for _, line := range strings.Split(human, "\n") {
		if v, ok := strings.CutPrefix(line, "Target length: "); ok {
			fmt.Sscanf(v, "%d words", &target)
		}
		switch {
		case line == "## Findings":
			inFindings = true
		case line == "## Sources":
			inFindings = false
		case inFindings && strings.Contains(line, "[") && !strings.HasPrefix(line, "#"):
			sents = append(sents, strings.TrimSpace(line))
		}
	}
	var b strings.Builder
	b.WriteString("# The Atlantic cable\n\n")
	words := 0
	for i := 0; words < target && len(sents) > 0; i++ {
		s := sents[i%len(sents)]
		b.WriteString(s + "\n\n")
		words += len(strings.Fields(s))
	}
	return b.String()
}

// TestReportLength: --length 300 and --length 1500 on a real-model double
// give reports within ±30% of the target; the target is in the writer's
// message.
func TestReportLength(t *testing.T) {
	for _, target := range []int{300, 1500} {
		t.Run(fmt.Sprint(target), func(t *testing.T) {
			s := &script{plan: onePart, search: thomsonSearch, write: lengthWriter}
			r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
			rep, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Length: target, Clarify: deepresearch.ClarifyNever}, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := len(strings.Fields(rep.Text))
			if math.Abs(float64(n-target)) > 0.3*float64(target) {
				t.Errorf("the report has %d words; the target is %d", n, target)
			}
		})
	}
}

// TestOfflineLength: the offline model keeps under a target length, and
// says it cannot translate.
func TestOfflineLength(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	q := "How do goroutines and channels work?"
	full, err := research(context.Background(), r, deepresearch.Request{Question: q}, nil)
	if err != nil {
		t.Fatal(err)
	}
	short, err := research(context.Background(), r, deepresearch.Request{Question: q, Length: 120, Language: "French"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nf, ns := len(strings.Fields(full.Draft)), len(strings.Fields(short.Draft))
	if ns >= nf || ns > 160 {
		t.Errorf("the short report has %d words (the full one %d); the target is 120", ns, nf)
	}
	if !strings.Contains(short.Text, "Not translated into French") {
		t.Errorf("the report does not say it is not translated:\n%s", short.Text)
	}
}

// TestOutlineSectionsInOrder: an outline's sections are the report's, in
// order, each researched as its own task.
func TestOutlineSectionsInOrder(t *testing.T) {
	s := &script{plan: onePart, search: thomsonSearch}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	outline := []string{"Thomson's inventions", "The 1858 Atlantic cable"}
	rep, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Outline: outline}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.planned) != 0 {
		t.Errorf("an outline is the plan; the planner was called")
	}
	var titles []string
	for _, sec := range rep.Sections {
		titles = append(titles, sec.Task.Title)
	}
	if !slices.Equal(titles, outline) {
		t.Fatalf("sections %q, want %q", titles, outline)
	}
	i0, i1 := strings.Index(rep.Text, "## "+outline[0]), strings.Index(rep.Text, "## "+outline[1])
	if i0 < 0 || i1 < i0 {
		t.Errorf("the report's headings are not the outline's, in order:\n%s", rep.Text)
	}
}

// TestPlanFileRunsExactlyItsTasks: Researcher.Plan's JSON, edited, run
// as Request.Plan, researches exactly its tasks, without the planner.
func TestPlanFileRunsExactlyItsTasks(t *testing.T) {
	s := &script{plan: `{"tasks":[{"title":"Signalling theory","question":"Who worked out the signalling theory of the 1858 Atlantic cable?"},{"title":"Harbours","question":"How do harbours shelter ships?"}]}`, search: thomsonSearch}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	p, err := r.Plan(context.Background(), deepresearch.Request{Question: loopQuestion})
	if err != nil {
		t.Fatal(err)
	}
	if got := taskTitles(p.Tasks); !slices.Equal(got, []string{"Signalling theory", "Harbours"}) {
		t.Fatalf("plan %q", got)
	}
	b, _ := json.Marshal(p)
	var edited deepresearch.Plan
	if err := json.Unmarshal(b, &edited); err != nil {
		t.Fatal(err)
	}
	edited.Tasks = append(edited.Tasks[:1], events.PlanTask{Title: "Thomson's inventions", Question: "What did William Thomson invent?"})
	rec := &recorder{}
	if _, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Plan: &edited}, rec.sink); err != nil {
		t.Fatal(err)
	}
	if len(s.planned) != 1 {
		t.Errorf("the planner was called %d times (once for Plan)", len(s.planned))
	}
	ran := make([]string, len(rec.of(events.AgentStarted))) // by plan position: agents start in any order
	for _, e := range rec.of(events.AgentStarted) {
		if task := e.Data.(events.AgentStartedData).Task; task.Index < len(ran) {
			ran[task.Index] = task.Title
		}
	}
	if want := []string{"Signalling theory", "Thomson's inventions"}; !slices.Equal(ran, want) {
		t.Errorf("ran %q, want exactly %q", ran, want)
	}
}

// TestReviewPlanEdits: Hooks.Review removes a task and adds one; the
// research and the report follow the edited plan, and plan.accepted
// carries the edits.
func TestReviewPlanEdits(t *testing.T) {
	s := &script{plan: `{"tasks":[{"title":"Signalling theory","question":"Who worked out the signalling theory of the 1858 Atlantic cable?"},{"title":"Harbours","question":"How do harbours shelter ships?"}]}`, search: thomsonSearch}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	hooks := &deepresearch.Hooks{Review: func(_ context.Context, p deepresearch.Plan) (deepresearch.Plan, error) {
		p.Tasks = []events.PlanTask{p.Tasks[0], {Title: "Thomson's inventions", Question: "What did William Thomson invent?"}}
		return p, nil
	}}
	rec := &recorder{}
	rep, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Review: deepresearch.ReviewFirstPlan, Hooks: hooks}, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.of(events.PlanReviewRequested)); n != 1 {
		t.Fatalf("%d plan.review_requested", n)
	}
	acc := rec.of(events.PlanAccepted)
	if len(acc) != 1 {
		t.Fatalf("%d plan.accepted", len(acc))
	}
	d := acc[0].Data.(events.PlanAcceptedData)
	if !d.Edited || !slices.Equal(d.Added, []string{"Thomson's inventions"}) || !slices.Equal(d.Removed, []string{"Harbours"}) {
		t.Errorf("plan.accepted: %+v", d)
	}
	var titles []string
	for _, sec := range rep.Sections {
		titles = append(titles, sec.Task.Title)
	}
	if want := []string{"Signalling theory", "Thomson's inventions"}; !slices.Equal(titles, want) {
		t.Errorf("sections %q, want %q", titles, want)
	}
	checkCitations(t, rep, rec)

	// Rejected: the run fails in the plan stage, before any agent.
	hooks.Review = func(context.Context, deepresearch.Plan) (deepresearch.Plan, error) {
		return deepresearch.Plan{}, deepresearch.ErrPlanRejected
	}
	rec = &recorder{}
	_, err = research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Review: deepresearch.ReviewFirstPlan, Hooks: hooks}, rec.sink)
	var se *deepresearch.StageError
	if !errors.Is(err, deepresearch.ErrPlanRejected) || !errors.As(err, &se) || se.Stage != events.StagePlan {
		t.Errorf("rejected: %v", err)
	}
	if n := len(rec.of(events.AgentStarted)); n != 0 {
		t.Errorf("%d agents started after the plan was rejected", n)
	}
}

// TestPeopleTextBounded: every piece of free text a person adds to a run
// goes into prompts, so each is bounded like the question, and an
// oversized one is a RequestError naming its field.
func TestPeopleTextBounded(t *testing.T) {
	long := strings.Repeat("x", deepresearch.MaxTextBytes+1)
	for name, tc := range map[string]struct {
		req   deepresearch.Request
		field string
	}{
		"answer":            {deepresearch.Request{Question: "q", Answers: []deepresearch.Answer{{Question: "Which?", Answer: long}}}, "answers"},
		"answer's question": {deepresearch.Request{Question: "q", Answers: []deepresearch.Answer{{Question: long, Answer: "this"}}}, "answers"},
		"outline":           {deepresearch.Request{Question: "q", Outline: []string{"Intro", long}}, "outline"},
		"plan question":     {deepresearch.Request{Question: "q", Plan: &deepresearch.Plan{Tasks: []events.PlanTask{{Question: long}}}}, "plan"},
		"plan title":        {deepresearch.Request{Question: "q", Plan: &deepresearch.Plan{Tasks: []events.PlanTask{{Title: long, Question: "q"}}}}, "plan"},
		"language":          {deepresearch.Request{Question: "q", Language: strings.Repeat("x", deepresearch.MaxControlBytes+1)}, "language"},
		"audience":          {deepresearch.Request{Question: "q", Audience: strings.Repeat("x", deepresearch.MaxControlBytes+1)}, "audience"},
	} {
		var re *deepresearch.RequestError
		if err := tc.req.Validate(); !errors.As(err, &re) || re.Field != tc.field || !strings.Contains(re.Problem, "the limit is") {
			t.Errorf("%s: %v, want a RequestError for %q", name, err, tc.field)
		}
	}
	ok := deepresearch.Request{Question: "q", Answers: []deepresearch.Answer{{Question: "Which?", Answer: strings.Repeat("x", deepresearch.MaxTextBytes)}},
		Language: strings.Repeat("x", deepresearch.MaxControlBytes)}
	if err := ok.Validate(); err != nil {
		t.Errorf("text at the limits: %v", err)
	}
}

// TestPeoplesWordSurvivesRestart: a durable run whose person answered its
// clarifying questions and edited its plan is cut off as its agents
// start; resumed from its journal, it asks nobody again (Hooks that fail
// the test), its planner is not called again, and it researches the
// edited plan with the answers — and so it does resumed where nobody can
// answer (no Hooks: `deepresearch resume` off a terminal).
func TestPeoplesWordSurvivesRestart(t *testing.T) {
	s := &script{plan: `{"tasks":[{"title":"Signalling theory","question":"Who worked out the signalling theory of the 1858 Atlantic cable?"},{"title":"Harbours","question":"How do harbours shelter ships?"}]}`,
		search: thomsonSearch, clarify: twoQuestions}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}})
	js := &journals{}
	req := deepresearch.Request{Question: loopQuestion, RunID: "people", Review: deepresearch.ReviewFirstPlan}
	req.Hooks = &deepresearch.Hooks{
		Ask: func(context.Context, []events.Clarification) ([]string, error) {
			return []string{"the 1858 cable", "only the galvanometer"}, nil
		},
		Review: func(_ context.Context, p deepresearch.Plan) (deepresearch.Plan, error) {
			if p.Asked.IsZero() {
				t.Error("a plan put to review in a durable run has no Asked time")
			}
			p.Tasks = []events.PlanTask{p.Tasks[0], {Title: "Thomson's inventions", Question: "What did William Thomson invent?"}}
			return p, nil
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var stored []events.Event
	killed := false
	_, err := researchJournaled(ctx, r, req, js, func(e events.Event) {
		mu.Lock()
		defer mu.Unlock()
		if killed {
			return
		}
		stored = append(stored, e)
		if e.Type == events.AgentStarted {
			killed = true
			cancel()
		}
	})
	cancel()
	if !killed || err == nil {
		t.Fatalf("the run was not cut off (err %v)", err)
	}

	cutOff := map[string][][]byte{}
	for run, entries := range js.runs {
		cutOff[run] = slices.Clone(entries)
	}
	req.Hooks = &deepresearch.Hooks{
		Ask: func(context.Context, []events.Clarification) ([]string, error) {
			t.Error("the resumed run asked its questions again")
			return nil, nil
		},
		Review: func(_ context.Context, p deepresearch.Plan) (deepresearch.Plan, error) {
			t.Error("the resumed run put its plan to review again")
			return p, nil
		},
	}
	resume := func(name string, js *journals) {
		rec := &recorder{}
		rep, err := deepresearch.ResumeFromEvents(context.Background(), r, req, js, stored, rec.sink)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var titles []string
		for _, sec := range rep.Sections {
			titles = append(titles, sec.Task.Title)
		}
		if want := []string{"Signalling theory", "Thomson's inventions"}; !slices.Equal(titles, want) {
			t.Errorf("%s: sections %q, want %q", name, titles, want)
		}
		if len(rep.Clarifications) != 2 || rep.Clarifications[1].Answer != "only the galvanometer" {
			t.Errorf("%s: report clarifications: %+v", name, rep.Clarifications)
		}
		if strings.Contains(rep.Text, "Assumed") {
			t.Errorf("%s: the report states assumptions:\n%s", name, rep.Text)
		}
	}
	resume("with hooks", js)
	req.Hooks = nil
	resume("with nobody to ask", &journals{runs: cutOff})
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.planned) != 1 || !strings.Contains(s.planned[0], "→ only the galvanometer") {
		t.Errorf("the planner's messages: %q", s.planned)
	}
}

// TestReviewEveryCycle: with review every_cycle, the follow-ups of a
// later cycle are put to review too (Plan.Cycle 2, each with the part it
// follows up), and what the reviewer accepts is what cycle 2 researches;
// a later plan rejected ends the research and the report is written from
// cycle 1. Without it only the first plan is reviewed.
func TestReviewEveryCycle(t *testing.T) {
	run := func(t *testing.T, review deepresearch.ReviewMode, second func(deepresearch.Plan) (deepresearch.Plan, error)) ([]deepresearch.Plan, *deepresearch.Report, *recorder) {
		t.Helper()
		s := &script{plan: onePart, search: thomsonSearch, assess: followUp}
		r := scriptedResearcher(t, s, deepresearch.Config{})
		var plans []deepresearch.Plan
		hooks := &deepresearch.Hooks{Review: func(_ context.Context, p deepresearch.Plan) (deepresearch.Plan, error) {
			plans = append(plans, p)
			if len(plans) == 1 {
				return p, nil
			}
			return second(p)
		}}
		rec := &recorder{}
		rep, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Review: review, Hooks: hooks}, rec.sink)
		if err != nil {
			t.Fatal(err)
		}
		checkCitations(t, rep, rec)
		return plans, rep, rec
	}

	t.Run("edited", func(t *testing.T) {
		plans, rep, rec := run(t, deepresearch.ReviewEveryCycle, func(p deepresearch.Plan) (deepresearch.Plan, error) {
			p.Tasks = append(p.Tasks, events.PlanTask{Title: "Kelvin's compass", Question: "What compass did William Thomson design?"})
			return p, nil
		})
		if len(plans) != 2 || plans[0].Cycle != 0 || plans[1].Cycle != 2 || len(plans[1].Tasks) != 1 || plans[1].Tasks[0].Part != "t1" {
			t.Fatalf("plans reviewed: %+v", plans)
		}
		cycles := rec.of(events.CycleStarted)
		if len(cycles) != 2 {
			t.Fatalf("%d cycles", len(cycles))
		}
		c2 := cycles[1].Data.(events.CycleStartedData).Tasks
		if len(c2) != 2 || c2[0].Part != "t1" || c2[0].Gap == "" || c2[1].Title != "Kelvin's compass" || c2[1].Part != "" {
			t.Errorf("cycle 2 researched %+v", c2)
		}
		acc := rec.of(events.PlanAccepted)
		if len(acc) != 2 {
			t.Fatalf("%d plan.accepted", len(acc))
		}
		if d := acc[1].Data.(events.PlanAcceptedData); d.Cycle != 2 || !slices.Equal(d.Added, []string{"Kelvin's compass"}) {
			t.Errorf("cycle 2's plan.accepted: %+v", d)
		}
		if rep.Cycles != 2 {
			t.Errorf("%d cycles", rep.Cycles)
		}
	})
	t.Run("rejected", func(t *testing.T) {
		plans, rep, _ := run(t, deepresearch.ReviewEveryCycle, func(deepresearch.Plan) (deepresearch.Plan, error) {
			return deepresearch.Plan{}, deepresearch.ErrPlanRejected
		})
		if len(plans) != 2 || rep.Cycles != 1 || rep.LoopEnd != events.LoopPlanRejected || len(rep.References) == 0 {
			t.Errorf("%d plans reviewed; %d cycles, loop end %q, %d references", len(plans), rep.Cycles, rep.LoopEnd, len(rep.References))
		}
	})
	t.Run("budget cut below the cycle", func(t *testing.T) {
		_, rep, rec := run(t, deepresearch.ReviewEveryCycle, func(p deepresearch.Plan) (deepresearch.Plan, error) {
			p.MaxCycles = 1
			return p, nil
		})
		if rep.Cycles != 1 || rep.LoopEnd != events.LoopMaxCycles {
			t.Errorf("%d cycles, loop end %q; want 1 and max_cycles", rep.Cycles, rep.LoopEnd)
		}
		// A waiting POST …/plan returns when the review is kept, which
		// plan.accepted says.
		acc := rec.of(events.PlanAccepted)
		if len(acc) != 2 {
			t.Fatalf("%d plan.accepted, want 2", len(acc))
		}
		if d := acc[1].Data.(events.PlanAcceptedData); d.Cycle != 2 || d.MaxCycles != 1 || len(d.Tasks) != 0 {
			t.Errorf("cycle 2's plan.accepted: %+v", d)
		}
	})
	t.Run("first plan only", func(t *testing.T) {
		plans, rep, _ := run(t, deepresearch.ReviewFirstPlan, func(p deepresearch.Plan) (deepresearch.Plan, error) {
			t.Error("a later cycle's plan was reviewed")
			return p, nil
		})
		if len(plans) != 1 || rep.Cycles != 2 {
			t.Errorf("%d plans reviewed, %d cycles", len(plans), rep.Cycles)
		}
	})
}

// TestReviewedCycleBudget: a reviewer's max_cycles is the run's budget:
// cut to 1, the run that would have had a second cycle has one.
func TestReviewedCycleBudget(t *testing.T) {
	s := &script{plan: onePart, search: thomsonSearch, assess: followUp}
	r := scriptedResearcher(t, s, deepresearch.Config{})
	hooks := &deepresearch.Hooks{Review: func(_ context.Context, p deepresearch.Plan) (deepresearch.Plan, error) {
		if p.MaxCycles < 2 {
			t.Errorf("the plan's budget is %d cycles", p.MaxCycles)
		}
		p.MaxCycles = 1
		return p, nil
	}}
	rec := &recorder{}
	rep, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Review: deepresearch.ReviewFirstPlan, Hooks: hooks}, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cycles != 1 || rep.LoopEnd != events.LoopMaxCycles {
		t.Errorf("%d cycles, loop end %q; want 1, %q", rep.Cycles, rep.LoopEnd, events.LoopMaxCycles)
	}
	if acc := rec.of(events.PlanAccepted); len(acc) != 1 || acc[0].Data.(events.PlanAcceptedData).MaxCycles != 1 {
		t.Errorf("plan.accepted: %+v", acc)
	}
	checkCitations(t, rep, rec)
}

// TestPeopleDefaults: the settings' report controls and clarify mode
// (Config.People) reach a run that leaves them out — the writer's message
// carries the length, language and audience, and the clarifier is not
// asked — while a request's own values win; a bad default is a config
// error.
func TestPeopleDefaults(t *testing.T) {
	var mu sync.Mutex
	var wrote []string
	s := &script{plan: onePart, search: thomsonSearch, clarify: twoQuestions, write: func(human string) string {
		mu.Lock()
		wrote = append(wrote, human)
		mu.Unlock()
		return lengthWriter(human)
	}}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, People: deepresearch.PeopleDefaults{
		Clarify: deepresearch.ClarifyNever, Length: 300, Language: "German", Audience: "cable engineers"}})
	asked := 0
	hooks := &deepresearch.Hooks{Ask: func(context.Context, []events.Clarification) ([]string, error) {
		asked++
		return nil, nil
	}}
	if _, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Hooks: hooks}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Length: 1500, Language: "Dutch"}, nil); err != nil {
		t.Fatal(err)
	}
	if asked != 0 {
		t.Errorf("asked %d times under clarify never", asked)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(wrote) != 2 {
		t.Fatalf("the writer was called %d times", len(wrote))
	}
	for i, want := range [][]string{
		{"Target length: 300 words", "Language: German", "Audience: cable engineers"},
		{"Target length: 1500 words", "Language: Dutch", "Audience: cable engineers"},
	} {
		for _, w := range want {
			if !strings.Contains(wrote[i], w) {
				t.Errorf("run %d: the writer's message lacks %q", i+1, w)
			}
		}
	}
	_, err := deepresearch.New(deepresearch.Config{People: deepresearch.PeopleDefaults{Review: "sometimes"}})
	if !errors.Is(err, deepresearch.ErrConfig) || !strings.Contains(err.Error(), "review") {
		t.Errorf("a bad default: %v", err)
	}
}

// TestReviewNever: a request with Review never is not reviewed although
// the settings put every plan to review; one with the settings' defaults
// is; a review mode that is none of the words is refused by name.
func TestReviewNever(t *testing.T) {
	s := &script{plan: onePart, search: thomsonSearch, write: lengthWriter}
	r := scriptedResearcher(t, s, deepresearch.Config{Limits: deepresearch.Limits{MaxCycles: 1}, People: deepresearch.PeopleDefaults{Review: deepresearch.ReviewFirstPlan}})
	reviewed := 0
	hooks := &deepresearch.Hooks{Review: func(_ context.Context, p deepresearch.Plan) (deepresearch.Plan, error) {
		reviewed++
		return p, nil
	}}
	if _, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Hooks: hooks, Review: deepresearch.ReviewNever}, nil); err != nil {
		t.Fatal(err)
	}
	if reviewed != 0 {
		t.Errorf("a run with review never was reviewed %d times", reviewed)
	}
	if _, err := research(context.Background(), r, deepresearch.Request{Question: loopQuestion, Hooks: hooks}, nil); err != nil {
		t.Fatal(err)
	}
	if reviewed != 1 {
		t.Errorf("a run under review_plan settings was reviewed %d times, want 1", reviewed)
	}
	var re *deepresearch.RequestError
	err := deepresearch.Request{Question: loopQuestion, Review: "sometimes"}.Validate()
	if !errors.As(err, &re) || re.Field != "review" || !strings.Contains(re.Problem, "never, first_plan or every_cycle") {
		t.Errorf("review sometimes: %v", err)
	}
}

// TestQuestionVisible (issue 29): a question made only of spaces,
// control or format characters is refused by name; one holding bytes
// that are not UTF-8 is taken with them replaced, as its stored JSON
// form keeps it, so that it replays (cmd/deepresearch's
// TestCLIPrintsNoControlCharacters replays one).
func TestQuestionVisible(t *testing.T) {
	for _, q := range []string{"\x1b\x07\x00", "\u200b\u200d\ufeff", "\x9b\xff", "\u202e\r\n"} {
		err := deepresearch.Request{Question: q}.Validate()
		var re *deepresearch.RequestError
		if !errors.As(err, &re) || re.Field != "question" || !strings.Contains(re.Problem, "no visible character") {
			t.Errorf("%q: %v", q, err)
		}
	}
	for _, q := range []string{"Why?", "\u00bfpor qu\u00e9?", "\u4e3a\u4ec0\u4e48", "1+1", "\x1b[2J How \x9b?"} {
		if err := (deepresearch.Request{Question: q}).Validate(); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
}

// TestRequestJSONWords: a Request's JSON form reads its typed words once,
// as it is decoded: a word a member does not know is a *RequestError
// naming the member and the words it takes; review_plan, the form's
// former way to ask for review (stored runs, journals and older clients
// carry it), reads as review first_plan and is never written; a member
// the form does not have is refused; members left out keep their values.
func TestRequestJSONWords(t *testing.T) {
	tests := []struct {
		name, in string
		review   deepresearch.ReviewMode
		style    cite.Style
		field    string // the RequestError's member; "" for none
		has      string // in the error
	}{
		{"review", `{"question":"q","review":"every_cycle"}`, deepresearch.ReviewEveryCycle, "", "", ""},
		{"review never", `{"question":"q","review":"never"}`, deepresearch.ReviewNever, "", "", ""},
		{"review left out", `{"question":"q"}`, "", "", "", ""},
		{"review_plan", `{"question":"q","review_plan":true}`, deepresearch.ReviewFirstPlan, "", "", ""},
		{"review_plan with every_cycle", `{"question":"q","review_plan":true,"review":"every_cycle"}`, deepresearch.ReviewEveryCycle, "", "", ""},
		{"review_plan with first_plan", `{"question":"q","review_plan":true,"review":"first_plan"}`, deepresearch.ReviewFirstPlan, "", "", ""},
		{"review_plan false", `{"question":"q","review_plan":false}`, "", "", "", ""},
		{"review_plan with never", `{"question":"q","review_plan":true,"review":"never"}`, "", "", "review", "review_plan"},
		{"unknown review", `{"question":"q","review":"sometimes"}`, "", "", "review", `"sometimes"; want never, first_plan or every_cycle`},
		{"review of the wrong case", `{"question":"q","review":"First_Plan"}`, "", "", "review", `"First_Plan"`},
		{"style", `{"question":"q","style":"footnote"}`, "", cite.Footnote, "", ""},
		{"unknown style", `{"question":"q","style":"gothic"}`, "", "", "style", `"gothic"; want markdown, plain, footnote or html`},
		{"unknown member", `{"question":"q","corpus":"/etc"}`, "", "", "", `unknown field "corpus"`},
		{"unknown member of the plan", `{"question":"q","plan":{"tasks":[{"question":"x","why":"y"}]}}`, "", "", "", `unknown field "why"`},
		{"member of the wrong type", `{"question":7}`, "", "", "", "question"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := deepresearch.Request{RunID: "kept", MaxRunAgents: 3}
			err := json.Unmarshal([]byte(tt.in), &req)
			var re *deepresearch.RequestError
			switch {
			case tt.has == "" && err != nil:
				t.Fatalf("%s: %v", tt.in, err)
			case tt.has != "" && (err == nil || !strings.Contains(err.Error(), tt.has)):
				t.Fatalf("%s: %v; want an error saying %s", tt.in, err, tt.has)
			case tt.field != "" && (!errors.As(err, &re) || re.Field != tt.field || !errors.Is(err, deepresearch.ErrConfig)):
				t.Fatalf("%s: %v; want a RequestError of %q", tt.in, err, tt.field)
			case err != nil:
				return
			}
			if req.Review != tt.review || req.Style != tt.style || req.Question != "q" || req.RunID != "kept" || req.MaxRunAgents != 3 {
				t.Errorf("%s read as %+v", tt.in, req)
			}
			b, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "review_plan") {
				t.Errorf("%s written back as %s", tt.in, b)
			}
			var back deepresearch.Request
			if err := json.Unmarshal(b, &back); err != nil || back.Review != req.Review || back.Style != req.Style {
				t.Errorf("%s does not read back: %+v, %v", b, back, err)
			}
		})
	}
	// Inside another document (a journal's manifest, a stored run), a
	// member of the wrong type is named by its path.
	var m struct {
		Request deepresearch.Request `json:"request"`
	}
	var te *json.UnmarshalTypeError
	if err := json.Unmarshal([]byte(`{"request":{"question":7}}`), &m); !errors.As(err, &te) || te.Field != "request.question" {
		t.Errorf("a nested request's bad member: %v", err)
	}
}

// TestReviewSettings: the settings research.review_plan and .review make
// the one ReviewMode of Config.People: none by default, first_plan with
// review_plan, every_cycle with review every_cycle (with or without
// review_plan).
func TestReviewSettings(t *testing.T) {
	for _, tt := range []struct {
		plan   bool
		review string
		want   deepresearch.ReviewMode
	}{
		{false, "first_plan", ""},
		{true, "first_plan", deepresearch.ReviewFirstPlan},
		{false, "every_cycle", deepresearch.ReviewEveryCycle},
		{true, "every_cycle", deepresearch.ReviewEveryCycle},
	} {
		s := config.Defaults()
		s.Research.ReviewPlan, s.Research.Review = tt.plan, tt.review
		cfg, err := config.ResearcherConfig(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.People.Review != tt.want {
			t.Errorf("review_plan %v, review %s: People.Review %q, want %q", tt.plan, tt.review, cfg.People.Review, tt.want)
		}
	}
}
