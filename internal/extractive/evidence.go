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

	"github.com/deepresearch/deepresearch/internal/excerpt"
	"github.com/deepresearch/deepresearch/internal/terms"
)

// Evidence sizes: what one agent hands the writer. A report is the
// passages that answer the task — whole paragraphs, list items and the
// commands they introduce — from few sources, not sentences from many
// that share the question's words.
const (
	// maxEvidenceUnits caps the passages an agent's report quotes (the
	// context a passage brings along, a command after "run:", is not
	// counted).
	maxEvidenceUnits = 7
	// maxEvidenceSources caps the sources an agent's report cites.
	maxEvidenceSources = 4
	// relativeFloor: a passage scores at least this share of the best
	// passage's score to be quoted.
	relativeFloor = 0.35
	// sourceFloor: a third or fourth source is cited only for a passage
	// that scores at least this share of the best passage's score; the
	// first two need relativeFloor only. (A report cited four sources
	// where one or two answer: 0.5 cites fewer on every tuned set and
	// answers two more questions; 0.55 and 0.6 answer more still but cite
	// the expected document less often than a plain search does.)
	sourceFloor = 0.5
	// maxUnitSentences caps the sentences quoted of one paragraph: its
	// first ones, where a paragraph is long.
	maxUnitSentences = 5
	// maxEvidenceBytes bounds what an agent's report quotes, about as much
	// as an opened source shows: past it, a passage comes without its
	// section, and no passage more is taken.
	maxEvidenceBytes = 8000
	// sectionBudget: a passage's whole section is quoted when it is at
	// most this many bytes (a setting's description and the commands that
	// set it), else the passage with its lead and command.
	sectionBudget = 2000
	// firstSearchSlots: the top documents of the first search (the
	// question as asked) whose passages are quoted whatever the best
	// scores, each lifted by firstSearchBoost.
	firstSearchSlots = 3
	firstSearchBoost = 0.25
	// sectionWeight discounts a short section's score when it stands for
	// one of its passages: the passage quoted whole with its section
	// (sectionBudget) is judged at least this share of the section.
	sectionWeight = 0.9
	// namedBoost lifts the passages of a source named after the subject
	// above those of any other: a passage's value is its score (at most
	// 1) plus half its source's search rank (at most priorWeight).
	namedBoost = 1 + priorWeight
	// sourceDecay discounts a source's next passage for each one already
	// taken of it. (0.5 took too few of the one source that answers: 0.65,
	// 0.7 and 0.8 each answer one more tuned question, 0.8 citing fewer
	// documents; 1.0, no discount, loses four.)
	sourceDecay = 0.8
	// leadBudget bounds the opening of a source quoted as its lead.
	leadBudget = 2400
	// nearDuplicate is the stem Jaccard similarity above which a passage
	// repeats one already quoted.
	nearDuplicate = 0.7
)

// namedSectionBoost lifts a passage under a heading that names a setting,
// a file or a call ("core_pattern", "mem=nn[KMG]", "cgroup.procs"): the
// heading is often the answer its section describes in other words.
const namedSectionBoost = 0.15

// exampleBoost lifts, for a question asking how to do something, a
// passage that introduces a code block or a command: the example shows
// the how, in the names the question's words do not hold.
const exampleBoost = 0.15

// asksHow reports whether q asks how something is done ("How do I …",
// "How can a program …", "How to …", "How does X find …").
func asksHow(q string) bool {
	ws := strings.Fields(strings.ToLower(q))
	if len(ws) < 2 || ws[0] != "how" {
		return false
	}
	switch ws[1] {
	case "do", "does", "can", "to", "should", "would", "could":
		return true
	}
	return false
}

// namedSection reports whether the innermost heading of h is code-like:
// one or two words, one of them holding "_", ".", "=", "(" or "[" inside
// it. (A camel-case identifier, "func ListenAndServe", counted too, loses
// an answer: every Go function's section would be lifted.)
func namedSection(h string) bool {
	ws := strings.Fields(headingOf(h))
	if len(ws) == 0 || len(ws) > 2 {
		return false
	}
	for _, w := range ws {
		if strings.ContainsAny(strings.Trim(w, "._=()[]"), "_.=([") {
			return true
		}
	}
	return false
}

