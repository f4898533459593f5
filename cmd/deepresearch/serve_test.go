package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeRefusesAnOpenAddressWithoutAToken(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		token string
		args  []string
		want  []string
	}{
		{"every interface", "", []string{"--addr", ":0"}, []string{"serve.addr :0", "DEEPRESEARCH_SERVE_TOKEN"}},
		{"a public address", "", []string{"--addr", "0.0.0.0:0"}, []string{"listens beyond this machine"}},
		{"no port", "", []string{"--addr", "127.0.0.1"}, []string{"serve.addr"}},
		// Issue 18, #2: a token of blanks, or a short one, is no token.
		{"a blank token", " ", []string{"--addr", "0.0.0.0:0"}, []string{"serve.token", "spaces"}},
		{"a short token", "secret", []string{"--addr", "0.0.0.0:0"}, []string{"serve.token", "fewer than 16"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DEEPRESEARCH_SERVE_TOKEN", tc.token)
			args := append([]string{"serve", "--store", filepath.Join(dir, "runs.db")}, tc.args...)
			wantBadInput(t, cli(t, "", args...), tc.want...)
		})
	}
}

// TestServeRunsShow serves, runs one question over HTTP, stops the
// server, and lists and shows the run from the same store.
func TestServeRunsShow(t *testing.T) {
	dir := t.TempDir()
	storeArgs := []string{"--store", filepath.Join(dir, "runs.db")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--corpus", filepath.Join("..", "..", "testdata", "corpus"),
			"--index", filepath.Join(dir, "index.db")}, storeArgs...)
		code <- execute(ctx, args, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	base := strings.TrimSpace(strings.TrimPrefix(line, "deepresearch: listening on "))
	res, err := http.Post(base+"/v1/research", "application/json", strings.NewReader(`{"question":"How are undersea cables repaired?"}`))
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ ID string }
	json.NewDecoder(res.Body).Decode(&started)
	res.Body.Close()
	res, err = http.Get(base + "/v1/research/" + started.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body) // the whole run
	res.Body.Close()
	if !strings.Contains(string(b), "event: run.finished") {
		t.Fatalf("the stream has no run.finished:\n%s", b)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("serve exited %d after its context ended", c)
	}

	r := cli(t, "", append([]string{"runs"}, storeArgs...)...)
	if r.code != 0 || !strings.Contains(r.stdout, started.ID) || !strings.Contains(r.stdout, "finished") {
		t.Fatalf("runs: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = cli(t, "", append([]string{"show", started.ID}, storeArgs...)...)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "# ") || !strings.Contains(r.stdout, "## References") {
		t.Fatalf("show: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = cli(t, "", append([]string{"show", "--events", started.ID}, storeArgs...)...)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || !strings.Contains(lines[0], `"type":"run.started"`) || !strings.Contains(lines[len(lines)-1], `"type":"run.finished"`) ||
		strings.Count(string(b), "event: ") != len(lines)+1 { // +1: the stream's end event
		t.Fatalf("show --events: %d, %d lines: %q", r.code, len(lines), r.stderr)
	}
	wantBadInput(t, cli(t, "", append([]string{"show", "nope"}, storeArgs...)...), `no run "nope"`)
}
