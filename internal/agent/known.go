package agent

import (
	"fmt"
	"regexp"
	"strings"
)

// Caps on what a follow-up task is shown of the run so far, so that its
// prompt stays small however long the run.
const (
	maxKnownFindings = 12
	maxKnownSources  = 20
	maxKnownSearches = 30
	maxKnownLine     = 300
)

// GapField starts the line of a follow-up's task message that names the
// gap it closes.
const GapField = "This task closes a gap in what earlier research found"

// writeKnown adds a follow-up task's gap and what the run found before it
// to its task message: each item on a line of its own that starts with
// "- ", so that no item can pass for a line of the message's protocol.
func writeKnown(b *strings.Builder, t Task) {
	if g := oneLine(t.Gap); g != "" {
		fmt.Fprintf(b, "\n%s: %s", GapField, g)
	}
	k := t.Known
	if k == nil {
		return
	}
	list := func(head string, items []string, limit int) {
		var lines []string
		for _, it := range items {
			if l := clip(oneLine(it), maxKnownLine); l != "" {
				lines = append(lines, "- "+l)
			}
			if len(lines) == limit {
				break
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(b, "\n%s\n%s", head, strings.Join(lines, "\n"))
		}
	}
	list("Already found by earlier research (do not research it again):", k.Findings, maxKnownFindings)
	list("Sources already read:", k.Sources, maxKnownSources)
	list("Searches already run (they are not run again):", k.Searches, maxKnownSearches)
}

// knownMarkerRe matches what could read as a citation marker;
// spaceBeforePunct the space its removal leaves before punctuation.
var (
	knownMarkerRe    = regexp.MustCompile(`\[\^?\s*\d[\d\s,\-–]*\]|[【［][\d\s,\-–]*[】］]|\[\[[^\[\]]*\]\]`)
	spaceBeforePunct = regexp.MustCompile(` +([.,;:!?])`)
)

// Digest returns the lines of a findings digest: the sentences of text,
// citation markers removed (they are in another numbering than the
// agent's), at most limit of them.
func Digest(text string, limit int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		l := spaceBeforePunct.ReplaceAllString(oneLine(knownMarkerRe.ReplaceAllString(line, "")), "$1")
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
		if len(out) == limit {
			break
		}
	}
	return out
}

// searchedBefore is the set of the queries a task's run searched before it.
func searchedBefore(t Task) map[string]bool {
	m := map[string]bool{}
	if t.Known != nil {
		for _, q := range t.Known.Searches {
			m[searchKey(q)] = true
		}
	}
	return m
}

// searchKey is the identity of a query: its words, lower-cased.
func searchKey(q string) string { return strings.ToLower(oneLine(q)) }

// clip cuts s to about n bytes at a word boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	return s[:cut] + "…"
}
