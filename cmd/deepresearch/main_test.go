package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMain(m *testing.M) {
	if role := os.Getenv(roleEnv); role != "" {
		os.Exit(runRole(role)) // this binary is another process of a test: see kill_test.go
	}
	code := m.Run()
	if built.bin != "" {
		os.RemoveAll(filepath.Dir(built.bin))
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// result is what one in-process run of the command line produced.
type result struct {
	code           int
	stdout, stderr string
}

// cli runs the command line in-process with stdin as its input.
func cli(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// wantBadInput checks that r is a rejection of the caller's input: exit
// status 2, nothing on stdout, and a message on stderr that contains
// every one of want.
func wantBadInput(t *testing.T, r result, want ...string) {
	t.Helper()
	if r.code != 2 {
		t.Errorf("exit status %d, want 2 (stderr: %q)", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout is not empty on bad input: %q", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "deepresearch: ") {
		t.Errorf("stderr %q does not start with %q", r.stderr, "deepresearch: ")
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr %q does not mention %q", r.stderr, w)
		}
	}
}

func TestHelp(t *testing.T) {
	names := []string{""} // the root
	for _, c := range newRootCmd(nil, nil, nil).Commands() {
		names = append(names, c.Name())
	}
	for _, want := range []string{"cite", "collapse", "run", "index"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Fatalf("the root has no %q subcommand (has %q)", want, names)
		}
	}
	for _, name := range names {
		for _, form := range []string{"--help", "-h", "help"} {
			args := []string{form}
			if name != "" {
				args = []string{name, form}
				if form == "help" {
					args = []string{"help", name}
				}
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				r := cli(t, "", args...)
				if r.code != 0 {
					t.Fatalf("exit status %d, want 0 (stderr: %q)", r.code, r.stderr)
				}
				if r.stderr != "" {
					t.Errorf("stderr: %q", r.stderr)
				}
				path := strings.TrimSpace("deepresearch " + name)
				if !strings.Contains(r.stdout, "Usage:") || !strings.Contains(r.stdout, path) {
					t.Errorf("help does not show the usage of %q:\n%s", path, r.stdout)
				}
			})
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown flag of cite", []string{"cite", "--bogus"}, []string{"--bogus", "deepresearch cite --help"}},
		{"unknown flag of collapse", []string{"collapse", "--bogus"}, []string{"--bogus"}},
		{"unknown flag of run", []string{"run", "--bogus", "q"}, []string{"--bogus", "deepresearch run --help"}},
		{"flag of the wrong type", []string{"run", "--max-tasks", "many", "q"}, []string{"--max-tasks", "many"}},
		{"run without a question", []string{"run"}, []string{"one question", "got 0"}},
		{"run with a blank question", []string{"run", "  "}, []string{"the question is empty"}},
		{"run with two questions", []string{"run", "a", "b"}, []string{"one question", "got 2"}},
		{"bad --progress", []string{"run", "--progress", "sometimes", "q"}, []string{"--progress", "sometimes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantBadInput(t, cli(t, "", tt.args...), tt.want...)
		})
	}
}

// TestUsageErrorsPositional: arguments a command does not take, and
// commands that do not exist, are usage errors like unknown flags are.
func TestUsageErrorsPositional(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"cite takes no arguments", []string{"cite", "extra"}, "extra"},
		{"collapse takes no arguments", []string{"collapse", "extra"}, "extra"},
		{"index takes one folder", []string{"index", "a", "b"}, "2"},
		{"unknown command", []string{"bogus"}, "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantBadInput(t, cli(t, "{}", tt.args...), tt.want)
		})
	}
}

// TestBinary builds the command and checks, through the operating
// system, the exit status and that stdout stays empty on bad input.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stdout   bool // whether stdout must not be empty
		inStderr string
	}{
		{"cite", []string{"cite"}, `{"mode":"link","mapping":{"1":{"id":"a","url":"https://a.org/"}},"text":"x [1]"}`, 0, true, ""},
		{"cite invalid JSON", []string{"cite"}, `{"mode":`, 2, false, "line 1, column"},
		{"cite --stream bad header", []string{"cite", "--stream"}, "{\"mode\": 3}\n", 2, false, "stdin line 1"},
		{"collapse unknown field", []string{"collapse"}, `{"reports":[],"extra":1}`, 2, false, `"extra"`},
		{"run without a question", []string{"run"}, "", 2, false, "one question"},
		{"help", []string{"--help"}, "", 0, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
			code := runBinary(t, cmd)
			if code != tt.code {
				t.Errorf("exit status %d, want %d (stderr: %q)", code, tt.code, stderr.String())
			}
			if got := stdout.Len() > 0; got != tt.stdout {
				t.Errorf("stdout is %q, want it empty: %v", stdout.String(), !tt.stdout)
			}
			if !strings.Contains(stderr.String(), tt.inStderr) {
				t.Errorf("stderr %q does not mention %q", stderr.String(), tt.inStderr)
			}
		})
	}
}

var built struct {
	once sync.Once
	bin  string
	err  error
}

// buildBinary builds the command once for the tests that run it through
// the operating system; it skips the test where there is no go command.
func buildBinary(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "deepresearch-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "deepresearch")
		if out, err := exec.Command(gobin, "build", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// runBinary runs cmd and returns its exit status.
func runBinary(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestHelpUnknownMarkers checks that the help of cite and collapse does not
// list "[01]" among the markers they drop: both read it as citation 1.
func TestHelpUnknownMarkers(t *testing.T) {
	for _, name := range []string{"cite", "collapse"} {
		r := cli(t, "", name, "--help")
		if r.code != 0 {
			t.Fatalf("%s --help: exit status %d", name, r.code)
		}
		if strings.Contains(r.stdout, `"[01]"`) {
			t.Errorf("%s --help lists \"[01]\" as a marker in no understood form; it is read as 1:\n%s", name, r.stdout)
		}
		if !strings.Contains(r.stdout, `"[3-1]"`) {
			t.Errorf("%s --help no longer gives an example of an unknown marker", name)
		}
	}
}
