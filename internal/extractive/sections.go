package extractive

import (
	"strings"

	"github.com/tmc/langchaingo/llms"
)

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
