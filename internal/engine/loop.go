package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/refs"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/internal/terms"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

// A report is long, and written section by section, from longSections
// sections or longFindings bytes of merged findings.
const (
	longSections = 6
	longFindings = 32 << 10
)

// A run's research is a loop of cycles. Cycle 1 runs the plan's tasks,
// one agent each, in parallel; their reports are merged in plan order. An
// assessment then reads the merged findings of every cycle so far and
// says whether the question is answered; if not, it names the gaps and
// the follow-up tasks that close them, and cycle 2 runs those, each agent
// told what was found and searched before. And so on, until the question
// is answered, no follow-up would search anything new, a cycle adds no
// source, or a cap is reached: Request.MaxCycles, Config.Limits.MaxRunAgents, or
// a run budget (tokens, cost, time). The merger accumulates across cycles
// as across agents: a source keeps the number it got first.
//
// The report is then written: in one call, as a single pass always was,
// or, when it is long (many parts, or long findings), section by section —
// one call per part of the question from that part's findings, started
// as soon as the part's research is complete, so writing overlaps the
// last cycle's slowest agents — then the title, introduction and summary.
// Before it is published, the report is checked against the question's
// parts: a part it leaves unanswered while a cycle and agents remain
// triggers one more cycle (the assessment is asked for follow-ups on that
// part); otherwise the report says which part is unanswered.
//
// With one cycle allowed (MaxCycles 1) nothing of this runs: one wave,
// one merge, one writer streaming the report, as before the loop.

// loop is the research of one run.
type loop struct {
	req     Params
	em      *events.Emitter
	meter   *Meter
	backend *recordingBackend
	model   func(role string) llms.Model
	log     zerolog.Logger

	// The run's working state, which result returns.
	sources []cite.MergedSource    // the merged numbering
	timings map[events.Stage]int64 // by stage, summed over the cycles

	parts    []agent.Task // the plan: the parts of the question
	tasks    []agent.Task // every task started, by Index
	outcomes []agentOutcome
	merged   map[int]*collapse.MergedReport // by task Index; nil: no report
	merger   *collapse.Merger
	mergeAt  int   // tasks[:mergeAt] are merged
	mergeErr error // a merge that failed
	firstErr error // the first agent's failure
	before   int   // merged sources before the current cycle

	cycles   int
	followed map[string]bool // documents a follow-up was given to read (follow), by docKey
	lowSeen  map[string]bool // claims found to rest on low-tier sources (lowTier), by claimKey
	end      string          // why the loop stopped (events.Loop*)
	dropped  int             // citations the published report made of no merged source

	mu       sync.Mutex // guards the merge while a wave runs, and sections
	sections *sectionJobs

	// thread is what a follow-up starts from (thread.go): its first cycle
	// reads the parent's sources; nil for a run that follows none.
	// uncovered are the question's key terms those passages leave unsaid
	// when too many are (see overrule).
	thread    *Thread
	uncovered []string
}

func newLoop(p Params) *loop {
	parts := p.Plan
	for i := range parts {
		parts[i].Cycle = 1
	}
	return &loop{req: p, em: p.Emitter, meter: p.Meter, backend: &recordingBackend{Backend: p.Backend},
		model: p.Model, log: p.Log, sources: []cite.MergedSource{}, timings: map[events.Stage]int64{},
		parts: parts, merged: map[int]*collapse.MergedReport{}, merger: collapse.NewMerger(), thread: p.Thread}
}

// research runs the cycles and writes the report. It returns the
// published report; on failure, a *StageError-ready stage and cause.
func (l *loop) research(ctx context.Context) (*finalreport.Report, events.Stage, error) {
	defer func() {
		if l.sections != nil {
			l.sections.close()
		}
	}()
	tasks := l.parts
	for {
		cycle := l.cycle
		if l.thread != nil && l.cycles == 0 {
			cycle = func(ctx context.Context, _ []agent.Task) (events.Stage, error) { return l.seed(ctx) }
		}
		stage, err := cycle(ctx, tasks)
		if err != nil {
			return nil, stage, err
		}
		next, end, err := l.next(ctx, nil)
		if err != nil {
			return nil, events.StageResearch, err
		}
		if len(next) > 0 {
			tasks = next
			continue
		}
		l.end = end
		wctx, span := telemetry.Start(ctx, telemetry.SpanWrite, trace.SpanKindInternal)
		final, more, err := l.write(wctx)
		telemetry.End(span, err)
		if err != nil || len(more) == 0 {
			return final, events.StageReport, err
		}
		tasks = more
	}
}

