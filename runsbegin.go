package deepresearch

import (
	"context"
	"fmt"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
)

// BeginOptions say how Runs.Begin starts one run. The zero BeginOptions
// starts the request as Runs.Start does.
type BeginOptions struct {
	// Resume takes up the interrupted run of the Runs' store with this ID
	// (whatever its origin) instead of starting the request, as Resume
	// takes up each: in a new attempt, from its journal, its events going
	// on after the last one stored. A run already taken up MaxResumes
	// times is not taken up again but ends failed, saying so
	// (ErrResumedTooOften).
	Resume string
	// Unattended starts a run nobody is there to answer: it asks nobody,
	// as a Researcher's run without Request.Hooks — its clarifying
	// questions keep their assumptions, which the report states, and its
	// plans are researched as proposed (a resumed run takes what its
	// journal says its people said). Answer and Review refuse it
	// (ErrNotWaiting).
	Unattended bool
	// Sink, if not nil, is given every new event of the run as it happens,
	// after the store has it, as RunOptions.Sink is: synchronously, in Seq
	// order, from the run's goroutines (a slow Sink slows the run).
	Sink func(events.Event)
	// Waiting, if not nil, is told as the run starts to wait for a person
	// (runstore.NeedsInput, runstore.AwaitingPlan) and runstore.Running as it goes
	// on — answered, or its review time ran out — as RunOptions.Waiting
	// is: from the run's goroutine, which it holds while it runs.
	Waiting func(runstore.Status)
}

// Begin starts req as Start does — stored, under the Runs' limits
// (MaxRuns, RunTimeout paused while a person is awaited, ReviewTimeout
// and OnReviewTimeout), a goroutine of the Runs waiting for it — or takes
// up the interrupted run opts.Resume, and returns the run itself: for a
// front end in the same process as the Runs (the CLI) that follows its
// events as they happen (Run.Events, opts.Sink), answers its people
// (Run.Answer, Run.Review; Runs.Answer and Runs.Review by its ID reach it
// too) and waits for its report (Run.Wait). The run outlives ctx, as
// Start's does: Cancel stops it, Close interrupts it.
//
// It refuses what Start refuses; with opts.Resume, a run the store does
// not hold (runstore.ErrNotFound), one that is not interrupted, and one taken
// up MaxResumes times already (ErrResumedTooOften, the run then ended
// failed).
func (rs *Runs) Begin(ctx context.Context, req Request, opts BeginOptions) (*Run, error) {
	req.Hooks = nil
	if opts.Resume != "" {
		run, err := rs.Get(ctx, opts.Resume)
		if err != nil {
			return nil, err
		}
		if err := rs.giveUp(ctx, run); err != nil {
			return nil, err
		}
		return rs.launch(ctx, run.ID, Request{}, opts)
	}
	if req.RunID == "" {
		req.RunID = NewRunID()
	}
	return rs.launch(ctx, req.RunID, req, opts)
}

// giveUp ends run, interrupted, failed when it was taken up MaxResumes
// times already (a run that crashes its process must not crash it
// forever), and then returns why it is not resumed (ErrResumedTooOften);
// else it returns nil.
func (rs *Runs) giveUp(ctx context.Context, run runstore.Run) error {
	if run.Status != runstore.Interrupted || run.Attempts <= rs.opts.MaxResumes {
		return nil
	}
	log := rs.log.With().Str("run", run.ID).Int("attempts", run.Attempts).Logger()
	msg := fmt.Sprintf("interrupted %d times; not resumed again (at most %d resumes)", run.Attempts, rs.opts.MaxResumes)
	if err := rs.st.GiveUp(ctx, run.ID, msg); err != nil {
		log.Error().Err(err).Msg("ending a run that is not resumed")
	}
	log.Warn().Msg("a run interrupted too often is not resumed")
	return &RunsError{Run: run.ID, Err: ErrResumedTooOften, Problem: fmt.Sprintf("run %s was %s", run.ID, msg)}
}
