package deepresearchtest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/storetest"
	"github.com/deepresearch/deepresearch/runstore"
)

// TestStoreConformance holds the in-memory store to the run store's
// contract, the one sqlitestore is held to.
func TestStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c clock.Clock) storetest.Store { return deepresearchtest.NewStore(c) })
}

// TestStoreRecordsARun: a run recorded in the in-memory store is there
// whole, as in sqlitestore: finished, every event in order, its report
// and the text of each cited source, and its journal (the store is a
// JournalStore, so Start keeps the run's journal in it).
func TestStoreRecordsARun(t *testing.T) {
	r, err := deepresearch.New(deepresearch.Config{Search: deepresearchtest.Corpus(t, filepath.Join("..", "testdata", "corpus"), filepath.Join(t.TempDir(), "index.db")), Judges: deepresearch.Judges{Lexical: true}, Limits: deepresearch.Limits{MaxCycles: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	st := deepresearchtest.NewStore(nil)
	var seen []uint64
	started, err := r.Start(ctx, deepresearch.Request{Question: "How are undersea cables repaired at sea?"},
		deepresearch.RunOptions{Store: st, Sink: func(e events.Event) { seen = append(seen, e.Seq) }})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := started.Wait()
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.Get(ctx, started.ID())
	if err != nil || run.Status != runstore.Finished || run.Events != uint64(len(seen)) || run.Usage != rep.Usage {
		t.Fatalf("stored run %+v (%v); want it finished with %d events and the report's usage", run, err, len(seen))
	}
	var stored []uint64
	for e, err := range st.Events(ctx, started.ID(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, e.Seq)
	}
	if len(stored) != len(seen) || stored[len(stored)-1] != seen[len(seen)-1] {
		t.Errorf("stored events %v; the run emitted %v", stored, seen)
	}
	b, err := st.Report(ctx, started.ID())
	if err != nil {
		t.Fatal(err)
	}
	back, err := deepresearch.LoadReport(b)
	if err != nil || back.Markdown() != rep.Markdown() {
		t.Errorf("the stored report (%v) does not render as the run's", err)
	}
	srcs, err := st.Sources(ctx, started.ID())
	if err != nil || len(srcs) == 0 || len(srcs) != len(rep.References) {
		t.Errorf("%d sources stored (%v) for %d references", len(srcs), err, len(rep.References))
	}
	if j, err := st.Journal(ctx, started.ID()); err != nil || len(j) == 0 {
		t.Errorf("the run's journal: %d entries (%v)", len(j), err)
	}
}
