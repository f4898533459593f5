package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyReportTooLarge (issue 18, #10): verify reads a report of at
// most 16 MiB, as cite does; a larger one is bad input (exit status 2),
// from a file or stdin.
func TestVerifyReportTooLarge(t *testing.T) {
	src := filepath.Join(verifyDir, "sources.json")
	big := filepath.Join(t.TempDir(), "big.md")
	text := strings.Repeat("Programs must serialize access [1]. ", (16<<20)/36+1)
	if err := os.WriteFile(big, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	wantBadInput(t, cli(t, "", "verify", "--sources", src, big), "16 MiB")
	wantBadInput(t, cli(t, text, "verify", "--sources", src, "-"), "16 MiB")
}

// TestVerifyMessages (issue 18, #19): a line range is reported as it was
// written, however large; a report that cites nothing says there was
// nothing to verify, and fails a strict check.
func TestVerifyMessages(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(verifyDir, "sources.json")
	r := cli(t, "See the entry point [main.go, L1-99999999999999999999].\n", "verify", "--sources", src, "--root", dir, "-")
	if !strings.Contains(r.stdout, "lines 1-99999999999999999999 are beyond its 3 lines") {
		t.Errorf("a huge line range:\n%s", r.stdout)
	}
	for _, report := range []string{"", "A report that cites nothing.\n"} {
		r := cli(t, report, "verify", "--sources", src, "-")
		if r.code != 0 || !strings.Contains(r.stdout, "nothing to verify") || strings.Contains(r.stdout, "1.00") {
			t.Errorf("report %q: exit %d\n%s", report, r.code, r.stdout)
		}
		if r := cli(t, report, "verify", "--strict", "--sources", src, "-"); r.code != 1 || !strings.Contains(r.stdout, "FAIL") {
			t.Errorf("report %q, --strict: exit %d\n%s", report, r.code, r.stdout)
		}
	}
}
