package deepresearch_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
)

// TestLoopFollowsReferences: a source that names another document — by
// an emphasised title after "see", by a Markdown link, by a hyphenated
// path — leads the loop to read that document before it takes the
// question as answered, though no search of the question's words finds
// it (it shares none of them). The document is read once, by one
// follow-up that names the reference as its gap, and the report cites
// it; with one cycle nothing is followed.
func TestLoopFollowsReferences(t *testing.T) {
	target := "# Resource Controllers\n\nResource controllers expose the knob hard_ceiling_bytes, which holds the ceiling; going past it invokes the OOM killer.\n"
	tests := []struct{ name, ref, gap string }{
		{"see an emphasised title", "see *Resource Controllers*", "Resource Controllers"},
		{"a Markdown link", "see [Resource Controllers](../cgroups/cgroup-v2.md#memory)", "Resource Controllers"},
		{"a hyphenated path", "see cgroups/cgroup-v2.md", "cgroups/cgroup-v2.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, text string) {
				p := filepath.Join(dir, "docs", filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("admin-guide/memory-limits.md", "# Memory limits for task groups\n\n"+
				"The memory use of a task group can be capped. To cap the memory of a task group, "+tt.ref+" for the files to write.\n")
			write("cgroups/cgroup-v2.md", target)
			write("other/harbours.md", "# Harbours\n\nHarbours shelter ships behind breakwaters.\n")
			const question = "How do I cap the memory use of a task group?"
			run := func(cycles int) (*deepresearch.Report, *recorder) {
				return runChecked(t, deepresearch.Config{Search: deepresearchtest.Corpus(t, filepath.Join(dir, "docs"), filepath.Join(dir, "index.db")), Limits: deepresearch.Limits{MaxCycles: cycles}}, question)
			}

			rep, rec := run(3)
			var follow []events.PlanTask
			for _, e := range rec.of(events.CycleStarted) {
				for _, task := range e.Data.(events.CycleStartedData).Tasks {
					if task.Cycle > 1 {
						follow = append(follow, task)
					}
				}
			}
			want := "reference: " + tt.gap + ", named in [1] Memory limits for task groups"
			if len(follow) != 1 || follow[0].Gap != want || follow[0].Part != "t1" {
				t.Fatalf("follow-ups %+v; want one, part t1, gap %q", follow, want)
			}
			first := rec.of(events.Assessed)[0].Data.(events.AssessedData)
			if first.Done || first.Decision != events.LoopContinue ||
				!slices.ContainsFunc(first.Gaps, func(g events.Gap) bool { return g.Kind == events.GapReference }) {
				t.Errorf("the first assessment: %+v; want a reference gap and another cycle", first)
			}
			cited := map[string]bool{}
			for _, ref := range rep.References {
				cited[ref.ID] = true
			}
			if !cited["cgroups/cgroup-v2.md"] || !cited["admin-guide/memory-limits.md"] {
				t.Errorf("the report cites %v; want the page and the page it names", rep.References)
			}
			if !strings.Contains(rep.Text, "hard_ceiling_bytes") {
				t.Errorf("the report does not quote the document followed:\n%s", rep.Text)
			}
			if rep.LoopEnd != events.LoopAnswered {
				t.Errorf("loop end %q, want %q", rep.LoopEnd, events.LoopAnswered)
			}

			rep, rec = run(1)
			if rep.Cycles != 1 || len(rec.of(events.CycleStarted)) != 1 {
				t.Errorf("with one cycle: %d cycles", rep.Cycles)
			}
		})
	}
}

// runChecked runs question with a Researcher of cfg, recording its
// events, and checks the report's citations.
func runChecked(t *testing.T, cfg deepresearch.Config, question string) (*deepresearch.Report, *recorder) {
	t.Helper()
	r, err := deepresearch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, question, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	checkCitations(t, rep, rec)
	return rep, rec
}

// TestLoopFollowBoundsTitle: the follow-up that reads a document asks the
// question of it by its title, bounded as its gap's name is: a document's
// own title (untrusted) cannot make the task's question long.
func TestLoopFollowBoundsTitle(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, "docs", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("admin-guide/memory-limits.md", "# Memory limits for task groups\n\n"+
		"The memory use of a task group can be capped. To cap the memory of a task group, see cgroups/cgroup-v2.md for the files to write.\n")
	write("cgroups/cgroup-v2.md", "# Resource Controllers"+strings.Repeat(" and more controllers", 200)+
		"\n\nResource controllers expose the knob hard_ceiling_bytes, which holds the ceiling; going past it invokes the OOM killer.\n")
	const question = "How do I cap the memory use of a task group?"
	_, rec := runChecked(t, deepresearch.Config{Search: deepresearchtest.Corpus(t, filepath.Join(dir, "docs"), filepath.Join(dir, "index.db")), Limits: deepresearch.Limits{MaxCycles: 2}}, question)
	n := 0
	for _, e := range rec.of(events.CycleStarted) {
		for _, task := range e.Data.(events.CycleStartedData).Tasks {
			if task.Cycle > 1 {
				n++
				if len(task.Question) > 120+len(": "+question) || !strings.HasPrefix(task.Question, "Resource Controllers") {
					t.Errorf("the follow-up's question is %d bytes: %.200q…", len(task.Question), task.Question)
				}
			}
		}
	}
	if n != 1 {
		t.Errorf("%d follow-ups, want 1", n)
	}
}