// srcUnit is a unit of a source's text as an agent saw it.
type srcUnit struct {
	excerpt.Unit
	num  int              // the source's citation number
	idx  int              // index among the source's units
	held *map[string]bool // stemSet(Text) once stems made it: few units of a long source are compared, none is stemmed before
}

// stems is stemSet(u.Text), made on the first call.
func (u srcUnit) stems() map[string]bool {
	if *u.held == nil {
		*u.held = stemSet(u.Text)
	}
	return *u.held
}

// sourceUnits gathers each source's text from the blocks (search snippets
// and opened text, each paragraph once) and splits it into units, by
// citation number, in order of first appearance.
func sourceUnits(blocks []block) (order []int, units map[int][]srcUnit) {
	texts := map[int]*strings.Builder{}
	seen := map[int]map[string]bool{}
	for _, b := range blocks {
		if texts[b.num] == nil {
			texts[b.num] = &strings.Builder{}
			seen[b.num] = map[string]bool{}
			order = append(order, b.num)
		}
		text := b.text
		// A block of one passage stands under its location's heading; one
		// of several names each part's heading itself (corpus snippets).
		if b.heading != "" && !strings.HasPrefix(strings.TrimSpace(text), "#") && !strings.Contains(text, "\n## ") {
			text = "## " + b.heading + "\n\n" + text
		}
		for _, u := range excerpt.Units(text) {
			k := normalize(u.Text)
			if k == "" || seen[b.num][k] || boilerplate(u.Text) {
				continue
			}
			seen[b.num][k] = true
			// Each unit stands under its own heading, none when it has
			// none ("##" ends the one before): a block that opens a page
			// does not inherit the last heading of a snippet before it.
			if u.Heading != "" || texts[b.num].Len() > 0 {
				texts[b.num].WriteString(strings.TrimSpace("## "+u.Heading) + "\n\n")
			}
			texts[b.num].WriteString(u.Text + "\n\n")
			if d := u.Directive(); d != "" {
				texts[b.num].WriteString(d + "\n\n") // u stays its block's lead
			}
		}
	}
	units = map[int][]srcUnit{}
	for _, n := range order {
		for _, u := range excerpt.Units(texts[n].String()) {
			units[n] = append(units[n], srcUnit{Unit: u, num: n, idx: len(units[n]), held: new(map[string]bool)})
		}
	}
	return order, units
}

// openingOf returns source n's units in the order its opened text has
// them, when the agent opened it (a search's snippets come first in
// units, and may be from anywhere in the document); else units.
func openingOf(blocks []block, n int, units []srcUnit) []srcUnit {
	i := openedBlock(blocks, n)
	if i < 0 {
		return units
	}
	byText := make(map[string]srcUnit, len(units))
	for _, u := range units {
		byText[normalize(u.Text)] = u
	}
	var out []srcUnit
	for _, u := range excerpt.Units(blocks[i].text) {
		if su, ok := byText[normalize(u.Text)]; ok {
			out = append(out, su)
		}
	}
	if len(out) == 0 {
		return units
	}
	return out
}

// openedBlock returns the index of the block holding source n's opened
// text (not a search's snippet), -1 when the agent did not open it.
func openedBlock(blocks []block, n int) int {
	return slices.IndexFunc(blocks, func(b block) bool { return b.num == n && b.search == 0 })
}

// nameHeading reports whether a heading names a thing — a setting, an
// option, a file, a function: one word, or a few with one that is
// code-like ("drop_caches", "mem=nn[KMG]", "cgroup.procs") — rather than
// a topic ("Log replication"): such a heading is often the fact its
// section's text describes without naming it.
func nameHeading(h string) bool {
	ws := strings.Fields(h)
	if len(ws) == 1 {
		return true
	}
	if len(ws) > 3 {
		return false
	}
	return strings.ContainsAny(h, "_./=()[]") || strings.IndexFunc(h, unicode.IsDigit) >= 0
}

