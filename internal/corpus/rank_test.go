package corpus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/search"
)

// TestDocumentRanking checks the document-level ranking on the shapes
// that a passage ranking gets wrong.
func TestDocumentRanking(t *testing.T) {
	// A long manual page: many sections on other things, one that
	// answers. Short notes elsewhere repeat the question's words without
	// the answer.
	var long strings.Builder
	long.WriteString("# Kernel memory leak detector\n\n")
	for i := range 40 {
		fmt.Fprintf(&long, "## Section %d\n\nThe scanner walks object graph number %d of the slab allocator and reports nothing unusual for word%d here.\n\n", i, i, i)
	}
	long.WriteString("## Usage\n\nAllocations that are never freed are reported as leaks: write scan to /sys/kernel/debug/kmemleak to trigger an immediate memory scan, and read the file to list unreferenced objects.\n\n")
	for i := range 40 {
		fmt.Fprintf(&long, "## Appendix %d\n\nMore background on tracking number %d and the reference graph of word%d.\n\n", i, i, i)
	}
	docs := map[string]string{
		"dev-tools/kmemleak.md": long.String(),
		"notes/a.md":            "# Allocator notes\n\nAllocations that are never freed are bad.\n",
		"notes/b.md":            "# Review checklist\n\nCheck allocations that are never freed in review.\n",
		"notes/c.md":            "# Style\n\nNever leave allocations freed twice.\n",
		"admin-guide/laptops/disk-shock-protection.md": "# Hard disk shock protection\n\nWrite to the unload_heads attribute to park the heads.\n",
		"servers.csv": "name,city,role\nalpha,Frankfurt,db\nbravo,Paris,web\ncharlie,Frankfurt,cache\ndelta,Berlin,web\necho,Frankfurt,queue\n",
	}
	ix := rankingCorpus(t, docs)

	t.Run("a long page's one answering section", func(t *testing.T) {
		res, err := ix.Search(t.Context(), "How do I find kernel memory allocations that are never freed?", 5)
		if err != nil {
			t.Fatal(err)
		}
		ids := resultIDs(res)
		if len(ids) == 0 || ids[0] != "dev-tools/kmemleak.md" {
			t.Fatalf("results %v, want the leak detector's page first", ids)
		}
		if !strings.Contains(res[0].Snippet, "/sys/kernel/debug/kmemleak") {
			t.Errorf("the page's snippet lacks its answering passage:\n%s", res[0].Snippet)
		}
	})
	t.Run("a file path names its document", func(t *testing.T) {
		res, err := ix.Search(t.Context(), "disk-shock-protection", 3)
		if err != nil {
			t.Fatal(err)
		}
		if ids := resultIDs(res); len(ids) == 0 || ids[0] != "admin-guide/laptops/disk-shock-protection.md" {
			t.Fatalf("results %v, want the page the path names first", ids)
		}
	})
	t.Run("every matching row of a table", func(t *testing.T) {
		res, err := ix.Search(t.Context(), "Which servers are in Frankfurt?", 10)
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, r := range res {
			if r.DocID == "servers.csv" {
				rows = append(rows, r.Locator.Value)
				if !strings.Contains(r.Snippet, "Frankfurt") {
					t.Errorf("row %s does not match: %q", r.Locator.Value, r.Snippet)
				}
			}
		}
		slices.Sort(rows)
		if want := []string{"2", "4", "6"}; !slices.Equal(rows, want) {
			t.Errorf("rows %v of servers.csv, want %v (each matching row once)", rows, want)
		}
	})
}

func resultIDs(res []search.Result) []string {
	var out []string
	for _, r := range res {
		out = append(out, r.DocID)
	}
	return out
}

// TestSearchCanceled: a search whose context ends fails with the context's
// cause; it never hands back a partial list as if complete (a resumed run
// would then see other results than the run it resumes).
func TestSearchCanceled(t *testing.T) {
	ix := syncedCorpus(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("the run stopped")
	cancel(cause)
	res, err := ix.Search(ctx, "cable repair ships", 5)
	if !errors.Is(err, cause) || res != nil {
		t.Fatalf("Search after cancel = %d results, %v; want the cause", len(res), err)
	}
}

// TestSnippetPartsUnderTheirHeadings: a result whose snippet holds two
// passages of a document names each one's heading, since the result's
// location is its best passage's, which need not come first.
func TestSnippetPartsUnderTheirHeadings(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("# Tunables\n\n## swappiness\n\nThis control defines how aggressively the kernel swaps memory pages to disk.\n\n")
	for i := range 30 {
		fmt.Fprintf(&doc, "## other%d\n\nUnrelated text about item %d.\n\n", i, i)
	}
	doc.WriteString("## vfs_cache_pressure\n\nThis control makes the kernel reclaim memory pages used for caching, and swaps less to disk.\n\n")
	ix := rankingCorpus(t, map[string]string{"vm.md": doc.String()})
	res, err := ix.Search(t.Context(), "kernel swaps memory pages to disk", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].DocID != "vm.md" {
		t.Fatalf("results %v", resultIDs(res))
	}
	snip := res[0].Snippet
	if !strings.Contains(snip, snippetSep) {
		t.Skipf("one passage in the snippet: %q", snip)
	}
	for _, want := range []string{"## swappiness\n\nThis control defines", "## vfs_cache_pressure\n\nThis control makes"} {
		if !strings.Contains(snip, want) {
			t.Errorf("snippet lacks %q:\n%s", want, snip)
		}
	}
}
