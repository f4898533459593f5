package natsrun_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/render"
)

var _ deepresearch.JournalStore = (*natsrun.Journal)(nil)

// TestJournalReplaysARun records a real run with its journal in JetStream
// (R3, on the three-node cluster) and replays it, from the entries another
// connection reads back, to the same report without a model.
func TestJournalReplaysARun(t *testing.T) {
	_, urls := cluster(t)
	js := connect(t, urls)
	r, err := deepresearch.New(deepresearch.Config{Model: deepresearchtest.Model(0), Judges: deepresearch.Judges{Lexical: true}, MaxRetries: -1,
		Search: deepresearchtest.Corpus(t, filepath.Join("..", "testdata", "corpus"), filepath.Join(t.TempDir(), "index.db"))})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	jr := natsrun.NewCluster(js, testConfig).Journal()
	rep, err := startWait(ctx, r, deepresearch.Request{Question: "How are undersea cables repaired at sea?", RunID: "jrun1"},
		deepresearch.RunOptions{Journal: jr})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := natsrun.NewCluster(connect(t, urls), testConfig).Journal().Journal(ctx, "jrun1")
	if err != nil || len(entries) == 0 {
		t.Fatalf("%d entries read back (%v)", len(entries), err)
	}
	again, stats, err := deepresearch.Replay(ctx, entries, deepresearch.ReplayOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Missed != 0 || stats.Live != 0 || stats.Replayed == 0 {
		t.Errorf("replay: %+v", stats)
	}
	a, _ := rep.Render(render.Markdown)
	b, _ := again.Render(render.Markdown)
	if string(a) != string(b) {
		t.Errorf("the replayed report differs:\n%s\n---\n%s", b, a)
	}
}
