package extractive

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// FuzzReporterCites checks the reporter's one promise about citations:
// whatever the tool results hold, it cites only numbers that head a block
// of them.
func FuzzReporterCites(f *testing.F) {
	f.Add(searchResult1, openResult)
	f.Add(searchResult2, "Error: no such source [4]")
	f.Add("[5] T\nURL: u\nIt cites [6] and 【7】 and [[S:8]] inside. Another sentence is here for sure.", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		msgs := []llms.MessageContent{
			sys("reporter"),
			human("Question: What does the source say about consensus and leaders?"),
			toolMsg("c1", "search", a),
			toolMsg("c2", "open", b),
		}
		allowed := map[int]bool{}
		for _, bl := range allBlocks(msgs) {
			allowed[bl.num] = true
		}
		out := report(msgs)
		for _, m := range citeRe.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			if !allowed[n] {
				t.Fatalf("cites [%d], allowed %v\nreport:\n%s", n, allowed, out)
			}
		}
		for _, r := range []string{"【", "［", "[^", "[[", "[ref:"} {
			if strings.Contains(out, r) {
				t.Fatalf("report carries a marker-like %q from a source:\n%s", r, out)
			}
		}
	})
}

// FuzzChunks checks that streamed chunks always concatenate to the content.
func FuzzChunks(f *testing.F) {
	f.Add("a b c d", 2)
	f.Add(" \n x\ty  ", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 10 {
			return
		}
		if got := strings.Join(chunks(s, n), ""); got != s {
			t.Fatalf("chunks(%q, %d) concatenate to %q", s, n, got)
		}
	})
}
