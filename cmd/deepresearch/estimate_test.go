package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
)

// TestRunEstimate: run --estimate prints the plan and the expected and
// maximum spend and researches nothing (no report, no stored run);
// --format json prints the same as JSON; --confirm off a terminal is a
// usage error, before anything is spent.
func TestRunEstimate(t *testing.T) {
	store := filepath.Join(t.TempDir(), "runs.db")
	r := research(t, "--estimate", "--store", store)
	wantSuccess(t, r)
	for _, want := range []string{"Plan: ", "| expected |", "| at most |", "unpriced"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--estimate's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "## References") {
		t.Errorf("--estimate researched:\n%s", r.stdout)
	}
	if _, err := os.Stat(store); err == nil {
		if l := cli(t, "", "runs", "--store", store); strings.Contains(l.stdout, "succeeded") {
			t.Errorf("--estimate stored a run:\n%s", l.stdout)
		}
	}

	r = research(t, "--estimate", "--format", "json", "--max-cycles", "2", "--max-tasks", "3")
	wantSuccess(t, r)
	var est deepresearch.Estimate
	if err := json.Unmarshal([]byte(r.stdout), &est); err != nil {
		t.Fatalf("--estimate --format json: %v\n%s", err, r.stdout)
	}
	if est.MaxCycles != 2 || est.MaxAgents != 6 || len(est.Plan) == 0 || est.Maximum.Calls < est.Expected.Calls {
		t.Errorf("estimate %+v", est)
	}

	wantBadInput(t, research(t, "--confirm"), "--confirm needs a terminal")
}

// TestConfirmAtTheTerminal: run --confirm shows the estimate at the
// terminal and asks; "n" ends the run before any research, with a
// failure status and no report; "y" runs it.
func TestConfirmAtTheTerminal(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			index := isolate(t)
			out := filepath.Join(t.TempDir(), "report.md")
			args, _ := json.Marshal([]string{"run", "--corpus", corpus, "--index", index, "--progress", "never", "--confirm", "--output", out, question})
			term := startTerminal(t, args)
			term.expect("| at most |")
			term.expect("Run it? [y/N] ")
			io.WriteString(term.tty, answer+"\r")
			go io.Copy(io.Discard, term.screen)
			err := term.cmd.Wait()
			b, rerr := os.ReadFile(out)
			switch {
			case answer == "n" && (err == nil || rerr == nil):
				t.Errorf("a run not confirmed: exit %v, report %v", err, rerr)
			case answer == "y" && (err != nil || !strings.Contains(string(b), "## References")):
				t.Errorf("a confirmed run: exit %v, report %v\n%s", err, rerr, b)
			}
		})
	}
}