// cycle runs one wave of agents and merges their reports in task order.
func (l *loop) cycle(ctx context.Context, tasks []agent.Task) (stage events.Stage, err error) {
	l.cycles++
	c := l.cycles
	ctx, span := telemetry.Start(ctx, telemetry.SpanCycle, trace.SpanKindInternal, telemetry.Cycle.Int(c))
	defer func() { telemetry.End(span, err) }()
	em := l.em.InCycle(c)
	for i := range tasks {
		tasks[i].Index, tasks[i].ID, tasks[i].Cycle = len(l.tasks)+i, "t"+strconv.Itoa(len(l.tasks)+i+1), c
		if c > 1 {
			tasks[i].Known = l.known(tasks[i])
		}
	}
	l.tasks = append(l.tasks, tasks...)
	l.outcomes = append(l.outcomes, make([]agentOutcome, len(tasks))...)
	l.before = len(l.sources)
	pts := make([]events.PlanTask, len(tasks))
	for i, t := range tasks {
		pts[i] = planTask(t)
	}
	em.Emit(runLevel, "", events.CycleStartedData{Cycle: c, Tasks: pts})
	l.log.Info().Int("cycle", c).Int("tasks", len(tasks)).Msg("cycle started")
	if l.sectioned() {
		l.startSections(ctx)
	}

	clock := l.req.Clock
	t0 := clock.Now()
	first := tasks[0].Index
	outcomes, stuck := research(ctx, &l.req, tasks, l.backend, l.model(events.RoleResearcher), l.meter, em, func(i int, o agentOutcome) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.outcomes[first+i] = o
		l.mergeReady(ctx, first+len(tasks))
	})
	l.timings[events.StageResearch] += clock.Now().Sub(t0).Milliseconds()
	l.mu.Lock()
	for i := range outcomes {
		if o := &l.outcomes[first+i]; o.res == nil && o.failure == nil {
			*o = outcomes[i] // an agent abandoned after cancellation
		}
	}
	l.mu.Unlock()
	if err := context.Cause(ctx); err != nil {
		if len(stuck) > 0 {
			return events.StageResearch, fmt.Errorf("%w; agents still running after %v: %s", err, l.req.Agents.StopGrace, strings.Join(stuck, ", "))
		}
		return events.StageResearch, err
	}
	t0 = clock.Now()
	l.mu.Lock()
	err = l.mergeErr
	l.mu.Unlock()
	if err != nil {
		return events.StageMerge, err
	}
	l.timings[events.StageMerge] += clock.Now().Sub(t0).Milliseconds()
	l.sources = l.req.Tiers(l.merger.Sources())
	unknown := l.merger.Unknown()
	em.Emit(runLevel, "", mergedData(l.sources, len(unknown)))
	if c == 1 {
		for _, u := range unknown {
			l.log.Warn().Str("section", u.Section).Int("number", u.Number).Str("url", u.URL).Str("marker", u.Marker).Msg("dropped a citation that resolves to no retrieved source")
		}
		if len(l.merged) == 0 {
			if l.firstErr != nil {
				return events.StageResearch, fmt.Errorf("%w: %w", ErrNoResearch, l.firstErr)
			}
			return events.StageResearch, ErrNoResearch
		}
	}
	return "", nil
}

// mergeReady merges the finished outcomes at the head of the order, up to
// task index end, and starts the sections their research completes. Its
// caller holds l.mu.
func (l *loop) mergeReady(ctx context.Context, end int) {
	for l.mergeAt < end && l.mergeErr == nil {
		o := l.outcomes[l.mergeAt]
		if o.res == nil && o.failure == nil {
			return // not finished yet
		}
		t := l.tasks[l.mergeAt]
		if o.res != nil {
			// A copy of a text an agent merged before (in this cycle or an
			// earlier one) is cited as that text.
			citeCopiesOnce(l.outcomes[:l.mergeAt+1])
			mr, err := l.merger.Add(collapse.Report{Section: t.Title, Text: o.res.Report, Mapping: o.res.Sources})
			if err != nil {
				l.mergeErr = err
				return
			}
			l.merged[t.Index] = &mr
		} else if l.firstErr == nil {
			l.firstErr = o.err
		}
		l.mergeAt++
	}
	if l.sectioned() {
		l.startSections(ctx)
	}
}

