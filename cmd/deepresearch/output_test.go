package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputKeepsMode: an existing report file keeps its permissions (a
// private 0600 report stays private).
func TestOutputKeepsMode(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.md")
	if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantSuccess(t, research(t, "-o", out))
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
}

// TestOutputFollowsSymlink: -o through a symlink writes the link's target
// and leaves the link in place.
func TestOutputFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.md")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("real.md", link); err != nil {
		t.Fatal(err)
	}
	wantSuccess(t, research(t, "-o", link))
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced (%v, %v)", fi, err)
	}
	data, _ := os.ReadFile(target)
	if !strings.Contains(string(data), "## References") {
		t.Errorf("the link's target does not hold the report: %.100q", data)
	}
}

// TestOutputToFIFO: a FIFO (like /dev/stdout or a device) is written in
// place, never renamed over.
func TestOutputToFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	r := research(t, "-o", fifo)
	if r.code != 0 {
		// Unblock the reader before failing.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-got
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if s := <-got; !strings.Contains(s, "## References") {
		t.Errorf("the FIFO received %.100q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}

// TestOutputCheckedFirst: an -o in a folder that does not exist, or -o and
// --events naming one file, fail before any research (no event written,
// status 2).
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no folder", []string{"-o", filepath.Join(dir, "nodir", "x.md")}, "no folder"},
		{"same file", []string{"-o", filepath.Join(dir, "same.out"), "--events", filepath.Join(dir, "same.out")}, "same file"},
		{"a folder", []string{"-o", dir}, "is a folder"},
		// Issue 18, #13: the report and the events cannot share stdout.
		{"both on stdout", []string{"-o", "-", "--events", "-"}, "both name stdout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := research(t, tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
				t.Errorf("exit %d, stderr %q, stdout %.80q; want status 2 naming %q", r.code, r.stderr, r.stdout, tc.want)
			}
		})
	}
}

// TestEventsWriteFailure: events that cannot be written (a full disk:
// /dev/full) are an error, exit status 1, not a silent success.
func TestEventsWriteFailure(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	r := research(t, "--events", "/dev/full")
	if r.code != 1 || !strings.Contains(r.stderr, "writing events") {
		t.Errorf("exit %d, stderr %q; want status 1 and a write error", r.code, r.stderr)
	}
}

// TestIndexSkipsLinksOutside: a symlink out of the corpus is not indexed,
// and index says so with the reason.
func TestIndexSkipsLinksOutside(t *testing.T) {
	index := isolate(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nSome text about cables.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.txt")); err != nil {
		t.Fatal(err)
	}
	r := cli(t, "", "index", "--index", index, dir)
	if r.code != 0 || !strings.Contains(r.stdout, "1 added") || !strings.Contains(r.stdout, "skipped passwd.txt") || !strings.Contains(r.stdout, "outside") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestRunIsKept: the CLI's run goes into the run store, where runs lists
// it and show prints its report.
func TestRunIsKept(t *testing.T) {
	index := isolate(t)
	st := filepath.Join(t.TempDir(), "runs.db")
	r := cli(t, "", "run", "--corpus", corpus, "--index", index, "--store", st, "--progress", "never", question)
	wantSuccess(t, r)
	list := cli(t, "", "runs", "--store", st, "--json")
	if list.code != 0 || !strings.Contains(list.stdout, "finished") {
		t.Fatalf("runs: exit %d\n%s%s", list.code, list.stdout, list.stderr)
	}
	var runs []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(list.stdout), &runs); err != nil || len(runs) != 1 {
		t.Fatalf("runs --json: %v %q", err, list.stdout)
	}
	show := cli(t, "", "show", "--store", st, runs[0].ID)
	if show.code != 0 || show.stdout != r.stdout {
		t.Errorf("show prints something else than run did:\n%s\nwant\n%s", show.stdout, r.stdout)
	}
}

// TestVerifyStoredRun: verify --run checks a stored run's report against
// the text its agents read, offline; a planted unsupported claim fails it.
func TestVerifyStoredRun(t *testing.T) {
	index := isolate(t)
	dir := t.TempDir()
	st := filepath.Join(dir, "runs.db")
	r := cli(t, "", "run", "--corpus", corpus, "--index", index, "--store", st, "--progress", "never", "--style", "plain", question)
	wantSuccess(t, r)
	list := cli(t, "", "runs", "--store", st, "--json")
	var runs []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(list.stdout), &runs); err != nil || len(runs) != 1 {
		t.Fatalf("runs --json: %v %q", err, list.stdout)
	}
	ok := cli(t, "", "verify", "--store", st, "--run", runs[0].ID)
	if ok.code != 0 || !strings.Contains(ok.stdout, "PASS") {
		t.Fatalf("the run's own report: exit %d\n%s%s", ok.code, ok.stdout, ok.stderr)
	}
	// The same report with a fabricated citation and a claim its source
	// does not make.
	body, _, _ := strings.Cut(r.stdout, "\n## References")
	planted := body + "\n\nGiraffes invented the transistor [1]. The moon is cheese [42].\n"
	bad := cli(t, planted, "verify", "--store", st, "--run", runs[0].ID, "-")
	if bad.code != 1 || !strings.Contains(bad.stdout, "FAIL") || !strings.Contains(bad.stdout, "42") {
		t.Errorf("planted problems: exit %d\n%s%s", bad.code, bad.stdout, bad.stderr)
	}
}

