package natsrun_test

import (
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/internal/clock"
	"github.com/deepresearch/deepresearch/internal/storetest"
	"github.com/deepresearch/deepresearch/natsrun"
)

// TestStoreConformance holds the JetStream store to the run store's
// contract, the one sqlitestore and the in-memory store are held to,
// against an embedded server.
func TestStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c clock.Clock) storetest.Store {
		js := standalone(t)
		// The lease outlasts every move of the suite's clock.
		s, err := natsrun.OpenStore(t.Context(), js, natsrun.StoreOptions{Config: natsrun.Config{Clock: c}, LeaseTTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
