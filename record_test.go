package deepresearch_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

var _ deepresearch.Store = (*sqlitestore.Store)(nil)

// record runs req kept in st, as the CLI's run does.
func record(ctx context.Context, r *deepresearch.Researcher, st deepresearch.Store, req deepresearch.Request, sink func(events.Event)) (*deepresearch.Report, error) {
	return startWait(ctx, r, req, deepresearch.RunOptions{Store: st, Sink: sink})
}

// TestRecord keeps a run in a store, as every front end does: each event
// is stored before the caller's sink sees it, and the report, sources and
// final status are there afterwards.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	r := newResearcher(t, deepresearch.Config{})
	st, err := sqlitestore.Open(t.Context(), filepath.Join(dir, "runs.db"), sqlitestore.Options{Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	var seen int
	rep, err := record(t.Context(), r, st, deepresearch.Request{Question: "How are undersea cables repaired?"}, func(ev events.Event) {
		run, err := st.Get(context.Background(), ev.RunID)
		if err != nil || run.Events != ev.Seq {
			t.Errorf("event %d reached the sink before it was stored (stored: %d, %v)", ev.Seq, run.Events, err)
		}
		seen++
	})
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.Get(t.Context(), rep.RunID)
	if err != nil || run.Status != runstore.Finished || run.Events != uint64(seen) || run.Usage != rep.Usage {
		t.Fatalf("recorded run %+v, %v (sink saw %d events)", run, err, seen)
	}
	b, err := st.Report(t.Context(), rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	back, err := deepresearch.LoadReport(b)
	if err != nil || back.Markdown() != rep.Markdown() {
		t.Fatalf("the stored report does not render as the run's: %v", err)
	}
	if srcs, err := st.Sources(t.Context(), rep.RunID); err != nil || len(srcs) != len(rep.References) {
		t.Fatalf("stored %d sources for %d references: %v", len(srcs), len(rep.References), err)
	}

	// A canceled run is recorded as canceled.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rep, err = record(ctx, r, st, deepresearch.Request{Question: "q", RunID: "canceled-run"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled Record: %v", err)
	}
	if run, _ := st.Get(t.Context(), "canceled-run"); run.Status != runstore.Canceled {
		t.Fatalf("a canceled run is recorded %s", run.Status)
	}
	// A taken run ID is refused before anything runs.
	if _, err := record(t.Context(), r, st, deepresearch.Request{Question: "q", RunID: "canceled-run"}, nil); !errors.Is(err, runstore.ErrExists) {
		t.Fatalf("Record with a taken ID: %v", err)
	}
	_ = rep
}