// next decides, after a cycle, whether another follows: the follow-up
// tasks, or why the loop ends. unanswered, when set, are the parts a
// written report left unanswered.
func (l *loop) next(ctx context.Context, unanswered []string) ([]agent.Task, string, error) {
	c := l.cycles
	switch {
	case c >= l.req.MaxCycles:
		return nil, events.LoopMaxCycles, nil
	case l.meter.Spent() != "":
		return nil, events.LoopBudget, nil
	case l.agentsLeft() <= 0:
		return nil, events.LoopMaxAgents, nil
	case c > 1 && unanswered == nil && !l.grew():
		return nil, events.LoopNoNewSources, nil
	}
	clock := l.req.Clock
	t0 := clock.Now()
	in := l.assessInput(unanswered)
	a, err := agent.Assess(journal.WithScope(ctx, events.StageAssess.Scope()), l.model(events.StageAssess.Role()), in)
	l.timings[events.StageAssess] += clock.Now().Sub(t0).Milliseconds()
	if err != nil {
		if cause := context.Cause(ctx); cause != nil {
			return nil, "", cause
		}
		l.log.Warn().Err(err).Int("cycle", c).Msg("the assessment failed; writing from what was found")
		l.em.InCycle(c).Emit(runLevel, "", events.AssessedData{Cycle: c, Covered: []string{}, Gaps: []events.Gap{},
			Decision: events.LoopAssessFailed, Reason: err.Error()})
		return nil, events.LoopAssessFailed, nil
	}
	l.overrule(a)
	decision := events.LoopContinue
	switch {
	case a.Done:
		decision = events.LoopAnswered
	case len(a.Tasks) == 0:
		decision = events.LoopNoFollowUps
	case l.meter.Spent() != "":
		decision = events.LoopBudget // the assessment's own call spent it
	}
	gaps := make([]events.Gap, len(a.Gaps))
	for i, g := range a.Gaps {
		gaps[i] = events.Gap(g)
	}
	if decision != events.LoopBudget && l.meter.Spent() == "" && !(l.thread != nil && decision == events.LoopAnswered) {
		// The documents the cited sources name are read before the
		// question is taken as answered (a follow-up that its run's
		// sources answer reads nothing more).
		follow, err := l.follow(ctx)
		if err != nil {
			return nil, "", err
		}
		if len(follow) > 0 {
			for _, t := range follow {
				gaps = append(gaps, events.Gap{Kind: events.GapReference, Part: t.Part, Detail: strings.TrimPrefix(t.Gap, events.GapReference+": ")})
			}
			if decision != events.LoopContinue {
				a.Done, a.Tasks, decision = false, nil, events.LoopContinue
			}
			a.Reason = strings.TrimSpace(a.Reason + " " + plural(len(follow), "document") + " the cited sources name to read.")
			a.Tasks = append(follow, a.Tasks...)
		}
	}
	if low, tasks := l.lowTier(); len(low) > 0 {
		// A claim resting only on forums or content farms is a gap, and
		// (budget allowing) primary sources for it are looked for.
		gaps = append(gaps, low...)
		if decision != events.LoopBudget && l.meter.Spent() == "" && len(tasks) > 0 {
			if decision != events.LoopContinue {
				a.Done, a.Tasks, decision = false, nil, events.LoopContinue
			}
			a.Reason = strings.TrimSpace(a.Reason + " " + lowTierReason(len(low)))
			a.Tasks = append(a.Tasks, tasks...)
		}
	}
	l.em.InCycle(c).Emit(runLevel, "", events.AssessedData{Cycle: c, Covered: orEmpty(a.Covered), Gaps: gaps,
		Done: a.Done, Decision: decision, Reason: a.Reason})
	l.log.Info().Int("cycle", c).Str("decision", decision).Int("gaps", len(a.Gaps)).Int("follow_ups", len(a.Tasks)).Msg("assessed")
	if decision != events.LoopContinue {
		return nil, decision, nil
	}
	return l.reviewCycle(ctx, c+1, a.Tasks[:min(len(a.Tasks), l.agentsLeft())])
}