// sectionOf returns the section of unit i as one unit — the units under
// its heading next to it, joined — when it is at most sectionBudget
// bytes; else unit i itself.
func sectionOf(units []excerpt.Unit, i int) excerpt.Unit {
	idx := excerpt.Section(units, i, sectionBudget)
	if len(idx) <= 1 || units[i].Heading == "" {
		return units[i]
	}
	var texts []string
	for _, k := range idx {
		texts = append(texts, units[k].Text)
	}
	out := units[i]
	out.Text = strings.Join(texts, "\n\n")
	return out
}

// boilerplate reports whether a unit is what the tools add around a
// source's text, not the source: an excerpt's gap or note; or a page's
// navigation left in its text, a breadcrumb ("3.11.2 Documentation »",
// "« Previous").
func boilerplate(s string) bool {
	t := strings.TrimSpace(s)
	if t == "[…]" || t == "(truncated)" || strings.HasPrefix(t, "(excerpts of ") || strings.IndexFunc(t, unicode.IsLetter) < 0 {
		return true
	}
	if (strings.HasSuffix(t, "»") || strings.HasSuffix(t, "›") || strings.HasPrefix(t, "«") || strings.HasPrefix(t, "‹")) && len(strings.Fields(t)) <= 12 {
		return true
	}
	return navBar(t) || manHeader(t)
}

// manHeaderRe matches a manual page's running header, the page's name
// and section at both ends with the manual's name padded between
// ("getrlimit(2)      System Calls Manual      getrlimit(2)");
// manFooterRe its footer, the release and date padded before the page's
// name ("Linux man-pages 6.7      2023-10-31      getrlimit(2)").
var (
	manHeaderRe = regexp.MustCompile(`^(\S+\(\w+\))\s{2,}\S.*\S\s{2,}(\S+\(\w+\))$`)
	manFooterRe = regexp.MustCompile(`\s{2,}\d{4}-\d{2}-\d{2}\s{2,}\S+\(\w+\)$`)
)

// manHeader reports whether t is a manual page's running header or
// footer: one line, no text of the page.
func manHeader(t string) bool {
	if strings.Contains(t, "\n") || len(t) > 200 {
		return false
	}
	if m := manHeaderRe.FindStringSubmatch(t); m != nil && m[1] == m[2] {
		return true
	}
	return manFooterRe.MatchString(t)
}

// navWords are the links of a page's navigation bar.
var navWords = map[string]bool{"prev": true, "previous": true, "next": true, "up": true, "home": true, "contents": true, "index": true, "top": true}

// navBar reports whether a unit holds a navigation bar: links separated
// by "|", two or more of them a navigation word alone ("Routine
// Vacuuming Prev | Up | Chapter 25. Routine Database Maintenance Tasks |
// Home | Next").
func navBar(t string) bool {
	if strings.Count(t, "|") < 2 || len(t) > 400 {
		return false
	}
	n := 0
	for _, seg := range strings.Split(t, "|") {
		if navWords[strings.ToLower(strings.Trim(seg, " .\t"))] {
			n++
		}
	}
	return n >= 2
}

