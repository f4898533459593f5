package extractive

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// maxSectionedSentences caps a section written on its own: more than the
// one-call writer gives a section (maxSectionSentences), since the section
// has the call to itself.
const maxSectionedSentences = 6

// The section writer's human message (internal/finalreport writes it):
//
//	Question: <q>
//	Section: <title>
//
//	## Findings
//
//	### <title>
//	<text with [n] markers, global numbers>
//
//	## Sources
//	[n] Title — URL
//
// The frame writer's:
//
//	Question: <q>
//
//	## Sections
//
//	### <title>
//	<the section as written>

// writeSection answers a section writer: the section's body, no heading —
// up to maxSectionedSentences of its findings' cited sentences, chosen by
// MMR over the section title's and the question's terms and kept in their
// findings order, markers untouched; NoSectionEvidence when none is cited.
func writeSection(msgs []llms.MessageContent) string {
	q, title := field(msgs, "Question"), field(msgs, "Section")
	var text []string
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeHuman {
			for _, s := range findings(textOf(m)) {
				text = append(text, s.text)
			}
		}
	}
	terms := weightedTerms(title, q)
	var cands []candidate
	seen := map[string]bool{}
	pos := 0
	for _, par := range paragraphs(strings.Join(text, "\n\n")) {
		for _, s := range sentences(par) {
			if n := len(strings.Fields(s)); n < 4 || n > 80 || !hasMarkerRe.MatchString(s) || seen[normalize(s)] {
				continue
			}
			seen[normalize(s)] = true
			pos++
			cands = append(cands, candidate{text: s, stems: stemSet(s), seq: len(cands),
				score: score(s, terms) + positionBonus/float64(pos+3)})
		}
	}
	chosen := mmr(cands, maxSectionedSentences, nil)
	if len(chosen) == 0 {
		return NoSectionEvidence
	}
	slices.SortFunc(chosen, func(a, b candidate) int { return cmp.Compare(a.seq, b.seq) })
	var pars []string
	for i := 0; i < len(chosen); i += maxParagraphSentences {
		var ss []string
		for _, c := range chosen[i:min(i+maxParagraphSentences, len(chosen))] {
			ss = append(ss, c.text)
		}
		pars = append(pars, strings.Join(ss, " "))
	}
	return strings.Join(pars, "\n\n")
}

// writeFrame answers a frame writer: "# <title>" from the question and a
// one-sentence introduction naming the sections in order. The model
// writes no sentence of its own beyond that fixed phrase, and quotes no
// finding a section already quotes; it writes no summary.
func writeFrame(msgs []llms.MessageContent) string {
	q := field(msgs, "Question")
	var titles []string
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeHuman {
			continue
		}
		for _, line := range strings.Split(mdSections(textOf(m))["Sections"], "\n") {
			if t, ok := strings.CutPrefix(line, "### "); ok && strings.TrimSpace(t) != "" {
				titles = append(titles, strings.TrimSpace(t))
			}
		}
	}
	out := "# " + titleOf(q) + "\n"
	if len(titles) > 0 {
		out += "\nThe sections below answer the question part by part: " + strings.Join(titles, "; ") + ".\n"
	}
	return out
}

// hasSections reports whether a human message holds a frame writer's
// "## Sections".
func hasSections(msgs []llms.MessageContent) bool {
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeHuman {
			if _, ok := mdSections(textOf(m))["Sections"]; ok {
				return true
			}
		}
	}
	return false
}
