package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/events"
)

// What a run does when its plan is not reviewed within Config.PlanTimeout.
const (
	PlanTimeoutProceed = "proceed" // research the plan as proposed
	PlanTimeoutCancel  = "cancel"  // end the run, failed
)

// errPlanTimeout ends a run whose plan was not reviewed in time, when
// Config.PlanTimeoutAction is PlanTimeoutCancel.
var errPlanTimeout = errors.New("the plan was not reviewed in time")

// waiter is where a live run of this server waits for a person: a POST
// puts the answers or the review on its channel (one at a time: a second
// is refused while the first is pending), the run's hook takes them off.
// Whether a run waits is the store's status (the library stores it before
// the event that asks), so a POST is taken only while the run waits.
//
// A POST is answered once the run has kept what it posted. Each POST
// sends its own ack channel with its word; the hook that takes the word
// makes that channel the pending one, and the event that says the run
// kept it (clarification.answered, plan.accepted: the run journals the
// word durably before it) answers it. A word the run did not take (a
// review posted as the plan's time ran out) is answered with an error; a
// run that ends first closes done.
type waiter struct {
	answers chan answersPost
	reviews chan review
	done    <-chan struct{}

	mu       sync.Mutex
	pending  chan error // the ack of the word the run took and is keeping
	reviewed bool       // the plan put to review was reviewed: later reviews lose

	started     chan struct{} // closed at the run's first event
	startedOnce sync.Once
}

// answersPost is a POST …/input's answers and its ack.
type answersPost struct {
	answers []string
	ack     chan error
}

// review is a person's word on a plan: the plan to research (no tasks:
// the one proposed), or rejected; ack as answersPost's.
type review struct {
	plan     deepresearch.Plan
	rejected bool
	ack      chan error
}

func newWaiter(done <-chan struct{}) *waiter {
	return &waiter{answers: make(chan answersPost, 1), reviews: make(chan review, 1), done: done, started: make(chan struct{})}
}

// ack makes a POST's ack channel; it holds one answer.
func ack() chan error { return make(chan error, 1) }

// took records that the run took the word whose ack is a.
func (w *waiter) took(a chan error) {
	w.mu.Lock()
	w.pending = a
	w.mu.Unlock()
}

// sink is the run's event sink: an event that says the run kept a
// person's word answers the POST that gave it. A resumed run's word,
// taken from its journal, has no POST: nothing is pending then.
func (w *waiter) sink(ev deepresearch.Event) {
	w.startedOnce.Do(func() { close(w.started) })
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

// reviewedBy records that the run took the review whose ack is a: a
// review posted since, or posting later, loses with a conflict.
func (w *waiter) reviewedBy(a chan error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending, w.reviewed = a, true
	select {
	case r := <-w.reviews:
		r.ack <- &requestError{http.StatusConflict, typeConflict, "the plan was reviewed already, by another review"}
	default:
	}
}

// offerReview queues rv for the run to take, unless the plan was
// reviewed already or another review is queued.
func (w *waiter) offerReview(rv review) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reviewed {
		return &requestError{http.StatusConflict, typeConflict, "the plan was reviewed already, by another review"}
	}
	select {
	case w.reviews <- rv:
		return nil
	default:
		return &requestError{http.StatusConflict, typeConflict, "the plan was reviewed already"}
	}
}

// refuseQueued answers a review posted but not taken (the plan's time ran
// out as it came) with a conflict, so it neither waits for nothing nor
// becomes the next cycle's review.
func (w *waiter) refuseQueued() {
	select {
	case r := <-w.reviews:
		r.ack <- &requestError{http.StatusConflict, typeConflict, "the plan's review time ran out before this review was taken; the run went on without it"}
	default:
	}
}

// await waits until the run has kept what a POST gave it (a, its ack);
// it fails when the run did not take it, ended first (it is asked again
// if it resumes) or the client went away.
func (w *waiter) await(r *http.Request, a chan error, what string) error {
	select {
	case err := <-a:
		return err
	case <-w.done:
		select {
		case err := <-a:
			return err
		default:
		}
		return &requestError{http.StatusServiceUnavailable, typeServer, fmt.Sprintf("the run stopped before it kept the %s; post them again when it waits again", what)}
	case <-r.Context().Done():
		return context.Cause(r.Context())
	}
}