// docKey is the key under which follow compares documents: a web page's
// canonical URL (a link's fragment, tracking parameters or case of host
// name it to the same page), else the ID as the backend has it.
func docKey(id string) string {
	if k := canon.Key(id); strings.HasPrefix(k, "http://") || strings.HasPrefix(k, "https://") {
		k, _, _ = strings.Cut(k, "#") // a part of the page: the page is fetched whole
		return k
	}
	return id
}

// maxFollow caps the documents named by references (follow) that one
// cycle's follow-ups read; maxResolve caps the references looked up for
// them.
const (
	maxFollow  = 2
	maxResolve = 256
)

// follow returns follow-up tasks that read the documents the last
// cycle's cited sources name — by a link, a path, a title, a label or a
// heading (refs.Find), as the search backend resolves them
// (search.Resolver; none when it is no Resolver) — best first, at most
// maxFollow. A reference counts when the sentence that makes it bears on
// the question: it shares a quarter of the question's key terms, and at
// least two (one, for a question of one or two), the rule the offline
// assessment follows names by. A document already read, or given to an
// earlier follow-up, is not read again, and the documents read to follow
// a reference are not searched for more (one hop). Each task reads its
// document first (agent.Task.Read) and asks the question of it by its
// title (one Fetch).
//
// Cost: refs.Find over the text the agents read of each cited source,
// and at most maxResolve lookups. The order is the sources' (by number)
// and their references' (in text order), so it is the same every run.
func (l *loop) follow(ctx context.Context) ([]agent.Task, error) {
	res := resolverOf(l.backend.Backend)
	if res == nil {
		return nil, nil
	}
	qStems := terms.StemSet(l.req.Question)
	need := min(len(qStems), max(2, (len(qStems)+3)/4))
	if need == 0 {
		return nil, nil
	}
	read := map[string]bool{}
	for _, s := range l.sources {
		read[docKey(s.ID)] = true
	}
	// The sources the last cycle's findings cite, and the part of the
	// question that cites each first.
	partOf := map[int]string{}
	var cited []cite.MergedSource
	for _, t := range l.order() {
		mr := l.merged[t.Index]
		if t.Cycle != l.cycles || mr == nil || strings.HasPrefix(t.Gap, events.GapReference+":") {
			continue
		}
		for _, s := range finalreport.CitedIn(mr.Text, l.sources) {
			if _, ok := partOf[s.Number]; !ok {
				partOf[s.Number] = ""
				if p := cmp.Or(t.Part, t.ID); l.isPart(p) {
					partOf[s.Number] = p
				}
				cited = append(cited, s)
			}
		}
	}
	slices.SortStableFunc(cited, func(a, b cite.MergedSource) int { return a.Number - b.Number })
	texts := sourceTexts(l.outcomes, l.sources)
	type candidate struct {
		id, name string
		src      cite.MergedSource
		shared   int
	}
	var cands []candidate
	lookups := 0
	for _, s := range cited {
		for _, r := range refs.Find(texts[s.Number]) {
			sh := 0
			for st := range terms.StemSet(r.Sentence) {
				if qStems[st] {
					sh++
				}
			}
			if sh < need {
				continue
			}
			for _, target := range r.Targets {
				if lookups == maxResolve {
					break
				}
				lookups++
				id, err := res.Resolve(ctx, s.ID, target)
				if err != nil {
					if cause := context.Cause(ctx); cause != nil {
						return nil, cause
					}
					continue
				}
				k := docKey(id)
				if !read[k] && !l.followed[k] && !slices.ContainsFunc(cands, func(c candidate) bool { return docKey(c.id) == k }) {
					// Named as the source writes it: a link by its text.
					name := target
					if r.Kind != refs.KindTitle && len(r.Targets) > 1 {
						name = r.Targets[1]
					}
					cands = append(cands, candidate{id: id, name: name, src: s, shared: sh})
				}
				break
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return b.shared - a.shared })
	var out []agent.Task
	for _, c := range cands[:min(len(cands), maxFollow)] {
		if l.followed == nil {
			l.followed = map[string]bool{}
		}
		l.followed[docKey(c.id)] = true
		name := Clip(sourcetext.Clean(c.name), 120)
		// The task asks the question of the document by its title, which
		// its text is more likely to repeat than a path or a link's words.
		title := name
		if doc, err := l.backend.Fetch(ctx, c.id); err == nil && sourcetext.Clean(doc.Title) != "" {
			title = Clip(sourcetext.Clean(doc.Title), 120) // the document's, untrusted: bounded as name is
		} else if cause := context.Cause(ctx); cause != nil {
			return nil, cause
		}
		gap := fmt.Sprintf("%s: %s, named in [%d] %s", events.GapReference, name, c.src.Number, sourcetext.Clean(c.src.Title))
		out = append(out, agent.Task{Title: Clip(title, 80), Question: title + ": " + l.req.Question, Objective: l.req.Question,
			Part: partOf[c.src.Number], Gap: gap, Read: []string{c.id}})
	}
	return out, nil
}

// resolverOf is the search backend's Resolver, under the journal's
// wrapping; nil when it is none.
func resolverOf(b search.Backend) search.Resolver {
	if t, ok := b.(tracedBackend); ok {
		b = t.Backend
	}
	if j, ok := b.(journal.Backend); ok {
		b = j.Backend
	}
	r, _ := b.(search.Resolver)
	return r
}

// agentsLeft is how many agents the run may still start.
func (l *loop) agentsLeft() int {
	limit := l.req.MaxRunAgents
	if limit <= 0 {
		limit = l.req.MaxTasks * l.req.MaxCycles
	}
	return limit - len(l.tasks)
}

// grew reports whether the last cycle added a source to the merged
// numbering.
func (l *loop) grew() bool { return len(l.sources) > l.before }

// order is the tasks in report order: each part, then its follow-ups in
// the order they ran; then the follow-ups on the question as a whole.
func (l *loop) order() []agent.Task {
	var out, loose []agent.Task
	for _, p := range l.parts {
		out = append(out, p)
		for _, t := range l.tasks[len(l.parts):] {
			if t.Part == p.ID {
				out = append(out, t)
			}
		}
	}
	for _, t := range l.tasks[len(l.parts):] {
		if t.Part == "" || !l.isPart(t.Part) {
			loose = append(loose, t)
		}
	}
	return append(out, loose...)
}

func (l *loop) isPart(id string) bool {
	for _, p := range l.parts {
		if p.ID == id {
			return true
		}
	}
	return false
}

// sectionOf is the report section a task's findings go under: its part's
// ID, or its own for a follow-up on the question as a whole.
func (l *loop) sectionOf(t agent.Task) string {
	if t.Cycle > 1 && l.isPart(t.Part) {
		return t.Part
	}
	return t.ID
}

// findings are the merged findings of the report's sections, in order,
// each under its title: a part's own, then its follow-ups'.
func (l *loop) findings() []collapse.MergedReport {
	var out []collapse.MergedReport
	for _, f := range l.sectionFindings() {
		out = append(out, collapse.MergedReport{Section: f.title, Text: f.text})
	}
	return out
}

func (l *loop) partIndex(id string) int {
	for _, p := range l.parts {
		if p.ID == id {
			return p.Index
		}
	}
	return -1
}

// known is what a follow-up task is told of the run so far.
func (l *loop) known(t agent.Task) *agent.Known {
	k := &agent.Known{Searches: l.backend.queries()}
	var own, other []string
	for _, o := range l.order() {
		mr := l.merged[o.Index]
		if mr == nil {
			continue
		}
		lines := agent.Digest(mr.Text, 4)
		if t.Part != "" && (o.ID == t.Part || o.Part == t.Part) {
			own = append(own, lines...)
		} else {
			other = append(other, lines...)
		}
	}
	k.Findings = append(own, other...)
	for _, s := range l.sources {
		k.Sources = append(k.Sources, strings.TrimSpace(sourcetext.Clean(s.Title)+" — "+sourcetext.Clean(cmp.Or(s.URL, s.ID))))
	}
	return k
}

// assessInput is what the assessment reads.
func (l *loop) assessInput(unanswered []string) agent.AssessInput {
	in := agent.AssessInput{Question: l.req.Question, Cycle: l.cycles, MaxCycles: l.req.MaxCycles,
		MaxTasks: min(l.req.MaxTasks, l.agentsLeft()), Parts: l.parts, Searches: l.backend.queries(), Unanswered: unanswered}
	for _, t := range l.order() {
		if mr := l.merged[t.Index]; mr != nil {
			in.Findings = append(in.Findings, agent.Finding{ID: t.ID, Part: cmp.Or(t.Part, t.ID), Title: t.Title, Gap: t.Gap, Text: mr.Text})
		}
	}
	texts := sourceTexts(l.outcomes, l.sources)
	for _, s := range l.sources {
		in.Sources = append(in.Sources, agent.AssessSource{Number: s.Number, Source: s.Source, Text: texts[s.Number]})
	}
	return in
}

// result is the loop's outcome: its sections in report order (a part,
// then its follow-ups), its working state and how the loop ended (what
// the agents spent is the run's meter's). It is called once, when the
// loop is over.
func (l *loop) result() Result {
	res := Result{Sources: l.sources, Sections: []Section{}, Cycles: l.cycles, End: l.end, Timings: l.timings,
		Agents: len(l.tasks), Failed: len(l.missing()), Dropped: l.dropped}
	for _, t := range l.order() {
		o := l.outcomes[t.Index]
		sec := Section{Task: planTask(t), Failure: o.failure}
		if mr := l.merged[t.Index]; o.res != nil && mr != nil {
			sec.Text = mr.Text
		}
		res.Sections = append(res.Sections, sec)
	}
	return res
}

func planTask(t agent.Task) events.PlanTask {
	return events.PlanTask{Index: t.Index, ID: t.ID, Title: t.Title, Question: t.Question, Cycle: t.Cycle, Part: t.Part, Gap: t.Gap}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// recordingBackend is a run's search backend, recording the queries its
// agents search, in order, each once.
type recordingBackend struct {
	search.Backend
	mu   sync.Mutex
	seen map[string]bool
	list []string
}

func (b *recordingBackend) Search(ctx context.Context, q string, limit int) ([]search.Result, error) {
	b.mu.Lock()
	if k := strings.ToLower(strings.Join(strings.Fields(q), " ")); !b.seen[k] {
		if b.seen == nil {
			b.seen = map[string]bool{}
		}
		b.seen[k] = true
		b.list = append(b.list, q)
	}
	b.mu.Unlock()
	return b.Backend.Search(ctx, q, limit)
}

// queries returns the queries searched so far, sorted: a turn's searches
// run at once, so the order they were made in is not the same twice, and
// the assessment's request must be (a resumed or replayed run finds its
// answer in the journal by it).
func (b *recordingBackend) queries() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Sorted(slices.Values(b.list))
}

// write writes the report, checks it against the question's parts and
// publishes it, or returns the follow-up tasks of one more cycle when a
// part is unanswered and budget remains. The returned report's Usage is
// the writing's; an assessment made here is counted in the run's meter already.
func (l *loop) write(ctx context.Context) (*finalreport.Report, []agent.Task, error) {
	ctx = journal.WithScope(ctx, events.StageReport.Scope())
	clock := l.req.Clock
	t0 := clock.Now()
	defer func() { l.timings[events.StageReport] += clock.Now().Sub(t0).Milliseconds() }()
	var notices []string
	if spent := l.meter.Spent(); spent != "" {
		notices = append(notices, "Research stopped early: "+spent+".")
		l.log.Warn().Str("budget", spent).Msg("run budget reached; writing from what was gathered")
	}
	cfg := finalreport.Config{Model: l.model(events.RoleWriter), Style: l.req.Style, MaxTokens: l.req.Budget.MaxTokens, Hooks: finalreport.Hooks{
		Delta: func(text string) { l.em.Emit(runLevel, "", events.ReportDeltaData{Text: text}) },
		Citation: func(n int, src source.Source) {
			l.em.Emit(runLevel, "", events.CitationData{Number: n, Source: src})
		},
		Unknown: func(u citeproc.Unknown) {
			l.dropped++
			l.log.Warn().Int("number", u.Number).Str("url", u.URL).Str("marker", u.Marker).Msg("dropped a citation the report made of no merged source")
		},
	}}
	notices = append(notices, l.req.Assumptions...)
	in := finalreport.Input{Question: l.req.Question, Sections: l.findings(), Sources: l.sources, Missing: l.missing(), Notices: notices, Controls: l.req.Controls, Prior: l.priorReport()}
	if l.req.MaxCycles <= 1 {
		// One pass, as before the loop: the writer streams the report.
		final, err := finalreport.Write(ctx, cfg, in)
		return final, nil, err
	}
	if l.sectioned() {
		return l.writeSectioned(ctx, cfg, in)
	}
	// One call, checked before it is published.
	quiet := cfg
	quiet.Hooks = finalreport.Hooks{}
	draft, err := finalreport.Write(ctx, quiet, in)
	if err != nil {
		return nil, nil, err
	}
	cited := numbers(finalreport.CitedIn(draft.Draft, l.sources))
	var unanswered []string
	for _, p := range l.parts {
		if l.researched(p) && !l.answered(p, cited) {
			unanswered = append(unanswered, p.ID)
		}
	}
	if more := l.more(ctx, unanswered); len(more) > 0 {
		return nil, more, nil
	}
	text := draft.Draft
	for _, id := range unanswered {
		text = strings.TrimRight(text, "\n") + "\n" + finalreport.Note(l.unansweredNote(id))
	}
	final, err := finalreport.Stream(cfg, text, l.sources)
	return final, nil, err
}

// researched reports whether some task of part p produced findings.
func (l *loop) researched(p agent.Task) bool {
	for _, t := range l.tasks {
		if (t.ID == p.ID || t.Part == p.ID) && l.merged[t.Index] != nil {
			return true
		}
	}
	return false
}

// answered reports whether the report answers part p: p's findings (its
// own and its follow-ups') cite a source, and, when cited is not nil, the
// report cites one of them.
func (l *loop) answered(p agent.Task, cited map[int]bool) bool {
	for _, t := range l.tasks {
		if t.ID != p.ID && t.Part != p.ID {
			continue
		}
		mr := l.merged[t.Index]
		if mr == nil {
			continue
		}
		for _, s := range finalreport.CitedIn(mr.Text, l.sources) {
			if cited == nil || cited[s.Number] {
				return true
			}
		}
	}
	return false
}

// more returns one more cycle's tasks for the parts a report leaves
// unanswered, when budget remains and the assessment gives any.
func (l *loop) more(ctx context.Context, unanswered []string) []agent.Task {
	if len(unanswered) == 0 {
		return nil
	}
	next, end, err := l.next(ctx, unanswered)
	if err != nil || len(next) == 0 {
		if end != "" && l.end == events.LoopAnswered {
			l.end = end
		}
		return nil
	}
	l.log.Info().Strs("parts", unanswered).Msg("the report leaves parts unanswered; one more cycle")
	return next
}

// missing lists the tasks that failed.
func (l *loop) missing() []finalreport.Missing {
	var out []finalreport.Missing
	for _, t := range l.order() {
		if f := l.outcomes[t.Index].failure; f != nil {
			out = append(out, finalreport.Missing{Section: t.Title, Reason: f.Kind})
		}
	}
	return out
}

// unansweredNote says plainly that a part is unanswered.
func (l *loop) unansweredNote(id string) string {
	for _, p := range l.parts {
		if p.ID == id {
			return "This report does not answer part of the question — “" + p.Question + "”: the sources searched hold no evidence for it."
		}
	}
	return ""
}

func numbers(sources []cite.MergedSource) map[int]bool {
	m := make(map[int]bool, len(sources))
	for _, s := range sources {
		m[s.Number] = true
	}
	return m
}

// reviewCycle puts a later cycle's follow-up tasks to review, when the
// run reviews every cycle's (Params.ReviewCycle), and returns the tasks
// to research, or why the research ends; a cycle budget the reviewer set
// becomes the run's.
func (l *loop) reviewCycle(ctx context.Context, cycle int, tasks []agent.Task) ([]agent.Task, string, error) {
	if l.req.ReviewCycle == nil {
		return tasks, "", nil
	}
	accepted, maxCycles, end, err := l.req.ReviewCycle(ctx, cycle, l.req.MaxCycles, tasks)
	if maxCycles > 0 {
		l.req.MaxCycles = maxCycles
	}
	return accepted, end, err
}
