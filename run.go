package deepresearch

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/sourcegraph/conc/panics"
	"github.com/sourcegraph/conc/pool"

	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/events"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/source"
)

// Section is one research task's merged findings.
type Section struct {
	Task events.PlanTask `json:"task"`
	// Text is the agent's report rewritten onto the merged numbering
	// (Report.Sources); empty when the agent failed.
	Text string `json:"text,omitempty"`
	// Failure says why the agent failed; empty when it did not.
	Failure *Failure `json:"failure,omitempty"`
}

// Failure is why a research agent produced no report.
type Failure struct {
	// Kind is "error", "panic", "timeout" or "canceled".
	Kind  string `json:"kind"`
	Error string `json:"error"`
}

// Report is the outcome of a run.
type Report struct {
	RunID    string `json:"run_id"`
	Question string `json:"question"`
	// Text is the final report with citations numbered 1..K and rendered
	// in the configured Style, without the reference list.
	Text string `json:"text"`
	// Body is the final report with plain [n] markers.
	Body string `json:"body"`
	// References are the sources the report cites, numbered 1..K in order
	// of first citation. Every marker in Text resolves to one of them.
	References []Reference `json:"references"`
	// Sections are the research tasks in plan order with their findings.
	Sections []Section `json:"sections"`
	// Sources is the merged numbering of every source the agents cited,
	// the numbering Sections use.
	Sources []MergedSource `json:"sources"`
	Usage   Usage          `json:"usage"`
	// Duration is the run's wall time; Timings splits it by stage (plan,
	// research, merge, report).
	Duration time.Duration            `json:"duration"`
	Timings  map[string]time.Duration `json:"timings"`

	style Style
	final *finalreport.Report
}

// Markdown returns the report with its reference list.
func (r *Report) Markdown() string {
	if r.final == nil {
		return ""
	}
	return finalreport.Markdown(r.final, r.style)
}

// Findings returns the agents' merged findings as markdown, one section
// per research task, with citations renumbered 1..K and a reference list.
// It is what survives when the final report could not be written (Run
// then returns it in the Report alongside the error), so that no research
// done is lost.
func (r *Report) Findings() (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Findings: %s\n", strings.Join(strings.Fields(r.Question), " "))
	for _, sec := range r.Sections {
		fmt.Fprintf(&b, "\n## %s\n\n", sec.Task.Title)
		if sec.Failure != nil {
			fmt.Fprintf(&b, "> This research task failed (%s).\n", sec.Failure.Kind)
			continue
		}
		b.WriteString(strings.TrimSpace(sec.Text))
		b.WriteString("\n")
	}
	pub, err := collapse.Publish(b.String(), r.Sources)
	if err != nil {
		return "", err
	}
	out := strings.TrimRight(pub.Text, "\n") + "\n"
	if len(pub.References) > 0 {
		out += "\n## References\n\n"
		for _, ref := range pub.References {
			out += "- " + collapse.ReferenceLine(ref.Number, ref.Source) + "\n"
		}
	}
	return out, nil
}

// HTML returns the report as a standalone HTML page with clickable
// citations and a reference list.
func (r *Report) HTML() (string, error) {
	if r.final == nil {
		return "", errors.New("deepresearch: the report has no text")
	}
	return finalreport.HTML(r.Question, r.final)
}

// JSON returns the report as structured data: its blocks, its references
// and a citation sidecar of JSON Pointers to the blocks with the reference
// numbers each cites.
func (r *Report) JSON() (*JSONReport, error) {
	if r.final == nil {
		return nil, errors.New("deepresearch: the report has no text")
	}
	return finalreport.JSON(r.Question, r.final)
}

// Run researches question and returns the report.
//
// One agent failing, panicking or timing out does not fail the run: the
// report covers the other tasks and says which is missing. Run fails when
// planning fails, when no agent produced a report, when writing the final
// report fails (the returned Report then still holds the merged findings),
// or when ctx is done (it returns context.Cause(ctx) after every agent has
// stopped).
func (r *Researcher) Run(ctx context.Context, question string) (*Report, error) {
	return r.RunWith(ctx, question, nil)
}

// RunWith is Run, reporting every event of the run to sink as it happens.
// Sink is called synchronously, one event at a time, in Seq order, from
// the run's goroutines: a slow sink slows the run.
func (r *Researcher) RunWith(ctx context.Context, question string, sink func(Event)) (*Report, error) {
	var sinks []events.Sink
	if sink != nil {
		sinks = append(sinks, events.SinkFunc(sink))
	}
	em := events.NewEmitter(events.NewRunID(), r.cfg.Clock, sinks...)
	return r.run(ctx, question, em)
}

