package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// maxLowTier caps the low-tier claims one assessment turns into
// follow-up tasks (it names them all as gaps).
const maxLowTier = 2

// lowTier finds the claims of the last cycle's findings that cite sources
// and only sources of a low tier (forums, content farms: domains.Tier.Low),
// each once per run. It returns a GapLowTier gap for each, and, for the
// first maxLowTier, a follow-up task that looks for primary sources of
// the claim. Unrated sources are not low: a claim citing one is no gap.
//
// Cost: one citation parse per sentence of the cycle's findings.
func (l *loop) lowTier() ([]events.Gap, []agent.Task) {
	if !l.req.Tiered {
		return nil, nil
	}
	var gaps []events.Gap
	var tasks []agent.Task
	for _, t := range l.order() {
		mr := l.merged[t.Index]
		if t.Cycle != l.cycles || mr == nil {
			continue
		}
		part := t.Part
		if !l.isPart(part) {
			part = ""
			if l.isPart(t.ID) {
				part = t.ID
			}
		}
		for _, claim := range claims(mr.Text) {
			cited := finalreport.CitedIn(claim, l.sources)
			if len(cited) == 0 || !allLow(cited) {
				continue
			}
			key := claimKey(markerRe.ReplaceAllString(claim, ""))
			if l.lowSeen[key] {
				continue
			}
			if l.lowSeen == nil {
				l.lowSeen = map[string]bool{}
			}
			l.lowSeen[key] = true
			text := Clip(oneLineText(markerRe.ReplaceAllString(claim, "")), 160)
			var on []string
			for _, s := range cited {
				on = append(on, fmt.Sprintf("[%d] %s (%s)", s.Number, Clip(sourcetext.Clean(s.Title), 80), s.Tier))
			}
			detail := fmt.Sprintf("%q rests only on forum or content-farm sources: %s", text, strings.Join(on, "; "))
			gaps = append(gaps, events.Gap{Kind: events.GapLowTier, Part: part, Detail: detail})
			if len(tasks) < maxLowTier {
				tasks = append(tasks, agent.Task{Title: Clip("Primary sources: "+text, 80),
					Question:  "Find primary sources (official documentation, standards, peer-reviewed papers, government or university pages) that confirm or correct: " + text,
					Objective: l.req.Question, Part: part, Gap: events.GapLowTier + ": " + detail})
			}
		}
	}
	return gaps, tasks
}

// allLow reports whether every source is of a low tier.
func allLow(sources []cite.MergedSource) bool {
	for _, s := range sources {
		if !domains.Tier(s.Tier).Low() {
			return false
		}
	}
	return true
}

// markerRe matches a citation marker written as one or more numbers in
// brackets ("[3]", "[1, 2]", "[S:4]").
var markerRe = regexp.MustCompile(`\[(?:S:)?\d+(?:\s*,\s*(?:S:)?\d+)*\]`)

// leadingMarkers matches the markers that open a piece of text: those of
// the sentence before it, written after its full stop ("… cables. [2]").
var leadingMarkers = regexp.MustCompile(`^(?:\s*\[(?:S:)?\d+(?:\s*,\s*(?:S:)?\d+)*\])+`)

// claims splits findings into sentences (the claims a citation marker
// supports): each line of text, at a full stop, question or exclamation
// mark followed by a space; markers written after the full stop stay with
// the sentence before. Headings and blank lines are no claims.
func claims(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		start := 0
		for i := 0; i < len(line); i++ {
			if c := line[i]; (c == '.' || c == '!' || c == '?') && (i+1 == len(line) || line[i+1] == ' ') {
				end := i + 1
				if m := leadingMarkers.FindString(line[end:]); m != "" {
					end += len(m)
					i = end - 1
				}
				if s := strings.TrimSpace(line[start:end]); s != "" {
					out = append(out, s)
				}
				start = end
			}
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// lowTierReason is what an assessment's reason adds for n low-tier claims.
func lowTierReason(n int) string {
	if n == 1 {
		return "1 claim rests only on forum or content-farm sources."
	}
	return plural(n, "claim") + " rest only on forum or content-farm sources."
}

// claimKey is what makes two sentences the same claim: their words,
// folded to lower case (as the root's diff compares them).
func claimKey(s string) string { return strings.ToLower(oneLineText(s)) }
