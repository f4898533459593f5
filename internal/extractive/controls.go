package extractive

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// shape applies the writer message's report controls to a written
// report: "Target length: N words" drops the last sentences of the
// longest paragraphs until the report is at most N words (it cannot write
// more than the findings hold, so a short report stays short), and
// "Language: L" adds a sentence saying the model cannot translate (the
// report quotes its sources as written). An outline needs nothing here:
// its sections are the plan's tasks, hence the findings' sections.
func shape(msgs []llms.MessageContent, md string) string {
	if n, err := strconv.Atoi(strings.TrimSuffix(field(msgs, "Target length"), " words")); err == nil && n > 0 {
		md = fitWords(md, n)
	}
	if lang := field(msgs, "Language"); lang != "" {
		md = strings.TrimRight(md, "\n") + "\n\n" + fmt.Sprintf("*%s: the offline model cannot translate, so this report quotes its sources in their own words.*", NoTranslation(lang)) + "\n"
	}
	return md
}

// NoTranslation is the start of the sentence a report in another
// language than its sources' carries when written by the offline model.
func NoTranslation(lang string) string { return "Not translated into " + lang }

// fitWords shortens md to at most limit words by dropping, one at a
// time, the last sentence of its longest paragraph of two sentences or
// more. Headings and one-sentence paragraphs are kept.
func fitWords(md string, limit int) string {
	lines := strings.Split(md, "\n")
	sents := make([][]string, len(lines))
	total := 0
	for i, l := range lines {
		total += len(strings.Fields(l))
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			sents[i] = sentences(t)
		}
	}
	for total > limit {
		longest := -1
		for i, s := range sents {
			if len(s) > 1 && (longest < 0 || len(strings.Fields(lines[i])) > len(strings.Fields(lines[longest]))) {
				longest = i
			}
		}
		if longest < 0 {
			break
		}
		s := sents[longest]
		total -= len(strings.Fields(s[len(s)-1]))
		sents[longest] = s[:len(s)-1]
		lines[longest] = strings.Join(sents[longest], " ")
	}
	if total <= limit {
		return strings.Join(lines, "\n")
	}
	return dropTrailing(strings.Join(lines, "\n"), limit)
}

// dropTrailing shortens md to at most limit words by dropping its last
// blocks — a paragraph or a fenced block — one at a time, never a heading
// or the first paragraph.
func dropTrailing(md string, limit int) string {
	var blocks []string // paragraphs, headings and fenced blocks, in order
	var cur []string
	fence := ""
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			cur = append(cur, l)
			if strings.HasPrefix(t, fence) && strings.Trim(t, "`~") == "" {
				fence = ""
				flush()
			}
		case fenceOf(t) != "":
			flush()
			fence = fenceOf(t)
			cur = append(cur, l)
		case t == "":
			flush()
		default:
			cur = append(cur, l)
		}
	}
	flush()
	words := func() int {
		n := 0
		for _, b := range blocks {
			n += len(strings.Fields(b))
		}
		return n
	}
	first := -1
	for i, b := range blocks {
		if !strings.HasPrefix(b, "#") {
			first = i
			break
		}
	}
	for words() > limit {
		last := -1
		for i := len(blocks) - 1; i > first; i-- {
			if !strings.HasPrefix(blocks[i], "#") {
				last = i
				break
			}
		}
		if last < 0 {
			break
		}
		blocks = slices.Delete(blocks, last, last+1)
	}
	return strings.Join(blocks, "\n\n") + "\n"
}
