package deepresearch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/telemetry"
)

// People in the loop: a run may ask clarifying questions before it plans,
// show its plan for review before research starts, and shape its report
// to a person's wishes (length, outline, language, audience). The library
// decides when to ask and what an answer changes; a front end only asks,
// through Hooks.

// Answer is a clarifying question with a person's answer (Request.Answers):
// a client that asked its person the questions a run's clarification
// listed (events.ClarificationData) sends them back with the
// request. Its JSON form is {"question": …, "answer": …}.
type Answer struct {
	// Question is the clarifying question as it was asked.
	Question string `json:"question"`
	// Answer is the person's answer.
	Answer string `json:"answer"`
}

// The journal scopes of a person's answers (journal.Ask): the stage
// "person" is never made live.
const (
	scopeAskPerson    = "person/clarify"
	scopeReviewPerson = "person/review"
)

// ReviewMode says which of a run's plans are put to a person for review
// (Hooks.Review): none, the first, or the first and each later cycle's.
// Its text form — a Request's JSON, the --review flag — is the word
// ("never", "first_plan", "every_cycle"), read by UnmarshalText, which
// refuses any other with a *RequestError naming the member "review" and
// the words it takes. The zero ReviewMode is no choice: a Request's
// takes PeopleDefaults.Review, and PeopleDefaults' reviews nothing.
type ReviewMode string

// The review modes.
const (
	// ReviewNever: no plan of the run is reviewed, whatever the
	// settings (PeopleDefaults) say; a front end whose client cannot
	// review (the OpenAI-compatible endpoint) asks for it.
	ReviewNever ReviewMode = "never"
	// ReviewFirstPlan: the first plan, before research starts.
	ReviewFirstPlan ReviewMode = "first_plan"
	// ReviewEveryCycle: the first plan and each later research cycle's
	// follow-up tasks. A later cycle's plan rejected ends the research:
	// the report is written from what was found.
	ReviewEveryCycle ReviewMode = "every_cycle"
)

// MarshalText is the mode's word.
func (m ReviewMode) MarshalText() ([]byte, error) { return []byte(m), nil }

// UnmarshalText sets m to the mode named text: "never", "first_plan",
// "every_cycle", or "" (no choice).
func (m *ReviewMode) UnmarshalText(text []byte) error {
	v := ReviewMode(text)
	if err := v.check(); err != nil {
		return err
	}
	*m = v
	return nil
}

// check reports, as the RequestError of the member "review", a mode that
// is none of the ReviewMode constants (nor "").
func (m ReviewMode) check() error {
	switch m {
	case "", ReviewNever, ReviewFirstPlan, ReviewEveryCycle:
		return nil
	}
	return &RequestError{Field: "review", Problem: fmt.Sprintf("is %q; want never, first_plan or every_cycle", m)}
}

// ClarifyMode says whether a run may ask clarifying questions before it
// plans (Request.Clarify, PeopleDefaults.Clarify). JSON, YAML and flags
// parse it once, through UnmarshalText; the zero ClarifyMode is no
// choice: a Request's takes the Researcher's default, and a default's is
// ClarifyAuto.
type ClarifyMode string

// The clarify modes.
const (
	// ClarifyAuto: the model decides whether the question needs
	// clarifying (the offline model never asks).
	ClarifyAuto ClarifyMode = "auto"
	// ClarifyNever: the run never asks.
	ClarifyNever ClarifyMode = "never"
)

// MarshalText is the mode's word.
func (m ClarifyMode) MarshalText() ([]byte, error) { return []byte(m), nil }

// UnmarshalText sets m to the mode named text: "auto", "never", or ""
// (no choice).
func (m *ClarifyMode) UnmarshalText(text []byte) error {
	v := ClarifyMode(text)
	if err := v.check(); err != nil {
		return err
	}
	*m = v
	return nil
}

// check reports, as the RequestError of the member "clarify", a mode
// that is neither ClarifyAuto nor ClarifyNever (nor "").
func (m ClarifyMode) check() error {
	switch m {
	case "", ClarifyAuto, ClarifyNever:
		return nil
	}
	return &RequestError{Field: "clarify", Problem: fmt.Sprintf("is %q; want auto or never", m)}
}

// MaxClarifyingQuestions caps the questions a run asks.
const MaxClarifyingQuestions = agent.MaxQuestions