// report answers a reporter turn: the passages of the sources that best
// answer the task and the user's question, each quoted whole with the
// context that holds its fact (the sentence that introduces a command and
// the command), cited with its source's number. Passages are scored by
// the key terms they hold, weighted by how rare each is among everything
// the agent read (excerpt.Scorer), plus half the source's fused search
// rank; a source named after the subject counts as ranked first. Only
// passages that score at least relativeFloor of the best are quoted, at
// most maxEvidenceUnits from at most maxEvidenceSources sources, and
// none that nearly repeats another. A follow-up of the research loop
// quotes only what bears on the user's question or the document of the
// name it follows.
func report(msgs []llms.MessageContent) string {
	task := question(msgs)
	terms := weightedTerms(task, objective(msgs))
	own := questionStems(stripScaffold(task))
	// A task that is one side of the question's coordination of actions
	// ("How do I read and write …") quotes no passage about the other side
	// alone: its steps are another task's. (A comparison's side, "What is
	// the difference between …", keeps them: without them it drew on
	// further sources, FOLDOC's citations 3.91 → 4.00 a question, against
	// 3.97 so.)
	var side, other map[string]bool
	if asksHow(task) {
		side, other = sideOf(task, objective(msgs))
	}
	otherSide := func(texts ...string) bool {
		return len(other) > 0 && sharedIn(other, texts...) > 0 && sharedIn(side, texts...) == 0
	}
	blocks := allBlocks(msgs)
	withAbbreviations(own, terms, definedAbbreviations(blocks))
	prior := priors(blocks)
	fu, isFollowUp := followUpOf(msgs)
	order, units := sourceUnits(blocks)
	titles := map[int]block{}
	for _, b := range blocks {
		if _, ok := titles[b.num]; !ok {
			titles[b.num] = b
		}
	}
	var all []excerpt.Unit
	plain := map[int][]excerpt.Unit{} // each source's units, as excerpt takes them
	for _, n := range order {
		for _, u := range units[n] {
			all = append(all, u.Unit)
			plain[n] = append(plain[n], u.Unit)
		}
	}
	scorer := excerpt.NewScorer(terms, all)

	type cand struct {
		srcUnit
		rel, value float64
	}
	// The question as asked is searched first: its top documents are what
	// a plain search would hand the user, so each is quoted where one of
	// its passages covers the task, however it compares with the best.
	first := firstSearch(blocks)
	how := asksHow(task)
	second := map[int]bool{} // sources that are the document of a followed name
	asked := func(n int) bool { r := first[n]; return r > 0 && r <= firstSearchSlots || second[n] }
	var cands []cand
	for _, n := range order {
		b := titles[n]
		boost := priorWeight * prior[n]
		if asked(n) {
			boost += firstSearchBoost
		}
		if joinsTerm(b.title, own) {
			// A page named for the thing asked, in a name a search's
			// words do not match, weighs as a top document of the
			// question does.
			boost += firstSearchBoost
		}
		// The document of the name a follow-up follows (a second hop) is
		// what the follow-up is for: quoted first, whatever its passages
		// score against the question's words, which it need not share.
		followed := isFollowUp && fu.name != "" && documentOf(fu.name, b.title, b.url)
		if followed {
			second[n] = true
		}
		if followed || namesSubject(b.title, terms) {
			// A document named after the subject (a dictionary entry, a
			// manual page) is the answer to what it names: it comes
			// before any that only mentions it.
			boost = namedBoost
		}
		for _, u := range units[n] {
			if u.Kind == excerpt.Code && !(how && headingOf(u.Heading) != "") {
				// Quoted only after the passage that introduces it; for a
				// question asking how, an example under its heading
				// ("Example ListenAndServe") is a passage of its own.
				continue
			}
			if len(strings.Fields(u.Text)) < minSentenceWords {
				continue // a headword, a label: no passage of substance
			}
			if isFollowUp && !fu.admits(cleanSourceText(u.Text), b.title, b.url) {
				continue
			}
			// The passage, under its heading and its source's title,
			// shares two of the task's own terms (all, when it has fewer).
			if len(own) > 0 && sharedIn(own, u.Text, u.Heading, b.title) < min(len(own), 2) {
				continue
			}
			if otherSide(u.Text, u.Heading) {
				continue
			}
			// Its source's title counts as a heading: a dictionary entry or
			// a manual page is about the thing it is named after.
			titled := u.Unit
			titled.Heading = strings.TrimSpace(u.Heading + "\n" + b.title)
			rel := scorer.Score(titled)
			// A short section is judged whole, too: a setting's section
			// names, describes and sets it across its paragraphs, and the
			// passage that answers may hold few of the question's words.
			if sec := sectionOf(plain[n], u.idx); sec.Text != u.Text {
				sec.Heading = titled.Heading
				rel = max(rel, sectionWeight*scorer.Score(sec))
			}
			if rel < minCoverage && !(second[n] && rel > 0) {
				continue
			}
			v := rel + boost
			if namedSection(u.Heading) {
				v += namedSectionBoost
			}
			if how && u.idx+1 < len(units[n]) && units[n][u.idx+1].Kind == excerpt.Code {
				v += exampleBoost
			}
			cands = append(cands, cand{srcUnit: u, rel: rel, value: v})
		}
	}
	if len(cands) == 0 {
		if s := fallbackQuote(blocks, prior, terms, own); s != "" {
			return s
		}
		return NoEvidence
	}
	best := 0.0
	for _, c := range cands {
		best = max(best, c.rel)
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(b.value, a.value) })

	// Sources are those of the best passages, in order, at most
	// maxEvidenceSources; passages are then taken best first, a source's
	// value discounted for each taken of it (sourceDecay), so that the
	// report draws on the few sources that answer, more on the one far
	// ahead, and not on one long page alone.
	type pick struct{ num, idx int }
	// An example brings a source only where the prose leaves room: code
	// repeats the question's words as names and comments, and would push
	// out the sources whose prose answers.
	quotable := func(c cand) bool { return c.rel >= relativeFloor*best || asked(c.num) }
	var sources []int
	bySource := map[int][]cand{}
	for _, code := range []bool{false, true} {
		for _, c := range cands {
			if (c.Kind == excerpt.Code) != code || !quotable(c) {
				continue
			}
			if !slices.Contains(sources, c.num) && len(sources) < maxEvidenceSources && (len(sources) < 2 || c.rel >= sourceFloor*best || asked(c.num)) {
				sources = append(sources, c.num)
			}
		}
	}
	for _, c := range cands {
		if slices.Contains(sources, c.num) && quotable(c) {
			bySource[c.num] = append(bySource[c.num], c)
		}
	}
	var picked []srcUnit
	chosen := map[pick]bool{}
	taken, size := 0, 0
	count := map[int]int{} // passages taken of each source
	for taken < maxEvidenceUnits && size < maxEvidenceBytes {
		// The next passage is the best one left, each source's value
		// discounted for the passages already taken of it: a source far
		// ahead of the others gives several, sources alike take turns.
		next, bestV := -1, 0.0
		for _, n := range sources {
			if len(bySource[n]) == 0 {
				continue
			}
			v := bySource[n][0].value * math.Pow(sourceDecay, float64(count[n]))
			if next < 0 || v > bestV {
				next, bestV = n, v
			}
		}
		if next < 0 {
			break
		}
		n := next
		c := bySource[n][0]
		bySource[n] = bySource[n][1:]
		if chosen[pick{c.num, c.idx}] || slices.ContainsFunc(picked, func(p srcUnit) bool { return jaccard(p.stems(), c.stems()) > nearDuplicate }) {
			continue
		}
		src := units[n]
		ctx := excerpt.Section(plain[n], c.idx, sectionBudget)
		need := 0
		for _, i := range ctx {
			if !chosen[pick{n, i}] {
				need += len(src[i].Text)
			}
		}
		if size > 0 && size+need > maxEvidenceBytes {
			ctx = excerpt.WithContext(plain[n], c.idx) // the passage alone, with its lead and command
		}
		for _, i := range ctx {
			if !chosen[pick{n, i}] {
				size += len(src[i].Text)
				chosen[pick{n, i}] = true
				picked = append(picked, src[i])
			}
		}
		count[n]++
		taken++
	}
	// The lead of the source quoted first, and of the question's first
	// search's top document — its opening paragraphs, a package's or a
	// page's summary with the example that shows it — comes with it when
	// it fits: it names what the source offers, which the task's words
	// may miss.
	var leads []int
	var synopses []srcUnit // code above a lead's first paragraph, placed after it
	if len(sources) > 0 {
		leads = append(leads, sources[0])
	}
	for _, n := range sources {
		if first[n] == 1 && !slices.Contains(leads, n) {
			leads = append(leads, n)
		}
	}
	leadScore := func(u srcUnit) float64 {
		titled := u.Unit
		titled.Heading = strings.TrimSpace(u.Heading + "\n" + titles[u.num].title)
		return scorer.Score(titled)
	}
	for _, n := range leads {
		opening := openingOf(blocks, n, units[n])
		start := slices.IndexFunc(opening, func(u srcUnit) bool {
			return u.Kind == excerpt.Prose && len(strings.Fields(u.Text)) >= minSentenceWords
		})
		if start < 0 {
			continue
		}
		// A synopsis above the first paragraph ("Usage:" and the command
		// line it introduces, a manual page's SYNOPSIS) is the opening's
		// too: it is often the answer the paragraph goes on to explain.
		// It is quoted after that paragraph, which introduces it to a
		// reader (and to the writer, who quotes a block with the passage
		// before it).
		if start > 0 && opening[start-1].Kind == excerpt.Code {
			if syn := opening[start-1]; !chosen[pick{n, syn.idx}] && size+len(syn.Text) <= maxEvidenceBytes {
				chosen[pick{n, syn.idx}] = true
				size += len(syn.Text)
				syn.idx = opening[start].idx
				synopses = append(synopses, syn)
			}
		}
		// The opened top document of the question as asked is quoted
		// from its start as far as the lead's budget goes: its summary
		// names, in its own words, what a plain search's reader would
		// find ("The WithCancel, WithDeadline, and WithTimeout functions
		// …" for a goroutine asked to stop its work). Another lead keeps,
		// after its first paragraph, what bears on the task.
		whole := first[n] == 1 && openedBlock(blocks, n) >= 0
		used := 0
		for k, u := range opening[start:] {
			if used+len(u.Text) > leadBudget || size+len(u.Text) > maxEvidenceBytes || u.Kind == excerpt.Table {
				break
			}
			used += len(u.Text)
			// After its first paragraph, the opening's prose and items
			// bear on the task as a quoted passage does (two of its own
			// terms); its examples come with what they show.
			if k > 0 && u.Kind != excerpt.Code && !whole && (len(own) > 0 && shared(u.stems(), own) < min(len(own), 2) || leadScore(u) < relativeFloor*best) {
				continue
			}
			if k > 0 && otherSide(u.Text, u.Heading) {
				continue
			}
			if !chosen[pick{n, u.idx}] {
				chosen[pick{n, u.idx}] = true
				size += len(u.Text)
				picked = append(picked, u)
			}
		}
	}
	// Sources in the order of their best passage; a source's passages in
	// its own order.
	var pars []string
	quoted := map[string]bool{}
	for _, n := range sources {
		var mine []srcUnit
		for _, u := range slices.Concat(picked, synopses) {
			if u.num == n {
				mine = append(mine, u)
			}
		}
		slices.SortStableFunc(mine, func(a, b srcUnit) int { return cmp.Compare(a.idx, b.idx) })
		lastHead := ""
		for k, u := range mine {
			// The first passage quoted under a heading names it when it
			// does not itself: the heading is often the fact (a setting's
			// name over its description).
			head := ""
			if h := u.Heading; h != lastHead && (k == 0 || mine[k-1].idx != u.idx-1 || mine[k-1].Heading != h) {
				if nameHeading(h) && !strings.Contains(normalize(u.Text), normalize(h)) {
					head = h
				}
			}
			lastHead = u.Heading
			// A block quoted without the passage before it is introduced
			// by its heading, cited: a reader (and the writer, who quotes
			// a block with the paragraph before it) knows whose it is. (A
			// synopsis carries the index of the paragraph it follows.)
			introduced := k > 0 && (mine[k-1].idx == u.idx-1 || mine[k-1].idx == u.idx) && mine[k-1].Heading == u.Heading
			if u.Kind == excerpt.Code && !introduced {
				h := clipWords(cleanSourceText(headingOf(u.Heading)), 16)
				if h == "" || hasMarkerRe.MatchString(h) {
					continue
				}
				pars = append(pars, h+" ["+strconv.Itoa(n)+"]:")
			}
			if s := quoteUnit(u.Unit, n, head, quoted); s != "" {
				pars = append(pars, s)
			}
		}
	}
	if len(pars) == 0 {
		return NoEvidence
	}
	return strings.Join(pars, "\n\n")
}

