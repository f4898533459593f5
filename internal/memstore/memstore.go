// Package memstore is a run store in memory (a deepresearch.Store):
// deepresearchtest's Store for tests, and the store a deepresearch.Runs
// keeps its runs in for as long as the process lives when its own run
// store could not be opened.
package memstore

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/usage"
	"github.com/deepresearch/deepresearch/runstore"
)

// Store is a run store in memory: a deepresearch.Store, with every
// capability sqlitestore has (waiting statuses, journals, resuming
// interrupted runs), held to the same contract by the same conformance
// suite, for tests that record runs without a database file. It is safe for
// concurrent use; a follower of a run's events (Events) waits on a
// channel, costs no goroutine, and is woken by each append and by the
// run's end. What it holds is gone with it.
type Store struct {
	clock clock.Clock

	mu      sync.Mutex
	runs    map[string]*memRun
	reports map[string]json.RawMessage
	sources map[string]map[string]runstore.Source // run → source ID → source
}

// memRun is one run: its record, log, journal, and the channel that is
// closed (and replaced) whenever its log or status changes.
type memRun struct {
	run     runstore.Run
	events  []runstore.Event
	journal [][]byte
	wake    chan struct{}
	recheck *runstore.Recheck // the last (PutRecheck)
}

// New returns an empty Store that stamps runs and sources with c's time
// (nil: the real clock).
func New(c clock.Clock) *Store {
	return &Store{clock: clock.Or(c), runs: map[string]*memRun{}, reports: map[string]json.RawMessage{},
		sources: map[string]map[string]runstore.Source{}}
}

// storeError says which operation failed on which run, wrapping why.
func storeError(op, id string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("deepresearchtest: store: %s run %q: %w", op, id, err)
}

// live returns run id for a write that needs it live: not found, or
// ended, otherwise. s.mu is held.
func (s *Store) live(id string) (*memRun, error) {
	r, ok := s.runs[id]
	switch {
	case !ok:
		return nil, runstore.ErrNotFound
	case r.run.Status.Ended():
		return nil, fmt.Errorf("%w (%s)", runstore.ErrFinished, r.run.Status)
	}
	return r, nil
}

// changed wakes run r's followers. s.mu is held.
func (r *memRun) changed() {
	close(r.wake)
	r.wake = make(chan struct{})
}

// Create stores a new run, queued, at its first attempt, created now.
// run.ID must be new (runstore.ErrExists).
func (s *Store) Create(_ context.Context, run runstore.Run) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.runs[run.ID]; ok {
		return storeError("create", run.ID, runstore.ErrExists)
	}
	opts := run.Options
	if len(opts) == 0 {
		opts = json.RawMessage(`{}`)
	}
	s.runs[run.ID] = &memRun{run: runstore.Run{ID: run.ID, Question: run.Question, Options: slices.Clone(opts),
		Status: runstore.Queued, Created: s.clock.Now().UTC(), Origin: run.Origin, Attempts: 1, Parent: run.Parent},
		wake: make(chan struct{})}
	return nil
}

// Start marks a queued run running.
func (s *Store) Start(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.live(id)
	if err == nil && r.run.Status != runstore.Queued {
		err = fmt.Errorf("run is %s", r.run.Status)
	}
	if err != nil {
		return storeError("start", id, err)
	}
	r.run.Status = runstore.Running
	r.changed()
	return nil
}

