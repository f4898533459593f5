package sqlitestore

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/storetest"
)

// TestConformance holds the SQLite store to the run store's contract,
// the one the in-memory store of deepresearchtest is held to.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c clock.Clock) storetest.Store {
		// The heartbeat and the followers' poll are long: an append wakes
		// a follower.
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "runs.db"),
			Options{Clock: c, LeaseTTL: time.Minute, Heartbeat: time.Hour, Poll: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
