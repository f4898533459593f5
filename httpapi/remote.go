package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/clock"
)

// Remote is where a server finds the event logs of runs it does not hold
// in its own store: those that other server processes run and publish
// (natsrun.Remote reads them from a NATS JetStream events stream). With
// Config.Remote set, GET /v1/research/{id}/events serves such a run's
// stream as it serves its own, so a load balancer may send a client's
// reconnect to any server process, and GET /v1/research/{id} says its
// status.
//
// Implementations must be safe for concurrent use.
type Remote interface {
	// LastEvent returns the last event stored of run id, or an error
	// wrapping deepresearch.ErrRunNotFound when none is stored. It does
	// not wait for one.
	LastEvent(ctx context.Context, id string) (deepresearch.StoredEvent, error)
	// Follow calls fn with each event of run id numbered after after, in
	// order, each number once, as they are stored, waiting for those to
	// come, until fn returns false (Follow then returns nil) or ctx is
	// done (it returns context.Cause(ctx), or an error of its own).
	Follow(ctx context.Context, id string, after uint64, fn func(deepresearch.StoredEvent) bool) error
}

// lookupAny finds the run of the request's id in the store and, when the
// store has none, in Config.Remote: remote then says so. A run neither
// holds is a 404.
func (s *Server) lookupAny(r *http.Request) (run deepresearch.StoredRun, last deepresearch.StoredEvent, remote bool, err error) {
	run, err = s.lookup(r)
	if s.cfg.Remote == nil || !errors.Is(err, deepresearch.ErrRunNotFound) {
		return run, last, false, err
	}
	id := r.PathValue("id")
	last, err = s.cfg.Remote.LastEvent(r.Context(), id)
	switch {
	case errors.Is(err, deepresearch.ErrRunNotFound):
		return run, last, true, &requestError{http.StatusNotFound, typeNotFound, fmt.Sprintf("no run %q", id)}
	case err != nil:
		return run, last, true, fmt.Errorf("run %s in another server process: %w", id, err)
	}
	return remoteRun(id, last), last, true, nil
}

// remoteRun is what the last event of a run another server process runs
// says of it: its status (running until its last event, endOf), the
// sequence number of that event, and why it failed.
func remoteRun(id string, last deepresearch.StoredEvent) deepresearch.StoredRun {
	run := deepresearch.StoredRun{ID: id, Status: deepresearch.StatusRunning, Events: last.Seq}
	if status, msg, ok := endOf(last); ok {
		run.Status, run.Error = status, msg
		var e struct {
			Time time.Time `json:"time"`
		}
		if json.Unmarshal(last.JSON, &e) == nil {
			run.Finished = e.Time
		}
	}
	return run
}

// remoteStartTry bounds remoteStart.
const remoteStartTry = 2 * time.Second

// remoteStart fills in the question and creation time of run, another
// server process's, from its first event (run.started) in Config.Remote.
// A first event that cannot be read soon leaves them empty: the status is
// what the view is for.
func (s *Server) remoteStart(ctx context.Context, run *deepresearch.StoredRun) {
	ctx, cancel := clock.WithTimeout(ctx, s.cfg.Clock, remoteStartTry)
	defer cancel()
	s.cfg.Remote.Follow(ctx, run.ID, 0, func(e deepresearch.StoredEvent) bool { //nolint:errcheck // see above
		var first struct {
			Time time.Time             `json:"time"`
			Data events.RunStartedData `json:"data"`
		}
		if events.Type(e.Type) == events.RunStarted && json.Unmarshal(e.JSON, &first) == nil {
			run.Question, run.Created = first.Data.Question, first.Time
		}
		return false
	})
}

// endOf says whether e is the last event of its run, and the status it
// ended with: run.finished closes a run that completed; an error event
// closes one that failed, or was canceled when its error says that the
// client canceled it. (A run interrupted by its server's shutdown has no
// last event: it goes on when the server that ran it resumes it.)
func endOf(e deepresearch.StoredEvent) (status deepresearch.RunStatus, msg string, ended bool) {
	switch events.Type(e.Type) {
	case events.RunFinished:
		return deepresearch.StatusFinished, "", true
	case events.Error:
		var d struct {
			Data events.ErrorData `json:"data"`
		}
		_ = json.Unmarshal(e.JSON, &d) // a message we cannot read fails the run all the same
		// As the run's store decides it (its context's cause): canceled by
		// a client, or by a context.Canceled (a CLI run stopped by ^C).
		if strings.Contains(d.Data.Error, deepresearch.ErrCanceledByClient.Error()) || strings.Contains(d.Data.Error, context.Canceled.Error()) {
			return deepresearch.StatusCanceled, d.Data.Error, true
		}
		return deepresearch.StatusFailed, d.Data.Error, true
	}
	return "", "", false
}

// remoteEvents is the event source of a run in Config.Remote whose last
// event, when it was found, was found: it gives the events after after
// until the run's last event (endOf), which it keeps in *end. It follows
// from before both after and found, so that it sees the run's last event
// even when the client has it already (a reconnect after the end), and
// then gives nothing more.
func (s *Server) remoteEvents(id string, after uint64, found deepresearch.StoredEvent, end *deepresearch.StoredEvent) eventSource {
	return func(ctx context.Context, yield func(deepresearch.StoredEvent) bool) error {
		from := min(after, found.Seq)
		if from > 0 {
			from--
		}
		return s.cfg.Remote.Follow(ctx, id, from, func(e deepresearch.StoredEvent) bool {
			_, _, ended := endOf(e)
			if ended {
				*end = e
			}
			if e.Seq > after && !yield(e) {
				return false
			}
			return !ended
		})
	}
}

// remoteEnd is the data of the "end" event of a run followed in
// Config.Remote whose last event was last.
func remoteEnd(id string, last deepresearch.StoredEvent) []byte {
	run := remoteRun(id, last)
	b, _ := json.Marshal(map[string]any{"id": run.ID, "status": run.Status, "error": run.Error, "events": run.Events})
	return b
}
