package natsrun_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/render"
)

// TestJournalOverLargeDocument records a run over a folder holding a 3 MB
// document with its journal in JetStream, whose messages are bounded
// (max_payload, 1 MiB): the document's text is kept in parts that each
// fit, once, and the run replays from the entries read back to the same
// report, every read of the document answered from the journal.
func TestJournalOverLargeDocument(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ships.md"), []byte("# Cable ships\n\nA cable repair ship carries spare cable and grapnels.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "Repair log %d. The repair ship grapples the undersea cable, the crew splices the fibre and the cable is repaired at sea.\n\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "repairs.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, urls := cluster(t)
	js := connect(t, urls)
	r, err := deepresearch.New(deepresearch.Config{Model: deepresearchtest.Model(0), Judges: deepresearch.Judges{Lexical: true}, MaxRetries: -1,
		Search: deepresearchtest.Corpus(t, dir, filepath.Join(t.TempDir(), "index.db"))})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	rep, err := startWait(ctx, r, deepresearch.Request{Question: "How are undersea cables repaired at sea?", RunID: "jbig"},
		deepresearch.RunOptions{Journal: natsrun.NewCluster(js, testConfig).Journal()})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := natsrun.NewCluster(connect(t, urls), testConfig).Journal().Journal(ctx, "jbig")
	if err != nil {
		t.Fatal(err)
	}
	keys, textBytes, reads := map[string]bool{}, 0, 0
	for _, raw := range entries {
		e, err := journal.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == journal.KindText {
			keys[e.Key] = true
			textBytes += len(raw)
		}
		if e.Document != nil && e.Document.TextKey != "" {
			reads++
		}
	}
	if len(keys) != 1 || reads == 0 || textBytes < b.Len() || textBytes > b.Len()*21/20 {
		t.Errorf("the journal holds %d texts in %d bytes, read %d times; want the %d-byte document once", len(keys), textBytes, reads, b.Len())
	}
	again, stats, err := deepresearch.Replay(ctx, entries, deepresearch.ReplayOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Missed != 0 || stats.Live != 0 || stats.Replayed == 0 {
		t.Errorf("replay: %+v", stats)
	}
	x, _ := rep.Render(render.Markdown)
	y, _ := again.Render(render.Markdown)
	if string(x) != string(y) {
		t.Errorf("the replayed report differs:\n%s\n---\n%s", y, x)
	}
}
