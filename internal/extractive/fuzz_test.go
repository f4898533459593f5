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

// FuzzWriterQuotesOnce checks two promises of the writer, the lead
// included: it cites only numbers its findings cite, and it quotes no
// cited sentence twice.
func FuzzWriterQuotesOnce(f *testing.F) {
	f.Add("Use NewRequestWithContext to make a request with a timeout. [1] Response represents the response. [1]\n\nSet http.Client.Timeout for every request. [2]", "Timeout sets a request's limit, as in overcommit_memory=2. [2]")
	f.Add("A [1] b [2].\n\n```\ncode\n```\n\nc d e f g [3]:", "Example X [1]:\n\n```\nx\n```")
	f.Fuzz(func(t *testing.T, a, b string) {
		prompt := "Question: How do I make an HTTP request with a timeout?\n\n## Findings\n\n### Overview\n" + a + "\n\n### Second part\n" + b +
			"\n\n## Sources\n[1] One — https://example.com/1\n[2] Two — https://example.com/2\n[3] Three — https://example.com/3\n"
		findings := "\n" + a + "\n" + b
		out := write([]llms.MessageContent{human(prompt)})
		allowed := map[string]bool{}
		for _, m := range citeRe.FindAllStringSubmatch(findings, -1) {
			allowed[m[1]] = true
		}
		for _, m := range citeRe.FindAllStringSubmatch(out, -1) {
			if !allowed[m[1]] {
				t.Fatalf("cites [%s], which the findings do not\nreport:\n%s", m[1], out)
			}
		}
		seen := map[string]bool{}
		for _, par := range strings.Split(out, "\n\n") {
			if strings.HasPrefix(par, "```") || strings.HasPrefix(par, "#") {
				continue
			}
			for _, s := range sentences(par) {
				if !hasMarkerRe.MatchString(s) {
					continue
				}
				k := normalize(sourceMarkerRe.ReplaceAllString(s, ""))
				if k != "" && seen[k] {
					t.Fatalf("quotes %q twice\nreport:\n%s", s, out)
				}
				seen[k] = true
			}
		}
	})
}
