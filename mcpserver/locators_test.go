package mcpserver

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/testpdf"
)

// The research tool's references say the pages cited, as the report's
// locators do ("[1, p. 4]"), and the label its reference list gives; a
// run that is not kept has no run ID.
func TestResearchLocators(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mime-spec.pdf"), testpdf.Read(t, testpdf.MIMESpec), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := deepresearch.New(deepresearch.Config{Model: deepresearchtest.Model(0), Search: deepresearchtest.Corpus(t, dir, filepath.Join(t.TempDir(), "index.db")), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cs := connect(t, Options{Research: r})
	var rep Report
	call(t, cs, "research", map[string]any{"question": "What is the default weight value of a glob rule, and what is the maximum weight?"}, &rep)
	if rep.RunID != "" {
		t.Errorf("a run that is not kept is named %q", rep.RunID)
	}
	i := slices.IndexFunc(rep.References, func(ref Reference) bool { return slices.Contains(ref.Locations, "p. 4") })
	if i < 0 {
		t.Fatalf("no reference is cited at page 4: %+v", rep.References)
	}
	if ref := rep.References[i]; !strings.HasPrefix(ref.Label, "mime-spec.pdf, p") {
		t.Errorf("reference %+v: its label does not name the pages", ref)
	}
}

// The verify tool takes the report as research returns it (markdown), or
// as a JSON report whose sidecar it checks; one way at a time.
func TestVerifyMarkdownAndJSON(t *testing.T) {
	cs := connect(t, Options{})
	sources := []map[string]any{{"number": 1, "title": "Spec", "url": "https://go.dev/ref/spec", "text": "The value of an uninitialized channel is nil."}}
	var out verifyOut
	call(t, cs, "verify", map[string]any{"markdown": "The value of an uninitialized channel is nil [1].", "sources": sources}, &out)
	if out.Verdict != "PASS" || out.Summary.Supported != 1 {
		t.Errorf("markdown: %+v", out)
	}
	good := `{"text": "The value of an uninitialized channel is nil [1].", "blocks": ["The value of an uninitialized channel is nil [1]."], "_citations": [{"path": "/blocks/0", "sids": [1]}]}`
	res := call(t, cs, "verify", map[string]any{"report": good, "sources": sources}, &out)
	if out.Verdict != "PASS" || out.Summary.Supported != 1 || len(out.Sidecar) != 0 || !strings.Contains(contentText(res), "checked: the report's text") {
		t.Errorf("a JSON report: %+v\n%s", out, contentText(res))
	}
	bad := `{"text": "The value of an uninitialized channel is nil [1].", "blocks": ["The value of an uninitialized channel is nil [1]."], "_citations": [{"path": "/blocks/0", "sids": [2]}]}`
	res = call(t, cs, "verify", map[string]any{"report": bad, "sources": sources}, &out)
	if out.Verdict != "FAIL" || len(out.Sidecar) == 0 || !strings.Contains(contentText(res), "sidecar /blocks/0") {
		t.Errorf("a sidecar that does not match: %+v\n%s", out, contentText(res))
	}
	theirs := `{"answer": "The value of an uninitialized channel is nil.", "_citations": [{"path": "/answer", "sids": [1]}]}`
	call(t, cs, "verify", map[string]any{"report": theirs, "sources": sources}, &out)
	if out.Verdict != "PASS" || out.Summary.Supported != 1 || !strings.Contains(out.Note, "sidecar") {
		t.Errorf("another's document: %+v", out)
	}
	for _, args := range []map[string]any{
		{"text": "x [1].", "markdown": "x [1]."},
		{},
		{"report": "not json"},
		{"report": good, "fix": true},
	} {
		if got := toolError(t, cs, "verify", args); !strings.Contains(got, "bad argument") {
			t.Errorf("%v: %q", args, got)
		}
	}
}

// The server's version comes from the build: the module's version, else
// the commit, else "dev".
func TestBuildVersion(t *testing.T) {
	for _, tt := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, true, "v1.4.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, true, "0123456789ab-dirty"},
		{&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, true, "abc"},
	} {
		if got := versionOf(tt.bi, tt.ok); got != tt.want {
			t.Errorf("versionOf(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
	cs := connect(t, Options{})
	if got := cs.InitializeResult().ServerInfo.Version; got != buildVersion() || got == "" {
		t.Errorf("the server says version %q, the build %q", got, buildVersion())
	}
}