// Stream runs research on question and yields its events as they happen.
// The last pair carries the run's error, if it failed. Stopping the
// iteration early cancels the run and waits for it to stop.
func (r *Researcher) Stream(ctx context.Context, question string) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := make(chan Event, 64)
		var runErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(ch)
			_, runErr = r.RunWith(ctx, question, func(e Event) {
				select {
				case ch <- e:
				case <-ctx.Done():
				}
			})
		}()
		for e := range ch {
			if !yield(e, nil) {
				cancel()
				for range ch {
				}
				<-done
				return
			}
		}
		<-done
		if runErr != nil {
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
	spent   Usage // a failed agent's usage
}

func (r *Researcher) run(ctx context.Context, question string, em *events.Emitter) (*Report, error) {
	start := r.cfg.Clock()
	rep := &Report{RunID: em.RunID(), Question: question, style: r.cfg.Style, Timings: map[string]time.Duration{}}
	log := r.log.With().Str("run", rep.RunID).Logger()
	fail := func(stage string, err error) (*Report, error) {
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
		em.Emit(runLevel, "", events.ErrorData{Error: err.Error(), Stage: stage})
		log.Error().Err(err).Str("stage", stage).Msg("run failed")
		return rep, err
	}
	em.Emit(runLevel, "", events.RunStartedData{Question: question, Config: map[string]any{
		"max_tasks": r.cfg.MaxTasks, "parallelism": r.cfg.Parallelism, "search_limit": r.cfg.SearchLimit,
	}})

	backend, err := r.backend(ctx)
	if err != nil {
		return fail(events.StagePlan, err)
	}

	// Plan.
	t0 := time.Now()
	tasks, planUsage, err := agent.Plan(ctx, r.model, question, r.cfg.MaxTasks)
	rep.Usage = rep.Usage.Add(planUsage)
	rep.Timings[events.StagePlan] = time.Since(t0)
	if err != nil {
		return fail(events.StagePlan, err)
	}
	plan := make([]events.PlanTask, len(tasks))
	for i, t := range tasks {
		plan[i] = events.PlanTask{Index: t.Index, ID: t.ID, Title: t.Title, Question: t.Question}
	}
	em.Emit(runLevel, "", events.PlanData{Tasks: plan})
	log.Info().Int("tasks", len(tasks)).Msg("planned")

	// Research: agents in parallel, results kept in plan order.
	t0 = time.Now()
	outcomes := r.research(ctx, tasks, backend, em)
	rep.Timings[events.StageResearch] = time.Since(t0)
	if err := context.Cause(ctx); err != nil {
		return fail(events.StageResearch, err)
	}

	// Merge, in plan order.
	t0 = time.Now()
	merger := collapse.NewMerger()
	var missing []finalreport.Missing
	var merged []collapse.MergedReport
	for i, o := range outcomes {
		sec := Section{Task: plan[i], Failure: o.failure}
		if o.res != nil {
			rep.Usage = rep.Usage.Add(o.res.Usage)
			mr, err := merger.Add(collapse.Report{Section: tasks[i].Title, Text: o.res.Report, Mapping: o.res.Sources})
			if err != nil {
				return fail(events.StageMerge, err)
			}
			sec.Text = mr.Text
			merged = append(merged, mr)
		} else {
			rep.Usage = rep.Usage.Add(o.spent)
			missing = append(missing, finalreport.Missing{Section: tasks[i].Title, Reason: o.failure.Kind})
		}
		rep.Sections = append(rep.Sections, sec)
	}
	rep.Sources = merger.Sources()
	unknown := merger.Unknown()
	rep.Timings[events.StageMerge] = time.Since(t0)
	em.Emit(runLevel, "", mergedData(rep.Sources, len(unknown)))
	for _, u := range unknown {
		log.Warn().Str("section", u.Section).Int("number", u.Number).Str("url", u.URL).Msg("dropped a citation that resolves to no retrieved source")
	}
	if len(merged) == 0 {
		return fail(events.StageResearch, ErrNoResearch)
	}

	// Final report.
	t0 = time.Now()
	final, err := finalreport.Write(ctx, finalreport.Config{
		Model: r.model,
		Style: r.cfg.Style,
		Hooks: finalreport.Hooks{
			Delta: func(text string) { em.Emit(runLevel, "", events.ReportDeltaData{Text: text}) },
			Citation: func(n int, src source.Source) {
				em.Emit(runLevel, "", events.CitationData{Number: n, Source: src})
			},
		},
	}, finalreport.Input{Question: question, Sections: merged, Sources: rep.Sources, Missing: missing})
	rep.Timings[events.StageReport] = time.Since(t0)
	if err != nil {
		return fail(events.StageReport, err)
	}
	rep.final = final
	rep.Text, rep.Body, rep.References = final.Text, final.Body, final.References
	rep.Usage = rep.Usage.Add(final.Usage)
	refs := make([]events.Reference, len(final.References))
	for i, ref := range final.References {
		refs[i] = events.Reference{Number: ref.Number, Source: ref.Source}
	}
	em.Emit(runLevel, "", events.ReportFinishedData{References: refs})

	rep.Duration = r.cfg.Clock().Sub(start)
	failed := len(missing)
	timings := map[string]int64{}
	for k, v := range rep.Timings {
		timings[k] = v.Milliseconds()
	}
	em.Emit(runLevel, "", events.RunFinishedData{
		Usage: rep.Usage, DurationMS: rep.Duration.Milliseconds(),
		Agents: len(tasks), AgentsFailed: failed, Sources: len(rep.Sources), Citations: len(rep.References),
		Timings: timings,
	})
	log.Info().Int("references", len(rep.References)).Int("failed_agents", failed).Dur("took", rep.Duration).Msg("run finished")
	return rep, nil
}

