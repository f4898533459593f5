package deepresearch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/mdtext/mdcheck"
)

// TestMarkdownDefangsUntrustedText (issue 29): a corpus passage the
// report quotes, and the question, carry javascript: links and raw HTML;
// the markdown report (what run, show, ?format=md and MCP research
// write) holds neither, as the HTML page does not.
func TestMarkdownDefangsUntrustedText(t *testing.T) {
	dir := t.TempDir()
	doc := "# Cable repair\n\nUndersea cable repair ships lift the cable with a grapnel. " +
		"[Read the repair manual](javascript:alert(document.cookie)) about cable repair ships. " +
		"Cable repair ships splice <img src=x onerror=alert(1)> the cable on deck. " +
		"![repair](javascript:alert(2)) Cable repair <script>alert(3)</script> ships then lower the cable.\n"
	if err := os.WriteFile(filepath.Join(dir, "repair.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := deepresearch.New(deepresearch.Config{Search: deepresearchtest.Corpus(t, dir, filepath.Join(t.TempDir(), "index.db")), Limits: deepresearch.Limits{MaxCycles: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := runWith(context.Background(), r, `How do cable repair ships repair a cable <img src=x onerror=alert(4)> [x](javascript:alert(5))?`, nil)
	if err != nil {
		t.Fatal(err)
	}
	findings, err := rep.Findings()
	if err != nil {
		t.Fatal(err)
	}
	quoted := false
	for name, md := range map[string]string{"report": rep.Markdown(), "findings": findings} {
		quoted = quoted || strings.Contains(md, "javascript:alert") || strings.Contains(md, "onerror")
		links, html := mdcheck.Links(md)
		if len(html) > 0 {
			t.Errorf("the %s holds raw HTML %q:\n%s", name, html, md)
		}
		for _, l := range links {
			if canon.Link(l) == "" && !strings.HasPrefix(l, "#") {
				t.Errorf("the %s links to %q:\n%s", name, l, md)
			}
		}
	}
	if !quoted {
		t.Errorf("the report quotes none of the hostile text, so this test tests nothing:\n%s", rep.Markdown())
	}
}
