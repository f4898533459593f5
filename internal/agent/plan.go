package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/purpose"
)

// DefaultMaxTasks is the plan size Plan uses when maxTasks is not positive
// (research.max_tasks).
const DefaultMaxTasks = defaults.MaxTasks

// maxTitleWords caps a title made up from a question.
const maxTitleWords = 6

// Plan asks the model to split question into at most maxTasks research
// tasks (DefaultMaxTasks when maxTasks <= 0), in one call without tools or
// streaming. The reply is parsed leniently: code fences and prose around
// the JSON are ignored, {"tasks":[…]} and a bare array are accepted, tasks
// may be objects {"title","question"} or plain question strings, the
// complete tasks of a truncated list are kept, and a reply in prose gives
// its numbered or bulleted questions. Tasks without a question are dropped
// and the plan is capped at maxTasks; a reply with no usable task gives a
// single task whose question is the question itself (not an error). Every
// task's Objective is question. Tasks are numbered Index 0..N-1, ID
// "t1".."tN". A model error is returned wrapped ("agent: plan: …"); when ctx is done
// the error is context.Cause(ctx).
func Plan(ctx context.Context, m llms.Model, question string, maxTasks int) ([]Task, Usage, error) {
	return PlanAnswered(ctx, m, question, maxTasks, nil)
}

// PlanAnswered is Plan for a question whose clarifying questions were
// answered: the answers follow the question in the planner's message, one
// "- question → answer" line each under "Clarifications:".
func PlanAnswered(ctx context.Context, m llms.Model, question string, maxTasks int, answers []Answer) ([]Task, Usage, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, Usage{}, ErrEmptyQuestion
	}
	if maxTasks <= 0 {
		maxTasks = DefaultMaxTasks
	}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, plannerPrompt),
		llms.TextParts(llms.ChatMessageTypeHuman, planMessage(question, maxTasks)+clarifications(answers)),
	}
	fail := func(err error) ([]Task, Usage, error) {
		if ctx.Err() != nil {
			return nil, Usage{}, context.Cause(ctx)
		}
		return nil, Usage{}, fmt.Errorf("agent: %s: %w", StagePlan, err)
	}
	resp, err := m.GenerateContent(purpose.With(ctx, purpose.Planner), msgs)
	if err != nil {
		return fail(err)
	}
	choice, err := firstChoice(resp)
	if err != nil {
		return fail(err)
	}
	u := usageOf(choice)

	var tasks []Task
	for _, t := range parsePlan(choice.Content) {
		if len(tasks) == maxTasks {
			break
		}
		q := oneLine(t.Question)
		if q == "" {
			continue
		}
		title := oneLine(t.Title)
		if title == "" {
			title = titleFrom(q)
		}
		tasks = append(tasks, Task{Title: title, Question: q})
	}
	if len(tasks) == 0 {
		tasks = []Task{{Title: titleFrom(question), Question: oneLine(question)}}
	}
	for i := range tasks {
		tasks[i].Index = i
		tasks[i].ID = "t" + strconv.Itoa(i+1)
		tasks[i].Objective = oneLine(question)
	}
	return tasks, u, nil
}

type planTask struct {
	Title    string `json:"title"`
	Question string `json:"question"`
}

// UnmarshalJSON accepts an object or a plain question string.
func (t *planTask) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = planTask{Question: s}
		return nil
	}
	var o struct {
		Title    string `json:"title"`
		Question string `json:"question"`
		Query    string `json:"query"`
		Task     string `json:"task"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*t = planTask{Title: o.Title, Question: cmp.Or(o.Question, cmp.Or(o.Query, o.Task))}
	return nil
}

// parsePlan finds the tasks in a planner reply: the first JSON object
// with a "tasks" array, else the first JSON array of tasks, else the
// complete tasks of a truncated array, else the questions of a list in
// prose.
func parsePlan(text string) []planTask {
	text = stripFences(text)
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		var obj struct {
			Tasks []planTask `json:"tasks"`
		}
		if json.NewDecoder(strings.NewReader(text[i:])).Decode(&obj) == nil && len(obj.Tasks) > 0 {
			return obj.Tasks
		}
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '[' {
			continue
		}
		var arr []planTask
		if json.NewDecoder(strings.NewReader(text[i:])).Decode(&arr) == nil && len(arr) > 0 {
			return arr
		}
	}
	if ts := truncatedTasks(text); len(ts) > 0 {
		return ts
	}
	return proseTasks(text)
}

// truncatedTasks reads the elements of the first JSON array that decode
// completely, stopping at the first that does not: a reply cut off by a
// token limit keeps the tasks it finished.
func truncatedTasks(text string) []planTask {
	i := strings.IndexByte(text, '[')
	if i < 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(text[i:]))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	var out []planTask
	for dec.More() {
		var t planTask
		if dec.Decode(&t) != nil {
			break
		}
		out = append(out, t)
	}
	return out
}

// proseTasks reads a plan written as a list: each numbered or bulleted
// line that ends in a question mark is a task ("1. **Title**: question?"
// gives the title too).
func proseTasks(text string) []planTask {
	var out []planTask
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		rest := strings.TrimLeft(l, "0123456789")
		switch {
		case rest != l && (strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, ")")):
			l = rest[1:]
		case strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "• "):
			_, l, _ = strings.Cut(l, " ")
		default:
			continue
		}
		l = strings.TrimSpace(l)
		if !strings.HasSuffix(l, "?") {
			continue
		}
		var t planTask
		if title, q, ok := strings.Cut(l, ":"); ok && len(strings.Fields(title)) <= maxTitleWords && strings.TrimSpace(q) != "" {
			t.Title = strings.Trim(strings.TrimSpace(title), "*_")
			l = q
		}
		t.Question = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "*_"))
		out = append(out, t)
	}
	return out
}

// stripFences removes markdown code fence lines (```json, ```).
func stripFences(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// titleFrom makes a short title from a question: its first few words.
func titleFrom(q string) string {
	w := strings.Fields(strings.TrimRight(q, "?!. "))
	if len(w) > maxTitleWords {
		return strings.Join(w[:maxTitleWords], " ") + "…"
	}
	return strings.Join(w, " ")
}