// hooks are the run's Hooks: each waits for the matching POST, with the
// run's time limit paused (pause returns the function that re-arms it).
func (s *Server) hooks(w *waiter, pause func() func()) *deepresearch.Hooks {
	return &deepresearch.Hooks{
		Ask: func(ctx context.Context, qs []deepresearch.Clarification) ([]string, error) {
			defer pause()()
			select {
			case a := <-w.answers:
				w.took(a.ack)
				return a.answers, nil
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		},
		Review: func(ctx context.Context, p deepresearch.Plan) (deepresearch.Plan, error) {
			defer pause()()
			var timeout <-chan struct{}
			if s.cfg.PlanTimeout > 0 {
				// The deadline runs from when the plan was first put to
				// review, across restarts (the run journals that time).
				wait := s.cfg.PlanTimeout
				if !p.Asked.IsZero() {
					wait -= s.cfg.Clock.Now().Sub(p.Asked)
				}
				ch := make(chan struct{})
				if wait <= 0 {
					close(ch)
				} else {
					stop := s.cfg.Clock.AfterFunc(wait, func() { close(ch) })
					defer stop()
				}
				timeout = ch
			}
			select {
			case r := <-w.reviews:
				w.reviewedBy(r.ack)
				switch {
				case r.rejected:
					w.took(nil)
					r.ack <- nil // taken: a rejection keeps nothing more
					return p, deepresearch.ErrPlanRejected
				case len(r.plan.Tasks) == 0:
					return p, nil
				}
				return r.plan, nil
			case <-timeout:
				w.refuseQueued()
				if s.cfg.PlanTimeoutAction == PlanTimeoutCancel {
					return p, fmt.Errorf("%w (%v)", errPlanTimeout, s.cfg.PlanTimeout)
				}
				return p, nil
			case <-ctx.Done():
				return p, context.Cause(ctx)
			}
		},
	}
}

// waiting returns the waiter of a run of this server that waits with
// status want, and the run.
func (s *Server) waiting(r *http.Request, want deepresearch.RunStatus) (*waiter, deepresearch.StoredRun, error) {
	run, err := s.lookup(r)
	if err != nil {
		return nil, run, err
	}
	s.mu.Lock()
	lr := s.runs[run.ID]
	s.mu.Unlock()
	switch {
	case run.Status != want:
		return nil, run, &requestError{http.StatusConflict, typeConflict, fmt.Sprintf("run %s is %s, not %s", run.ID, run.Status, want)}
	case lr == nil:
		return nil, run, &requestError{http.StatusConflict, typeConflict, fmt.Sprintf("run %s waits in another server process; answer it there", run.ID)}
	}
	return lr.wait, run, nil
}

// lastEvent returns the payload of the last event of type t the store
// holds for run id.
func (s *Server) lastEvent(ctx context.Context, run deepresearch.StoredRun, t events.Type) (deepresearch.Payload, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var found deepresearch.Payload
	for e, err := range s.store.Events(ctx, run.ID, 0) {
		if err != nil {
			return nil, err
		}
		if events.Type(e.Type) == t {
			var ev events.Event
			if err := json.Unmarshal(e.JSON, &ev); err != nil {
				return nil, err
			}
			found = ev.Data
		}
		if e.Seq >= run.Events {
			break
		}
	}
	if found == nil {
		return nil, &requestError{http.StatusConflict, typeConflict, fmt.Sprintf("run %s has no %s event", run.ID, t)}
	}
	return found, nil
}

// postInput answers a run's clarifying questions: {"answers": ["…", …]},
// one a question, in order ("" keeps a question's assumption).
func (s *Server) postInput(w http.ResponseWriter, r *http.Request) {
	if s.forwarded(w, r, "/input") {
		return
	}
	wt, run, err := s.waiting(r, deepresearch.StatusNeedsInput)
	if err != nil {
		s.fail(w, err)
		return
	}
	var body struct {
		Answers []string `json:"answers"`
	}
	if err := s.decodeJSON(w, r, &body, true); err != nil {
		s.fail(w, err)
		return
	}
	if len(body.Answers) == 0 || len(body.Answers) > deepresearch.MaxClarifyingQuestions {
		s.fail(w, badRequest(`"answers" must hold 1 to %d answers, one a question`, deepresearch.MaxClarifyingQuestions))
		return
	}
	for i, a := range body.Answers {
		// Checked here as well as by the run: the run reads them after
		// this request has been answered.
		if n := len(strings.TrimSpace(a)); n > deepresearch.MaxTextBytes {
			s.fail(w, badRequest(`answer %d is %d bytes long; the limit is %d`, i+1, n, deepresearch.MaxTextBytes))
			return
		}
	}
	posted := answersPost{answers: body.Answers, ack: ack()}
	select {
	case wt.answers <- posted:
	default:
		s.fail(w, &requestError{http.StatusConflict, typeConflict, "the questions were answered already"})
		return
	}
	if err := wt.await(r, posted.ack, "answers"); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"id": run.ID, "status": deepresearch.StatusRunning, "urls": runURLs(run.ID)})
}

