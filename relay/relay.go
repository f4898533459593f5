// Package relay is how a person's word about a run — its cancellation, the
// answers to its questions, its plan's review — reaches the process that
// has the run in progress, when several processes share one run store.
//
// A deepresearch.Runs whose store is a Store (natsrun.Store is one) relays
// Runs.Cancel, Answer and Review of a run in progress in another process
// through the store instead of refusing them with
// deepresearch.ErrRunElsewhere, and serves what other processes relay to
// the runs it has in progress, as if it had been asked itself. No process
// calls another: the word is a record of the store, which only the store's
// writers may write.
//
// The package holds the contract and its wire forms only: a Store
// implementation carries a Request and an Outcome as their JSON, and
// deepresearch.Runs makes and reads them.
package relay

import (
	"context"
	"encoding/json"
	"errors"
)

// Store is what a run store shared by several processes offers so that a
// word about a run reaches the process that has it in progress.
//
// Implementations must be safe for concurrent use.
type Store interface {
	// Relay stores req for run id's owner and waits for its outcome: the
	// owner's answer, or an error of its own when none came before ctx
	// was done (or the store failed), wrapping ErrUnanswered when no
	// process answered in the time the store gives it.
	Relay(ctx context.Context, id string, req Request) (Outcome, error)
	// ServeRelayed calls fn with each request relayed to a run this
	// process owns, each once, and stores fn's outcome for its asker,
	// until ctx is done; it then waits for the fn calls under way and
	// returns context.Cause(ctx), or an error of its own. fn may block
	// (a cancellation waits for the run's end).
	ServeRelayed(ctx context.Context, fn func(ctx context.Context, id string, req Request) Outcome) error
}

// ErrUnanswered is the error a Store's Relay wraps when no process that
// has the run in progress answered in the time the store gives it (none
// has it, or the one that had it died).
var ErrUnanswered = errors.New("no process that has the run in progress answered")

// Kind is what a relayed Request asks; its JSON form is the word.
type Kind string

// The kinds of Request.
const (
	Cancel Kind = "cancel" // Runs.Cancel
	Answer Kind = "answer" // Runs.Answer
	Review Kind = "review" // Runs.Review
)

// Request is a person's word about a run as it crosses to the process that
// has the run in progress.
type Request struct {
	Kind Kind `json:"kind"`
	// Answers are an Answer's answers, one a question, in order.
	Answers []string `json:"answers,omitempty"`
	// Review is a Review's deepresearch.PlanReview, as its JSON.
	Review json.RawMessage `json:"review,omitempty"`
}

// Outcome is what the owner of a run made of a Request: nothing refused,
// or why it refused, in words deepresearch.Runs turns back into the error
// its asker returns.
type Outcome struct {
	// Refused names why the owner refused ("" for taken): the name of
	// one of deepresearch's errors ("not_found", "ended", "not_waiting",
	// "elsewhere", "answered", "stopped", "closed"), "invalid" for a
	// request it found invalid (a *deepresearch.RequestError), or "error"
	// for anything else.
	Refused string `json:"refused,omitempty"`
	// Field and Problem say it: an invalid request's member and what is
	// wrong with it, or what the refusal says.
	Field   string `json:"field,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// Failed is the Outcome of a request its owner could not serve for err,
// which names none of the refusals an asker knows (an unreadable request,
// a store's failure): its asker gets an error saying err's text.
func Failed(err error) Outcome { return Outcome{Refused: "error", Problem: err.Error()} }