// fallbackQuote is the report of a task whose sources hold no passage that
// covers it but where a source the searches ranked first is on the subject
// as a whole: that source's best sentence, or its text when it is a terse
// entry with no sentence ("{Redundant Arrays of Independent Disks}").
func fallbackQuote(blocks []block, prior map[int]float64, terms map[string]float64, own map[string]bool) string {
	for _, n := range bestRanked(prior, topReportSources) {
		b := blockOf(blocks, n)
		text := b.title + "\n" + b.text
		if score(text, terms) < minCoverage || shared(stemSet(text), own) < min(len(own), 2) {
			continue
		}
		bestS, bestV := "", 0.0
		for _, par := range paragraphs(b.text) {
			for _, s := range sentences(cleanSourceText(par)) {
				if v := score(s, terms); proseSentence(s) && shared(stemSet(s), own) >= 1 && v > bestV {
					bestS, bestV = s, v
				}
			}
		}
		if bestS == "" {
			bestS = shortText(blocks, n)
		}
		if bestS != "" {
			return bestS + " [" + strconv.Itoa(n) + "]"
		}
	}
	return ""
}

// quoteUnit renders a unit for a report, cited as [n]: prose and list
// items as their sentences, each followed by the marker (a lead's colon
// after it: "To trigger a scan [3]:"); code and tables as a fenced block
// under the passage that introduces them, uncited. A URL in a sentence
// loses its scheme ("described at golang.org/s/re2syntax"): the sentence
// is often the fact, and a link in a report is the reference list's to
// make. A block holding anything a citation parser could take for a
// marker is left out, and so is a sentence in quoted (which records those it quotes) and
// one of fewer than three words. A heading, when given, leads the first
// sentence quoted ("drop_caches: Writing to this will cause…").
func quoteUnit(u excerpt.Unit, n int, heading string, quoted map[string]bool) string {
	mark := " [" + strconv.Itoa(n) + "]"
	if u.Kind == excerpt.Code || u.Kind == excerpt.Table {
		return fenceBlock(u.Text)
	}
	text := u.Text
	if u.Kind == excerpt.Item {
		text = bulletRe.ReplaceAllString(strings.TrimSpace(text), "")
	}
	var out []string
	sents := sentences(cleanSourceText(text))
	for i, s := range sents {
		if i == maxUnitSentences {
			break
		}
		s = schemeRe.ReplaceAllString(s, "")
		k := normalize(s)
		if hasMarkerRe.MatchString(s) || len(strings.Fields(s)) < 3 || quoted[k] {
			continue
		}
		quoted[k] = true
		if heading != "" && len(out) == 0 {
			s = heading + ": " + s
		}
		if t, ok := strings.CutSuffix(s, ","); ok && u.Kind == excerpt.Prose && i == len(sents)-1 {
			s = t + ":" // it leads into the code after it ("As an example,")
		}
		if t, ok := strings.CutSuffix(s, ":"); ok {
			out = append(out, strings.TrimRight(t, ":")+mark+":")
			continue
		}
		if last, _ := utf8.DecodeLastRuneInString(s); !strings.ContainsRune(".!?\"'”’)", last) && !recordSentence(s) {
			s = strings.TrimRight(s, ";,") + "." // a terse entry or list item, written as a sentence
		}
		out = append(out, s+mark)
	}
	return strings.Join(out, " ")
}

