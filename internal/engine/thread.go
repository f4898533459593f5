package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/excerpt"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/internal/terms"
	"github.com/deepresearch/deepresearch/source"
)

// Follow-up limits (the root's follow-up.go names the others).
const (
	// maxPassages caps the passages of the parent's sources a follow-up's
	// first cycle picks; maxPassageBytes caps each one.
	maxPassages     = 12
	maxPassageBytes = 1200
	// minCovered is the share of the question's key terms the coverBest
	// best passages must hold for the assessment's "answered" to stand:
	// an assessment that finds the question covered by passages that
	// leave more than a quarter of its words unsaid, or a word no source
	// of the run holds, is overruled, and one cycle of research looks
	// for them.
	minCovered = 0.75
	coverBest  = 5
	minUnread  = 5
)

// Thread is what a follow-up starts from: the run it follows. It is
// journaled as the follow-up starts (the root's journaledThread), in its JSON form,
// so that a resumed or replayed follow-up starts from what the first
// attempt read.
type Thread struct {
	Parent string `json:"parent"`
	// Prior are the parent's references, seeded into the merge under
	// their numbers (Fixed), with the text kept of each by position.
	Prior []collapse.Source `json:"prior"`
	Texts []string          `json:"texts"`
	// Report is the parent's report (Body, numbered as Prior), cut to
	// the root's maxPriorReport.
	Report string `json:"report"`
}

// passages picks the passages of the thread's sources that bear on
// question: their units (package excerpt) scored together by the
// question's key terms, the best maxPassages of them (each once), in
// source order, each cited by its source's position (from 1) in
// th.Prior. best is the text of the coverBest best-scored of them, which
// uncovered holds to the question.
func (th *Thread) passages(question string) (text, best string) {
	type unit struct {
		excerpt.Unit
		src int
	}
	var units []unit
	var all []excerpt.Unit
	for i, text := range th.Texts {
		for _, u := range excerpt.Units(text) {
			units = append(units, unit{u, i + 1})
			all = append(all, u)
		}
	}
	if len(all) == 0 {
		return "", ""
	}
	picked := excerpt.Best(all, excerpt.NewScorer(excerpt.Weights("", question), all), 2*maxPassages)
	var top []string
	seen := map[string]bool{}
	kept := picked[:0]
	for _, p := range picked {
		t := strings.Join(strings.Fields(sourcetext.Clean(p.Text)), " ")
		if t == "" || seen[t] || len(kept) == maxPassages {
			continue // a text read twice (two excerpts of one page) is one passage
		}
		seen[t] = true
		p.Text = t
		kept = append(kept, p)
		if len(top) < coverBest {
			top = append(top, t)
		}
	}
	slices.SortFunc(kept, func(a, b excerpt.Picked) int { return a.Index - b.Index })
	var b strings.Builder
	for _, p := range kept {
		fmt.Fprintf(&b, "%s [%d]\n\n", Clip(p.Text, maxPassageBytes), units[p.Index].src)
	}
	return b.String(), strings.Join(top, "\n\n")
}

