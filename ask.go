package deepresearch

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/search"
)

// A follow-up question asked of a finished run (Runs.Ask, or FollowUpRequest started with the run's Store)
// is a run of its own, stored with its Parent: the run it was asked of.
// It is researched as any run — journaled, streamed with the same
// events, resumed after a crash — with one difference: its first cycle
// is not a wave of agents but the parent's own sources. The passages of
// their stored text (Store.Sources, else the parent report's source
// texts) that bear on the question are picked (package excerpt's
// scorer), merged under the parent's reference numbers, and assessed as
// any cycle's findings are (agent.Assess: the planner model, or offline
// the extractive model's key-term coverage), an "answered" overruled
// when the best passages leave too much of the question unsaid
// (minCovered). When they answer the
// question, the answer is written from them alone and no search is made;
// when they do not, one cycle of research follows, with the parent's
// settings and the Researcher's budgets, and the sources it finds are
// numbered after the parent's. Either way the writer is given the
// parent's report and the passages, not the parent's whole run, and the
// answer keeps the parent's numbering: [3] in a follow-up is [3] of the
// report it follows (collapse.Source.Fixed).
//
// The first cycle is the engine's (internal/engine's thread.go: Thread, its
// passages, the seed and the overruled assessment); loading and
// journaling the thread are the root's.
//
// A thread is flat: a follow-up asked of a follow-up is asked of the run
// that one follows, so every answer of a thread is numbered from the same
// report.

// Follow-up limits.
const (
	// followUpCycles are a follow-up's cycles: the parent's sources, then
	// at most one cycle of research.
	followUpCycles = 2
	// maxPriorReport caps the bytes of the parent's report a follow-up's
	// writer is given. (internal/engine caps the passages its first cycle
	// picks, and says when they cover the question.)
	maxPriorReport = 16 << 10
)

// followUpSection names, in a follow-up's findings, what its first cycle
// read: the parent's sources.
const followUpSection = "Sources of the report"

// flagRe matches the verification's flag of an unsupported citation
// ("[unsupported: 2]") and the space before it.
var flagRe = regexp.MustCompile(`[ \t]*\[unsupported: [0-9, ]+\]`)

// FollowUp is one follow-up question of a run's thread (Runs.Thread):
// the stored run that answers it and, once it has one, its answer in
// Markdown with its reference list, numbered as the report it follows.
type FollowUp struct {
	runstore.Run
	// Answer is the follow-up's report in Markdown (render.Markdown),
	// once it has one.
	Answer string `json:"answer,omitempty"`
	// References are the sources the answer cites, each under the number
	// the report it follows gives it (a new source after those).
	References []render.Reference `json:"references,omitempty"`
}

// FollowUpRequest returns the request of a follow-up question asked of
// run id that st holds: the question, the parent's settings (limits,
// style, length, language, audience), a plan of one task (the question),
// no clarifying question and no plan review, and Parent naming the run
// the thread follows (id's own parent when id is a follow-up). It fails
// as Validate does for the question, with a *RunsError wrapping
// runstore.ErrNotFound for a run st does not hold, and wrapping ErrNoReport
// for a run without a report to follow up.
func FollowUpRequest(ctx context.Context, st Store, id, question string) (Request, error) {
	q := Request{Question: question}
	if err := q.Validate(); err != nil {
		return Request{}, err
	}
	run, err := st.Get(ctx, id)
	if errors.Is(err, runstore.ErrNotFound) {
		return Request{}, noRun(id)
	} else if err != nil {
		return Request{}, err
	}
	if parent := run.Parent; parent != "" {
		if run, err = st.Get(ctx, parent); err != nil {
			return Request{}, fmt.Errorf("deepresearch: follow-up %s: its run %s: %w", id, parent, err)
		}
	}
	if _, _, err := storedReport(ctx, st, run.ID); err != nil {
		return Request{}, err
	}
	var parent Request
	if len(run.Options) > 0 {
		// A request stored by an earlier version may not read: the
		// Researcher's defaults stand in for it.
		_ = json.Unmarshal(run.Options, &parent)
	}
	q = Request{
		Question: q.question(), MaxTasks: parent.MaxTasks, Parallelism: parent.Parallelism, SearchLimit: parent.SearchLimit,
		Style: parent.Style, Length: parent.Length, Language: parent.Language, Audience: parent.Audience,
		Clarify: ClarifyNever, Review: ReviewNever, MaxCycles: followUpCycles, Parent: run.ID,
		Plan: &Plan{Tasks: []events.PlanTask{{Title: engine.Clip(oneLineText(q.question()), 80), Question: q.question()}}, MaxCycles: followUpCycles},
	}
	return q, q.Validate()
}

// Ask starts question, asked of the stored run id, as a follow-up run the
// Runs owns (see FollowUpRequest and Start), and returns its ID once it
// is stored; its events and report are those of any run (Follow,
// Report), and Thread lists it with the run it follows.
func (rs *Runs) Ask(ctx context.Context, id, question string) (string, error) {
	req, err := FollowUpRequest(ctx, rs.st, id, question)
	if err != nil {
		return "", err
	}
	return rs.Start(ctx, req)
}

