package extractive

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// Writer sizes.
const (
	// maxSectionUnits caps the passages a section of the one-call writer
	// quotes; maxSectionedUnits a section written on its own.
	maxSectionUnits   = 5
	maxSectionedUnits = 5
	// maxReportSources caps the sources a report cites beyond the first
	// passage of each section: a report cites the few sources that answer,
	// not every one the research kept.
	maxReportSources = 5
	maxTitleWords    = 12
)

// NoSectionEvidence is written under a findings section with no cited
// sentence; NoReportEvidence is the introduction when no section has one.
// Neither cites anything.
const (
	NoSectionEvidence = "The sources hold no evidence for this part of the question."
	NoReportEvidence  = "The sources searched hold no evidence that answers this question."
)

type section struct {
	title string
	text  string
}

// passage is a unit of the findings the writer quotes whole: a paragraph's
// cited sentences, with the code block or table that follows it.
type passage struct {
	text  string // the cited sentences, markers untouched
	block string // a fenced block that follows the paragraph; "" if none
	// more are the paragraphs (with their blocks) that follow this one
	// citing the same sources: an agent's evidence from one source is
	// quoted together (see group).
	more    []passage
	markers []string // citation numbers, in order of first appearance
	sec     int      // index of its findings section
	seq     int      // position among all passages
	rel     float64  // coverage of the question's key terms
	bears   bool     // bears on the question as a whole (bearsOn)
}

// fresh returns p without the sentences seen holds (a sentence that two
// agents quoted is quoted once), recording its own in seen; its text is ""
// when none is left.
func (p passage) fresh(seen map[string]bool) passage {
	var keep []string
	for _, s := range sentences(p.text) {
		k := normalize(sourceMarkerRe.ReplaceAllString(s, ""))
		if !seen[k] {
			seen[k] = true
			keep = append(keep, s)
		}
	}
	p.text = strings.Join(keep, " ")
	p.markers = markersOf(p.text)
	if p.text == "" {
		p.block = ""
	}
	var more []passage
	for _, m := range p.more {
		if m = m.fresh(seen); m.text != "" {
			more = append(more, m)
		}
	}
	p.more = more
	if p.text == "" && len(more) > 0 {
		first := more[0]
		first.more = more[1:]
		return first
	}
	return p
}

func (p passage) render() string {
	out := p.text
	if p.block != "" {
		out += "\n\n" + p.block
	}
	for _, m := range p.more {
		if r := m.render(); r != "" {
			out += "\n\n" + r
		}
	}
	return out
}

// group joins each run of passages that cite the same sources into one,
// the first carrying the others (more): what an agent quoted of one
// source — a setting's description, then the commands that set it —
// stays together in the report.
func group(ps []passage) []passage {
	var out []passage
	for _, p := range ps {
		if n := len(out); n > 0 && slices.Equal(out[n-1].markers, p.markers) {
			out[n-1].more = append(out[n-1].more, p)
			continue
		}
		out = append(out, p)
	}
	return out
}

// all is the text of p and the passages it carries, for scoring.
func (p passage) all() string {
	t := p.text
	for _, m := range p.more {
		t += " " + m.text
	}
	return t
}

// findingPassages splits a findings section into passages: each paragraph
// keeps its sentences that carry a citation marker (of three to eighty
// words), and a fenced block right after a paragraph goes with it. A
// paragraph with no cited sentence, or a block after none, is left out.
func findingPassages(text string) []passage {
	var out []passage
	var par []string
	lastPar := -1 // index in out of the passage the last paragraph made; -1 after a blank gap with no passage
	flushPar := func() {
		if len(par) == 0 {
			return
		}
		var cited []string
		for _, s := range sentences(strings.Join(par, " ")) {
			if n := len(strings.Fields(s)); n >= 3 && n <= 80 && hasMarkerRe.MatchString(s) {
				cited = append(cited, s)
			}
		}
		par = nil
		lastPar = -1
		if len(cited) > 0 {
			t := strings.Join(cited, " ")
			out = append(out, passage{text: t, markers: markersOf(t)})
			lastPar = len(out) - 1
		}
	}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if fence := fenceOf(t); fence != "" {
			flushPar()
			var body []string
			for i+1 < len(lines) {
				i++
				if strings.HasPrefix(strings.TrimSpace(lines[i]), fence) && strings.Trim(strings.TrimSpace(lines[i]), "`~") == "" {
					break
				}
				body = append(body, lines[i])
			}
			if lastPar >= 0 && out[lastPar].block == "" {
				out[lastPar].block = fence + "\n" + strings.Join(body, "\n") + "\n" + fence
			}
			lastPar = -1
			continue
		}
		if t == "" {
			flushPar()
			continue
		}
		if headingRe.MatchString(lines[i]) {
			flushPar()
			continue
		}
		par = append(par, t)
	}
	flushPar()
	return out
}