// Limits of a run's report controls.
const (
	// MaxLength bounds Request.Length, in words.
	MaxLength = 20000
	// MaxOutlineSections bounds Request.Outline (each section is a task).
	MaxOutlineSections = MaxRequestTasks
	// MaxTextBytes bounds each piece of free text a person adds to a run
	// — an answer, an outline section, a plan task's title or question —
	// as MaxQuestionBytes bounds the question: each goes into prompts.
	MaxTextBytes = MaxQuestionBytes
	// MaxControlBytes bounds Request.Language and Request.Audience.
	MaxControlBytes = 256
)

// tooLong is the RequestError of a field's free text over its limit, or nil.
func tooLong(field, what, text string, limit int) error {
	if n := len(strings.TrimSpace(text)); n > limit {
		return &RequestError{Field: field, Problem: fmt.Sprintf("%sis %d bytes long; the limit is %d", what, n, limit)}
	}
	return nil
}

// ErrPlanRejected is what Hooks.Review returns (wrapped or not) when a
// person rejects the plan: the run fails in the plan stage with it,
// before any research.
var ErrPlanRejected = errors.New("the plan was rejected")

// Plan is a research plan: the tasks a run researches in its first cycle,
// one report section each, and its cycle budget. Its JSON form is what
// `deepresearch plan` prints and `deepresearch run --plan` reads, what
// GET /v1/research/{id}/plan returns and what a reviewer posts back.
type Plan struct {
	Question string `json:"question,omitempty"`
	// Tasks are researched in this order; Index and ID are renumbered
	// from their positions when the plan is run.
	Tasks []events.PlanTask `json:"tasks"`
	// MaxCycles is the run's cycle budget (0: the request's). A reviewer
	// may change it: the run then has that many cycles in all.
	MaxCycles int `json:"max_cycles,omitempty"`
	// Cycle is the research cycle the tasks are for, in a plan given to
	// Hooks.Review: 0 for the first plan, 2 and later for a later cycle's
	// follow-ups (Request.Review ReviewEveryCycle).
	Cycle int `json:"cycle,omitempty"`
	// Asked is when the plan was first put to review, in a plan given to
	// Hooks.Review (for a resumed run, its earlier attempt's time; zero
	// when the run keeps no journal): a deadline for the review runs from
	// then. A run given a plan ignores it.
	Asked time.Time `json:"asked,omitzero"`
}

// Validate reports the first thing wrong with p: no task, too many, or a
// task without a question.
func (p Plan) Validate() error {
	switch {
	case len(p.Tasks) == 0:
		return &RequestError{Field: "plan", Problem: "has no task"}
	case len(p.Tasks) > MaxRequestTasks:
		return &RequestError{Field: "plan", Problem: fmt.Sprintf("has %d tasks; the limit is %d", len(p.Tasks), MaxRequestTasks)}
	case p.MaxCycles < 0 || p.MaxCycles > MaxRequestCycles:
		return &RequestError{Field: "plan", Problem: fmt.Sprintf("has max_cycles %d; it must be between 1 and %d", p.MaxCycles, MaxRequestCycles)}
	}
	for i, t := range p.Tasks {
		if strings.TrimSpace(t.Question) == "" {
			return &RequestError{Field: "plan", Problem: fmt.Sprintf("task %d has no question", i+1)}
		}
		if err := cmp.Or(tooLong("plan", fmt.Sprintf("task %d's question ", i+1), t.Question, MaxTextBytes),
			tooLong("plan", fmt.Sprintf("task %d's title ", i+1), t.Title, MaxTextBytes)); err != nil {
			return err
		}
	}
	return nil
}

// Hooks are how a run asks a person, like net/http/httptrace's
// ClientTrace: each func may be nil. They are called synchronously from
// the run's goroutine, before any research; a hook that waits (for a
// person at a terminal, for an HTTP POST) holds the run there, and should
// return when ctx is done.
type Hooks struct {
	// Ask is given the run's clarifying questions and returns one answer
	// each, in order ("" leaves a question to its assumption). An error
	// fails the run in the plan stage. Nil: nobody can answer; the run
	// proceeds and its report states the assumptions it made.
	Ask func(ctx context.Context, questions []events.Clarification) ([]string, error)
	// Review is given the plan, when the run's Review mode asks for it, and
	// returns the plan to research: as given, or edited (tasks added,
	// removed, reworded). An error wrapping ErrPlanRejected, or any other,
	// fails the run in the plan stage. Nil: the plan is accepted as is.
	Review func(ctx context.Context, plan Plan) (Plan, error)
}

