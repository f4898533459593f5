package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// terminalControls returns the characters of s a terminal acts on: C0
// controls but tab and newline, DEL, C1 controls, and bytes that could
// read as C1 controls.
func terminalControls(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1 && s[i] >= 0x80 && s[i] < 0xa0:
			out = append(out, fmt.Sprintf("byte %#x", s[i]))
		case r < 0x20 && r != '\t' && r != '\n', r == 0x7f, r >= 0x80 && r < 0xa0:
			out = append(out, string(r))
		}
		i += n
	}
	return out
}

// TestCLIPrintsNoControlCharacters (issue 18, #6): a question with
// terminal escapes, NUL and C1 controls (as a client of the HTTP API may
// send) is never printed raw: not by run, runs (table or JSON), show (any
// format, --status, --events), replay (issue 29: of a stored run or a
// pack), nor in an error message.
func TestCLIPrintsNoControlCharacters(t *testing.T) {
	index := isolate(t)
	st := filepath.Join(t.TempDir(), "runs.db")
	hostile := "How are \x1b]0;pwned\x07undersea\x1b[2J cables\x00 repaired\u009b31m\x7f?\rX \x9b"
	r := cli(t, "", "run", "--corpus", corpus, "--index", index, "--store", st, "--progress", "never", hostile)
	wantSuccess(t, r)
	outputs := map[string]result{"run": r,
		"run --events -": cli(t, "", "run", "--corpus", corpus, "--index", index, "--store", st, "--progress", "never", "--events", "-", hostile)}
	runs := cli(t, "", "runs", "--store", st, "--json", "-n", "1")
	outputs["runs --json"] = runs
	outputs["runs"] = cli(t, "", "runs", "--store", st)
	id := ""
	if i := strings.Index(runs.stdout, `"id": "`); i >= 0 {
		id, _, _ = strings.Cut(runs.stdout[i+7:], `"`)
	}
	if id == "" {
		t.Fatalf("no run listed: %q", runs.stdout)
	}
	for _, args := range [][]string{{"--status"}, {"--events"}, {"--format", "md"}, {"--format", "html"}, {"--format", "json"}, {"--format", "bibtex"}} {
		outputs["show "+strings.Join(args, " ")] = cli(t, "", append([]string{"show", "--store", st, id}, args...)...)
	}
	for _, args := range [][]string{{}, {"--format", "html"}, {"--format", "json"}, {"--check"}} {
		outputs["replay "+strings.Join(args, " ")] = cli(t, "", append([]string{"replay", "--store", st, id}, args...)...)
	}
	pack := filepath.Join(t.TempDir(), "run.tar.zst")
	wantSuccess(t, cli(t, "", "export", "--store", st, "-o", pack, id))
	outputs["replay (a pack)"] = cli(t, "", "replay", pack)
	docs := t.TempDir() // a file's name is anyone's
	os.WriteFile(filepath.Join(docs, "notes.md"), []byte("# Cables\n\nUndersea cables are repaired by ships.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "bad\x1b]0;pwned\x07\x9b.docx"), []byte("not a zip"), 0o644)
	outputs["index"] = cli(t, "", "index", "--index", filepath.Join(t.TempDir(), "i.db"), docs)
	if !strings.Contains(outputs["index"].stdout, "pwned") {
		t.Errorf("index does not name the skipped file: %q", outputs["index"].stdout)
	}
	outputs["show (an unknown id)"] = cli(t, "", "show", "--store", st, "nope\x1b[31m\x00")
	for name, r := range outputs {
		if name != "show (an unknown id)" && r.code != 0 {
			t.Errorf("%s: exit status %d: %s", name, r.code, r.stderr)
		}
		for where, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if bad := terminalControls(s); len(bad) > 0 {
				t.Errorf("%s: %s holds %q", name, where, bad)
			}
		}
	}
	if !strings.Contains(outputs["runs"].stdout, "undersea") {
		t.Errorf("runs does not show the question: %q", outputs["runs"].stdout)
	}
}
