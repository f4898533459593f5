package extractive

import (
	"cmp"
	"math"
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

// NoEvidence is the reporter's reply when the tool results hold no
// sentence relevant to the task. It cites nothing.
const NoEvidence = "The sources hold no evidence for this task."

// Relevance of a quoted sentence: it must cover at least minCoverage of
// the weighted key terms and share at least two of the task's own terms
// (one, when the task has fewer than three).
// MMR trades relevance (mmrLambda) against similarity to the sentences
// already chosen.
// A sentence's score adds priorWeight times its source's fused search
// rank; MMR adds newSourceBonus to a sentence from a source not quoted
// yet, so a report draws on several sources.
const (
	priorWeight    = 0.5
	highPrior      = 0.5
	newSourceBonus = 0.2
	minCoverage    = 0.25
	mmrLambda      = 0.7
	// topReportSources is how many of the best-ranked sources a report
	// quotes first, one sentence each.
	topReportSources = 5
)

// candidate is a sentence that may go into a report.
type candidate struct {
	text  string
	num   int // citation number (reporter); section index (writer)
	rel   float64
	score float64
	stems map[string]bool
	seq   int  // position in the input, for stable order
	weak  bool // reporter: relevant only as the best sentence of a top-ranked source; writer: does not bear on the question
}

// report answers a reporter turn: the sentences of the tool results most
// relevant to the task and the user's question, redundancy removed, each
// cited with the number of the block it came from. The topReportSources
// sources the searches ranked best (priors) that are on the subject as a
// whole give their best sentence first, even one that shares a single
// key term of the task: a source the search engine ranks high is cited
// though another source has more quotable sentences.
func report(msgs []llms.MessageContent) string {
	task := question(msgs)
	terms := weightedTerms(task, objective(msgs))
	own := stemSet(stripScaffold(task))
	seen := map[string]bool{}
	var cands []candidate
	blocks := allBlocks(msgs)
	prior := priors(blocks)
	// The best-ranked sources that are on the subject as a whole (their
	// title and text together cover the key terms as a quoted sentence
	// must).
	srcText := map[int]*strings.Builder{}
	for _, b := range blocks {
		if srcText[b.num] == nil {
			srcText[b.num] = &strings.Builder{}
		}
		srcText[b.num].WriteString(b.title + "\n" + b.text + "\n")
	}
	var topSources []int
	topRank := map[int]bool{}
	// A source named after the subject (every word of its title is a key
	// term of the question: a dictionary entry, a manual page) comes
	// first, however the searches' fusion ranked it; then the sources of
	// the first search (the question as written, or all its key phrases:
	// what a plain search of the question finds), in its order; then the
	// others by fused rank. So a report holds at least what the plain
	// search of its question would cite, where the filter kept it.
	// A follow-up of a research loop quotes only what bears on the user's
	// question, or the document of the name it follows.
	fu, isFollowUp := followUpOf(msgs)
	admits := func(s string, b block) bool { return !isFollowUp || fu.admits(s, b.title, b.url) }
	ranked := bestRanked(prior, len(prior))
	first := firstSearch(blocks)
	named := func(n int) bool { return namesSubject(sourceTitle(blocks, n), terms) }
	class := func(n int) int {
		switch {
		case named(n):
			return 0
		case first[n] > 0:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(ranked, func(a, b int) int {
		if c := cmp.Compare(class(a), class(b)); c != 0 || class(a) != 1 {
			return c
		}
		return cmp.Compare(first[a], first[b])
	})
	for _, n := range ranked {
		if len(topSources) == topReportSources {
			break
		}
		text := srcText[n].String()
		if score(text, terms) >= minCoverage && shared(stemSet(text), own) >= min(len(own), 2) {
			topSources = append(topSources, n)
			topRank[n] = true
		}
	}
	for _, b := range blocks {
		pos := 0
		for _, par := range paragraphs(b.text) {
			for _, s := range sentences(cleanSourceText(par)) {
				if !proseSentence(s) || !admits(s, b) {
					continue
				}
				key := normalize(s)
				if seen[key] {
					continue
				}
				seen[key] = true
				stems := stemSet(s)
				rel := score(s, terms)
				pos++
				// Relevant: covers enough of the key terms, or comes from
				// a source the searches ranked high and shares a term of
				// the task.
				sh := shared(stems, own)
				covered := rel >= minCoverage && sh >= min(len(own), 2)
				ranked := prior[b.num] >= highPrior && sh >= 1
				top := topRank[b.num] && sh >= 1
				if len(own) > 0 && !covered && !ranked && !top {
					continue
				}
				cands = append(cands, candidate{
					text: s, num: b.num, rel: rel, stems: stems,
					score: rel + priorWeight*prior[b.num] + positionBonus/float64(pos+3),
					seq:   len(cands),
					weak:  !covered && !ranked,
				})
			}
		}
	}
	// The best-ranked sources first: each gets its best sentence, so the
	// report cites what the searches ranked highest even when another
	// source has more quotable sentences. A source on the subject with no
	// sentence of prose (a terse entry, a title and a phrase) is quoted
	// whole when it is short.
	var picked []candidate
	for _, n := range topSources {
		best := -1
		for i, c := range cands {
			if c.num == n && (best < 0 || c.score > cands[best].score) {
				best = i
			}
		}
		if best >= 0 {
			picked = append(picked, cands[best])
			cands = slices.Delete(cands, best, best+1)
		} else if s := shortText(blocks, n); s != "" && !seen[normalize(s)] && admits(s, blockOf(blocks, n)) {
			seen[normalize(s)] = true
			picked = append(picked, candidate{text: s, num: n, rel: score(s, terms), stems: stemSet(s), seq: -1,
				score: score(s, terms) + priorWeight*prior[n]})
		}
	}
	cands = slices.DeleteFunc(cands, func(c candidate) bool { return c.weak })
	picked = append(picked, mmrFrom(picked, cands, maxReportSentences-len(picked), func(c candidate, picked []candidate) float64 {
		if slices.ContainsFunc(picked, func(o candidate) bool { return o.num == c.num }) {
			return 0
		}
		return newSourceBonus
	})...)
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
	best := func(n int) float64 {
		v := math.Inf(-1)
		for _, c := range bySource[n] {
			v = max(v, c.score)
		}
		return v
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(best(b), best(a)) })
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

// firstSearch returns the rank of each source in the first search
// result.
func firstSearch(blocks []block) map[int]int {
	out := map[int]int{}
	for _, b := range blocks {
		if b.search == 1 {
			out[b.num] = b.rank
		}
	}
	return out
}

// sourceTitle returns the title of source n.
func sourceTitle(blocks []block, n int) string { return blockOf(blocks, n).title }

// blockOf returns the first block of source n.
func blockOf(blocks []block, n int) block {
	for _, b := range blocks {
		if b.num == n {
			return b
		}
	}
	return block{}
}

// namesSubject reports whether a title names the subject: it has a key
// term that is not a number, and all of them are among terms.
func namesSubject(title string, terms map[string]float64) bool {
	n := 0
	for st := range stemSet(title) {
		if isDigits(st) {
			continue
		}
		if terms[st] == 0 {
			return false
		}
		n++
	}
	return n > 0
}

// maxShortWords caps the words of a source quoted whole (shortText).
const maxShortWords = 40

// shortText returns the text of source n quoted whole: its first
// paragraph, cleaned, when that is short prose that is not code (at most
// maxShortWords words, at least two), ending like a sentence; else "".
func shortText(blocks []block, n int) string {
	for _, b := range blocks {
		if b.num != n {
			continue
		}
		for _, par := range paragraphs(b.text) {
			s := cleanSourceText(par)
			if w := len(strings.Fields(s)); w < 2 || w > maxShortWords || codeLike(s) || strings.Contains(s, "://") || hasMarkerRe.MatchString(s) {
				continue
			}
			if last, _ := utf8.DecodeLastRuneInString(s); !strings.ContainsRune(".!?", last) {
				s += "."
			}
			return s
		}
	}
	return ""
}

// markersOf returns the citation numbers a sentence's markers name, as
// strings ("[1, 4]" gives 1 and 4).
func markersOf(s string) []string {
	var out []string
	for _, m := range hasMarkerRe.FindAllString(s, -1) {
		for _, f := range strings.FieldsFunc(m, func(r rune) bool { return r < '0' || r > '9' }) {
			out = append(out, f)
		}
	}
	return out
}

// shared counts the keys of a that are in b.
func shared(a, b map[string]bool) int {
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return n
}

// mmr picks up to k candidates by maximal marginal relevance: each step
// takes the candidate with the best mmrLambda·score − (1−mmrLambda)·(its
// greatest Jaccard similarity to one already picked) + bonus(it, picked);
// ties go to the earlier candidate. The result is in pick order, best
// first. bonus may be nil.
func mmr(cands []candidate, k int, bonus func(c candidate, picked []candidate) float64) []candidate {
	return mmrFrom(nil, cands, k, bonus)
}

// mmrFrom is mmr continuing a selection: the candidates already picked
// count for similarity and bonus, and only the new picks are returned.
func mmrFrom(prev, cands []candidate, k int, bonus func(c candidate, picked []candidate) float64) []candidate {
	out := slices.Clone(prev)
	used := make([]bool, len(cands))
	for len(out) < len(prev)+k {
		best, bestVal := -1, math.Inf(-1)
		for i, c := range cands {
			if used[i] {
				continue
			}
			sim := 0.0
			for _, o := range out {
				sim = max(sim, jaccard(c.stems, o.stems))
			}
			v := mmrLambda*c.score - (1-mmrLambda)*sim
			if bonus != nil {
				v += bonus(c, out)
			}
			if v > bestVal {
				best, bestVal = i, v
			}
		}
		if best < 0 {
			break
		}
		used[best] = true
		out = append(out, cands[best])
	}
	return out[len(prev):]
}

// bestRanked returns up to k sources by fused search rank, best first,
// ties to the lower number (the source seen first).
func bestRanked(prior map[int]float64, k int) []int {
	var out []int
	for n := range prior {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b int) int {
		if c := cmp.Compare(prior[b], prior[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out[:min(k, len(out))]
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

var hasMarkerRe = regexp.MustCompile(`\[\^?\d{1,4}(?:\s*[-–,]\s*\d{1,4})*\]|[【［]\d|\[\[S?:?\d|\[ref:`)

// Writer sizes.
const (
	introSentences      = 2
	maxSectionSentences = 4
	// maxSectionSources is how many of a section's cited sources get
	// their best sentence before the rest are chosen by MMR: a report
	// keeps the sources its findings found, not just the most quotable.
	maxSectionSources = 6
	maxTitleWords     = 12
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

// write answers a writer turn: a markdown report assembled from the
// findings' own cited sentences, markers untouched. The introduction is
// the two sentences that best cover the question; each section gets up
// to four of its own, chosen by MMR over the question's and the section
// title's terms and kept in their findings order. A sentence without a
// citation marker is never quoted.
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
	own := stemSet(stripScaffold(q))

	var all []candidate
	perSection := make([][]int, len(secs))
	for si, sec := range secs {
		terms := weightedTerms(sec.title, q)
		pos := 0
		for _, par := range paragraphs(sec.text) {
			for _, s := range sentences(par) {
				if n := len(strings.Fields(s)); n < 3 || n > 80 || !hasMarkerRe.MatchString(s) {
					continue
				}
				// The introduction and the Overview section quote only
				// sentences that bear on the question as a whole: with
				// the titles of the sources they cite, they share two of
				// its key terms (all, when it has fewer). A section on one
				// part of the question was researched on that part.
				bears := bearsOn(s, titles, own)
				pos++
				stems := stemSet(s)
				all = append(all, candidate{text: s, num: si, stems: stems, seq: len(all), weak: !bears,
					rel: score(s, qterms), score: score(s, terms) + positionBonus/float64(pos+3)})
				perSection[si] = append(perSection[si], len(all)-1)
			}
		}
	}

	used := map[string]bool{}
	cited := map[string]bool{} // markers already in the report
	fresh := func(c candidate, picked []candidate) float64 {
		for _, m := range markersOf(c.text) {
			if !cited[m] && !slices.ContainsFunc(picked, func(o candidate) bool { return slices.Contains(markersOf(o.text), m) }) {
				return newSourceBonus
			}
		}
		return 0
	}
	cite := func(text string) {
		for _, m := range markersOf(text) {
			cited[m] = true
		}
	}
	var b strings.Builder
	b.WriteString("# " + titleOf(q) + "\n")

	// Introduction: the best sentences overall by the question alone,
	// never the last one a section has.
	left := make([]int, len(secs))
	for si := range secs {
		left[si] = len(perSection[si])
	}
	var lines []string
	for len(lines) < introSentences {
		var intro []candidate
		for _, c := range all {
			if left[c.num] > 1 && !c.weak && !used[normalize(c.text)] {
				c.score = c.rel + positionBonus/float64(c.seq+3)
				intro = append(intro, c)
			}
		}
		picked := mmr(intro, 1, nil)
		if len(picked) == 0 {
			break
		}
		c := picked[0]
		used[normalize(c.text)] = true
		cite(c.text)
		left[c.num]--
		lines = append(lines, c.text)
	}
	switch {
	case len(lines) > 0:
		b.WriteString("\n" + strings.Join(lines, " ") + "\n")
	case len(all) == 0:
		b.WriteString("\n" + NoReportEvidence + "\n")
	}

	for si, sec := range secs {
		var cands []candidate
		for _, i := range perSection[si] {
			if !used[normalize(all[i].text)] {
				cands = append(cands, all[i])
			}
		}
		// In the Overview, a sentence that does not bear on the question
		// is quoted only as the one quote of a source no bearing sentence
		// cites: the source was kept and found on the subject, and it is
		// cited for no other sentence.
		if sec.title == OverviewTitle {
			cands = slices.DeleteFunc(cands, func(c candidate) bool {
				if !c.weak {
					return false
				}
				for _, m := range markersOf(c.text) {
					if !slices.ContainsFunc(all, func(o candidate) bool { return !o.weak && slices.Contains(markersOf(o.text), m) }) {
						return false
					}
				}
				return true
			})
		}
		// Each cited source first, by its best sentence (up to
		// maxSectionSources), then MMR up to maxSectionSentences; a
		// sentence that does not bear on the question only in the first
		// round.
		var chosen []candidate
		for _, m := range sectionSources(cands) {
			if len(chosen) == maxSectionSources {
				break
			}
			if cited[m] || slices.ContainsFunc(chosen, func(o candidate) bool { return slices.Contains(markersOf(o.text), m) }) {
				continue
			}
			best := -1
			for i, c := range cands {
				if slices.Contains(markersOf(c.text), m) && (best < 0 || c.score > cands[best].score) {
					best = i
				}
			}
			chosen = append(chosen, cands[best])
			cands = slices.Delete(cands, best, best+1)
		}
		if sec.title == OverviewTitle {
			cands = slices.DeleteFunc(cands, func(c candidate) bool { return c.weak })
		}
		chosen = append(chosen, mmrFrom(chosen, cands, max(0, maxSectionSentences-len(chosen)), fresh)...)
		slices.SortFunc(chosen, func(a, b candidate) int { return cmp.Compare(a.seq, b.seq) })
		var lines []string
		for _, c := range chosen {
			if k := normalize(c.text); !used[k] {
				used[k] = true
				cite(c.text)
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

// bearsOn reports whether sentence s bears on a question whose key terms
// are own: with the titles of the sources it cites, it shares two of them
// (all, when there are fewer).
func bearsOn(s string, titles map[string]string, own map[string]bool) bool {
	if len(own) == 0 {
		return true
	}
	context := s
	for _, m := range markersOf(s) {
		context += "\n" + titles[m]
	}
	return shared(stemSet(context), own) >= min(len(own), 2)
}

// sectionSources returns the citation numbers of cands in order of first
// appearance.
func sectionSources(cands []candidate) []string {
	var out []string
	for _, c := range cands {
		for _, m := range markersOf(c.text) {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// sourceTitles reads the "## Sources" list of a writer prompt ("[n]
// Title — URL") into titles by number.
func sourceTitles(msgs []llms.MessageContent) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeHuman {
			continue
		}
		in := false
		for _, line := range strings.Split(textOf(m), "\n") {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "## ") {
				in = strings.EqualFold(strings.TrimSpace(t[3:]), "Sources")
				continue
			}
			if m := headerRe.FindStringSubmatch(t); in && m != nil {
				title, _, _ := strings.Cut(m[2], " — ")
				out[m[1]] = title
			}
		}
	}
	return out
}

// hasFindings reports whether a human message holds a writer's findings.
func hasFindings(msgs []llms.MessageContent) bool {
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeHuman && len(findings(textOf(m))) > 0 {
			return true
		}
	}
	return false
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
