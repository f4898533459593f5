package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/extractive"
)

// asker is a real model's clarifier as a double, over the OpenAI wire
// format: it asks two questions; it records the planner's messages; the
// offline model answers everything else.
type asker struct {
	offline llms.Model
	mu      sync.Mutex
	planned []string
}

func (a *asker) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	system, human := "", ""
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				switch m.Role {
				case llms.ChatMessageTypeSystem:
					system += t.Text
				case llms.ChatMessageTypeHuman:
					human += t.Text
				}
			}
		}
	}
	switch {
	case strings.HasPrefix(system, "You decide whether"):
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{StopReason: "stop", Content: `{"questions":[` +
			`{"question":"Which cables: the first transatlantic ones, or modern fibre?","assumption":"the first ones"},` +
			`{"question":"Which century?","assumption":"the 19th"}]}`}}}, nil
	case strings.HasPrefix(system, "You plan"):
		a.mu.Lock()
		a.planned = append(a.planned, human)
		a.mu.Unlock()
	}
	return a.offline.GenerateContent(ctx, msgs, opts...)
}

func (a *asker) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, a, prompt, opts...)
}

// TestClarifyAtTheTerminal runs the command on a pseudo-terminal: the
// two clarifying questions are asked at the prompt, the typed answers
// reach the planner's prompt, and with --review-plan the plan is shown and
// accepted.
func TestClarifyAtTheTerminal(t *testing.T) {
	index := isolate(t)
	a := &asker{offline: extractive.New(extractive.Options{})}
	srv := deepresearchtest.NewOpenAIServer(a, deepresearchtest.OpenAIOptions{})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "report.md")
	args, _ := json.Marshal([]string{"run", "--provider", "openai", "--model", "scripted", "--base-url", srv.URL + "/v1",
		"--corpus", corpus, "--index", index, "--progress", "never", "--review-plan", "--output", out, question})
	term := startTerminal(t, args, "OPENAI_API_KEY=test-key")
	term.answerBoth()
	io.WriteString(term.tty, "a\r")
	go io.Copy(io.Discard, term.screen) // the rest, until the process ends
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, term.seen.String())
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.planned) != 1 {
		t.Fatalf("planner called %d times", len(a.planned))
	}
	for _, want := range []string{"Clarifications:", "→ the first transatlantic telegraph cables", "Which century? → 1850 to 1870"} {
		if !strings.Contains(a.planned[0], want) {
			t.Errorf("the planner's message lacks %q:\n%s", want, a.planned[0])
		}
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "[1]") {
		t.Errorf("no report with citations: %v\n%s", err, b)
	}
}

// TestClarifyOffTheTerminal: with the same model and no terminal, the
// run proceeds and the report states its assumptions.
func TestClarifyOffTheTerminal(t *testing.T) {
	index := isolate(t)
	a := &asker{offline: extractive.New(extractive.Options{})}
	srv := deepresearchtest.NewOpenAIServer(a, deepresearchtest.OpenAIOptions{})
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	r := cli(t, "", "run", "--provider", "openai", "--model", "scripted", "--base-url", srv.URL+"/v1",
		"--corpus", corpus, "--index", index, "--progress", "never", question)
	wantSuccess(t, r)
	for _, want := range []string{"Assumed", "the first ones", "the 19th"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(a.planned[0], "Clarifications:") {
		t.Errorf("the planner got answers nobody gave")
	}
}

// TestTerminalAnswersSurviveAKill: the answers typed at the prompt are
// kept in the run's journal. The run is killed (SIGKILL) at the plan's
// review prompt, after the answers; `deepresearch resume`, off a
// terminal, finishes it with them: nobody is asked, the planner is not
// called again, and the report states no assumption.
func TestTerminalAnswersSurviveAKill(t *testing.T) {
	index := isolate(t)
	t.Setenv("OPENAI_API_KEY", "test-key")
	a := &asker{offline: extractive.New(extractive.Options{})}
	srv := deepresearchtest.NewOpenAIServer(a, deepresearchtest.OpenAIOptions{})
	defer srv.Close()
	store := filepath.Join(t.TempDir(), "runs.db")
	model := []string{"--store", store, "--provider", "openai", "--model", "scripted", "--base-url", srv.URL + "/v1",
		"--corpus", corpus, "--index", index, "--progress", "never"}
	args, _ := json.Marshal(append([]string{"run", "--review-plan", question}, model...))
	term := startTerminal(t, args)
	term.answerBoth()
	term.cmd.Process.Kill()
	term.cmd.Wait()

	r := cli(t, "", "runs", "--json", "--store", store)
	m := runID.FindStringSubmatch(r.stdout)
	if m == nil || !strings.Contains(r.stdout, `"status": "interrupted"`) {
		t.Fatalf("the killed run is not listed as interrupted: %s %s", r.stdout, r.stderr)
	}
	resumed := cli(t, "", append([]string{"resume", m[1]}, model...)...)
	if resumed.code != 0 || !strings.Contains(resumed.stdout, "[1]") {
		t.Fatalf("resume: exit %d, %s\n%s", resumed.code, resumed.stderr, resumed.stdout)
	}
	if strings.Contains(resumed.stdout, "Assumed") {
		t.Errorf("the resumed run went on assumptions:\n%s", resumed.stdout)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.planned) != 1 || !strings.Contains(a.planned[0], "Which century? → 1850 to 1870") {
		t.Errorf("the planner's messages: %q", a.planned)
	}
}

// ptyCLI is the CLI run as a child process on a pseudo-terminal.
type ptyCLI struct {
	t      *testing.T
	cmd    *exec.Cmd
	tty    *os.File
	screen *bufio.Reader
	seen   strings.Builder
}

// startTerminal runs the CLI with args (JSON) on a pseudo-terminal, with
// env added to the test's environment; the terminal is closed when the
// test ends.
func startTerminal(t *testing.T, args []byte, env ...string) *ptyCLI {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), roleEnv+"=cli", argsEnv+"="+string(args)), env...)
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return &ptyCLI{t: t, cmd: cmd, tty: tty, screen: bufio.NewReader(tty)}
}

// expect reads the terminal up to text.
func (term *ptyCLI) expect(text string) {
	term.t.Helper()
	for !strings.Contains(term.seen.String(), text) {
		b, err := term.screen.ReadByte()
		if err != nil {
			term.t.Fatalf("the terminal closed before %q: %v\n%s", text, err, term.seen.String())
		}
		term.seen.WriteByte(b)
	}
}

// answerBoth answers the scripted model's two clarifying questions at the
// prompt and waits for the plan's accept/edit/reject prompt.
func (term *ptyCLI) answerBoth() {
	term.t.Helper()
	term.expect("1. Which cables")
	term.expect("> ")
	io.WriteString(term.tty, "the first transatlantic telegraph cables\r")
	term.expect("2. Which century?")
	term.expect("> ")
	io.WriteString(term.tty, "1850 to 1870\r")
	term.expect("[a]ccept, [e]dit, [r]eject? ")
}