// fenceBlock fences code or a table as a Markdown code block whose fence
// is longer than any run of backticks inside, its common indentation
// removed; "" when it holds something a citation parser could take for a
// marker ("args[1]").
func fenceBlock(text string) string {
	lines := strings.Split(strings.Trim(text, "\n"), "\n")
	if len(lines) > 0 && (strings.HasPrefix(strings.TrimSpace(lines[0]), "```") || strings.HasPrefix(strings.TrimSpace(lines[0]), "~~~")) {
		lines = lines[1:]
		if k := len(lines) - 1; k >= 0 && (strings.HasPrefix(strings.TrimSpace(lines[k]), "```") || strings.HasPrefix(strings.TrimSpace(lines[k]), "~~~")) {
			lines = lines[:k]
		}
	}
	body := strings.Join(dedent(lines), "\n")
	if strings.TrimSpace(body) == "" || hasMarkerRe.MatchString(body) || sourceMarkerRe.MatchString(body) {
		return ""
	}
	fence := "```"
	for strings.Contains(body, fence) {
		fence += "`"
	}
	return fence + "\n" + body + "\n" + fence
}

// dedent removes the indentation all non-blank lines share.
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		}
		out[i] = strings.TrimRight(l, " \t")
	}
	return out
}

// joinsTerm reports whether a title's name — its first word, as a
// manual page, a command or a module is named — ends in one of the
// question's own terms joined to other letters: "gitignore" for "ignore",
// "strerror" for "error", "getrlimit" for "limit". A plain match of the
// word misses such names. The name is at least two letters longer than
// the term ("mmap" does not join "map": too many words end so).
func joinsTerm(title string, own map[string]bool) bool {
	toks := terms.Tokens(title)
	if len(toks) == 0 || len(toks[0]) < 4 {
		return false
	}
	tok := toks[0]
	st := terms.Stem(tok)
	for o := range own {
		if len(o) >= 3 && o != st && len(tok) > len(o)+1 && strings.HasSuffix(st, o) {
			return true
		}
	}
	return false
}

