package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
)

// attendant is the person at the terminal for a run of the Runs, as an
// HTTP client is for a server's: it keeps what the run's events put to
// people (the clarifying questions, the plan) and, as the run waits for
// one (BeginOptions.Waiting), asks at the prompt and gives the run the
// answer (Run.Answer, Run.Review). A wait that ends without the person —
// the plan's review time ran out (serve.plan_timeout) — ends the prompt:
// what the run does then is the Runs' to decide (serve.plan_timeout_action).
// The prompts run in goroutines the attendant owns (close waits for them).
type attendant struct {
	t        *prompt
	ctx      context.Context // the command's
	question string
	// fail ends the run whose prompt failed (the terminal closed).
	fail func(error)

	ready chan struct{}     // closed by started
	run   *deepresearch.Run // set by started; nil when the run did not start

	mu        sync.Mutex // guards what follows
	questions []events.Clarification
	plan      deepresearch.Plan
	stop      context.CancelFunc // ends the prompt in progress
	wg        sync.WaitGroup
}

// newAttendant returns the attendant at prompt t of a run of question,
// for the command whose context is ctx.
func newAttendant(ctx context.Context, t *prompt, question string, fail func(error)) *attendant {
	return &attendant{t: t, ctx: ctx, question: question, fail: fail, ready: make(chan struct{})}
}

// event keeps what ev puts to people (BeginOptions.Sink: it comes before
// the run waits).
func (a *attendant) event(ev events.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch d := ev.Data.(type) {
	case events.ClarificationData:
		a.questions = d.Questions
	case events.PlanReviewData:
		a.plan = deepresearch.Plan{Question: a.question, Tasks: d.Tasks, MaxCycles: d.MaxCycles, Cycle: d.Cycle}
	}
}

// waiting is the run's BeginOptions.Waiting: a prompt begins as the run
// waits for a person, and the prompt in progress ends as it stops waiting.
func (a *attendant) waiting(s runstore.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stop != nil {
		a.stop()
		a.stop = nil
	}
	if s != runstore.NeedsInput && s != runstore.AwaitingPlan {
		return
	}
	ctx, stop := context.WithCancel(a.ctx)
	a.stop = stop
	qs, plan := a.questions, a.plan
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.ask(ctx, s, qs, plan)
	}()
}

// ask asks at the prompt, until ctx ends it, what the run waits for (s),
// and gives the run the answer.
func (a *attendant) ask(ctx context.Context, s runstore.Status, qs []events.Clarification, plan deepresearch.Plan) {
	var give func(*deepresearch.Run) error
	if s == runstore.NeedsInput {
		answers, err := a.t.ask(ctx, qs)
		if err != nil {
			a.unanswered(ctx, s, err)
			return
		}
		give = func(run *deepresearch.Run) error { return run.Answer(a.ctx, answers) }
	} else {
		p, err := a.t.review(ctx, plan)
		rv := deepresearch.PlanReview{Plan: p}
		if errors.Is(err, deepresearch.ErrPlanRejected) {
			rv = deepresearch.PlanReview{Reject: true}
		} else if err != nil {
			a.unanswered(ctx, s, err)
			return
		}
		give = func(run *deepresearch.Run) error { return run.Review(a.ctx, rv) }
	}
	select {
	case <-a.ready:
	case <-a.ctx.Done():
		return
	}
	if a.run == nil {
		return
	}
	if err := give(a.run); err != nil && a.ctx.Err() == nil {
		// Typed after the review time ran out, say.
		fmt.Fprintf(a.t.out, "Not taken: %v\n", err)
	}
}

// unanswered handles a prompt for s that ended with err before the
// person answered: the run stopped waiting (ctx ended: a plan's review
// time ran out), the command is ending, or the terminal failed, which
// ends the run as a failing hook did.
func (a *attendant) unanswered(ctx context.Context, s runstore.Status, err error) {
	switch {
	case a.ctx.Err() != nil:
	case ctx.Err() != nil && s == runstore.AwaitingPlan:
		fmt.Fprintln(a.t.out, "\nThe plan was not reviewed in time (serve.plan_timeout): the run does what serve.plan_timeout_action says.")
	case ctx.Err() != nil:
		fmt.Fprintln(a.t.out, "\nThe run stopped waiting for the answers.")
	default:
		a.fail(fmt.Errorf("asking at the terminal: %w", err))
	}
}

// started gives the attendant the run it attends (nil: none started).
func (a *attendant) started(run *deepresearch.Run) {
	a.run = run
	close(a.ready)
}

// close ends the prompt in progress and waits for the attendant's
// goroutines.
func (a *attendant) close() {
	a.mu.Lock()
	if a.stop != nil {
		a.stop()
		a.stop = nil
	}
	a.mu.Unlock()
	a.wg.Wait()
}
