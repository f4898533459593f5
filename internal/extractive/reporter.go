package extractive

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
)

// Report sizes.
const (
	maxReportSentences = 8
	minReportSentences = 3
	// A paragraph closes at the end of a source's sentences once it holds
	// minParagraphSentences, and always at maxParagraphSentences.
	minParagraphSentences = 2
	maxParagraphSentences = 3
	positionBonus         = 0.3
)

// NoEvidence is the reporter's reply when the tool results hold no usable
// sentence.
const NoEvidence = "The retrieved sources did not contain usable evidence for this task."

// candidate is a sentence that may go into a report.
type candidate struct {
	text    string
	num     int // citation number (reporter); section index (writer)
	overlap int
	score   float64
	seq     int // position in the input, for stable order
}

// report answers a reporter turn: the most relevant sentences of the tool
// results, each cited with the number of the block it came from.
func report(msgs []llms.MessageContent) string {
	terms := stemSet(question(msgs))
	seen := map[string]bool{}
	var cands []candidate
	for _, b := range allBlocks(msgs) {
		pos := 0
		for _, par := range paragraphs(b.text) {
			for _, s := range sentences(cleanSourceText(par)) {
				if !proseSentence(s) {
					continue
				}
				key := normalize(s)
				if seen[key] {
					continue
				}
				seen[key] = true
				ov := overlap(s, terms)
				cands = append(cands, candidate{
					text: s, num: b.num, overlap: ov,
					score: float64(ov) + positionBonus/float64(pos+1),
					seq:   len(cands),
				})
				pos++
			}
		}
	}
	picked := pick(cands, maxReportSentences, minReportSentences)
	if len(picked) == 0 {
		return NoEvidence
	}

	// Group by source, sources in order of their best sentence, sentences
	// of a source in the order the source gave them.
	var order []int
	bySource := map[int][]candidate{}
	for _, c := range picked {
		if _, ok := bySource[c.num]; !ok {
			order = append(order, c.num)
		}
		bySource[c.num] = append(bySource[c.num], c)
	}
	var pars []string
	var cur []string
	for _, n := range order {
		group := bySource[n]
		slices.SortFunc(group, func(a, b candidate) int { return cmp.Compare(a.seq, b.seq) })
		for _, c := range group {
			cur = append(cur, c.text+" ["+strconv.Itoa(c.num)+"]")
			if len(cur) == maxParagraphSentences {
				pars = append(pars, strings.Join(cur, " "))
				cur = nil
			}
		}
		if len(cur) >= minParagraphSentences {
			pars = append(pars, strings.Join(cur, " "))
			cur = nil
		}
	}
	if len(cur) > 0 {
		pars = append(pars, strings.Join(cur, " "))
	}
	return strings.Join(pars, "\n\n")
}

// pick returns up to max candidates, best first: those that share a term
// with the question, topped up to min with the best of the rest.
func pick(cands []candidate, max, min int) []candidate {
	sorted := slices.Clone(cands)
	slices.SortStableFunc(sorted, func(a, b candidate) int { return cmp.Compare(b.score, a.score) })
	var out []candidate
	for _, c := range sorted {
		if len(out) == max {
			break
		}
		if c.overlap > 0 || len(out) < min {
			out = append(out, c)
		}
	}
	return out
}

var hasMarkerRe = regexp.MustCompile(`\[\^?\d{1,4}(?:\s*[-–,]\s*\d{1,4})*\]|[【［]\d|\[\[S?:?\d|\[ref:`)

// Writer sizes.
const (
	introSentences      = 2
	maxSectionSentences = 4
	minSectionSentences = 2
	maxTitleWords       = 12
)

// NoSectionEvidence is written under a findings section with no usable
// sentence left.
const NoSectionEvidence = "The research for this section found no usable evidence."

type section struct {
	title string
	text  string
}