// PeopleDefaults are the people-in-the-loop members a Request takes when
// it leaves them zero (Config.People; the settings research.clarify,
// .review_plan and .review, output.length, .language and .audience).
// Review ReviewFirstPlan or ReviewEveryCycle turns review on for every
// run: a request turns it off only with Review ReviewNever, and a run
// without Hooks.Review is not reviewed anyway.
type PeopleDefaults struct {
	Clarify  ClarifyMode // ClarifyAuto ("") or ClarifyNever
	Review   ReviewMode  // "" or ReviewNever (no review), ReviewFirstPlan or ReviewEveryCycle
	Length   int         // words, 0 to MaxLength
	Language string      // at most MaxControlBytes
	Audience string      // at most MaxControlBytes
}

// check reports the first default a request could not have.
func (d PeopleDefaults) check() error {
	return Request{Clarify: d.Clarify, Review: d.Review, Length: d.Length, Language: d.Language, Audience: d.Audience}.validatePeople()
}

// fill gives req's zero people-in-the-loop members d's values. The
// defaults' defaults (auto, no review) are left out, so that a request
// is the same under the default settings as under none (its journal's
// manifest compares equal).
func (d PeopleDefaults) fill(req Request) Request {
	if req.Clarify == "" && d.Clarify != ClarifyAuto {
		req.Clarify = d.Clarify
	}
	if req.Review == "" && d.Review != ReviewNever {
		req.Review = d.Review
	}
	req.Length = cmp.Or(req.Length, d.Length)
	req.Language = cmp.Or(req.Language, d.Language)
	req.Audience = cmp.Or(req.Audience, d.Audience)
	return req
}

