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
	maxSectionUnits   = 7
	maxSectionedUnits = 7
	// maxReportSources caps the sources a report cites beyond the first
	// passage of each section: a report cites the few sources that answer,
	// not every one the research kept. A fifth for a passage nearly as
	// good as the best cost more citations than it gained answers.
	maxReportSources = 4
	// nearlyAsGood is how close to a section's best passage one from a
	// source the report already cites must come to open the section in
	// its place.
	nearlyAsGood  = 0.6
	maxTitleWords = 12
)

// NoSectionEvidence is written under a findings section with no cited
// sentence; NoReportEvidence is the introduction when no section has one.
// Neither cites anything.
const (
	NoSectionEvidence = "The sources hold no evidence for this part of the question."
	NoReportEvidence  = "The sources searched hold no evidence that answers this question."
	// NoDirectAnswer opens a report whose findings hold passages but none
	// that covers the question (noAnswerCoverage): what follows is the
	// closest the sources came, and the reader is told so first.
	NoDirectAnswer = "The sources searched do not answer this question directly; the passages below are the closest they hold."
)

// noAnswerCoverage: a report none of whose passages, with the titles of
// the sources it cites, holds this share of the question's weighted key
// terms, and none of whose sources has a title that names one, opens with
// NoDirectAnswer.
const noAnswerCoverage = 1.0 / 3

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
	markers []string // citation numbers, each once, in order of first appearance
	sec     int      // index of its findings section
	seq     int      // position among all passages
	rel     float64  // coverage of the question's key terms
	bears   bool     // bears on the question as a whole (bearsOn)
	dup     bool     // an earlier section holds all of it (write)
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
	p.markers = distinctMarkers(p.text)
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