// seed runs a follow-up's first cycle: the thread's sources, seeded into
// the merge under the parent's numbers, and the passages of them that
// bear on the question, merged as the findings of the plan's one task
// (its agent events say so: no search is made).
func (l *loop) seed(ctx context.Context) (events.Stage, error) {
	th := l.thread
	l.cycles = 1
	em := l.em.InCycle(1)
	// The question is the one part (FollowUpRequest plans it so; of a
	// plan made otherwise, the first task stands for it).
	t := l.parts[0]
	t.Index, t.ID, t.Cycle = 0, "t1", 1
	l.parts = []agent.Task{t}
	l.tasks = append(l.tasks, t)
	l.outcomes = append(l.outcomes, agentOutcome{})
	em.Emit(runLevel, "", events.CycleStartedData{Cycle: 1, Tasks: []events.PlanTask{planTask(t)}})
	if err := l.merger.Seed(th.Prior); err != nil {
		return events.StageMerge, err
	}
	passages, best := th.passages(l.req.Question)
	res := &agent.Result{Task: t, Report: passages, Sources: map[int]source.Source{}, Texts: map[int]string{}}
	l.uncovered = uncovered(l.req.Question, best, strings.Join(th.Texts, "\n\n"))
	for i, p := range th.Prior {
		res.Sources[i+1], res.Texts[i+1] = p.Source, th.Texts[i]
	}
	em.Emit(t.Index, t.Title, events.AgentStartedData{Task: events.PlanTask{Index: t.Index, ID: t.ID, Title: t.Title, Question: t.Question}})
	for i, p := range th.Prior {
		em.Emit(t.Index, t.Title, events.SourceData{Number: i + 1, Source: p.Source})
	}
	if res.Report != "" {
		em.Emit(t.Index, t.Title, events.DeltaData{Text: res.Report})
	}
	o := agentOutcome{res: res}
	reportOutcome(l.req.Agents.Log, t, o, em)
	l.mu.Lock()
	l.outcomes[0] = o
	l.mergeReady(ctx, 1)
	err := l.mergeErr
	l.mu.Unlock()
	if err != nil {
		return events.StageMerge, err
	}
	l.sources = l.merger.Sources()
	em.Emit(runLevel, "", mergedData(l.sources, len(l.merger.Unknown())))
	l.log.Info().Str("parent", th.Parent).Int("sources", len(th.Prior)).Msg("a follow-up read its run's sources")
	return "", nil
}

// priorReport is the report a follow-up follows, for its writer; "" for
// a run that follows none.
func (l *loop) priorReport() string {
	if l.thread == nil {
		return ""
	}
	return l.thread.Report
}

// uncovered returns the key terms of question (as the question writes
// them) that best, the best passages of the run's sources, does not
// hold, when they are more than minCovered allows or one of them, of
// minUnread letters at least, is in none of the sources' texts (all) — a
// question about something the run never read of; nil otherwise.
func uncovered(question, best, all string) []string {
	held, read := terms.StemSetParts(best), terms.StemSetParts(all)
	var words, missing []string
	unread := false
	seen := map[string]bool{}
	for _, w := range terms.Tokens(question) {
		if st := terms.Stem(w); terms.IsKey(w) && !seen[st] {
			seen[st] = true
			words = append(words, w)
			if !held[st] {
				missing = append(missing, w)
				// A short word ("use", "cost") is too often said
				// otherwise to count as never read.
				unread = unread || !read[st] && utf8.RuneCountInString(w) >= minUnread
			}
		}
	}
	if len(words) == 0 || !unread && float64(len(words)-len(missing)) >= minCovered*float64(len(words)) {
		return nil
	}
	return missing
}

// overrule holds a follow-up's first assessment to what the passages of
// the parent's sources hold: when they leave too many of the question's
// key terms unsaid (l.uncovered), the question is not taken as answered,
// and when the assessment names no task, the question itself is
// researched.
func (l *loop) overrule(a *agent.Assessment) {
	if l.thread == nil || l.cycles != 1 || len(l.uncovered) == 0 {
		return
	}
	detail := "the run's sources do not mention " + strings.Join(l.uncovered, ", ")
	if a.Done {
		a.Done = false
		a.Covered = nil
		a.Reason = strings.TrimSpace(a.Reason + " Overruled: " + detail + ".")
	}
	a.Gaps = append(a.Gaps, agent.Gap{Kind: events.GapUncovered, Part: "t1", Detail: detail})
	if len(a.Tasks) == 0 {
		q := l.req.Question
		a.Tasks = []agent.Task{{Title: Clip(oneLineText(q), 80), Question: q, Objective: q, Part: "t1", Gap: events.GapUncovered + ": " + detail}}
	}
}