// validatePeople checks the people-in-the-loop members of req.
func (req Request) validatePeople() error {
	if err := req.Clarify.check(); err != nil {
		return err
	}
	if err := req.Review.check(); err != nil {
		return err
	}
	if req.Length < 0 || req.Length > MaxLength {
		return &RequestError{Field: "length", Problem: fmt.Sprintf("is %d; it must be between 1 and %d words (or left out)", req.Length, MaxLength)}
	}
	if len(req.Outline) > MaxOutlineSections {
		return &RequestError{Field: "outline", Problem: fmt.Sprintf("has %d sections; the limit is %d", len(req.Outline), MaxOutlineSections)}
	}
	for i, s := range req.Outline {
		if strings.TrimSpace(s) == "" {
			return &RequestError{Field: "outline", Problem: fmt.Sprintf("section %d is empty", i+1)}
		}
		if err := tooLong("outline", fmt.Sprintf("section %d ", i+1), s, MaxTextBytes); err != nil {
			return err
		}
	}
	if err := cmp.Or(tooLong("language", "", req.Language, MaxControlBytes), tooLong("audience", "", req.Audience, MaxControlBytes)); err != nil {
		return err
	}
	if len(req.Answers) > MaxClarifyingQuestions {
		return &RequestError{Field: "answers", Problem: fmt.Sprintf("has %d answers; a run asks at most %d questions", len(req.Answers), MaxClarifyingQuestions)}
	}
	for i, a := range req.Answers {
		if err := cmp.Or(tooLong("answers", fmt.Sprintf("answer %d ", i+1), a.Answer, MaxTextBytes),
			tooLong("answers", fmt.Sprintf("answer %d's question ", i+1), a.Question, MaxTextBytes)); err != nil {
			return err
		}
	}
	if req.Plan != nil {
		if err := req.Plan.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// controls are req's report controls, for the writer.
func (req Request) controls() finalreport.Controls {
	return finalreport.Controls{Length: req.Length, Outline: req.Outline, Language: req.Language, Audience: req.Audience}
}

// Plan plans req without running it: the clarifying answers in
// req.Answers reach the planner; req.Outline, when set, is the plan (one
// task a section). It asks no question and calls no hook. The plan's JSON
// form is what Request.Plan takes back, edited or not.
func (r *Researcher) Plan(ctx context.Context, req Request) (*Plan, error) {
	req, err := r.settle(req)
	if err != nil {
		return nil, err
	}
	tasks, err := r.planTasks(ctx, r.models[events.RolePlanner], req, req.Answers)
	if err != nil {
		return nil, &StageError{Stage: events.StagePlan, Err: err}
	}
	return &Plan{Question: req.Question, Tasks: planTasksOf(tasks), MaxCycles: req.MaxCycles}, nil
}

// planTasks makes the first cycle's tasks: the given plan, else the
// outline's sections, else the planner's tasks for the question and its
// answers.
func (r *Researcher) planTasks(ctx context.Context, m llms.Model, req Request, answers []Answer) ([]agent.Task, error) {
	switch {
	case req.Plan != nil:
		return tasksOf(req.Question, req.Plan.Tasks), nil
	case len(req.Outline) > 0:
		pts := make([]events.PlanTask, len(req.Outline))
		for i, s := range req.Outline {
			s = strings.Join(strings.Fields(s), " ")
			pts[i] = events.PlanTask{Title: s, Question: s + ", as part of: " + req.Question}
		}
		return tasksOf(req.Question, pts), nil
	}
	maxTasks := req.MaxTasks
	if req.MaxRunAgents > 0 {
		maxTasks = min(maxTasks, req.MaxRunAgents) // the run's agent cap bounds the plan too
	}
	var given []agent.Answer
	for _, a := range answers {
		given = append(given, agent.Answer(a))
	}
	tasks, _, err := agent.PlanAnswered(journal.WithScope(ctx, events.StagePlan.Scope()), m, req.Question, maxTasks, given)
	return tasks, err
}

// tasksOf turns plan tasks into agent tasks numbered by position.
func tasksOf(question string, pts []events.PlanTask) []agent.Task {
	tasks := make([]agent.Task, len(pts))
	for i, t := range pts {
		q := strings.Join(strings.Fields(t.Question), " ")
		title := strings.Join(strings.Fields(t.Title), " ")
		if title == "" {
			title = q
		}
		tasks[i] = agent.Task{Index: i, ID: "t" + strconv.Itoa(i+1), Title: title, Question: q, Objective: question, Cycle: 1}
	}
	return tasks
}

// planTasksOf is the plan form of tasks.
func planTasksOf(tasks []agent.Task) []events.PlanTask {
	out := make([]events.PlanTask, len(tasks))
	for i, t := range tasks {
		out[i] = events.PlanTask{Index: t.Index, ID: t.ID, Title: t.Title, Question: t.Question, Cycle: 1}
	}
	return out
}

// clarify asks the run's clarifying questions, when req allows and the
// model has any, and returns the answers the planner gets. With
// Hooks.Ask the person answers; without, or for a question left blank,
// the run proceeds on the question's assumption, which rep.Clarifications
// keeps for the report to state.
func (r *Researcher) clarify(ctx context.Context, m llms.Model, req Request, em *events.Emitter, rep *Report) ([]Answer, error) {
	if len(req.Answers) > 0 {
		for _, a := range req.Answers {
			rep.Clarifications = append(rep.Clarifications, events.Clarification{Question: a.Question, Answer: a.Answer})
		}
		return req.Answers, nil
	}
	if req.Clarify == ClarifyNever || req.Plan != nil || len(req.Outline) > 0 || r.offline {
		return nil, nil
	}
	qs, _, err := agent.Clarify(journal.WithScope(ctx, scopeClarify), m, req.Question)
	if err != nil || len(qs) == 0 {
		return nil, err
	}
	cs := make([]events.Clarification, len(qs))
	for i, q := range qs {
		cs[i] = events.Clarification{Question: q.Question, Assumption: q.Assumption}
	}
	em.Emit(runLevel, "", events.ClarificationData{Questions: slices.Clone(cs)})
	// The answers are journaled: a resumed run does not ask again, and
	// takes them even where nobody can answer now (off a terminal).
	var got []string
	actx := journal.WithScope(ctx, scopeAskPerson)
	if req.Hooks != nil && req.Hooks.Ask != nil {
		got, err = journal.Ask(actx, cs, func(time.Time) ([]string, error) {
			wctx, span := telemetry.Start(ctx, telemetry.SpanWait, trace.SpanKindInternal, telemetry.WaitFor.String("clarify"))
			got, err := req.Hooks.Ask(wctx, slices.Clone(cs))
			telemetry.End(span, err)
			return got, err
		})
	} else {
		got, _, err = journal.Answered[[]string](actx, cs)
	}
	if err != nil {
		return nil, fmt.Errorf("asking the clarifying questions: %w", err)
	}
	var answers []Answer
	for i := range cs {
		if i < len(got) {
			if err := tooLong("answers", fmt.Sprintf("answer %d ", i+1), got[i], MaxTextBytes); err != nil {
				return nil, fmt.Errorf("asking the clarifying questions: %w", err)
			}
			cs[i].Answer = strings.TrimSpace(got[i])
		}
		if cs[i].Answer != "" {
			answers = append(answers, Answer{Question: cs[i].Question, Answer: cs[i].Answer})
		}
	}
	rep.Clarifications = cs
	em.Emit(runLevel, "", events.ClarificationAnsweredData{Questions: cs, Answered: len(answers) > 0})
	return answers, nil
}

// reviewing reports whether req asks for its plans to be reviewed (by
// Hooks.Review, or, for a resumed run, as its journal says they were).
func (req Request) reviewing() bool {
	return req.Review == ReviewFirstPlan || req.Review == ReviewEveryCycle
}

// review shows the plan to Hooks.Review, when req asks for it, and
// returns the tasks to research; a cycle budget the reviewer set becomes
// req's.
func (r *Researcher) review(ctx context.Context, req *Request, tasks []agent.Task, em *events.Emitter) ([]agent.Task, error) {
	if !req.reviewing() {
		return tasks, nil
	}
	proposed := planTasksOf(tasks)
	got, ok, err := askReview(journal.WithScope(ctx, scopeReviewPerson), *req, proposed, 0, em)
	if err != nil || !ok {
		return tasks, err
	}
	accepted := tasksOf(req.Question, got.Tasks)
	if got.MaxCycles > 0 {
		req.MaxCycles = got.MaxCycles
	}
	d := planEdits(proposed, planTasksOf(accepted))
	d.MaxCycles = got.MaxCycles
	em.Emit(runLevel, "", d)
	return accepted, nil
}

// askReview puts a plan of tasks for cycle to Hooks.Review (after the
// event that says so) and returns the reviewed plan, checked. The review
// is journaled: a resumed run does not ask again, and one still waiting
// knows since when. Without Hooks.Review, the plan is reviewed only as
// the journal says an earlier attempt's reviewer did; false: not
// reviewed.
func askReview(ctx context.Context, req Request, tasks []events.PlanTask, cycle int, em *events.Emitter) (Plan, bool, error) {
	plan := Plan{Question: req.Question, Tasks: slices.Clone(tasks), MaxCycles: req.MaxCycles, Cycle: cycle}
	var got Plan
	var err error
	if req.Hooks == nil || req.Hooks.Review == nil {
		var ok bool
		if got, ok, err = journal.Answered[Plan](ctx, plan); err != nil || !ok {
			return Plan{}, false, err
		}
		em.Emit(runLevel, "", events.PlanReviewData{Tasks: tasks, MaxCycles: req.MaxCycles, Cycle: cycle})
	} else {
		em.Emit(runLevel, "", events.PlanReviewData{Tasks: tasks, MaxCycles: req.MaxCycles, Cycle: cycle})
		got, err = journal.Ask(ctx, plan, func(asked time.Time) (Plan, error) {
			p := plan
			p.Asked = asked
			wctx, span := telemetry.Start(ctx, telemetry.SpanWait, trace.SpanKindInternal, telemetry.WaitFor.String("review"))
			got, err := req.Hooks.Review(wctx, p)
			telemetry.End(span, err)
			return got, err
		})
		if err != nil {
			return Plan{}, false, err
		}
	}
	if err := got.Validate(); err != nil {
		return Plan{}, false, fmt.Errorf("the reviewed plan: %w", err)
	}
	return got, true, nil
}

// reviewCycle shows a later cycle's follow-up tasks to Hooks.Review, when
// req asks for every cycle's (ReviewEveryCycle), and returns the tasks to
// research: a task the reviewer kept (by title) keeps the part and gap it
// follows up, a task added follows up the question as a whole. A plan
// rejected ends the research (events.LoopPlanRejected); a cycle budget
// the reviewer set becomes the run's (returned; 0: none set). It is the
// engine's Params.ReviewCycle, with req's MaxCycles the run's now.
func reviewCycle(ctx context.Context, req Request, em *events.Emitter, log zerolog.Logger, cycle int, tasks []agent.Task) ([]agent.Task, int, string, error) {
	if req.Review != ReviewEveryCycle {
		return tasks, 0, "", nil
	}
	proposed := make([]events.PlanTask, len(tasks))
	byTitle := map[string]agent.Task{}
	for i, t := range tasks {
		proposed[i] = events.PlanTask{Index: i, ID: "f" + strconv.Itoa(i+1), Title: t.Title, Question: t.Question, Cycle: cycle, Part: t.Part, Gap: t.Gap}
		byTitle[t.Title] = t
	}
	em = em.InCycle(cycle)
	got, ok, err := askReview(journal.WithScope(ctx, scopeReviewPerson+"/c"+strconv.Itoa(cycle)), req, proposed, cycle, em)
	switch {
	case err == nil && !ok:
		return tasks, 0, "", nil
	case errors.Is(err, ErrPlanRejected):
		log.Info().Int("cycle", cycle).Msg("a later cycle's plan was rejected; writing from what was found")
		em.Emit(runLevel, "", events.PlanAcceptedData{Tasks: []events.PlanTask{}, Edited: true, Removed: taskTitles(proposed), Cycle: cycle})
		return nil, 0, events.LoopPlanRejected, nil
	case err != nil:
		return nil, 0, "", err
	}
	if got.MaxCycles > 0 && got.MaxCycles < cycle {
		// The reviewer's budget has no room for this cycle: its plan is
		// accepted as none (the event tells a waiting POST so).
		em.Emit(runLevel, "", events.PlanAcceptedData{Tasks: []events.PlanTask{}, MaxCycles: got.MaxCycles, Cycle: cycle,
			Edited: true, Removed: taskTitles(proposed)})
		return nil, got.MaxCycles, events.LoopMaxCycles, nil
	}
	accepted := make([]agent.Task, len(got.Tasks))
	for i, pt := range got.Tasks {
		q := strings.Join(strings.Fields(pt.Question), " ")
		title := cmp.Or(strings.Join(strings.Fields(pt.Title), " "), q)
		t, ok := byTitle[title]
		if !ok {
			t = agent.Task{Objective: req.Question}
		}
		t.Title, t.Question = title, q
		accepted[i] = t
	}
	pts := make([]events.PlanTask, len(accepted))
	for i, t := range accepted {
		pts[i] = events.PlanTask{Index: i, ID: "f" + strconv.Itoa(i+1), Title: t.Title, Question: t.Question, Cycle: cycle, Part: t.Part, Gap: t.Gap}
	}
	d := planEdits(proposed, pts)
	d.MaxCycles, d.Cycle = got.MaxCycles, cycle
	em.Emit(runLevel, "", d)
	return accepted, got.MaxCycles, "", nil
}

// taskTitles are the titles of tasks.
func taskTitles(tasks []events.PlanTask) []string {
	out := make([]string, len(tasks))
	for i, t := range tasks {
		out[i] = t.Title
	}
	return out
}

// planEdits says how accepted differs from proposed, task by title.
func planEdits(proposed, accepted []events.PlanTask) events.PlanAcceptedData {
	d := events.PlanAcceptedData{Tasks: accepted}
	was := map[string]string{}
	for _, t := range proposed {
		was[t.Title] = t.Question
	}
	now := map[string]bool{}
	for _, t := range accepted {
		now[t.Title] = true
		switch q, ok := was[t.Title]; {
		case !ok:
			d.Added = append(d.Added, t.Title)
		case q != t.Question:
			d.Reworded = append(d.Reworded, t.Title)
		}
	}
	for _, t := range proposed {
		if !now[t.Title] {
			d.Removed = append(d.Removed, t.Title)
		}
	}
	d.Edited = len(d.Added)+len(d.Removed)+len(d.Reworded) > 0 || len(proposed) != len(accepted)
	return d
}

// assumptions are the report's sentences about the clarifying questions
// nobody answered.
func assumptions(cs []events.Clarification) []string {
	var out []string
	for _, c := range cs {
		if c.Answer == "" && c.Assumption != "" {
			out = append(out, fmt.Sprintf("Assumed, as nobody answered %q: %s", c.Question, c.Assumption))
		}
	}
	return out
}

// Clarify returns the clarifying questions a run of req would ask before
// planning (none when the question is clear, when req says never or
// carries answers, a plan or an outline, or with the offline model),
// without running it: a front end that asks in its own turn (a chat
// reply) asks these, and runs the request again with Answers.
func (r *Researcher) Clarify(ctx context.Context, req Request) ([]events.Clarification, error) {
	req, err := r.settle(req)
	if err != nil {
		return nil, err
	}
	if len(req.Answers) > 0 || req.Clarify == ClarifyNever || req.Plan != nil || len(req.Outline) > 0 || r.offline {
		return nil, nil
	}
	qs, _, err := agent.Clarify(ctx, r.models[events.RolePlanner], req.Question)
	if err != nil {
		return nil, &StageError{Stage: events.StagePlan, Err: err}
	}
	out := make([]events.Clarification, len(qs))
	for i, q := range qs {
		out[i] = events.Clarification{Question: q.Question, Assumption: q.Assumption}
	}
	return out, nil
}
