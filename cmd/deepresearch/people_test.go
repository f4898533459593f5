package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// TestPlanThenRunPlan: `plan` prints a plan as JSON; edited (a task
// removed, one added) and given to `run --plan`, exactly its tasks are
// researched, in its order.
func TestPlanThenRunPlan(t *testing.T) {
	index := isolate(t)
	r := cli(t, "", "plan", "--max-tasks", "3", question)
	wantSuccess(t, r)
	var p deepresearch.Plan
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("plan's output is not a plan: %v\n%s", err, r.stdout)
	}
	if len(p.Tasks) < 2 || p.Question != question {
		t.Fatalf("plan: %+v", p)
	}
	p.Tasks = append(p.Tasks[1:2], events.PlanTask{Title: "Cable ships", Question: "Which ships laid the transatlantic telegraph cables?"})
	b, _ := json.Marshal(p)
	file := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r = cli(t, "", "run", "--corpus", corpus, "--index", index, "--progress", "never", "--events", "-", "--plan", file, question)
	wantSuccess(t, r)
	ran := map[int]string{} // by plan position: agents start in any order
	for _, e := range parseEvents(t, r.stdout) {
		if e.Type == "agent.started" {
			var d events.AgentStartedData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			ran[d.Task.Index] = d.Task.Title
		}
	}
	if want := (map[int]string{0: p.Tasks[0].Title, 1: "Cable ships"}); !maps.Equal(ran, want) {
		t.Errorf("ran %v, want exactly %v", ran, want)
	}
}

// TestRunReportControls: --outline's sections are the report's, in
// order; --length keeps the offline report short; --language makes it
// say it is not translated.
func TestRunReportControls(t *testing.T) {
	outline := filepath.Join(t.TempDir(), "outline.md")
	if err := os.WriteFile(outline, []byte("# Laying the cables\n# Repairing the cables\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := research(t, "--outline", outline, "--length", "200", "--language", "German")
	wantSuccess(t, r)
	i, j := strings.Index(r.stdout, "## Laying the cables"), strings.Index(r.stdout, "## Repairing the cables")
	if i < 0 || j < i {
		t.Errorf("the outline's sections are not the report's, in order:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "Not translated into German") {
		t.Errorf("the report does not say it is not translated:\n%s", r.stdout)
	}
}

func TestPeopleFlagErrors(t *testing.T) {
	wantBadInput(t, research(t, "--clarify", "sometimes"), "--clarify")
	wantBadInput(t, research(t, "--review-plan"), "--review-plan needs a terminal")
	wantBadInput(t, research(t, "--review", "every_cycle"), "--review every_cycle needs a terminal")
	wantBadInput(t, research(t, "--review", "sometimes"), "--review", `"sometimes"`, "never, first_plan or every_cycle")
	wantBadInput(t, research(t, "--review-plan", "--review", "never"), "--review-plan", "--review never")
	wantBadInput(t, research(t, "--plan", filepath.Join(t.TempDir(), "none.json")), "--plan")
	wantBadInput(t, research(t, "--length", "-5"), "length")
}

// TestRunsShowsWaitingRuns: `runs` lists a run waiting for a person with
// its waiting status.
func TestRunsShowsWaitingRuns(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "runs.db")
	st, err := sqlitestore.Open(t.Context(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for id, status := range map[string]sqlitestore.Status{"asking": runstore.NeedsInput, "reviewing": runstore.AwaitingPlan} {
		if err := st.Create(t.Context(), sqlitestore.Run{ID: id, Question: "q " + id, Origin: runstore.OriginServer}); err != nil {
			t.Fatal(err)
		}
		st.Start(t.Context(), id)
		if err := st.SetStatus(t.Context(), id, status); err != nil {
			t.Fatal(err)
		}
	}
	r := cli(t, "", "runs", "--store", path)
	st.Close()
	wantSuccess(t, r)
	for _, want := range []string{"asking\tneeds_input", "reviewing\tawaiting_plan"} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), "\t"), want) {
			t.Errorf("runs does not show %q:\n%s", want, r.stdout)
		}
	}
}
