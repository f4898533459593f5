package deepresearch

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/worker"
)

// ServeAgent, the worker's side of a worker.Runner: where a run's
// research agents run (see package worker). The run's side — a job sent
// to Config.Agents, its events relayed — is internal/engine's
// (engineAgents says where a run's agents run).

// agentSettings are r's worker.Settings.
func (r *Researcher) agentSettings() worker.Settings {
	m := r.manifest(Request{})
	return worker.Settings{Model: m.Models[events.RoleResearcher], Judge: m.Judge, Channel: m.Channel, Pages: m.Pages}
}

// settingsDiffer names the first setting in which here differs from the
// coordinator's s ("" when none does, or s is zero).
func settingsDiffer(s, here worker.Settings) string {
	if s == (worker.Settings{}) {
		return ""
	}
	for _, f := range []struct{ name, run, here string }{{"the researcher model", s.Model, here.Model}, {"the relevance judge", s.Judge, here.Judge}} {
		if !sameModel(f.run, f.here) {
			return fmt.Sprintf("%s is %s for the run and %s here", f.name, f.run, f.here)
		}
	}
	for _, f := range []struct {
		name      string
		run, here any
	}{{"the search channel", s.Channel, here.Channel}, {"reading web pages", s.Pages, here.Pages}} {
		if f.run != f.here {
			return fmt.Sprintf("%s is %v for the run and %v here", f.name, f.run, f.here)
		}
	}
	return ""
}

// checkJob says why job cannot be run (worker.ErrJob), or nil.
func checkJob(job worker.Job) error {
	switch {
	case job.RunID == "":
		return fmt.Errorf("%w: no run ID", worker.ErrJob)
	case job.Task.ID == "":
		return fmt.Errorf("%w: task %d of run %s has no ID", worker.ErrJob, job.Task.Index, job.RunID)
	case job.Task.Question == "":
		return fmt.Errorf("%w: task %s of run %s has no question", worker.ErrJob, job.Task.ID, job.RunID)
	case job.SearchLimit < 0 || job.SearchLimit > MaxRequestSearchLimit:
		return fmt.Errorf("%w: search limit %d; want 1 to %d", worker.ErrJob, job.SearchLimit, MaxRequestSearchLimit)
	}
	return nil
}

// ServeAgent runs job's agent in this process, with r's models, search
// backend and relevance judge, as a run runs its agents, and returns how
// it ended with its events, for the run that sent job (worker.Runner).
// With st not nil the run's journal is read from st and every call the
// agent completes is appended to it, so that a second attempt at the task
// (its worker died) answers the calls the first completed from st
// instead of making them again. The run's budgets are not known here
// (see package worker); the job's Budget bounds the agent. progress, when
// not nil, is given each of the agent's events as it is emitted, in the
// order of worker.Result.Events, one call at a time (under the agent's
// emitter's lock, from whichever of its goroutines emits); it must not
// block long.
//
// A failed agent is a result, not an error. ServeAgent returns an error
// for a job it cannot run (worker.ErrJob; worker.ErrSettings when the
// job's coordinator has another model, judge or search channel; a journal or
// search backend that cannot be opened) and, with context.Cause(ctx),
// when ctx is done before the agent finished: that attempt did not
// complete.
func (r *Researcher) ServeAgent(ctx context.Context, job worker.Job, st JournalStore, progress func(events.Event)) (_ *worker.Result, err error) {
	if err := checkJob(job); err != nil {
		return nil, err
	}
	if diff := settingsDiffer(job.Settings, r.agentSettings()); diff != "" {
		err := fmt.Errorf("%w: %s", worker.ErrSettings, diff)
		r.log.Error().Err(err).Str("run", job.RunID).Str("task", job.Task.ID).Msg("refusing an agent task: give workers the coordinator's model, judge and search settings")
		return nil, err
	}
	ctx, end, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	ctx, span := telemetry.Begin(ctx, r.cfg.Telemetry.TracerProvider, telemetry.SpanServe, job.RunID, trace.SpanKindConsumer,
		telemetry.Cycle.Int(job.Task.Cycle), telemetry.TaskID.String(job.Task.ID), telemetry.TaskTitle.String(telemetry.Text(job.Task.Title)))
	defer func() { telemetry.End(span, err) }()
	ctx = telemetry.WithMetrics(ctx, r.metrics) // the worker's model calls, searches and reads
	if st != nil {
		failed := func(err error) {
			r.log.Error().Err(err).Str("run", job.RunID).Msg("a completed call could not be journaled; another attempt would make it again")
		}
		jl := engine.JournalLog(st, failed)
		j, err := journal.Open(ctx, jl, job.RunID, journal.Options{Log: jl, Clock: r.cfg.Clock.Now, Hooks: journal.Hooks{AppendFailed: failed}})
		if err != nil {
			if cerr := context.Cause(ctx); cerr != nil {
				return nil, cerr
			}
			return nil, err
		}
		ctx = journal.NewContext(ctx, j)
	}
	if ctx, err = r.withDomains(ctx, job.Domains); err != nil {
		return nil, fmt.Errorf("%w: %w", worker.ErrJob, err)
	}
	if r.pages {
		pages, err := fetch.New(r.fetcher())
		if err != nil {
			return nil, err
		}
		defer pages.Close()
		ctx = fetch.NewContext(ctx, pages)
	}
	backend, err := r.backend(ctx)
	if err != nil {
		return nil, err
	}
	var evs []events.Event
	em := events.NewEmitter(job.RunID, r.cfg.Clock, events.SinkFunc(func(e events.Event) {
		evs = append(evs, e)
		if progress != nil {
			progress(e)
		}
	})).InCycle(job.Task.Cycle)
	m := &engine.Meter{Price: r.cfg.Price, Names: r.cfg.Telemetry.ModelNames, Start: r.cfg.Clock.Now(), Now: r.cfg.Clock.Now}
	p := &engine.Params{RunID: job.RunID, Question: job.Question, SearchLimit: job.SearchLimit, Budget: job.Budget, Clock: r.cfg.Clock,
		Agents: engine.Agents{Channel: r.channel(), Judge: r.judge, Log: r.log}}
	res := engine.RunAgent(ctx, p, job.Task, backend, m.Model(events.RoleResearcher, r.models[events.RoleResearcher]), m, em)
	em.Close()
	if res.Failure != nil && res.Failure.Kind == events.FailCanceled {
		if cerr := context.Cause(ctx); cerr != nil {
			return nil, cerr
		}
	}
	res.Events = evs
	return res, nil
}
