package deepresearch

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc/panics"
	"github.com/sourcegraph/conc/pool"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/events"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/internal/source"
)

// Request is one research run. Zero fields take the Researcher's Config,
// so a server can vary limits, style and the run ID per request without a
// new Researcher (which would reopen the index). Its JSON form is what a
// front end decodes from a caller.
type Request struct {
	Question string `json:"question"`
	// RunID names the run in its events and Report; empty means a fresh
	// random ID. A server supplies its own, to key its store.
	RunID       string `json:"run_id,omitempty"`
	MaxTasks    int    `json:"max_tasks,omitempty"`
	Parallelism int    `json:"parallelism,omitempty"`
	SearchLimit int    `json:"search_limit,omitempty"`
	// Style names the citation style of Report.Text: "markdown", "plain",
	// "footnote" or "html"; empty means Config.Style.
	Style string `json:"style,omitempty"`
	// Budget bounds each agent; zero fields take Config.Budget's.
	Budget Budget `json:"budget,omitzero"`
}

// maxQuestionBytes bounds a question: it goes into every prompt.
const maxQuestionBytes = 4096

// settle checks req and fills its zero fields from the Researcher's
// configuration.
func (r *Researcher) settle(req Request) (Request, Style, error) {
	q := strings.TrimSpace(req.Question)
	switch {
	case q == "":
		return req, 0, configErrorf("the question is empty")
	case len(q) > maxQuestionBytes:
		return req, 0, configErrorf("the question is %d bytes long; the limit is %d", len(q), maxQuestionBytes)
	case req.MaxTasks < 0 || req.Parallelism < 0 || req.SearchLimit < 0:
		return req, 0, configErrorf("max_tasks, parallelism and search_limit must not be negative")
	}
	req.Question = q
	style := r.cfg.Style
	if req.Style != "" {
		s, err := ParseStyle(req.Style)
		if err != nil {
			return req, 0, err
		}
		style = s
	}
	req.Style = StyleName(style)
	if req.RunID == "" {
		req.RunID = events.NewRunID()
	}
	req.MaxTasks = cmpOr(req.MaxTasks, r.cfg.MaxTasks)
	req.Parallelism = cmpOr(req.Parallelism, r.cfg.Parallelism)
	req.SearchLimit = cmpOr(req.SearchLimit, r.cfg.SearchLimit)
	b := r.cfg.Budget
	b.MaxToolCalls = cmpOr(req.Budget.MaxToolCalls, b.MaxToolCalls)
	b.MaxTokens = cmpOr(req.Budget.MaxTokens, b.MaxTokens)
	if req.Budget.Timeout > 0 {
		b.Timeout = req.Budget.Timeout
	}
	req.Budget = b
	return req, style, nil
}

// Run researches question and returns the report.
//
// One agent failing, panicking or timing out does not fail the run: the
// report covers the other tasks and says which is missing. Run fails with a
// *StageError when the index cannot be built, planning fails, no agent
// produced a report, writing the final report fails (the returned Report
// then still holds the merged findings, and renders them), or ctx is done
// (it then returns context.Cause(ctx) once every agent has stopped, or
// after Config.StopGrace, naming the agents that had not).
func (r *Researcher) Run(ctx context.Context, question string) (*Report, error) {
	return r.Research(ctx, Request{Question: question}, nil)
}

// RunWith is Run, reporting every event of the run to sink as it happens.
func (r *Researcher) RunWith(ctx context.Context, question string, sink func(Event)) (*Report, error) {
	return r.Research(ctx, Request{Question: question}, sink)
}

// Research runs req, reporting every event to sink (if not nil) as it
// happens, and returns the report; see Run for failures. Sink is called
// synchronously, one event at a time, in Seq order, from the run's
// goroutines: a slow sink slows the run. Sequence numbers have no gaps,
// and the last event is run.finished or error; no event follows it.
func (r *Researcher) Research(ctx context.Context, req Request, sink func(Event)) (*Report, error) {
	req, style, err := r.settle(req)
	if err != nil {
		return nil, &StageError{Stage: StagePlan, Err: err}
	}
	ctx, end, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	var sinks []events.Sink
	if sink != nil {
		sinks = append(sinks, events.SinkFunc(sink))
	}
	em := events.NewEmitter(req.RunID, r.cfg.Clock.Now, sinks...)
	defer em.Close()
	return r.run(ctx, req, style, em)
}