// within reports whether every sentence of p, and of the passages it
// carries, is in seen (the keys fresh records).
func (p passage) within(seen map[string]bool) bool {
	for _, s := range sentences(p.text) {
		if !seen[normalize(sourceMarkerRe.ReplaceAllString(s, ""))] {
			return false
		}
	}
	for _, m := range p.more {
		if !m.within(seen) {
			return false
		}
	}
	return true
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

// best is the coverage of terms by the best of p and the passages it
// carries: a run of one source's passages is judged by its best, not by
// all its words together, which would favour the longest.
func (p passage) best(terms map[string]float64) float64 {
	b := score(p.text, terms)
	for _, m := range p.more {
		b = max(b, score(m.text, terms))
	}
	return b
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
			out = append(out, passage{text: t, markers: distinctMarkers(t)})
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
// command or table that goes with it), markers untouched. It opens with
// a lead, the few sentences that give the answer's names (leadOf); the
// introduction is the passage that best covers the question; each
// section then quotes up to maxSectionUnits of its own passages in
// findings order. The report cites at most maxReportSources sources,
// besides the first passage of each section: a passage all of whose
// sources are new is left out once that many are cited. It is written
// twice when it has a lead: once to learn which sources it cites, whose
// sentences the lead may quote, then with the lead, whose sentences the
// rest does not quote again. A sentence without a citation marker is
// never quoted, and none is quoted twice.
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
	listedSources := sourceList(msgs)
	titles := map[string]string{}
	for n, src := range listedSources {
		titles[n] = src.title
	}
	kb := attributions(msgs)
	own := questionStems(stripScaffold(q))

	// A passage an earlier section already holds stays a candidate here,
	// as a repeat (dup): the earlier section may not quote it. A repeat is
	// quoted only when nothing of it is yet (quoted, at rendering), and
	// counts for no section's size, introduction or coverage.
	var all []passage
	perSection := make([][]int, len(secs))
	seen := map[string]bool{}
	covered := make([]bool, len(secs)) // a section whose every passage an earlier one holds
	for si, sec := range secs {
		ps := group(findingPassages(sec.text))
		covered[si] = len(ps) > 0
		for _, p := range ps {
			if f := p.fresh(seen); f.text != "" {
				p = f
				covered[si] = false
			} else {
				p.dup = true
			}
			p.sec, p.seq = si, len(all)
			p.rel = p.best(qterms)
			// The introduction and the Overview quote only passages that
			// bear on the question as a whole: with the titles of the
			// sources they cite, they share two of its key terms (all,
			// when it has fewer).
			p.bears = bearsOn(p.all(), titles, own)
			all = append(all, p)
			perSection[si] = append(perSection[si], len(all)-1)
		}
	}

	// A document is counted once however many numbers cite it (a table's
	// rows each have their own).
	doc := func(m string) string {
		if s, ok := listedSources[m]; ok && s.loc != "" {
			return s.loc
		}
		return "[" + m + "]"
	}
	cited := map[string]bool{}
	fits := func(p passage) bool {
		if slices.ContainsFunc(p.markers, func(m string) bool { return cited[doc(m)] }) {
			return true
		}
		return len(cited) < maxReportSources
	}
	var citedOrder []string // the documents in the order the report first cites them
	cite := func(p passage) {
		for _, m := range p.markers {
			if d := doc(m); !cited[d] {
				cited[d] = true
				citedOrder = append(citedOrder, d)
			}
		}
	}
	used := map[int]bool{}
	rendered := map[int]bool{}  // passages render wrote
	quoted := map[string]bool{} // the sentences written so far
	tables := rowTables(all, listedSources)
	// render writes passage i, or the rows of the table it is a row of
	// that are not written yet (two or more), each once, under a line
	// that counts them.
	render := func(i int) string {
		var rows []int
		if t, ok := tables[i]; ok {
			for _, k := range t.rows {
				if k == i || !rendered[k] {
					rows = append(rows, k)
				}
			}
		}
		if len(rows) < 2 {
			rendered[i] = true
			p := all[i].fresh(quoted)
			if p.text == "" {
				return ""
			}
			return attributed(p, kb)
		}
		var items []string
		for _, k := range rows {
			used[k], rendered[k] = true, true
			if r := all[k].fresh(quoted); r.text != "" {
				cite(all[k])
				items = append(items, "- "+r.text)
			}
		}
		if len(items) == 0 {
			return ""
		}
		return strings.Join(append([]string{plural(len(items), "matching row") + " of " + tables[i].title + " were found:", ""}, items...), "\n")
	}
	// namedFor reports whether a source p cites is named after the
	// section's subject: its title's key words are the section's
	// ("thread.txt" for "Thread").
	namedFor := func(p passage, title string) bool {
		sub := stemSet(title)
		return slices.ContainsFunc(p.markers, func(m string) bool {
			st := stemSet(titles[m])
			return len(st) > 0 && subset(st, sub)
		})
	}
	var b strings.Builder
	b.WriteString("# " + titleOf(q) + "\n")

	// Introduction: of the first section's passages that bear on the
	// question, the one that covers it best (an agent's report quotes its
	// best sources first, each source's passages in the source's order),
	// else the passage that best covers the question; never the only one
	// its section has.
	intro := -1
	// A section's size counts paragraphs: a run of one source's is several.
	paras := func(si int) int {
		n := 0
		for _, i := range perSection[si] {
			if !all[i].dup {
				n += 1 + len(all[i].more)
			}
		}
		return n
	}
	if len(secs) > 0 && paras(0) > 1 {
		for _, i := range perSection[0] {
			if all[i].bears && !all[i].dup && (intro < 0 || all[i].rel > all[intro].rel) {
				intro = i
			}
		}
	}
	if intro < 0 {
		for i, p := range all {
			if p.bears && !p.dup && paras(p.sec) > 1 && (intro < 0 || p.rel > all[intro].rel) {
				intro = i
			}
		}
	}
	// A question for the things that match ("Which servers…", "List
	// every…", "How many…") is answered by the rows that match it.
	if listQuestion(q) {
		most := 0
		for i, t := range tables {
			if n := len(t.rows); n > most || n == most && i < intro {
				intro, most = i, n
			}
		}
	}
	// A report whose every passage misses most of what the question asks
	// says so before quoting them.
	// A source whose title names one of the question's key terms is on
	// its subject, and may answer in words of its own.
	covers := false
	for _, p := range all {
		ctx := p.all()
		for _, m := range p.markers {
			ctx += "\n" + titles[m]
			covers = covers || shared(stemSet(titles[m]), own) > 0
		}
		covers = covers || score(ctx, qterms) >= noAnswerCoverage
	}
	if len(all) > 0 && !covers {
		b.WriteString("\n" + NoDirectAnswer + "\n")
	}
	// body writes the introduction and the sections, after the sentences
	// of the lead (quoting none of them again).
	body := func(lead []passage) string {
		cited, used, rendered, quoted, citedOrder = map[string]bool{}, map[int]bool{}, map[int]bool{}, map[string]bool{}, nil
		var out strings.Builder
		if len(lead) > 0 {
			var lines []string
			for _, p := range lead {
				if f := p.fresh(quoted); f.text != "" {
					cite(f)
					lines = append(lines, attributed(f, kb))
				}
			}
			out.WriteString("\n" + strings.Join(lines, " ") + "\n")
		}
		switch {
		case intro >= 0:
			used[intro] = true
			cite(all[intro])
			if r := render(intro); r != "" {
				out.WriteString("\n" + r + "\n")
			}
		case len(all) == 0:
			out.WriteString("\n" + NoReportEvidence + "\n")
		}

		for si, sec := range secs {
			// The section's passages that cover the question best, quoted in
			// findings order.
			var pick []int
			byRel := slices.Clone(perSection[si])
			slices.SortStableFunc(byRel, func(a, b int) int { return cmp.Compare(all[b].rel, all[a].rel) })
			// A passage quoted already, by an earlier section or the lead,
			// has nothing left to give.
			open := func(i int) bool { return !used[i] && !all[i].within(quoted) }
			for k, i := range byRel {
				if !open(i) || len(pick) >= maxSectionUnits || len(pick) > 0 && !fits(all[i]) {
					continue
				}
				if len(pick) == 0 && !fits(all[i]) && !namedFor(all[i], sec.title) && slices.ContainsFunc(byRel[k+1:], func(j int) bool {
					return open(j) && fits(all[j]) && all[j].rel >= nearlyAsGood*all[i].rel
				}) {
					// A section opens with its best passage even past the
					// report's sources, unless one nearly as good is of a
					// source the report cites already; a source named after
					// the section's subject (a side of a comparison) is its
					// own.
					continue
				}
				used[i] = true
				cite(all[i])
				pick = append(pick, i)
			}
			slices.Sort(pick)
			var lines []string
			for _, i := range pick {
				if rendered[i] {
					continue // a row its table's first row listed
				}
				if r := render(i); r != "" {
					lines = append(lines, r)
				}
			}
			text := NoSectionEvidence
			if len(lines) > 0 {
				text = strings.Join(lines, "\n\n")
			} else if covered[si] || slices.ContainsFunc(perSection[si], func(i int) bool { return used[i] || all[i].within(quoted) }) {
				continue // what it found is quoted above
			}
			out.WriteString("\n## " + sec.title + "\n\n" + text + "\n")
		}
		return out.String()
	}
	out := body(nil)
	// The lead: the sentences that answer, of the first sources the
	// report cites (those it cites past maxReportSources, for a section's
	// first passage, would take the place of others when cited first),
	// above the introduction that gives them their context; the report is
	// written again without them below. Not for a question answered by
	// the rows that match it.
	if intro >= 0 && !listQuestion(q) {
		first := citedOrder[:min(len(citedOrder), maxReportSources)]
		ofCited := func(p passage) bool {
			return !slices.ContainsFunc(p.markers, func(m string) bool { return !slices.Contains(first, doc(m)) })
		}
		var lead []passage
		for _, l := range leadOf(all, q, qterms, own, titles, ofCited) {
			lead = append(lead, passage{text: l.text, markers: distinctMarkers(l.text)})
		}
		if len(lead) > 0 {
			out = body(lead)
		}
	}
	return b.String() + out
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

// table is the rows of one table that a report quotes.
type table struct {
	title string
	rows  []int // indexes of the passages that are its rows, in order
}

// rowTables finds the passages that are rows of one table (a record cited
// alone, the rows' numbers naming one document) where a table has two or
// more that bear on the question, by the index of its first row.
func rowTables(all []passage, sources map[string]listed) map[int]table {
	byDoc := map[string][]int{}
	var order []string
	for i, p := range all {
		if p.dup || len(p.markers) != 1 || p.block != "" || len(p.more) > 0 || !p.bears {
			continue
		}
		if !recordSentence(strings.TrimSpace(sourceMarkerRe.ReplaceAllString(p.text, ""))) {
			continue
		}
		s, ok := sources[p.markers[0]]
		if !ok || s.loc == "" {
			continue
		}
		if _, ok := byDoc[s.loc]; !ok {
			order = append(order, s.loc)
		}
		byDoc[s.loc] = append(byDoc[s.loc], i)
	}
	out := map[int]table{}
	for _, loc := range order {
		rows := byDoc[loc]
		if len(rows) < 2 {
			continue
		}
		out[rows[0]] = table{title: sources[all[rows[0]].markers[0]].title, rows: rows}
	}
	return out
}

// listQuestion reports whether q asks for the things that match: "Which
// servers are in Frankfurt?", "List every SEV1 incident", "How many
// orders shipped late?", "What are all the…", "Show the…".
func listQuestion(q string) bool {
	w := strings.Fields(strings.ToLower(q))
	if len(w) == 0 {
		return false
	}
	switch strings.Trim(w[0], "?,.:") {
	case "which", "list", "show", "name", "count", "enumerate", "find":
		return true
	case "how":
		return len(w) > 1 && (w[1] == "many" || w[1] == "much")
	case "what":
		return len(w) > 1 && (w[1] == "are" || w[1] == "were")
	}
	return false
}

// distinctMarkers are the citation numbers of s, each once, in order of
// first appearance: a paragraph citing [1] three times cites what one
// citing it once does (group joins them).
func distinctMarkers(s string) []string {
	var out []string
	for _, m := range markersOf(s) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