// schemeRe matches a URL's scheme and its "://".
var schemeRe = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]{0,15}://`)

// sideOf reads task as one side of a coordination in the user's question
// obj, as the planner narrows one ("How do I write CSV files?" of "How do
// I read and write CSV files?": obj with one word and its coordinator,
// "read and", left out): side holds
// the stem of the word task keeps there ("write"), other the stems of the
// words it leaves out ("read"). Both are empty when task is not such a
// narrowing of obj.
func sideOf(task, obj string) (side, other map[string]bool) {
	t, o := terms.Tokens(task), terms.Tokens(obj)
	if len(o) <= len(t) {
		return nil, nil
	}
	pre := 0
	for pre < len(t) && t[pre] == o[pre] {
		pre++
	}
	suf := 0
	for suf < len(t)-pre && t[len(t)-1-suf] == o[len(o)-1-suf] {
		suf++
	}
	if pre+suf != len(t) {
		return nil, nil // task changes more than it leaves out
	}
	// One word and its coordinator left out, beside the word kept: a
	// side with words of its own ("read CSV files and write them") is
	// no side this can tell.
	cut := o[pre : len(o)-suf]
	if len(cut) != 2 {
		return nil, nil
	}
	var kept string
	switch {
	case coordinators[cut[1]] && suf > 0:
		kept, cut = t[pre], cut[:1] // "read and" left out before "write"
	case coordinators[cut[0]] && pre > 0:
		kept, cut = t[pre-1], cut[1:] // "and write" left out after "read"
	default:
		return nil, nil
	}
	side, other = questionStems(kept), map[string]bool{}
	for _, w := range cut {
		for st := range questionStems(w) {
			if !side[st] {
				other[st] = true
			}
		}
	}
	if len(side) == 0 || len(other) == 0 {
		return nil, nil
	}
	return side, other
}

// coordinators join the sides of a coordination or comparison.
var coordinators = map[string]bool{"and": true, "or": true, "vs": true, "versus": true}