// write answers a writer turn: a markdown report assembled from the
// findings' own sentences, markers untouched.
func write(msgs []llms.MessageContent) string {
	q := field(msgs, "Question")
	var secs []section
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeHuman {
			if s := findings(textOf(m)); len(s) > 0 {
				secs = s
			}
		}
	}
	if q == "" {
		q = question(msgs)
	}
	qterms := stemSet(q)

	type sent struct {
		candidate
		qov int // overlap with the question alone
	}
	var all []sent
	perSection := make([][]int, len(secs))
	for si, sec := range secs {
		tterms := stemSet(sec.title)
		pos := 0
		for _, par := range paragraphs(sec.text) {
			for _, s := range sentences(par) {
				if n := len(strings.Fields(s)); n < 4 || n > 80 {
					continue
				}
				qov, tov := overlap(s, qterms), overlap(s, tterms)
				sc := float64(qov) + 0.5*float64(tov) + positionBonus/float64(pos+1)
				if hasMarkerRe.MatchString(s) {
					sc += 0.5
				}
				all = append(all, sent{candidate{text: s, num: si, overlap: qov + tov, score: sc, seq: len(all)}, qov})
				perSection[si] = append(perSection[si], len(all)-1)
				pos++
			}
		}
	}

	used := map[string]bool{}
	var b strings.Builder
	b.WriteString("# " + titleOf(q) + "\n")

	// Introduction: the best sentences overall by the question alone.
	introIdx := make([]int, len(all))
	for i := range introIdx {
		introIdx[i] = i
	}
	introScore := func(i int) float64 {
		s := float64(all[i].qov)
		if hasMarkerRe.MatchString(all[i].text) {
			s += 0.5
		}
		return s + positionBonus/float64(all[i].seq+1)
	}
	slices.SortStableFunc(introIdx, func(x, y int) int { return cmp.Compare(introScore(y), introScore(x)) })
	var intro []string
	for _, i := range introIdx {
		if len(intro) == introSentences {
			break
		}
		if k := normalize(all[i].text); !used[k] {
			used[k] = true
			intro = append(intro, all[i].text)
		}
	}
	if len(intro) > 0 {
		b.WriteString("\n" + strings.Join(intro, " ") + "\n")
	}

	for si, sec := range secs {
		var cands []candidate
		for _, i := range perSection[si] {
			if !used[normalize(all[i].text)] {
				cands = append(cands, all[i].candidate)
			}
		}
		chosen := pick(cands, maxSectionSentences, minSectionSentences)
		slices.SortFunc(chosen, func(a, b candidate) int { return cmp.Compare(a.seq, b.seq) })
		var lines []string
		for _, c := range chosen {
			if k := normalize(c.text); !used[k] {
				used[k] = true
				lines = append(lines, c.text)
			}
		}
		text := NoSectionEvidence
		if len(lines) > 0 {
			text = strings.Join(lines, " ")
		}
		b.WriteString("\n## " + sec.title + "\n\n" + text + "\n")
	}
	return b.String()
}

// findings parses the "## Findings" part of a writer prompt into its
// "### " sections; it ends at the next "## " heading ("## Sources").
func findings(text string) []section {
	var out []section
	in := false
	var cur *section
	var body []string
	flush := func() {
		if cur != nil {
			cur.text = strings.Join(body, "\n")
			out = append(out, *cur)
		}
		cur, body = nil, nil
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "## ") && strings.EqualFold(strings.TrimSpace(t[3:]), "Findings"):
			in = true
		case !in:
		case strings.HasPrefix(t, "### "):
			flush()
			cur = &section{title: strings.TrimSpace(t[4:])}
		case strings.HasPrefix(t, "## ") || t == "##":
			flush()
			return out
		case cur != nil:
			body = append(body, line)
		}
	}
	flush()
	return out
}

// titleOf makes a short report title from the question: the question
// without its final punctuation, cut to its first clause when long.
func titleOf(q string) string {
	t := strings.TrimRight(strings.TrimSpace(q), "?!. ")
	if len(strings.Fields(t)) > maxTitleWords {
		if i := strings.IndexAny(t, ",;:("); i > 0 && len(strings.Fields(t[:i])) >= 3 {
			t = t[:i]
		}
	}
	if w := strings.Fields(t); len(w) > maxTitleWords {
		t = strings.Join(w[:maxTitleWords], " ") + "…"
	}
	if t == "" {
		return "Research report"
	}
	r, n := utf8.DecodeRuneInString(t)
	return string(unicode.ToUpper(r)) + t[n:]
}