// research runs one agent per task, at most Parallelism at once, and
// returns their outcomes in plan order. Every agent has stopped when it
// returns. A panicking agent is recovered and reported like a failure.
func (r *Researcher) research(ctx context.Context, tasks []agent.Task, backend SearchBackend, em *events.Emitter) []agentOutcome {
	outcomes := make([]agentOutcome, len(tasks))
	p := pool.New().WithMaxGoroutines(r.cfg.Parallelism)
	for i, task := range tasks {
		p.Go(func() {
			outcomes[i] = r.runAgent(ctx, task, backend, em)
		})
	}
	p.Wait()
	return outcomes
}

func (r *Researcher) runAgent(ctx context.Context, task agent.Task, backend SearchBackend, em *events.Emitter) agentOutcome {
	idx, sec := task.Index, task.Title
	pt := events.PlanTask{Index: task.Index, ID: task.ID, Title: task.Title, Question: task.Question}
	em.Emit(idx, sec, events.AgentStartedData{Task: pt})
	start := time.Now()
	cfg := agent.Config{
		Model:       r.model,
		Search:      backend,
		Budget:      r.cfg.Budget,
		SearchLimit: r.cfg.SearchLimit,
		Canonical:   canon.Key,
		Channel:     r.channel(),
		Hooks: agent.Hooks{
			Search: func(q string, n int) { em.Emit(idx, sec, events.SearchData{Query: q, Results: n}) },
			Source: func(n int, src source.Source) { em.Emit(idx, sec, events.SourceData{Number: n, Source: src}) },
			Delta:  func(text string) { em.Emit(idx, sec, events.DeltaData{Text: text}) },
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
		r.log.Error().Str("task", task.Title).Str("stack", string(rec.Stack)).Msg("research agent panicked")
	case err != nil && ctx.Err() != nil:
		f = &Failure{Kind: events.FailCanceled, Error: err.Error()}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, agent.ErrTimeout):
		f = &Failure{Kind: events.FailTimeout, Error: err.Error()}
	case err != nil:
		f = &Failure{Kind: events.FailError, Error: err.Error()}
	case res == nil || res.Report == "":
		f = &Failure{Kind: events.FailError, Error: "the agent wrote an empty report"}
	}
	if f != nil {
		em.Emit(idx, sec, events.AgentFailedData{Error: f.Error, Kind: f.Kind})
		r.log.Warn().Str("task", task.Title).Str("kind", f.Kind).Str("error", f.Error).Msg("research agent failed")
		out := agentOutcome{failure: f}
		if res != nil {
			out.spent = res.Usage
		}
		return out
	}
	em.Emit(idx, sec, events.AgentFinishedData{
		ToolCalls: res.ToolCalls, Cited: len(res.Cited), Usage: res.Usage,
		DurationMS: time.Since(start).Milliseconds(),
	})
	return agentOutcome{res: res}
}

// channel names where the agents' sources come from, for Source.Channel.
func (r *Researcher) channel() string {
	if r.cfg.Search == nil {
		return "corpus"
	}
	return "search"
}

func mergedData(sources []collapse.Source, unknown int) events.MergedData {
	ms := make([]events.MergedSource, len(sources))
	for i, s := range sources {
		ms[i] = events.MergedSource{Number: s.Number, Source: s.Source, CanonicalURL: s.CanonicalURL,
			FirstSeenSection: s.FirstSeenSection, UsedInSections: s.UsedInSections}
	}
	return events.MergedData{Sources: ms, Unknown: unknown}
}