// Thread returns the follow-ups asked of run id (of the run it follows,
// when id is a follow-up), oldest first, each with its answer once it has
// one. A run the store does not hold is a *RunsError wrapping
// runstore.ErrNotFound.
func (rs *Runs) Thread(ctx context.Context, id string) ([]FollowUp, error) {
	run, err := rs.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	runs, err := rs.st.FollowUps(ctx, cmp.Or(run.Parent, run.ID))
	if err != nil {
		return nil, err
	}
	out := make([]FollowUp, len(runs))
	for i, f := range runs {
		out[i] = FollowUp{Run: f}
		if !f.Status.Ended() {
			continue
		}
		rep, err := rs.Report(ctx, f.ID)
		if err != nil {
			continue // ended without a report: its status and error say why
		}
		if md, err := rep.Render(render.Markdown); err == nil {
			out[i].Answer, out[i].References = string(md), rep.References
		}
	}
	return out, nil
}

// loadThread reads from st what a follow-up of run id starts from.
func loadThread(ctx context.Context, st Store, id string) (*engine.Thread, error) {
	rep, kept, err := storedReport(ctx, st, id)
	if err != nil {
		return nil, err
	}
	pub, err := rep.published()
	if err != nil {
		return nil, err
	}
	keptText := keptTexts(kept)
	read := map[string]string{} // the report's own texts, by document
	for _, s := range rep.Sources {
		if t := rep.SourceTexts[s.Number]; t != "" && len(t) > len(read[s.ID+"\x00"+s.URL]) {
			read[s.ID+"\x00"+s.URL] = t
		}
	}
	// The report as its reader has it, numbered as the seeded sources,
	// without the verification's flags: the writer is to cite, not flag.
	th := &engine.Thread{Parent: id, Report: engine.Clip(strings.TrimSpace(flagRe.ReplaceAllString(pub.Body, "")), maxPriorReport)}
	for _, ref := range pub.References {
		key := ref.ID + "\x00" + ref.URL
		th.Prior = append(th.Prior, collapse.Source{Source: ref.Source, Fixed: ref.Number,
			FirstSeenSection: followUpSection, UsedInSections: []string{followUpSection}})
		th.Texts = append(th.Texts, cmp.Or(keptText[key], read[key]))
	}
	return th, nil
}

// threadScope is the journal scope of a follow-up's thread.
const threadScope = "thread"

// journaledThread returns the thread a follow-up of req.Parent starts
// from: from the run's journal when an earlier attempt read it (a
// resumed follow-up, a replay), else loaded (req.thread: the stored run's, from
// its store) and journaled, as a document fetch of its JSON form.
func journaledThread(ctx context.Context, req Request) (*engine.Thread, error) {
	load := req.thread
	if load == nil {
		load = func(context.Context) (*engine.Thread, error) { return nil, errNoThreadStore(req.Parent) }
	}
	doc, err := journal.Backend{Backend: threadDoc(load)}.Fetch(journal.WithScope(ctx, threadScope), "thread:"+req.Parent)
	if err != nil {
		return nil, err
	}
	var th engine.Thread
	if err := json.Unmarshal([]byte(doc.Text), &th); err != nil {
		return nil, fmt.Errorf("the journaled thread of %s: %w", req.Parent, err)
	}
	if len(th.Texts) != len(th.Prior) {
		return nil, fmt.Errorf("the journaled thread of %s has %d texts for %d sources", req.Parent, len(th.Texts), len(th.Prior))
	}
	return &th, nil
}

// threadDoc serves a follow-up's thread as a search backend's document,
// its JSON form the text, so that the journal keeps it as it keeps a
// document read; it searches nothing.
type threadDoc func(context.Context) (*engine.Thread, error)

// Search finds nothing.
func (threadDoc) Search(context.Context, string, int) ([]search.Result, error) { return nil, nil }

// Fetch loads the thread.
func (load threadDoc) Fetch(ctx context.Context, id string) (search.Document, error) {
	th, err := load(ctx)
	if err != nil {
		return search.Document{}, err
	}
	b, err := json.Marshal(th)
	if err != nil {
		return search.Document{}, err
	}
	return search.Document{DocID: id, Title: "thread of " + th.Parent, Text: string(b)}, nil
}

// errNoThreadStore is the error of a follow-up run without the store
// that holds the run it follows.
func errNoThreadStore(parent string) error {
	return fmt.Errorf("%w: the follow-up of run %s runs with the Store that holds that run (RunOptions.Store, Runs.Ask)", ErrConfig, parent)
}

// maxAnswerScan bounds the stored runs Answered reads, newest first.
const maxAnswerScan = 200

// Answered returns the stored run, among the newest maxAnswerScan, whose
// question is question and whose report renders in Markdown as text
// (spaces around either aside): how a conversation that carries a run's
// report as an answer (the OpenAI-compatible chat endpoint) names the run
// a next question follows up. It fails with a *RunsError wrapping
// runstore.ErrNotFound when none is.
func (rs *Runs) Answered(ctx context.Context, question, text string) (runstore.Run, error) {
	question, text = strings.TrimSpace(question), strings.TrimSpace(text)
	runs, err := rs.st.List(ctx, maxAnswerScan)
	if err != nil {
		return runstore.Run{}, err
	}
	for _, run := range runs {
		if !run.Status.Ended() || strings.TrimSpace(run.Question) != question {
			continue
		}
		rep, err := rs.Report(ctx, run.ID)
		if err != nil {
			continue
		}
		if md, err := rep.Render(render.Markdown); err == nil && strings.TrimSpace(string(md)) == text {
			return run, nil
		}
	}
	return runstore.Run{}, &RunsError{Err: runstore.ErrNotFound, Problem: "no stored run answered the question with that text"}
}
