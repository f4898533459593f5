package deepresearchtest

import (
	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/memstore"
)

// Store is a run store in memory: a deepresearch.Store, with every
// capability sqlitestore has (waiting statuses, journals, resuming
// interrupted runs, follow-ups, re-checks), held to the same contract by
// the same conformance suite, for tests that record runs without a
// database file. It is safe for concurrent use; a follower of a run's
// events (Events) waits on a channel, costs no goroutine, and is woken by
// each append and by the run's end. What it holds is gone with it. It is
// the store a deepresearch.Runs keeps its runs in when its own could not
// be opened (RunsOptions.StoreErr).
type Store struct{ *memstore.Store }

var _ deepresearch.Store = (*Store)(nil)

// NewStore returns an empty Store that stamps runs and sources with c's
// time (nil: the real clock).
func NewStore(c clock.Clock) *Store { return &Store{memstore.New(c)} }
