package deepresearch

import (
	"context"
	"fmt"
	"sync"

	"github.com/deepresearch/deepresearch/events"
)

// waiter is where an Interactive run waits for a person: Run.Answer and
// Run.Review put the answers or the review on its channel (one at a time:
// a second is refused while the first is pending), the run's hook takes
// them off. Whether a run waits is its status (set, and stored, before
// the event that asks), so a word is taken only while the run waits.
//
// Answer and Review return once the run has kept what they gave. Each
// sends its own ack channel with its word; the hook that takes the word
// makes that channel the pending one, and the event that says the run
// kept it (clarification.answered, plan.accepted: the run journals the
// word durably before it) answers it. A word the run did not take (a
// review given as the plan's time ran out) is answered with an error; a
// run that ends first closes done.
type waiter struct {
	id      string // the run's
	answers chan answersPost
	reviews chan review
	done    <-chan struct{}

	mu       sync.Mutex
	pending  chan error // the ack of the word the run took and is keeping
	reviewed bool       // the plan put to review was reviewed: later reviews lose
}

// answersPost is an Answer's answers and its ack.
type answersPost struct {
	answers []string
	ack     chan error
}

// review is a person's word on a plan: the plan to research (no tasks:
// the one proposed), or rejected; ack as answersPost's.
type review struct {
	plan     Plan
	rejected bool
	ack      chan error
}

func newWaiter(id string, done <-chan struct{}) *waiter {
	return &waiter{id: id, answers: make(chan answersPost, 1), reviews: make(chan review, 1), done: done}
}

// ack makes a word's ack channel; it holds one answer.
func ack() chan error { return make(chan error, 1) }

// took records that the run took the word whose ack is a.
func (w *waiter) took(a chan error) {
	w.mu.Lock()
	w.pending = a
	w.mu.Unlock()
}

// sink is the run's event sink: an event that says the run kept a
// person's word answers the call that gave it. A resumed run's word,
// taken from its journal, has no call: nothing is pending then.
func (w *waiter) sink(ev events.Event) {
	switch ev.Type {
	case events.PlanReviewRequested:
		w.mu.Lock()
		w.reviewed = false // a new plan to review
		w.mu.Unlock()
	case events.ClarificationAnswered, events.PlanAccepted:
		w.mu.Lock()
		if w.pending != nil {
			w.pending <- nil
			w.pending = nil
		}
		w.mu.Unlock()
	}
}

// errReviewed refuses a review of a plan another review decided.
func (w *waiter) errReviewed() error {
	return &RunsError{Run: w.id, Err: ErrAnswered, Problem: "the plan was reviewed already, by another review"}
}

// reviewedBy records that the run took the review whose ack is a: a
// review given since, or given later, loses.
func (w *waiter) reviewedBy(a chan error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending, w.reviewed = a, true
	select {
	case r := <-w.reviews:
		r.ack <- w.errReviewed()
	default:
	}
}

// offerReview queues rv for the run to take, unless the plan was reviewed
// already or another review is queued.
func (w *waiter) offerReview(rv review) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reviewed {
		return w.errReviewed()
	}
	select {
	case w.reviews <- rv:
		return nil
	default:
		return &RunsError{Run: w.id, Err: ErrAnswered, Problem: "the plan was reviewed already"}
	}
}

// refuseQueued answers a review given but not taken (the plan's time ran
// out as it came) with ErrAnswered, so that it neither waits for nothing
// nor becomes the next cycle's review.
func (w *waiter) refuseQueued() {
	select {
	case r := <-w.reviews:
		r.ack <- &RunsError{Run: w.id, Err: ErrAnswered,
			Problem: "the plan's review time ran out before this review was taken; the run went on without it"}
	default:
	}
}

// await waits until the run has kept what a call gave it (a, its ack); it
// fails when the run did not take it, ended first (it is asked again if
// it resumes) or ctx is done.
func (w *waiter) await(ctx context.Context, a chan error, what string) error {
	select {
	case err := <-a:
		return err
	case <-w.done:
		select {
		case err := <-a:
			return err
		default:
		}
		return &RunsError{Run: w.id, Err: ErrRunStopped,
			Problem: fmt.Sprintf("run %s stopped before it kept the %s, which it asks for again if it is resumed", w.id, what)}
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
