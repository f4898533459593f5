//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPFilesystem researches a folder through the MCP project's
// filesystem server (@modelcontextprotocol/server-filesystem from npm,
// e2e/mcpsrc), run by the real binary from its settings file as
// search.providers' mcp:files: its search_files lists the Markdown
// files, its read_text_file (detected) reads them, and the report cites
// the file that answers by its path, on the channel mcp:files, with its
// citations verified.
func TestMCPFilesystem(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end suites are not short")
	}
	server := npmMCPServer(t, "server-filesystem")
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	files := map[string]string{
		"raft.md": "# Raft\n\nRaft elects a leader with randomized election timeouts. " +
			"The leader replicates its log to the followers, and a log entry is committed once a majority of servers store it.\n",
		"guides/bread.md": "# Bread\n\nKnead the dough for ten minutes and let it rise for an hour.\n",
		"notes.txt":       "Raft is mentioned here, but this is no Markdown file.\n",
	}
	for name, text := range files {
		p := filepath.Join(docs, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := fmt.Sprintf(`research:
  max_cycles: 1
search:
  providers: [mcp:files]
mcp:
  servers:
    files:
      command: [%q, %q, %q]
      search_tool: search_files
      search_args: {path: %q, pattern: "**/*.md"}
`, server[0], server[1], docs, docs)
	if err := os.WriteFile(filepath.Join(dir, "deepresearch.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--format", "json", "How does Raft elect a leader and commit log entries?")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("deepresearch run: %v\n%s", err, tail(stderr.String(), 4000))
	}
	var rep struct {
		Text       string `json:"text"`
		References []struct {
			URL     string `json:"url"`
			Channel string `json:"channel"`
		} `json:"references"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	raft := "file://" + filepath.Join(docs, "raft.md")
	var cited bool
	for _, r := range rep.References {
		if r.Channel != "mcp:files" || !strings.HasPrefix(r.URL, "file://"+docs+"/") || strings.HasSuffix(r.URL, ".txt") {
			t.Errorf("reference %+v: want a Markdown file of the folder, on the channel mcp:files", r)
		}
		cited = cited || r.URL == raft
	}
	if !cited {
		t.Errorf("the report does not cite %s:\n%s", raft, rep.Text)
	}
	// Its citations verify against the passages the JSON report carries,
	// as docs/verification.md checks a run's report.
	if err := os.WriteFile(filepath.Join(dir, "run.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(rep.Text), 0o644); err != nil {
		t.Fatal(err)
	}
	verify := exec.CommandContext(ctx, bin, "verify", "--sources", "run.json", "report.md")
	verify.Dir, verify.Env = dir, cmd.Env
	got, err := verify.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if err != nil || len(lines) < 3 || lines[len(lines)-1] != "PASS" {
		t.Fatalf("deepresearch verify: %v\n%s", err, got)
	}
	// citations supported unsupported fabricated …: every one supported.
	if f := strings.Fields(lines[1]); len(f) < 4 || f[0] == "0" || f[1] != f[0] || f[3] != "0" {
		t.Errorf("deepresearch verify: want every citation supported\n%s", got)
	}
}

// npmMCPServer is node and the entry point of a reference MCP server that
// npm installed in e2e/mcpsrc (`npm ci` there; .ci/run does). Without
// them the test is skipped with the reason, except under CI, where it
// fails.
func npmMCPServer(t *testing.T, pkg string) []string {
	t.Helper()
	why := ""
	node, err := exec.LookPath("node")
	entry, _ := filepath.Abs(filepath.Join("mcpsrc", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if err != nil {
		why = "node is not installed"
	} else if _, err := os.Stat(entry); err != nil {
		why = fmt.Sprintf("@modelcontextprotocol/%s is not installed (%v)", pkg, err)
	}
	if why != "" {
		msg := why + "; run `npm ci` in e2e/mcpsrc (.ci/run does)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return []string{node, entry}
}