// Stream runs research on question and yields its events as they happen.
func (r *Researcher) Stream(ctx context.Context, question string) iter.Seq2[Event, error] {
	return r.StreamRequest(ctx, Request{Question: question})
}

// StreamRequest runs req and yields its events as they happen; no event is
// lost, even when ctx is canceled: the last ones are the run's own account
// of its end (agent.failed … canceled, then error or run.finished). The
// last pair carries the run's error, if it failed. Stopping the iteration
// early cancels the run and waits for it to stop.
func (r *Researcher) StreamRequest(ctx context.Context, req Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := make(chan Event, 64)
		var runErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(ch)
			// The send never gives up: the loop below drains ch to the
			// end, even after the consumer has stopped.
			_, runErr = r.Research(ctx, req, func(e Event) { ch <- e })
		}()
		consuming := true
		for e := range ch {
			if consuming && !yield(e, nil) {
				consuming = false
				cancel()
			}
		}
		<-done
		if consuming && runErr != nil {
			yield(Event{}, runErr)
		}
	}
}

const runLevel = -1 // the Agent of run-level events

// agentOutcome is one plan position's result: the agent's result, or why
// it failed.
type agentOutcome struct {
	res     *agent.Result
	failure *Failure
	err     error
	spent   Usage // a failed agent's usage

	durationMS int64
}

