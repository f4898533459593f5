package deepresearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/relay"
	"github.com/deepresearch/deepresearch/runstore"
)

// relayErrors are the errors a relayed request's refusal carries by name
// (relay.Outcome's Refused).
var relayErrors = map[string]error{
	"not_found": runstore.ErrNotFound, "ended": runstore.ErrFinished, "not_waiting": ErrNotWaiting, "elsewhere": ErrRunElsewhere,
	"answered": ErrAnswered, "stopped": ErrRunStopped, "closed": ErrRunsClosed,
}

// outcome is the relay.Outcome of err, the owner's answer to a relayed
// request (nil: taken).
func outcome(err error) relay.Outcome {
	if err == nil {
		return relay.Outcome{}
	}
	var bad *RequestError
	if errors.As(err, &bad) {
		return relay.Outcome{Refused: "invalid", Field: bad.Field, Problem: bad.Problem}
	}
	var refused *RunsError
	for name, sentinel := range relayErrors {
		if errors.Is(err, sentinel) {
			msg := err.Error()
			if errors.As(err, &refused) {
				msg = refused.Problem
			}
			return relay.Outcome{Refused: name, Problem: msg}
		}
	}
	return relay.Failed(err)
}

// outcomeErr is the error of the outcome o for run id: nil when taken, a
// *RequestError, a *RunsError wrapping the error named, or an error
// saying what the owner answered.
func outcomeErr(o relay.Outcome, id string) error {
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

// reviewRequest is the relayed form of a review.
func reviewRequest(rv PlanReview) (relay.Request, error) {
	b, err := json.Marshal(rv)
	if err != nil {
		return relay.Request{}, &RequestError{Field: "review", Problem: fmt.Sprintf("cannot be relayed: %v", err)}
	}
	return relay.Request{Kind: relay.Review, Review: b}, nil
}

// relays reports whether the Runs' store relays a word to the process
// that has a run in progress.
func (rs *Runs) relays() (relay.Store, bool) {
	r, ok := rs.st.(relay.Store)
	return r, ok
}

// relay passes req for run id, in progress in another process, through
// the store, and returns what that process made of it. A ctx done
// already relays nothing (a Cancel that must not wait, such as
// natsrun.StopLost's, stops only a run in progress here).
func (rs *Runs) relay(ctx context.Context, id string, req relay.Request) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	r, ok := rs.relays()
	if !ok {
		return &RunsError{Run: id, Err: ErrRunElsewhere, Problem: fmt.Sprintf("run %s is in progress in another process; ask that one", id)}
	}
	out, err := r.Relay(ctx, id, req)
	if errors.Is(err, relay.ErrUnanswered) {
		return &RunsError{Run: id, Err: ErrRunElsewhere, Problem: fmt.Sprintf("run %s is in progress in another process, which did not answer: %v", id, err)}
	}
	if err != nil {
		return err
	}
	return outcomeErr(out, id)
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
func (rs *Runs) serveRelayed(ctx context.Context, id string, req relay.Request) relay.Outcome {
	switch req.Kind {
	case relay.Cancel:
		return outcome(rs.cancelHere(ctx, id, nil))
	case relay.Answer:
		run, _, err := rs.waitingHere(ctx, id, runstore.NeedsInput)
		if err != nil {
			return outcome(err)
		}
		return outcome(run.Answer(ctx, req.Answers))
	case relay.Review:
		if len(req.Review) == 0 {
			return outcome(&RequestError{Field: "review", Problem: "is missing"})
		}
		var rv PlanReview
		if err := json.Unmarshal(req.Review, &rv); err != nil {
			return outcome(&RequestError{Field: "review", Problem: fmt.Sprintf("is unreadable: %v", err)})
		}
		run, _, err := rs.waitingHere(ctx, id, runstore.AwaitingPlan)
		if err != nil {
			return outcome(err)
		}
		return outcome(run.Review(ctx, rv))
	}
	return outcome(fmt.Errorf("a relayed request of kind %q, which this process does not know", req.Kind))
}
