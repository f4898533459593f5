package httpapi

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// TestRecord keeps a run made outside the server (as the CLI's run does)
// in the store: each event is stored before the caller's sink sees it, and
// the report, sources and final status are there afterwards.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	r, err := deepresearch.New(deepresearch.Config{Corpus: filepath.Join("..", "testdata", "corpus"), IndexPath: filepath.Join(dir, "index.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := sqlitestore.Open(t.Context(), filepath.Join(dir, "runs.db"), sqlitestore.Options{Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	var seen int
	rep, err := Record(t.Context(), st, r, deepresearch.Request{Question: "How are undersea cables repaired?"}, func(ev deepresearch.Event) {
		run, err := st.Get(context.Background(), ev.RunID)
		if err != nil || run.Events != ev.Seq {
			t.Errorf("event %d reached the sink before it was stored (stored: %d, %v)", ev.Seq, run.Events, err)
		}
		seen++
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.Get(t.Context(), rep.RunID)
	if err != nil || run.Status != sqlitestore.Finished || run.Events != uint64(seen) || run.Usage != rep.Usage {
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
	rep, err = Record(ctx, st, r, deepresearch.Request{Question: "q", RunID: "canceled-run"}, nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled Record: %v", err)
	}
	if run, _ := st.Get(t.Context(), "canceled-run"); run.Status != sqlitestore.Canceled {
		t.Fatalf("a canceled run is recorded %s", run.Status)
	}
	// A taken run ID is refused before anything runs.
	if _, err := Record(t.Context(), st, r, deepresearch.Request{Question: "q", RunID: "canceled-run"}, nil, nil); !errors.Is(err, sqlitestore.ErrExists) {
		t.Fatalf("Record with a taken ID: %v", err)
	}
	_ = rep
}
