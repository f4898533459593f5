package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/domains"
)

// TestDomainsCommand: the settings' policy and tiers applied to URLs, the
// verdicts as text and JSON, exit 1 for a denied URL, and the built-in
// table.
func TestDomainsCommand(t *testing.T) {
	isolate(t)
	t.Setenv("DEEPRESEARCH_DOMAINS_DENY", "*.example.com")
	t.Setenv("DEEPRESEARCH_DOMAINS_TIERS", "blog.example.org=primary")
	r := cli(t, "", "domains", "https://www.rfc-editor.org/rfc/rfc9110", "https://blog.example.org/x")
	if r.code != 0 || !strings.Contains(r.stdout, "ALLOWED primary      https://www.rfc-editor.org/rfc/rfc9110") ||
		!strings.Contains(r.stdout, "ALLOWED primary      https://blog.example.org/x") {
		t.Errorf("allowed URLs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = cli(t, "", "domains", "--json", "https://stackoverflow.com/q/1", "https://www.example.com/")
	var vs []domains.Verdict
	if err := json.Unmarshal([]byte(r.stdout), &vs); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if r.code != 1 || len(vs) != 2 || !vs[0].Allowed || vs[0].Tier != "forum" || vs[1].Allowed || !strings.Contains(vs[1].Reason, `"*.example.com"`) {
		t.Errorf("a denied URL: exit %d, %+v", r.code, vs)
	}
	r = cli(t, "", "domains", "--builtin")
	if r.code != 0 || !strings.Contains(r.stdout, "primary:") || !strings.Contains(r.stdout, "content-farm:") {
		t.Errorf("--builtin: exit %d\n%.300s", r.code, r.stdout)
	}
	t.Setenv("DEEPRESEARCH_DOMAINS_DENY", "exa mple.com")
	if r := cli(t, "", "domains", "https://a.org/"); r.code != 2 || !strings.Contains(r.stderr, "exa mple.com") {
		t.Errorf("a bad pattern: exit %d: %s", r.code, r.stderr)
	}
}