// fenceOf returns the fence a line opens (``` or ~~~, as long as it is),
// or "".
func fenceOf(t string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(t, c+c+c) {
			n := len(t) - len(strings.TrimLeft(t, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// write answers a writer turn: a markdown report assembled from the
// findings' own passages, each quoted whole (its cited sentences and the
// command or table that goes with it), markers untouched. The
// introduction is the passage that best covers the question; each
// section then quotes up to maxSectionUnits of its own passages in
// findings order. The report cites at most maxReportSources sources,
// besides the first passage of each section: a passage all of whose
// sources are new is left out once that many are cited. A sentence
// without a citation marker is never quoted.
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
	qterms := weightedTerms(q, q)
	titles := sourceTitles(msgs)
	kb := attributions(msgs)
	own := stemSet(stripScaffold(q))

	var all []passage
	perSection := make([][]int, len(secs))
	seen := map[string]bool{}
	covered := make([]bool, len(secs)) // a section whose every passage an earlier one quotes
	for si, sec := range secs {
		ps := group(findingPassages(sec.text))
		covered[si] = len(ps) > 0
		for _, p := range ps {
			if p = p.fresh(seen); p.text == "" {
				continue
			}
			covered[si] = false
			p.sec, p.seq = si, len(all)
			p.rel = score(p.all(), qterms)
			// The introduction and the Overview quote only passages that
			// bear on the question as a whole: with the titles of the
			// sources they cite, they share two of its key terms (all,
			// when it has fewer).
			p.bears = bearsOn(p.all(), titles, own)
			all = append(all, p)
			perSection[si] = append(perSection[si], len(all)-1)
		}
	}

	cited := map[string]bool{}
	fits := func(p passage) bool {
		if len(cited) < maxReportSources {
			return true
		}
		return slices.ContainsFunc(p.markers, func(m string) bool { return cited[m] })
	}
	cite := func(p passage) {
		for _, m := range p.markers {
			cited[m] = true
		}
	}
	used := map[int]bool{}
	var b strings.Builder
	b.WriteString("# " + titleOf(q) + "\n")

	// Introduction: the first passage of the first section that bears on
	// the question (an agent's report puts its best evidence first), else
	// the passage that best covers the question; never the only one its
	// section has.
	intro := -1
	if len(secs) > 0 && len(perSection[0]) > 1 {
		for _, i := range perSection[0] {
			if all[i].bears {
				intro = i
				break
			}
		}
	}
	if intro < 0 {
		for i, p := range all {
			if p.bears && len(perSection[p.sec]) > 1 && (intro < 0 || p.rel > all[intro].rel) {
				intro = i
			}
		}
	}
	switch {
	case intro >= 0:
		used[intro] = true
		cite(all[intro])
		b.WriteString("\n" + attributed(all[intro], kb) + "\n")
	case len(all) == 0:
		b.WriteString("\n" + NoReportEvidence + "\n")
	}

	for si, sec := range secs {
		var lines []string
		for _, i := range perSection[si] {
			p := all[i]
			if used[i] {
				continue
			}
			if len(lines) >= maxSectionUnits || len(lines) > 0 && !fits(p) {
				continue
			}
			used[i] = true
			cite(p)
			lines = append(lines, attributed(p, kb))
		}
		text := NoSectionEvidence
		if len(lines) > 0 {
			text = strings.Join(lines, "\n\n")
		} else if covered[si] || slices.ContainsFunc(perSection[si], func(i int) bool { return used[i] }) {
			continue // what it found is quoted above
		}
		b.WriteString("\n## " + sec.title + "\n\n" + text + "\n")
	}
	return b.String()
}

// writeSection answers a section writer: the section's body, no heading —
// up to maxSectionedUnits of its findings' passages, those that cover the
// section title's and the question's terms best, in findings order,
// markers untouched; NoSectionEvidence when none is cited.
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
	ps := group(findingPassages(strings.Join(text, "\n\n")))
	seen := map[string]bool{}
	var cands []passage
	for _, p := range ps {
		if p = p.fresh(seen); p.text != "" {
			p.seq, p.rel = len(cands), score(p.all(), terms)
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return NoSectionEvidence
	}
	best := slices.Clone(cands)
	slices.SortStableFunc(best, func(a, b passage) int { return cmp.Compare(b.rel, a.rel) })
	best = best[:min(len(best), maxSectionedUnits)]
	slices.SortFunc(best, func(a, b passage) int { return cmp.Compare(a.seq, b.seq) })
	kb := attributions(msgs)
	out := make([]string, len(best))
	for i, p := range best {
		out[i] = attributed(p, kb)
	}
	return strings.Join(out, "\n\n")
}