// SetStatus sets the status of a live run that waits for a person
// (runstore.NeedsInput, runstore.AwaitingPlan) or goes on (runstore.Running).
func (s *Store) SetStatus(_ context.Context, id string, status runstore.Status) error {
	if status != runstore.Running && !status.Waiting() {
		return storeError("set the status of", id, fmt.Errorf("%q is not running or waiting", status))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.live(id)
	if err == nil && r.run.Status == runstore.Queued {
		err = errors.New("run is queued")
	}
	if err != nil {
		return storeError("set the status of", id, err)
	}
	r.run.Status = status
	r.changed()
	return nil
}

// Append adds e, as json.Marshal(e), to its run's log: e.Seq must follow
// the run's last event (runstore.ErrSeq) and the run must be
// live (runstore.ErrFinished).
func (s *Store) Append(_ context.Context, e events.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return storeError("append to", e.RunID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.live(e.RunID)
	if err == nil && e.Seq != uint64(len(r.events))+1 {
		err = fmt.Errorf("%w: got seq %d after %d", runstore.ErrSeq, e.Seq, len(r.events))
	}
	if err != nil {
		return storeError("append to", e.RunID, err)
	}
	r.events = append(r.events, runstore.Event{RunID: e.RunID, Seq: e.Seq, Type: string(e.Type), JSON: b})
	r.run.Events = e.Seq
	r.changed()
	return nil
}

// PutReport stores (or replaces) run id's report, which must be JSON.
func (s *Store) PutReport(_ context.Context, id string, report json.RawMessage) error {
	if !json.Valid(report) {
		return storeError("put the report of", id, errors.New("the report is not valid JSON"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reports[id] = slices.Clone(report)
	return nil
}

// PutSource stores (or replaces, by its ID) a document run src.RunID
// read, with the SHA-256 of its Text; a zero Fetched means now.
func (s *Store) PutSource(_ context.Context, src runstore.Source) error {
	sum := sha256.Sum256([]byte(src.Text))
	src.SHA256 = hex.EncodeToString(sum[:])
	if src.Fetched.IsZero() {
		src.Fetched = s.clock.Now()
	}
	src.Fetched = src.Fetched.UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sources[src.RunID] == nil {
		s.sources[src.RunID] = map[string]runstore.Source{}
	}
	s.sources[src.RunID][src.ID] = src
	return nil
}

// Finish ends a live run with a final status, its usage and, for a run
// that did not finish, what went wrong; its followers end once they have
// yielded its last event.
func (s *Store) Finish(_ context.Context, id string, status runstore.Status, u usage.Usage, errMsg string) error {
	if !status.Ended() {
		return storeError("finish", id, fmt.Errorf("%q is not a final status", status))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.live(id)
	if err != nil {
		return storeError("finish", id, err)
	}
	r.run.Status, r.run.Usage, r.run.Error, r.run.Finished = status, u, errMsg, s.clock.Now().UTC()
	r.changed()
	return nil
}

// Get returns run id (runstore.ErrNotFound when there is none).
func (s *Store) Get(_ context.Context, id string) (runstore.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[id]
	if !ok {
		return runstore.Run{}, storeError("get", id, runstore.ErrNotFound)
	}
	return r.copy(), nil
}

// copy is r's record, sharing nothing with the store. s.mu is held.
func (r *memRun) copy() runstore.Run {
	run := r.run
	run.Options = slices.Clone(run.Options)
	return run
}

// List returns the newest runs first (by creation, then ID), at most
// limit of them (all when limit <= 0).
func (s *Store) List(_ context.Context, limit int) ([]runstore.Run, error) {
	runs := s.sorted(func(a, b runstore.Run) int {
		return cmp.Or(b.Created.Compare(a.Created), strings.Compare(a.ID, b.ID))
	}, func(runstore.Run) bool { return true })
	if limit > 0 && len(runs) > limit {
		runs = runs[:limit]
	}
	return runs, nil
}

// sorted returns copies of the runs keep takes, in the order of by.
func (s *Store) sorted(by func(a, b runstore.Run) int, keep func(runstore.Run) bool) []runstore.Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []runstore.Run
	for _, r := range s.runs {
		if keep(r.run) {
			out = append(out, r.copy())
		}
	}
	slices.SortFunc(out, by)
	return out
}

// Events follows run id's log from after the event numbered afterSeq (0:
// from the start): every stored event in order, then each one appended
// later as it is appended, ending after the last event of a run that has
// ended. It ends early, yielding an error last, when the run does not
// exist (runstore.ErrNotFound) or ctx is done
// (context.Cause(ctx)).
func (s *Store) Events(ctx context.Context, id string, afterSeq uint64) iter.Seq2[runstore.Event, error] {
	return func(yield func(runstore.Event, error) bool) {
		last := afterSeq
		for {
			s.mu.Lock()
			r, ok := s.runs[id]
			if !ok {
				s.mu.Unlock()
				yield(runstore.Event{}, storeError("follow", id, runstore.ErrNotFound))
				return
			}
			var evs []runstore.Event
			if last < uint64(len(r.events)) {
				evs = slices.Clone(r.events[last:])
			}
			ended, wake := r.run.Status.Ended(), r.wake
			s.mu.Unlock()
			for _, e := range evs {
				if !yield(e, nil) {
					return
				}
				last = e.Seq
			}
			if ended {
				return
			}
			select {
			case <-wake:
			case <-ctx.Done():
				yield(runstore.Event{}, storeError("follow", id, context.Cause(ctx)))
				return
			}
		}
	}
}

// Report returns run id's report, or runstore.ErrNotFound when it
// has none.
func (s *Store) Report(_ context.Context, id string) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.reports[id]
	if !ok {
		return nil, storeError("get the report of", id, runstore.ErrNotFound)
	}
	return slices.Clone(b), nil
}

// Sources returns the documents stored for run id, by source ID.
func (s *Store) Sources(_ context.Context, id string) ([]runstore.Source, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byID := s.sources[id]
	out := make([]runstore.Source, 0, len(byID))
	for _, k := range slices.Sorted(maps.Keys(byID)) {
		out = append(out, byID[k])
	}
	return out, nil
}

// AppendJournal adds entry to the journal of run, which must be live.
func (s *Store) AppendJournal(_ context.Context, run string, entry []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.live(run)
	if err != nil {
		return storeError("journal", run, err)
	}
	r.journal = append(r.journal, slices.Clone(entry))
	return nil
}

// Journal returns run's journal entries in the order they were appended
// (none for a run without one).
func (s *Store) Journal(_ context.Context, run string) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[run]
	if !ok {
		return nil, nil
	}
	out := make([][]byte, len(r.journal))
	for i, e := range r.journal {
		out[i] = slices.Clone(e)
	}
	return out, nil
}

// Reopen takes up an interrupted run for a new attempt: running again,
// its Attempts counted, its end and error cleared. Only an interrupted
// run can be reopened, and only once.
func (s *Store) Reopen(_ context.Context, id string) (runstore.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[id]
	switch {
	case !ok:
		return runstore.Run{}, storeError("reopen", id, runstore.ErrNotFound)
	case r.run.Status != runstore.Interrupted:
		return runstore.Run{}, storeError("reopen", id,
			fmt.Errorf("run is %s; only an interrupted run can be resumed", r.run.Status))
	}
	r.run.Status, r.run.Error, r.run.Finished = runstore.Running, "", time.Time{}
	r.run.Attempts++
	r.changed()
	return r.copy(), nil
}

// Interrupted returns the interrupted runs started by origin, oldest
// first.
func (s *Store) Interrupted(_ context.Context, origin string) ([]runstore.Run, error) {
	return s.sorted(func(a, b runstore.Run) int {
		return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
	}, func(r runstore.Run) bool {
		return r.Status == runstore.Interrupted && r.Origin == origin
	}), nil
}

// FollowUps returns the runs whose Parent is id, oldest first.
func (s *Store) FollowUps(_ context.Context, id string) ([]runstore.Run, error) {
	return s.sorted(func(a, b runstore.Run) int {
		return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
	}, func(r runstore.Run) bool {
		return id != "" && r.Parent == id
	}), nil
}

// GiveUp ends an interrupted run that will not be resumed: failed, with
// msg as its error.
func (s *Store) GiveUp(_ context.Context, id, msg string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[id]
	switch {
	case !ok:
		return storeError("give up", id, runstore.ErrNotFound)
	case r.run.Status != runstore.Interrupted:
		return storeError("give up", id, fmt.Errorf("run is %s; only an interrupted run is given up", r.run.Status))
	}
	r.run.Status, r.run.Error = runstore.Failed, msg
	r.changed()
	return nil
}