func (r *Researcher) run(ctx context.Context, req Request, style Style, em *events.Emitter) (*Report, error) {
	clock := r.cfg.Clock
	start := clock.Now()
	rep := &Report{Version: ReportVersion, RunID: req.RunID, Question: req.Question, Style: req.Style,
		Sections: []Section{}, Sources: []MergedSource{}, References: []Reference{}, TimingsMS: map[string]int64{}}
	log := r.log.With().Str("run", rep.RunID).Logger()
	meter := &meter{maxTokens: r.cfg.MaxRunTokens, maxCost: r.cfg.MaxCost, price: r.cfg.Price}
	model := func(role string) llms.Model { return metered{r.models[role], role, meter} }
	finish := func() { rep.DurationMS = clock.Now().Sub(start).Milliseconds() }
	fail := func(stage string, err error) (*Report, error) {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (%v)", cause, err)
		}
		serr := &StageError{Stage: stage, Err: err}
		finish()
		rep.Error = serr.Error()
		em.Emit(runLevel, "", events.ErrorData{Error: err.Error(), Stage: stage})
		log.Error().Err(err).Str("stage", stage).Msg("run failed")
		return rep, serr
	}
	stage := func(name string, t0 time.Time) { rep.TimingsMS[name] = clock.Now().Sub(t0).Milliseconds() }
	em.Emit(runLevel, "", events.RunStartedData{Question: req.Question, Config: map[string]any{
		"max_tasks": req.MaxTasks, "parallelism": req.Parallelism, "search_limit": req.SearchLimit, "style": req.Style,
	}})

	if r.pages {
		pages, err := fetch.New(r.cfg.Fetch)
		if err != nil {
			return fail(StageIndex, err)
		}
		defer pages.Close()
		ctx = fetch.NewContext(ctx, pages)
	}
	t0 := clock.Now()
	backend, err := r.backend(ctx)
	if err != nil {
		return fail(StageIndex, err)
	}
	if r.search == nil {
		stage(StageIndex, t0)
	}

	// Plan.
	t0 = clock.Now()
	tasks, planUsage, err := agent.Plan(ctx, model(RolePlanner), req.Question, req.MaxTasks)
	rep.Usage = rep.Usage.Add(planUsage)
	stage(StagePlan, t0)
	if err != nil {
		return fail(StagePlan, err)
	}
	plan := make([]events.PlanTask, len(tasks))
	for i, t := range tasks {
		plan[i] = events.PlanTask{Index: t.Index, ID: t.ID, Title: t.Title, Question: t.Question}
	}
	em.Emit(runLevel, "", events.PlanData{Tasks: plan})
	log.Info().Int("tasks", len(tasks)).Msg("planned")

	// Research: agents in parallel, results kept in plan order.
	t0 = clock.Now()
	outcomes, stuck := r.research(ctx, req, tasks, backend, model(RoleResearcher), meter, em)
	stage(StageResearch, t0)
	if err := context.Cause(ctx); err != nil {
		if len(stuck) > 0 {
			return fail(StageResearch, fmt.Errorf("%w; agents still running after %v: %s", err, r.cfg.StopGrace, strings.Join(stuck, ", ")))
		}
		return fail(StageResearch, err)
	}

	// Merge, in plan order: a copy another agent read is cited as it.
	t0 = clock.Now()
	citeCopiesOnce(outcomes)
	merger := collapse.NewMerger()
	var missing []finalreport.Missing
	var merged []collapse.MergedReport
	var firstErr error
	for i, o := range outcomes {
		sec := Section{Task: plan[i], Failure: o.failure}
		if o.res != nil {
			rep.Usage = rep.Usage.Add(o.res.Usage)
			mr, err := merger.Add(collapse.Report{Section: tasks[i].Title, Text: o.res.Report, Mapping: o.res.Sources})
			if err != nil {
				return fail(StageMerge, err)
			}
			sec.Text = mr.Text
			merged = append(merged, mr)
		} else {
			rep.Usage = rep.Usage.Add(o.spent)
			missing = append(missing, finalreport.Missing{Section: tasks[i].Title, Reason: o.failure.Kind})
			if firstErr == nil {
				firstErr = o.err
			}
		}
		rep.Sections = append(rep.Sections, sec)
	}
	rep.Sources = merger.Sources()
	unknown := merger.Unknown()
	stage(StageMerge, t0)
	em.Emit(runLevel, "", mergedData(rep.Sources, len(unknown)))
	for _, u := range unknown {
		log.Warn().Str("section", u.Section).Int("number", u.Number).Str("url", u.URL).Str("marker", u.Marker).Msg("dropped a citation that resolves to no retrieved source")
	}
	if len(merged) == 0 {
		if firstErr != nil {
			return fail(StageResearch, fmt.Errorf("%w: %w", ErrNoResearch, firstErr))
		}
		return fail(StageResearch, ErrNoResearch)
	}

	// Final report.
	t0 = clock.Now()
	var notices []string
	if spent := meter.spent(); spent != "" {
		notices = append(notices, "Research stopped early: "+spent+".")
		log.Warn().Str("budget", spent).Msg("run budget reached; writing from what was gathered")
	}
	final, err := finalreport.Write(ctx, finalreport.Config{
		Model:     model(RoleWriter),
		Style:     style,
		MaxTokens: req.Budget.MaxTokens,
		Hooks: finalreport.Hooks{
			Delta: func(text string) { em.Emit(runLevel, "", events.ReportDeltaData{Text: text}) },
			Citation: func(n int, src source.Source) {
				em.Emit(runLevel, "", events.CitationData{Number: n, Source: src})
			},
		},
	}, finalreport.Input{Question: req.Question, Sections: merged, Sources: rep.Sources, Missing: missing, Notices: notices})
	stage(StageReport, t0)
	if err != nil {
		return fail(StageReport, err)
	}
	rep.Draft, rep.Text, rep.Body, rep.References = final.Draft, final.Text, final.Body, final.References
	rep.Usage = rep.Usage.Add(final.Usage)
	refs := make([]events.Reference, len(final.References))
	for i, ref := range final.References {
		refs[i] = events.Reference{Number: ref.Number, Source: ref.Source}
	}
	em.Emit(runLevel, "", events.ReportFinishedData{References: refs})

	// Verify: every citation against the text of its source, as read.
	t0 = clock.Now()
	rep.SourceTexts = sourceTexts(outcomes, rep.Sources)
	streamed := rep.Text
	if err := r.verifyReport(ctx, rep, style, rep.SourceTexts, r.cfg.Unsupported); err != nil {
		return fail(StageVerify, err)
	}
	stage(StageVerify, t0)
	revised := ""
	if rep.Text != streamed {
		revised = rep.Text
	}
	em.Emit(runLevel, "", verifiedData(rep.Verification, revised))

	finish()
	em.Emit(runLevel, "", events.RunFinishedData{
		Usage: rep.Usage, DurationMS: rep.DurationMS,
		Agents: len(tasks), AgentsFailed: len(missing), Sources: len(rep.Sources), Citations: len(rep.References),
		Timings: rep.TimingsMS, Stopped: meter.spent(), CostUSD: meter.costOf(),
	})
	log.Info().Int("references", len(rep.References)).Int("failed_agents", len(missing)).Int64("took_ms", rep.DurationMS).Msg("run finished")
	return rep, nil
}

