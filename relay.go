package deepresearch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/runstore"
)

// Relay is what a Store shared by several processes offers (natsrun.Store
// does) so that a person's word about a run — its cancellation, answers to
// its questions, its plan's review — reaches the run in whichever process
// has it in progress: Runs.Cancel, Answer and Review of a run in progress
// in another process relay the word through the store (Relay) instead of
// refusing with ErrRunElsewhere, and every Runs over such a store serves
// what is relayed to the runs it has in progress (ServeRelayed), as if it
// had been asked itself. No process calls another: the word is a record
// of the store, which only the store's writers may write.
//
// Implementations must be safe for concurrent use.
type Relay interface {
	// Relay stores req for run id's owner and waits for its outcome: the
	// owner's Runs's answer, or an error of its own when none came before
	// ctx was done (or the store failed), wrapping ErrRunElsewhere when
	// no process answered in the time the store gives it.
	Relay(ctx context.Context, id string, req Relayed) (RelayOutcome, error)
	// ServeRelayed calls fn with each request relayed to a run this
	// process owns, each once, and stores fn's outcome for its asker,
	// until ctx is done; it then waits for the fn calls under way and
	// returns context.Cause(ctx), or an error of its own. fn may block
	// (a cancellation waits for the run's end).
	ServeRelayed(ctx context.Context, fn func(ctx context.Context, id string, req Relayed) RelayOutcome) error
}

// The kinds of Relayed request.
const (
	RelayCancel = "cancel" // Runs.Cancel
	RelayAnswer = "answer" // Runs.Answer
	RelayReview = "review" // Runs.Review
)

// Relayed is a person's word about a run as it crosses to the process
// that has the run in progress (Relay).
type Relayed struct {
	// Kind is RelayCancel, RelayAnswer or RelayReview.
	Kind string `json:"kind"`
	// Answers are RelayAnswer's answers.
	Answers []string `json:"answers,omitempty"`
	// Review is RelayReview's review.
	Review *PlanReview `json:"review,omitempty"`
}

// RelayOutcome is what the owner of a run made of a Relayed request:
// nothing refused, or why it refused (Err rebuilds the error).
type RelayOutcome struct {
	// Refused names why the owner refused ("" for taken): one of the
	// names relayErrors knows, "invalid" for a *RequestError, or "error"
	// for anything else.
	Refused string `json:"refused,omitempty"`
	// Field and Problem say it: a *RequestError's Field and Problem, or
	// a *RunsError's Problem (the error's text for "error").
	Field   string `json:"field,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// relayErrors are the errors a relayed request's refusal carries by name.
var relayErrors = map[string]error{
	"not_found": runstore.ErrNotFound, "ended": runstore.ErrFinished, "not_waiting": ErrNotWaiting, "elsewhere": ErrRunElsewhere,
	"answered": ErrAnswered, "stopped": ErrRunStopped, "closed": ErrRunsClosed,
}

// Outcome is the RelayOutcome of err, the owner's answer to a relayed
// request (nil: taken).
func Outcome(err error) RelayOutcome {
	if err == nil {
		return RelayOutcome{}
	}
	var bad *RequestError
	if errors.As(err, &bad) {
		return RelayOutcome{Refused: "invalid", Field: bad.Field, Problem: bad.Problem}
	}
	var refused *RunsError
	for name, sentinel := range relayErrors {
		if errors.Is(err, sentinel) {
			msg := err.Error()
			if errors.As(err, &refused) {
				msg = refused.Problem
			}
			return RelayOutcome{Refused: name, Problem: msg}
		}
	}
	return RelayOutcome{Refused: "error", Problem: err.Error()}
}

// Err is the error of the outcome for run id: nil when taken, a
// *RequestError, a *RunsError wrapping the error named, or an error
// saying what the owner answered.
func (o RelayOutcome) Err(id string) error {
	switch o.Refused {
	case "":
		return nil
	case "invalid":
		return &RequestError{Field: o.Field, Problem: o.Problem}
	}
	if sentinel, ok := relayErrors[o.Refused]; ok {
		return &RunsError{Run: id, Err: sentinel, Problem: o.Problem}
	}
	return fmt.Errorf("deepresearch: run %s: the process that runs it: %s", id, o.Problem)
}

// relays reports whether the Runs' store relays a word to the process
// that has a run in progress.
func (rs *Runs) relays() (Relay, bool) {
	r, ok := rs.st.(Relay)
	return r, ok
}

// relay passes req for run id, in progress in another process, through
// the store, and returns what that process made of it. A ctx done
// already relays nothing (a Cancel that must not wait, such as
// natsrun.StopLost's, stops only a run in progress here).
func (rs *Runs) relay(ctx context.Context, id string, req Relayed) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	r, ok := rs.relays()
	if !ok {
		return &RunsError{Run: id, Err: ErrRunElsewhere, Problem: fmt.Sprintf("run %s is in progress in another process; ask that one", id)}
	}
	out, err := r.Relay(ctx, id, req)
	if errors.Is(err, ErrRunElsewhere) {
		return &RunsError{Run: id, Err: ErrRunElsewhere, Problem: fmt.Sprintf("run %s is in progress in another process, which did not answer: %v", id, err)}
	}
	if err != nil {
		return err
	}
	return out.Err(id)
}

// startRelay serves, when the store relays, what other processes relay
// to the runs in progress here, until stopRelay.
func (rs *Runs) startRelay() {
	r, ok := rs.relays()
	if !ok {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	rs.relayStop, rs.relayDone = stop, done
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			err := r.ServeRelayed(ctx, rs.serveRelayed)
			if ctx.Err() != nil {
				return
			}
			rs.log.Error().Err(err).Msg("serving what other processes relay to this one's runs; trying again")
			if clock.Sleep(ctx, rs.opts.Clock, relayPause) != nil {
				return
			}
		}
	}()
}

// relayPause is the wait before serving relayed requests again after the
// store failed to.
const relayPause = time.Second

// stopRelay stops serving relayed requests and waits for it.
func (rs *Runs) stopRelay() {
	if rs.relayStop != nil {
		rs.relayStop()
		<-rs.relayDone
	}
}

// serveRelayed does here what another process relayed for run id: what
// Cancel, Answer or Review do with a run in progress here.
func (rs *Runs) serveRelayed(ctx context.Context, id string, req Relayed) RelayOutcome {
	switch req.Kind {
	case RelayCancel:
		return Outcome(rs.cancelHere(ctx, id, nil))
	case RelayAnswer:
		run, _, err := rs.waitingHere(ctx, id, runstore.NeedsInput)
		if err != nil {
			return Outcome(err)
		}
		return Outcome(run.Answer(ctx, req.Answers))
	case RelayReview:
		if req.Review == nil {
			return Outcome(&RequestError{Field: "review", Problem: "is missing"})
		}
		run, _, err := rs.waitingHere(ctx, id, runstore.AwaitingPlan)
		if err != nil {
			return Outcome(err)
		}
		return Outcome(run.Review(ctx, *req.Review))
	}
	return Outcome(fmt.Errorf("a relayed request of kind %q, which this process does not know", req.Kind))
}
