package deepresearch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/heappeak"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// bigQuestion is asked of bigFolder.
const bigQuestion = "How are undersea cables repaired?"

// bigFolder writes a corpus folder of two notes and one text document of
// about size bytes whose every paragraph bears on bigQuestion, and returns
// the folder and the document's size.
func bigFolder(t testing.TB, size int) (string, int) {
	t.Helper()
	dir := t.TempDir()
	notes := map[string]string{
		"ships.md":  "# Cable ships\n\nA cable repair ship carries spare cable, grapnels and a jointing room where technicians splice optical fibres.\n",
		"faults.md": "# Cable faults\n\nA fault in an undersea cable is located from shore by measuring reflections along the fibre.\n",
	}
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	verbs := []string{"grapples", "lifts", "cuts", "splices", "tests", "lowers", "buries", "inspects"}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "Repair log %d. The repair ship %s the undersea cable at station %d; the crew splices the fibre in the jointing room and the cable is repaired before it is lowered to the seabed.\n\n", i, verbs[i%len(verbs)], i%97)
	}
	if err := os.WriteFile(filepath.Join(dir, "repairs.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, b.Len()
}

// TestRunOverLargeDocument researches a folder holding a document of
// megabytes, kept in an SQLite run store as the CLI keeps a run: the run
// completes; its journal holds the document's text once, in one text entry,
// however many calls read it, and the rest of the journal, its events, its
// stored sources and its report hold a bounded part of it; the run replayed
// from its journal gives the same report.
func TestRunOverLargeDocument(t *testing.T) {
	dir, size := bigFolder(t, 4<<20)
	model := newCounted()
	r := newResearcher(t, deepresearch.Config{Model: model, Search: deepresearchtest.Corpus(t, dir, ""), MaxRetries: -1})
	st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "runs.db"), sqlitestore.Options{Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	stop := heappeak.Start()
	// Three tasks, each of which finds the repair log.
	plan := &deepresearch.Plan{Tasks: []events.PlanTask{
		{Title: "Splicing", Question: "How does the repair ship splice the undersea cable in the jointing room?"},
		{Title: "Grapnels", Question: "How does the repair ship grapple and lift the undersea cable?"},
		{Title: "Lowering", Question: "How is the repaired cable lowered to the seabed?"},
	}}
	rep, err := record(ctx, r, st, deepresearch.Request{Question: bigQuestion, RunID: "big", Plan: plan}, nil)
	heap := stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a %d-byte document: Go heap peak %.0f MiB", size, heap)

	entries, err := st.Journal(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	keys, textBytes, others, reads := map[string]bool{}, 0, 0, 0
	for _, b := range entries {
		e, err := journal.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Kind == journal.KindText:
			// The text, in parts of at most journal.TextPart.
			keys[e.Key] = true
			textBytes += len(b)
		default:
			others += len(b)
			if e.Document != nil && e.Document.TextKey != "" {
				reads++
			}
		}
	}
	t.Logf("journal: %d entries, %d texts in %d bytes, %d reads of them, %d bytes besides", len(entries), len(keys), textBytes, reads, others)
	// Each of the plan's tasks finds the repair log and opens it.
	if len(keys) != 1 || reads < 2 {
		t.Errorf("%d texts read by %d document entries; want the document's text once, read by two agents or more", len(keys), reads)
	}
	if textBytes < size || textBytes > size*21/20 {
		t.Errorf("the text entries hold %d bytes; want the %d-byte document once", textBytes, size)
	}
	if others > size/4 {
		t.Errorf("the journal's entries besides the text hold %d bytes, a %d-byte document's worth", others, size)
	}
	evBytes := 0
	for ev, err := range st.Events(ctx, "big", 0) {
		if err != nil {
			t.Fatal(err)
		}
		evBytes += len(ev.JSON)
	}
	srcs, err := st.Sources(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	srcBytes := 0
	for _, s := range srcs {
		srcBytes += len(s.Text)
	}
	stored, err := st.Report(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("events %d bytes, sources %d bytes (%d), report %d bytes", evBytes, srcBytes, len(srcs), len(stored))
	for what, n := range map[string]int{"events": evBytes, "sources": srcBytes, "report": len(stored)} {
		if n > size/4 {
			t.Errorf("the run's %s hold %d bytes of a %d-byte document", what, n, size)
		}
	}

	calls := model.requests
	again, stats, err := deepresearch.Replay(ctx, entries, deepresearch.ReplayOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Missed != 0 || stats.Unused != 0 || model.requests != calls {
		t.Errorf("replay: %+v, %d model calls", stats, model.requests-calls)
	}
	for _, f := range []render.Format{render.Markdown, render.JSON} {
		a, _ := rep.Render(f)
		b, _ := again.Render(f)
		if string(a) != string(b) {
			t.Errorf("the replayed report renders %s differently:\n%s\n---\n%s", f, b, a)
		}
	}
}

// TestResumeOverLargeDocument cuts off a run over a folder holding a
// document of megabytes once an agent has read it, and resumes it: the
// report is the uninterrupted run's, no completed model call is made
// twice, and the journal still holds the document's text once.
func TestResumeOverLargeDocument(t *testing.T) {
	dir, size := bigFolder(t, 3<<20)
	index := filepath.Join(t.TempDir(), "index.db")
	researcher := func(model llms.Model) *deepresearch.Researcher {
		return newResearcher(t, deepresearch.Config{Model: model, Search: deepresearchtest.Corpus(t, dir, index), MaxRetries: -1})
	}
	ctx := context.Background()
	req := deepresearch.Request{Question: bigQuestion, RunID: "big"}
	base := newCounted()
	want, err := researchJournaled(ctx, researcher(base), req, &journals{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// textEntries counts the texts the journal holds, and their bytes.
	textEntries := func(js *journals) (int, int) {
		keys, n := map[string]bool{}, 0
		for _, b := range js.runs["big"] {
			if e, err := journal.Decode(b); err == nil && e.Kind == journal.KindText {
				keys[e.Key] = true
				n += len(b)
			}
		}
		return len(keys), n
	}
	for _, k := range []kill{
		{"an agent finished", events.AgentFinished, 1, "research"},
		{"report streaming", events.ReportDelta, 2, "report"},
	} {
		t.Run(k.name, func(t *testing.T) {
			js := &journals{}
			model := newCounted()
			var stored []events.Event
			var mu sync.Mutex
			seen, killed := 0, false
			rctx, cancel := context.WithCancel(ctx)
			r1 := researcher(model)
			_, err := researchJournaled(rctx, r1, req, js, func(e events.Event) {
				mu.Lock()
				defer mu.Unlock()
				if killed {
					return
				}
				stored = append(stored, e)
				if e.Type == k.typ {
					if seen++; seen == k.nth {
						killed = true
						cancel()
					}
				}
			})
			cancel()
			if !killed || err == nil {
				t.Fatalf("the run was not cut off (err %v)", err)
			}
			r1.Close()
			if n, bytes := textEntries(js); n != 1 || bytes > size*21/20 {
				t.Fatalf("cut off, the journal holds %d texts in %d bytes; want the %d-byte document's once", n, bytes, size)
			}
			got, err := deepresearch.ResumeFromEvents(ctx, researcher(model), req, js, stored, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Markdown() != want.Markdown() {
				t.Errorf("the resumed report differs:\n%s\n---want---\n%s", got.Markdown(), want.Markdown())
			}
			if n, bytes := textEntries(js); n != 1 || bytes > size*21/20 {
				t.Errorf("resumed, the journal holds %d texts in %d bytes; want the %d-byte document's once", n, bytes, size)
			}
			for key, n := range model.completed() {
				if n > base.completed()[key] {
					t.Errorf("a completed call was made again (%d times, %d in an uninterrupted run)", n, base.completed()[key])
				}
			}
		})
	}
}