// getPlan returns the plan a run waits to have reviewed, as its
// plan.review_requested event carries it.
func (s *Server) getPlan(w http.ResponseWriter, r *http.Request) {
	if s.forwarded(w, r, "/plan") {
		return
	}
	_, run, err := s.waiting(r, deepresearch.StatusAwaitingPlan)
	if err != nil {
		s.fail(w, err)
		return
	}
	p, err := s.lastEvent(r.Context(), run, events.PlanReviewRequested)
	if err != nil {
		s.fail(w, err)
		return
	}
	d := p.(events.PlanReviewData)
	writeJSON(w, http.StatusOK, deepresearch.Plan{Question: run.Question, Tasks: d.Tasks, MaxCycles: d.MaxCycles, Cycle: d.Cycle})
}

// postPlan reviews a run's plan: {"action": "accept"} (the plan as
// proposed), {"action": "reject"}, or a plan ({"tasks": […]}, as GET
// returns it, edited) to research instead.
func (s *Server) postPlan(w http.ResponseWriter, r *http.Request) {
	if s.forwarded(w, r, "/plan") {
		return
	}
	wt, run, err := s.waiting(r, deepresearch.StatusAwaitingPlan)
	if err != nil {
		s.fail(w, err)
		return
	}
	var body struct {
		deepresearch.Plan
		Action string `json:"action"`
	}
	if err := s.decodeJSON(w, r, &body, true); err != nil {
		s.fail(w, err)
		return
	}
	rv := review{ack: ack()}
	switch body.Action {
	case "reject":
		rv.rejected = true
	case "", "accept":
		if body.Tasks != nil && len(body.Tasks) == 0 {
			s.fail(w, badRequest(`"tasks" is empty: a plan needs at least one task (or leave "tasks" out to accept the plan proposed)`))
			return
		}
		if len(body.Tasks) > 0 {
			if err := body.Plan.Validate(); err != nil {
				s.fail(w, err)
				return
			}
			rv.plan = body.Plan
		}
	default:
		s.fail(w, badRequest("action %q: want accept or reject (or a plan)", body.Action))
		return
	}
	if err := wt.offerReview(rv); err != nil {
		s.fail(w, err)
		return
	}
	status := deepresearch.StatusRunning
	if rv.rejected {
		// The first plan rejected ends the run; a later cycle's ends its
		// research, and the report is written from what was found.
		status = deepresearch.StatusFailed
		if p, err := s.lastEvent(r.Context(), run, events.PlanReviewRequested); err == nil && p.(events.PlanReviewData).Cycle > 1 {
			status = deepresearch.StatusRunning
		}
	}
	if err := wt.await(r, rv.ack, "plan"); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"id": run.ID, "status": status, "urls": runURLs(run.ID)})
}

// pausable is a run's time limit that stops while the run waits for a
// person: pause stops it and returns the function that arms it afresh.
type pausable struct {
	mu   sync.Mutex
	stop func() bool
	arm  func() func() bool
}

func (p *pausable) pause() func() {
	p.mu.Lock()
	p.stop()
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.stop = p.arm()
		p.mu.Unlock()
	}
}

func (p *pausable) halt() {
	p.mu.Lock()
	p.stop()
	p.mu.Unlock()
}
