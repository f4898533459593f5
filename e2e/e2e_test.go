// Package e2e runs the end-to-end suites — real clients we did not write,
// against the real binary — as part of `go test ./...`: the official
// openai and eventsource npm packages and headless Chromium against
// `deepresearch serve` (run.sh), and the official MCP TypeScript SDK
// against `deepresearch mcp` (mcp/run.sh); and a real Chroma server from
// npm (TestRealChroma, see EnvChroma). Each script builds the binary,
// installs its npm packages when they are missing and runs `node --test`.
//
// Node.js, npm and Chromium are outside Go: where one is missing the suite
// is skipped with a message, except under CI (CI=true), where .ci/run
// installs them and a missing one fails the test.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end suites are not short")
	}
	for _, suite := range []struct {
		name, script string
		needs        []string
	}{
		{"mcp", "mcp/run.sh", []string{"bash", "node", "npm"}},
		{"serve", "run.sh", []string{"bash", "node", "npm", chromium()}},
	} {
		t.Run(suite.name, func(t *testing.T) {
			for _, tool := range suite.needs {
				if _, err := exec.LookPath(tool); err != nil {
					if os.Getenv("CI") != "" {
						t.Fatalf("%s is not installed; .ci/run installs it", tool)
					}
					t.Skipf("%s is not installed (the suite needs Node.js 20+, npm and Debian's chromium; .ci/run installs them)", tool)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", suite.script)
			cmd.WaitDelay = 10 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", suite.script, err, tail(string(out), 8000))
			}
			t.Logf("%s", tail(string(out), 1500))
		})
	}
}

func chromium() string {
	if c := os.Getenv("CHROMIUM"); c != "" {
		return c
	}
	return "chromium"
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[strings.LastIndex(s[:len(s)-n], "\n")+1:]
}