// research runs one agent per task, at most req.Parallelism at once, and
// returns their outcomes in plan order. Normally every agent has stopped
// when it returns. When ctx is done it waits at most Config.StopGrace for
// the agents to stop; those that have not are reported as canceled (their
// titles are returned in stuck) and left to finish on their own: their
// outcomes and events are dropped.
func (r *Researcher) research(ctx context.Context, req Request, tasks []agent.Task, backend SearchBackend, model llms.Model, meter *meter, em *events.Emitter) (outcomes []agentOutcome, stuck []string) {
	var mu sync.Mutex // guards outcomes, done and abandoned
	outcomes = make([]agentOutcome, len(tasks))
	done := make([]bool, len(tasks))
	abandoned := false

	p := pool.New().WithMaxGoroutines(req.Parallelism)
	for i, task := range tasks {
		p.Go(func() {
			if r.agents != nil {
				select {
				case r.agents <- struct{}{}:
					defer func() { <-r.agents }()
				case <-ctx.Done():
				}
			}
			o := r.runAgent(ctx, req, task, backend, model, meter, em)
			mu.Lock()
			defer mu.Unlock()
			if abandoned {
				return
			}
			outcomes[i], done[i] = o, true
			r.reportOutcome(task, o, em)
		})
	}
	finished := make(chan struct{})
	go func() { p.Wait(); close(finished) }()
	select {
	case <-finished:
		return outcomes, nil
	case <-ctx.Done():
	}
	grace := make(chan struct{})
	stop := r.cfg.Clock.AfterFunc(r.cfg.StopGrace, func() { close(grace) })
	select {
	case <-finished:
		stop()
		return outcomes, nil
	case <-grace:
	}
	mu.Lock()
	defer mu.Unlock()
	abandoned = true
	for i, task := range tasks {
		if done[i] {
			continue
		}
		stuck = append(stuck, fmt.Sprintf("%q", task.Title))
		f := &Failure{Kind: events.FailCanceled, Error: fmt.Sprintf("did not stop within %v of cancellation", r.cfg.StopGrace)}
		outcomes[i] = agentOutcome{failure: f, err: context.Cause(ctx)}
		em.Emit(task.Index, task.Title, events.AgentFailedData{Error: f.Error, Kind: f.Kind})
	}
	r.log.Error().Strs("agents", stuck).Msg("research agents did not stop after cancellation; abandoned")
	return outcomes, stuck
}