// TestOutputToStdoutPipe (issue 18, #14): -o /dev/stdout, --events
// /dev/stdout and -o /dev/stderr are written in place when they are pipes
// (as a shell or a program reading the output makes them), and the report
// and the events cannot both go to stdout however it is named.
func TestOutputToStdoutPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	index := isolate(t)
	for _, tc := range []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string // what each must hold
	}{
		{"-o /dev/stdout", []string{"-o", "/dev/stdout"}, 0, "## References", ""},
		{"-o /dev/fd/1", []string{"-o", "/dev/fd/1"}, 0, "## References", ""},
		{"-o -", []string{"-o", "-"}, 0, "## References", ""},
		{"--events /dev/stdout", []string{"--events", "/dev/stdout"}, 0, `"type":"run.finished"`, ""},
		{"-o /dev/stderr", []string{"-o", "/dev/stderr"}, 0, "", "## References"},
		{"--events - -o /dev/stdout", []string{"--events", "-", "-o", "/dev/stdout"}, 2, "", "both name stdout"},
		{"--events /dev/stdout -o -", []string{"--events", "/dev/stdout", "-o", "-"}, 2, "", "both name stdout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--corpus", corpus, "--index", index, "--progress", "never"}, tc.args...)
			cmd := exec.Command(bin, append(args, question)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr // pipes, for the child
			code := runBinary(t, cmd)
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout %.300q (want %q)\nstderr %.300q (want %q)", code, tc.code, stdout.String(), tc.stdout, stderr.String(), tc.stderr)
			}
			if tc.code == 0 && strings.Contains(stdout.String(), `"type":`) && strings.Contains(stdout.String(), "## References") {
				t.Errorf("the events and the report both went to stdout:\n%.300q", stdout.String())
			}
			if tc.code != 0 && stdout.Len() > 0 {
				t.Errorf("stdout is not empty on bad input: %.200q", stdout.String())
			}
		})
	}
}

// TestLongQuestionIsBadInput (issue 18, #17): a question over the 4096
// bytes a request may hold is bad input — exit status 2, nothing on
// stdout — and no run is stored.
func TestLongQuestionIsBadInput(t *testing.T) {
	index := isolate(t)
	st := filepath.Join(t.TempDir(), "runs.db")
	long := strings.Repeat("How are undersea cables repaired? ", 130)
	r := cli(t, "", "run", "--corpus", corpus, "--index", index, "--store", st, "--progress", "never", long)
	wantBadInput(t, r, `"question"`, "4096")
	if runs := cli(t, "", "runs", "--store", st); runs.code != 0 || strings.Count(runs.stdout, "\n") != 1 {
		t.Errorf("runs after a refused question: %d %q", runs.code, runs.stdout)
	}
}

// TestOutputExtensionChoosesFormat: -o names the format by its extension
// (report.html is a page, report.json the JSON report) unless --format
// says otherwise.
func TestOutputExtensionChoosesFormat(t *testing.T) {
	dir := t.TempDir()
	page, doc, md := filepath.Join(dir, "report.html"), filepath.Join(dir, "report.json"), filepath.Join(dir, "forced.html")
	wantSuccess(t, research(t, "-o", page))
	wantSuccess(t, research(t, "-o", doc))
	wantSuccess(t, research(t, "--format", "md", "-o", md))
	if b, _ := os.ReadFile(page); !bytes.HasPrefix(bytes.TrimSpace(bytes.ToLower(b)), []byte("<!doctype html")) {
		t.Errorf("-o report.html wrote no HTML page: %.80q", b)
	}
	var v map[string]any
	if b, _ := os.ReadFile(doc); json.Unmarshal(b, &v) != nil || v["question"] == nil {
		t.Errorf("-o report.json wrote no JSON report: %.80q", b)
	}
	if b, _ := os.ReadFile(md); !bytes.HasPrefix(b, []byte("# ")) {
		t.Errorf("--format md -o forced.html did not write markdown: %.80q", b)
	}
}
