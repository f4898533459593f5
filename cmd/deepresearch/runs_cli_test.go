package main

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// TestPlanTimeoutAtTheTerminal: over the CLI as over HTTP (httpapi's
// TestPlanTimeout) and MCP (mcpserver's TestPlanTimeout), a plan nobody
// reviews within serve.plan_timeout is researched as proposed, or the
// run ends failed, as serve.plan_timeout_action says. The plan is shown
// at the terminal and nobody answers; the prompt ends, saying so. (The
// timeout is a millisecond, over before the prompt is read: nothing here
// waits on the clock.)
func TestPlanTimeoutAtTheTerminal(t *testing.T) {
	for _, action := range []deepresearch.TimeoutAction{deepresearch.TimeoutProceed, deepresearch.TimeoutCancel} {
		t.Run(string(action), func(t *testing.T) {
			index := isolate(t)
			store := filepath.Join(t.TempDir(), "runs.db")
			args, _ := json.Marshal([]string{"run", "--corpus", corpus, "--index", index, "--store", store,
				"--progress", "never", "--review-plan", question})
			term := startTerminal(t, args, "DEEPRESEARCH_SERVE_PLAN_TIMEOUT=1ms", "DEEPRESEARCH_SERVE_PLAN_TIMEOUT_ACTION="+string(action))
			term.expect("[a]ccept, [e]dit, [r]eject? ")
			term.expect("The plan was not reviewed in time (serve.plan_timeout)")
			rest, _ := io.ReadAll(term.screen) // until the process ends
			err := term.cmd.Wait()
			screen := term.seen.String() + string(rest)
			r := cli(t, "", "runs", "--json", "--store", store)
			switch action {
			case deepresearch.TimeoutProceed:
				if err != nil || !strings.Contains(screen, "[1]") {
					t.Errorf("the run: %v\n%s", err, screen)
				}
				if !strings.Contains(r.stdout, `"status": "finished"`) {
					t.Errorf("the stored run: %s", r.stdout)
				}
			case deepresearch.TimeoutCancel:
				if err == nil || !strings.Contains(screen, deepresearch.ErrReviewTimeout.Error()) {
					t.Errorf("the run: %v\n%s", err, screen)
				}
				if !strings.Contains(r.stdout, `"status": "failed"`) || !strings.Contains(r.stdout, deepresearch.ErrReviewTimeout.Error()) {
					t.Errorf("the stored run: %s", r.stdout)
				}
			}
		})
	}
}

// TestRunTimeLimitOverTheCLI: serve.run_timeout bounds a CLI run as it
// bounds a server's (the limit is a nanosecond: the run is past it as it
// starts).
func TestRunTimeLimitOverTheCLI(t *testing.T) {
	index := isolate(t)
	store := filepath.Join(t.TempDir(), "runs.db")
	t.Setenv("DEEPRESEARCH_SERVE_RUN_TIMEOUT", "1ns")
	r := cli(t, "", "run", "--corpus", corpus, "--index", index, "--store", store, "--progress", "never", question)
	if r.code == 0 || !strings.Contains(r.stderr, deepresearch.ErrTimeLimit.Error()) {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	if runs := cli(t, "", "runs", "--json", "--store", store); !strings.Contains(runs.stdout, `"status": "failed"`) {
		t.Errorf("the stored run: %s", runs.stdout)
	}
}

// TestResumeTooOften: 'deepresearch resume' takes up a run as a server
// takes up its own on start (deepresearch.Runs): one interrupted more
// often than serve.max_resumes allows is not taken up again but ends
// failed, saying so.
func TestResumeTooOften(t *testing.T) {
	index := isolate(t)
	path := filepath.Join(t.TempDir(), "runs.db")
	st, err := sqlitestore.Open(t.Context(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	opts, _ := json.Marshal(deepresearch.Request{Question: question})
	crashy := runstore.Run{ID: "0123456789abcdef", Question: question, Options: opts, Origin: runstore.OriginCLI}
	st.Create(ctx, crashy)
	st.Start(ctx, crashy.ID)
	st.Finish(ctx, crashy.ID, runstore.Interrupted, events.Usage{}, "killed")
	st.Reopen(ctx, crashy.ID)
	st.Finish(ctx, crashy.ID, runstore.Interrupted, events.Usage{}, "killed")
	st.Close()

	t.Setenv("DEEPRESEARCH_SERVE_MAX_RESUMES", "1")
	r := cli(t, "", "resume", crashy.ID, "--store", path, "--corpus", corpus, "--index", index, "--progress", "never")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "interrupted 2 times; not resumed again (at most 1 resumes)") {
		t.Errorf("resume: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	if runs := cli(t, "", "runs", "--json", "--store", path); !strings.Contains(runs.stdout, `"status": "failed"`) {
		t.Errorf("the run interrupted too often: %s", runs.stdout)
	}
	r = cli(t, "", "resume", "fedcba9876543210", "--store", path, "--corpus", corpus, "--index", index, "--progress", "never")
	if r.code != 2 || !strings.Contains(r.stderr, `no run "fedcba9876543210"`) {
		t.Errorf("resuming a run the store lacks: exit %d, %q", r.code, r.stderr)
	}
}