// runAgent runs one agent and classifies how it ended.
func (r *Researcher) runAgent(ctx context.Context, req Request, task agent.Task, backend SearchBackend, model llms.Model, meter *meter, em *events.Emitter) agentOutcome {
	idx, sec := task.Index, task.Title
	pt := events.PlanTask{Index: task.Index, ID: task.ID, Title: task.Title, Question: task.Question}
	em.Emit(idx, sec, events.AgentStartedData{Task: pt})
	start := r.cfg.Clock.Now()
	cfg := agent.Config{
		Model:       model,
		Search:      backend,
		Stop:        func() bool { return meter.spent() != "" },
		Budget:      req.Budget,
		SearchLimit: req.SearchLimit,
		Canonical:   canon.Key,
		Channel:     r.channel(),
		AfterFunc:   r.cfg.Clock.AfterFunc,
		Relevance:   r.judge,
		Hooks: agent.Hooks{
			Search: func(q string, n int) { em.Emit(idx, sec, events.SearchData{Query: q, Results: n}) },
			Source: func(n int, src source.Source) { em.Emit(idx, sec, events.SourceData{Number: n, Source: src}) },
			Delta:  func(text string) { em.Emit(idx, sec, events.DeltaData{Text: text}) },
			Filtered: func(rep relevance.Report) {
				em.Emit(idx, sec, events.FilteredData{Query: rep.Query, Judge: rep.Judge, Kept: verdicts(rep.Kept), Dropped: verdicts(rep.Dropped)})
			},
			Cited: func(cited []citeproc.Citation) {
				cs := make([]events.CitedSource, len(cited))
				for i, c := range cited {
					cs[i] = events.CitedSource{Number: c.Number, Source: c.Source}
				}
				em.Emit(idx, sec, events.CitedData{Sources: cs})
			},
		},
	}
	var res *agent.Result
	var err error
	var pc panics.Catcher
	pc.Try(func() { res, err = agent.Run(ctx, cfg, task) })
	var f *Failure
	switch rec := pc.Recovered(); {
	case rec != nil:
		f = &Failure{Kind: events.FailPanic, Error: fmt.Sprint(rec.Value)}
		err = rec.AsError()
		r.log.Error().Str("task", task.Title).Str("stack", string(rec.Stack)).Msg("research agent panicked")
	case err != nil && ctx.Err() != nil:
		f = &Failure{Kind: events.FailCanceled, Error: err.Error()}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, agent.ErrTimeout):
		f = &Failure{Kind: events.FailTimeout, Error: err.Error()}
	case err != nil:
		f = &Failure{Kind: events.FailError, Error: err.Error()}
	case res == nil || res.Report == "":
		err = errors.New("the agent wrote an empty report")
		f = &Failure{Kind: events.FailError, Error: err.Error()}
	}
	if f != nil {
		out := agentOutcome{failure: f, err: err}
		if res != nil {
			out.spent = res.Usage
		}
		return out
	}
	return agentOutcome{res: res, durationMS: r.cfg.Clock.Now().Sub(start).Milliseconds()}
}

// reportOutcome emits an agent's last event: finished, or failed and why.
func (r *Researcher) reportOutcome(task agent.Task, o agentOutcome, em *events.Emitter) {
	if f := o.failure; f != nil {
		em.Emit(task.Index, task.Title, events.AgentFailedData{Error: f.Error, Kind: f.Kind})
		r.log.Warn().Str("task", task.Title).Str("kind", f.Kind).Str("error", f.Error).Msg("research agent failed")
		return
	}
	em.Emit(task.Index, task.Title, events.AgentFinishedData{
		ToolCalls: o.res.ToolCalls, Cited: len(o.res.Cited), Usage: o.res.Usage, DurationMS: o.durationMS,
	})
}

func verdicts(vs []relevance.Verdict) []events.FilterVerdict {
	out := make([]events.FilterVerdict, len(vs))
	for i, v := range vs {
		out[i] = events.FilterVerdict(v)
	}
	return out
}

func mergedData(sources []collapse.Source, unknown int) events.MergedData {
	ms := make([]events.MergedSource, len(sources))
	for i, s := range sources {
		ms[i] = events.MergedSource{Number: s.Number, Source: s.Source, CanonicalURL: s.CanonicalURL,
			FirstSeenSection: s.FirstSeenSection, UsedInSections: s.UsedInSections}
	}
	return events.MergedData{Sources: ms, Unknown: unknown}
}
