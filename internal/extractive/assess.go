package extractive

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// gapField starts the line of a follow-up task's message that names the
// gap it closes (internal/agent writes it).
const gapField = "This task closes a gap in what earlier research found"

// Roles of a research loop and of a report written section by section.
const (
	RoleAssessor Role = "assessor" // after a cycle: answered, or what is missing
	RoleSection  Role = "section"  // one section of a report, from its findings
	RoleFrame    Role = "frame"    // the title and introduction around sections
)

// The assessor's human message (internal/agent writes it):
//
//	Question: <q>
//	Cycle: <c> of <max>
//	Max follow-up tasks: <n>
//
//	## Parts
//	### [t1] <title>
//	Asks: <part question>
//
//	## Findings
//	### [t1] <title>
//	### [t5 for t1] <title>
//	Closes: <gap>
//	<text with [n] markers>
//
//	## Sources
//	[n] Title
//	URL: …
//	<<<source text…>>>
//
//	## Searches already run
//	- <query>
//
//	## Unanswered by the report
//	- <part ID>
//
// The reply is the JSON the assessor prompt asks for: {"done", "reason",
// "covered", "gaps", "tasks"}.

// assessPart is one part of the question.
type assessPart struct {
	id, title, question string
}

// assessFinding is one task's findings.
type assessFinding struct {
	id, part string
	gap      string // what a follow-up was to close
	text     string
}

// assessIn is a parsed assessor message.
type assessIn struct {
	question   string
	maxTasks   int
	parts      []assessPart
	findings   []assessFinding
	sources    []block
	searched   map[string]bool
	unanswered map[string]bool
}

// assessOut is the assessor's reply.
type assessOut struct {
	Done    bool         `json:"done"`
	Reason  string       `json:"reason"`
	Covered []string     `json:"covered"`
	Gaps    []assessGap  `json:"gaps"`
	Tasks   []assessTask `json:"tasks"`
}

type assessGap struct {
	Kind   string `json:"kind"`
	Part   string `json:"part,omitempty"`
	Detail string `json:"detail"`
}

type assessTask struct {
	Title    string `json:"title"`
	Question string `json:"question"`
	Part     string `json:"part,omitempty"`
	Gap      string `json:"gap"`
}

// assess answers an assessor conversation deterministically. It reads
// what the findings cite and asks:
//
//   - which parts of the question no cited sentence answers (or the
//     report left unanswered), and which of the question's key phrases
//     that name something (strongPhrases) no cited sentence covers:
//     follow-ups search those words, as the question writes them, in
//     combinations not searched yet;
//   - when the question asks about something it does not name
//     (asksAbout: "which package…", "who…", "what else…", "the package it
//     recommends"), which names, titles, links and cross-references in
//     the cited passages it asks about: those in sentences bearing on it
//     (bearingNames) — a code-like name ("pkg.Func", "a/b"), a CamelCase
//     or upper-case identifier, a run of capitalised words, a quoted
//     title or a link's text — that the question does not name and whose
//     document no source read is (documentOf). Follow-ups search the name
//     with the question's words it has not answered.
//
// Nothing is written for one corpus: the names are read from the text's
// own typography, what a question asks from its wording. The question is
// answered ("done") when no gap is left — a definition question ("What
// is a race condition?") asks about what it names, so once its parts are
// covered it is answered after one cycle; tasks whose first search was
// run already are dropped, so the loop ends when nothing new is left to
// search.
func assess(msgs []llms.MessageContent) string {
	in := parseAssess(msgs)
	qStems := questionStems(stripScaffold(in.question))

	// The cited sentences, and what they cover, by part.
	covered := map[string]bool{}
	cited := map[string][]string{} // part ID → cited sentences
	for _, f := range in.findings {
		for _, par := range paragraphs(f.text) {
			for _, s := range sentences(par) {
				if !hasMarkerRe.MatchString(s) {
					continue
				}
				for st := range stemSet(s) {
					covered[st] = true
				}
				cited[cmp.Or(f.part, f.id)] = append(cited[cmp.Or(f.part, f.id)], s)
			}
		}
	}

	out := assessOut{Covered: []string{}, Gaps: []assessGap{}, Tasks: []assessTask{}}
	var tasks []assessTask
	addTask := func(t assessTask) {
		if len(tasks) < in.maxTasks && in.fresh(t.Question, in.question) && !slices.ContainsFunc(tasks, func(o assessTask) bool { return normalize(o.Question) == normalize(t.Question) }) {
			tasks = append(tasks, t)
		}
	}

	// Parts no cited sentence answers, and parts the report left
	// unanswered: search their words again, in other combinations.
	for _, p := range in.parts {
		own := questionStems(stripScaffold(p.question))
		answered := slices.ContainsFunc(cited[p.id], func(s string) bool { return shared(stemSet(s), own) >= min(len(own), 2) })
		switch {
		case in.unanswered[p.id]:
			out.Gaps = append(out.Gaps, assessGap{Kind: "unanswered", Part: p.id, Detail: "the report does not answer: " + p.question})
		case !answered:
			out.Gaps = append(out.Gaps, assessGap{Kind: "uncovered", Part: p.id, Detail: "no cited finding answers: " + p.question})
		default:
			out.Covered = append(out.Covered, p.id)
			continue
		}
		gap := out.Gaps[len(out.Gaps)-1].Detail
		for _, tq := range otherWords(p.question, covered) {
			addTask(assessTask{Title: titleCase(clipWords(tq, maxTaskTitle)), Question: tq, Part: p.id, Gap: gap})
		}
	}

	// What the question asks about that the cited passages name.
	missing := strongPhrases(uncoveredPhrases(in.question, covered))
	if asksAbout(in.question) {
		for _, r := range in.references(qStems) {
			// What the question asks of it: its phrases the sentence that
			// names it does not answer.
			q := "What is " + r.name + "?"
			if rest := uncoveredPhrases(in.question, stemSet(r.sentence)); len(rest) > 0 {
				q = r.name + ": " + strings.Join(rest, " ")
			}
			detail := fmt.Sprintf("%s, named in [%d] %s", r.name, r.source, r.title)
			out.Gaps = append(out.Gaps, assessGap{Kind: "reference", Part: in.partOf(r.source), Detail: detail})
			addTask(assessTask{Title: clipWords(r.name, maxTaskTitle), Question: q, Part: in.partOf(r.source), Gap: "reference: " + detail})
		}
	}

	// Key phrases of the question no cited sentence covers.
	if len(missing) > 0 {
		detail := "no cited finding covers: " + strings.Join(missing, "; ")
		out.Gaps = append(out.Gaps, assessGap{Kind: "uncovered", Detail: detail})
		tq := strings.Join(missing, " ")
		addTask(assessTask{Title: titleCase(clipWords(tq, maxTaskTitle)), Question: tq, Gap: detail})
	}

	switch {
	case len(out.Gaps) == 0:
		out.Done = true
		out.Reason = "Every part and key phrase of the question is covered by cited findings."
	case len(tasks) == 0:
		out.Reason = plural(len(out.Gaps), "gap") + " left, and every search they suggest was run already."
	default:
		out.Reason = plural(len(out.Gaps), "gap") + " left; " + plural(len(tasks), "follow-up") + " to search."
		out.Tasks = tasks
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// parseAssess reads an assessor message.
func parseAssess(msgs []llms.MessageContent) assessIn {
	in := assessIn{question: field(msgs, "Question"), maxTasks: 1, searched: map[string]bool{}, unanswered: map[string]bool{}}
	if n, err := strconv.Atoi(field(msgs, "Max follow-up tasks")); err == nil && n > 0 {
		in.maxTasks = n
	}
	var text string
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeHuman && fieldOf(textOf(m), "Max follow-up tasks") {
			text = textOf(m)
		}
	}
	secs := mdSections(text)
	var cur *assessPart
	for _, line := range strings.Split(secs["Parts"], "\n") {
		if m := partHeadRe.FindStringSubmatch(line); m != nil {
			in.parts = append(in.parts, assessPart{id: m[1], title: m[3]})
			cur = &in.parts[len(in.parts)-1]
		} else if q, ok := strings.CutPrefix(strings.TrimSpace(line), "Asks:"); ok && cur != nil {
			cur.question = strings.TrimSpace(q)
		}
	}
	var body []string
	flush := func() {
		if len(in.findings) > 0 {
			in.findings[len(in.findings)-1].text = strings.Join(body, "\n")
		}
		body = nil
	}
	for _, line := range strings.Split(secs["Findings"], "\n") {
		if m := partHeadRe.FindStringSubmatch(line); m != nil {
			flush()
			in.findings = append(in.findings, assessFinding{id: m[1], part: cmp.Or(m[2], m[1])})
			continue
		}
		if g, ok := strings.CutPrefix(line, "Closes: "); ok && len(in.findings) > 0 && len(body) == 0 {
			in.findings[len(in.findings)-1].gap = strings.TrimSpace(g)
			continue
		}
		body = append(body, line)
	}
	flush()
	in.sources = parseBlocks(secs["Sources"])
	for _, key := range []string{"Searches already run", "Unanswered by the report"} {
		for _, line := range strings.Split(secs[key], "\n") {
			if item, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
				if key == "Unanswered by the report" {
					in.unanswered[strings.TrimSpace(item)] = true
				} else {
					in.searched[normalize(item)] = true
				}
			}
		}
	}
	return in
}

// partHeadRe reads "### [t5 for t1] Title".
var partHeadRe = regexp.MustCompile(`^### \[(t\d+)(?: for (t\d+))?\] ?(.*)$`)

// fieldOf reports whether text has a "Name:" line.
func fieldOf(text, name string) bool {
	_, ok := lineField(text, name)
	return ok
}

// mdSections splits text at its "## " headings: heading → body.
func mdSections(text string) map[string]string {
	out := map[string]string{}
	name := ""
	var body []string
	flush := func() {
		if name != "" {
			out[name] = strings.Join(body, "\n")
		}
		body = nil
	}
	for _, line := range strings.Split(text, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			flush()
			name = strings.TrimSpace(h)
			continue
		}
		body = append(body, line)
	}
	flush()
	return out
}

// fresh reports whether a follow-up with question tq would search
// something new: its first query was not run already.
func (in assessIn) fresh(tq, obj string) bool {
	qs := queries(tq, obj)
	return len(qs) > 0 && !in.searched[normalize(qs[0])]
}

// partOf is the part whose findings first cite source n ("" if none).
func (in assessIn) partOf(n int) string {
	tag := "[" + strconv.Itoa(n) + "]"
	for _, f := range in.findings {
		for _, m := range hasMarkerRe.FindAllString(f.text, -1) {
			if slices.Contains(markersOf(m), strconv.Itoa(n)) || m == tag {
				return f.part
			}
		}
	}
	return ""
}

// uncoveredPhrases are the key phrases of q none of whose words a cited
// sentence has (covered holds their stems), as q writes them.
func uncoveredPhrases(q string, covered map[string]bool) []string {
	ps, _ := keyPhrases(q)
	var out []string
	for _, p := range ps {
		p = slices.DeleteFunc(p, func(w string) bool { return wh[strings.ToLower(w)] }) // "else": how it asks
		st := stemSet(p.String())
		if len(st) > 0 && shared(st, covered) == 0 {
			out = append(out, p.String())
		}
	}
	return out
}

// strongPhrases keeps the phrases that name something on their own
// (phrase.strong: several words, a name, a number or a compound). A lone
// common word no cited sentence has ("turn", "capture", "forever") is
// how the question asks, more often than what it asks about: searched on
// its own it finds documents about that word, not about the question.
func strongPhrases(ps []string) []string {
	return slices.DeleteFunc(ps, func(p string) bool { return !phrase(strings.Fields(p)).strong() })
}

// otherWords are task questions that search a part's words in other
// combinations than the part's own question did: its phrases no cited
// sentence covers, then each of its strong phrases on its own.
func otherWords(q string, covered map[string]bool) []string {
	var out []string
	if u := uncoveredPhrases(q, covered); len(u) > 0 {
		out = append(out, strings.Join(u, " "))
	}
	ps, _ := keyPhrases(q)
	for _, p := range longestFirst(filterPhrases(ps, phrase.named)) {
		out = append(out, p.String())
	}
	return out
}

// wh are the words with which a question asks for something it does not
// name; uncoveredPhrases leaves them out of a phrase ("another").
var wh = terms.Set(`who whom whose which what where it its they their them another other else elsewhere`)

// Words asksAbout reads.
var (
	whoWords   = terms.Set(`who whom whose`)
	whichWords = terms.Set(`which what`)
	elseWords  = terms.Set(`else elsewhere`)
	thatWords  = terms.Set(`that those`)
	itWords    = terms.Set(`it they`)
	// determiners open the noun phrase a relative clause defines ("the
	// package it recommends").
	determiners = terms.Set(`the a an this that these those which what`)
	// clauseOpeners start a clause after them.
	clauseOpeners = terms.Set(`and or but`)
)

// asksAbout reports whether q asks about something it does not name —
// what the cited passages may name, and a second hop may read. English
// marks it with
//
//   - "who", "whom" or "whose" opening a clause ("Who invented X?"; not a
//     relative "a class whose fields…");
//   - "which" or "what" before a noun ("which package", "what system"), not
//     before a verb: "What is X?", "What does X do?", "What happens when…"
//     ask about X, which they name;
//   - "else" or "elsewhere" ("what else did he invent", "points
//     elsewhere");
//   - a demonstrative pointing back at something unnamed: "that" or
//     "those" after a stop word or at a clause's start and before a key
//     term ("what does that function return", "in that package"; not the
//     relative "a function that returns", nor "says that the…");
//   - a pronoun in the relative clause that defines a noun ("the package
//     it recommends"): "it" or "they" after a determiner and one to three
//     key terms, before a key term.
//
// A definition or how-to question ("What is a race condition?", "How do I
// run another program and capture what it prints?") asks about nothing
// unnamed, and no name in its sources is followed.
func asksAbout(q string) bool {
	fields := strings.Fields(q)
	word := func(i int) string {
		if i < 0 || i >= len(fields) {
			return ""
		}
		return strings.ToLower(strings.TrimFunc(fields[i], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
	}
	key := func(i int) bool { w := word(i); return w != "" && terms.IsKey(w) }
	opens := func(i int) bool { // word i starts a clause
		return i == 0 || strings.ContainsAny(fields[i-1][len(fields[i-1])-1:], ",;:.?!(") || clauseOpeners[word(i-1)]
	}
	for i := range fields {
		w := word(i)
		switch {
		case whoWords[w] && opens(i), elseWords[w]:
			return true
		case whichWords[w] && key(i+1) && !scaffold[word(i+1)] && !scaffold[terms.Stem(word(i+1))]:
			return true
		case thatWords[w] && (opens(i) || !key(i-1)) && key(i+1):
			return true
		case itWords[w] && key(i+1):
			for j := i - 1; j >= 0 && j >= i-4 && key(j); j-- {
				if determiners[word(j-1)] {
					return true
				}
			}
		}
	}
	return false
}

// reference is a name found in a cited passage.
type reference struct {
	name     string
	sentence string // where it was found
	source   int
	title    string
	score    float64
}

// Names in text, by their typography.
var (
	// code-like names and paths: "fmt.Errorf", "io/fs", "net/http/pprof",
	// "userspace-api/spec_ctrl.rst" (a hyphen inside a name is part of it).
	codeNameRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*(?:[./][A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*)+`)
	// identifiers: CamelCase, camelCase, UPPER (3+ letters).
	identRe = regexp.MustCompile(`\b(?:[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][A-Z0-9]{2,})\b`)
	// runs of two to four capitalised words, "of", "the", "de", "von" or
	// "van" between them: "Great Eastern", "William Thomson".
	properRe = regexp.MustCompile(`\b[A-Z][a-z]+(?:\s+(?:(?:of|the|de|von|van)\s+)?[A-Z][a-z]+){1,3}\b`)
	// quoted or emphasised titles of one to eight words: "see *Control
	// Groups*".
	quotedRe = regexp.MustCompile(`[“"]([^”"\n]{3,80})[”"]|\*([^*\n]{3,80})\*`)
)

// cues are words that introduce a reference nearby: "see X", "use X",
// "X, invented by Y", "defined in X".
var cues = terms.Set(`see use using uses call calls called by via provided provides defined described documented
implements implemented refer refers instead recommend recommends recommended named invented created founded written
designed built introduced replaced successor predecessor`)

// maxReferences caps the references an assessment follows.
const maxReferences = 3

// references finds the names in the cited passages that the question
// asks about, best first: each in a sentence that bears on the question
// (bearingNames), not named in the question, and not the subject of a
// source read (documentOf). A reference is followed one hop: the passages
// read only to follow one are not read for more.
func (in assessIn) references(qStems map[string]bool) []reference {
	scan := map[int]bool{}
	for _, f := range in.findings {
		if strings.HasPrefix(f.gap, "reference") {
			continue
		}
		for _, m := range hasMarkerRe.FindAllString(f.text, -1) {
			for _, n := range markersOf(m) {
				if k, err := strconv.Atoi(n); err == nil {
					scan[k] = true
				}
			}
		}
	}
	best := map[string]*reference{}
	var order []string
	for _, src := range in.sources {
		if !scan[src.num] {
			continue
		}
		bearingNames(in.question, qStems, src.text, func(c nameIn, sent string, sh int) {
			if slices.ContainsFunc(in.sources, func(s block) bool { return documentOf(c.name, s.title, s.url) }) {
				return
			}
			key := strings.ToLower(c.name)
			sc := float64(sh)/float64(len(qStems)) + 0.25*b2f(c.cue) + 0.1*b2f(c.code)
			if r, ok := best[key]; !ok || sc > r.score {
				if !ok {
					order = append(order, key)
				}
				best[key] = &reference{name: c.name, sentence: sent, source: src.num, title: src.title, score: sc}
			}
		})
	}
	var out []reference
	for _, k := range order {
		out = append(out, *best[k])
	}
	slices.SortStableFunc(out, func(a, b reference) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	var kept []reference
	for _, r := range out {
		if len(kept) == maxReferences || r.score < out[0].score/2 {
			break
		}
		kept = append(kept, r)
	}
	return kept
}

// bearingNames calls f with each name that text quotes in a sentence
// bearing on question q (of key stems qStems) and that q does not name:
// the sentence shares a quarter of q's key terms, and at least two (one,
// for a question of one or two). sh is how many it shares.
func bearingNames(q string, qStems map[string]bool, text string, f func(c nameIn, sentence string, sh int)) {
	need := min(len(qStems), max(2, (len(qStems)+3)/4))
	if need == 0 {
		return
	}
	qLower := strings.ToLower(q)
	for _, par := range paragraphs(text) {
		for _, sent := range sentences(par) {
			sh := overlap(sent, qStems)
			if sh < need {
				continue
			}
			for _, c := range names(sent) {
				if strings.Contains(qLower, strings.ToLower(c.name)) || (!c.code && subset(questionStems(c.name), qStems)) {
					continue
				}
				f(c, sent, sh)
			}
		}
	}
}

// SecondHop reports how a document that shares no key term with question
// q may still bear on it: as the document of a name that text (a first
// hop's, which does bear on q) quotes in a sentence bearing on q. It
// returns that name, or "" when there is none. The document is given by
// its title and its URL or corpus ID (documentOf).
//
// This is the rule the research loop follows: the assessment follows
// only such names (bearingNames), and a follow-up that follows one quotes
// only its document and sources that bear on the user's question
// (report). The evaluation holds research to it.
func SecondHop(q, text, title, loc string) string {
	var name string
	bearingNames(q, questionStems(stripScaffold(q)), text, func(c nameIn, _ string, _ int) {
		if name == "" && documentOf(c.name, title, loc) {
			name = c.name
		}
	})
	return name
}

// documentOf reports whether a document is the document of name: the
// name's words are its title's, those of a segment of its title
// ("crypto/rand" in "Package rand (crypto/rand)", "subprocess" in
// "subprocess — Subprocess management"), or its file name's (the last
// element of loc, a URL or a corpus ID, without its extension); for a
// qualified code name ("filepath.Glob", "net/http.Client"), its
// qualifier's are enough. "LAN" is the document "LAN", not "Virtual LAN"
// or "LAN administrator", which only mention it. A path
// ("../admin-guide/cgroup-v2.rst", "userspace-api/spec_ctrl") is the
// document whose loc ends with it, the extensions aside.
func documentOf(name, title, loc string) bool {
	if pathOf(name, loc) {
		return true
	}
	want := [][]string{terms.Tokens(name)}
	if i := strings.LastIndexByte(name, '.'); i > 0 && i < len(name)-1 && codeNameRe.MatchString(name) {
		want = append(want, terms.Tokens(name[:i]))
	}
	for _, h := range docNames(title, loc) {
		ht := terms.Tokens(h)
		for _, w := range want {
			if len(w) > 0 && slices.Equal(ht, w) {
				return true
			}
		}
	}
	return false
}

// pathOf reports whether name is a path of two names or more that loc (a
// URL or a corpus ID) ends with, leading "./", "../" and "/" and the
// extensions of both aside.
func pathOf(name, loc string) bool {
	if !strings.Contains(name, "/") || strings.Contains(name, "://") {
		return false
	}
	for strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../") || strings.HasPrefix(name, "/") {
		name = name[strings.IndexByte(name, '/')+1:]
	}
	name, loc = strings.TrimSuffix(name, path.Ext(name)), strings.TrimSuffix(loc, path.Ext(loc))
	return strings.Count(name, "/") >= 1 && !strings.HasSuffix(name, "/") &&
		(strings.EqualFold(loc, name) || strings.HasSuffix(strings.ToLower(loc), "/"+strings.ToLower(name)))
}

// docNames are the names a document goes by: its title, each segment of
// its title, and its file name (the last element of loc, a URL or a
// corpus ID, without its extension).
func docNames(title, loc string) []string {
	base := loc[strings.LastIndexAny(loc, "/\\")+1:]
	if u, err := url.PathUnescape(base); err == nil {
		base = u
	}
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return append(titleSegmentRe.Split(title, -1), title, base)
}

// titleSegmentRe splits a title into the names it joins: "Package rand
// (crypto/rand)", "dbm — Interfaces to Unix databases — Python
// documentation", "Error: Not Found".
var titleSegmentRe = regexp.MustCompile(`\s+[—–|-]\s+|[():,;]`)

// nameIn is a name found in a sentence.
type nameIn struct {
	name string
	code bool // a code-like name or an identifier
	cue  bool // a cue word stands just before it
}

// names returns the names in sentence s, in order, each once.
func names(s string) []nameIn {
	s = cleanSourceText(s)
	var out []nameIn
	seen := map[string]bool{}
	add := func(name string, at int, code bool) {
		name = strings.Trim(name, ".,;:()[]{}'\"“”")
		if utf8.RuneCountInString(name) < 2 || seen[strings.ToLower(name)] {
			return
		}
		if words := strings.Fields(name); len(words) > 1 && terms.IsStop(strings.ToLower(words[0])) {
			if len(words) < 3 {
				return // "The Cable": one capitalised word after "The"
			}
			name = strings.Join(words[1:], " ")
		}
		seen[strings.ToLower(name)] = true
		out = append(out, nameIn{name: name, code: code, cue: cueBefore(s[:at])})
	}
	// A name that opens the sentence is what the sentence documents, not
	// a pointer elsewhere; a name inside a longer code name is part of it;
	// a name that is neither code nor introduced by a cue is only prose.
	var code [][]int
	for _, loc := range codeNameRe.FindAllStringIndex(s, -1) {
		if n := s[loc[0]:loc[1]]; codeName(n) && loc[0] > 0 {
			add(n, loc[0], true)
		}
		code = append(code, loc)
	}
	// Both kinds of match come in text order: one pass over the code names
	// decides for every identifier whether it lies inside one.
	next := 0
	inCode := func(loc []int) bool {
		for next < len(code) && code[next][1] <= loc[0] {
			next++
		}
		return next < len(code) && code[next][0] <= loc[0] && loc[1] <= code[next][1]
	}
	for _, loc := range identRe.FindAllStringIndex(s, -1) {
		if loc[0] > 0 && !inCode(loc) {
			add(s[loc[0]:loc[1]], loc[0], true)
		}
	}
	for _, loc := range properRe.FindAllStringIndex(s, -1) {
		if loc[0] > 0 && cueBefore(s[:loc[0]]) {
			add(s[loc[0]:loc[1]], loc[0], false)
		}
	}
	for _, m := range quotedRe.FindAllStringSubmatchIndex(s, -1) {
		a, b := m[2], m[3]
		if a < 0 {
			a, b = m[4], m[5]
		}
		if n := len(strings.Fields(s[a:b])); n >= 1 && n <= 8 && cueBefore(s[:m[0]]) {
			add(s[a:b], m[0], false)
		}
	}
	return out
}

// codeName reports whether a dotted or slashed word is a name, not an
// abbreviation ("e.g", "U.S") or a number.
func codeName(n string) bool {
	if abbreviations[strings.ToLower(n)] {
		return false
	}
	long, words := 0, 0
	for _, seg := range strings.FieldsFunc(n, func(r rune) bool { return r == '.' || r == '/' }) {
		if utf8.RuneCountInString(seg) > 1 {
			long++
		}
		if !terms.IsStop(strings.ToLower(seg)) {
			words++
		}
	}
	return long >= 2 && words > 0 // "and/or" is no name
}

// cueBefore reports whether one of the three words before a name is a cue.
// It reads only the end of before (cueWindow bytes), so that the names of
// a long sentence cost a scan each of a few words, not of all before them.
func cueBefore(before string) bool {
	if len(before) > cueWindow {
		before = before[len(before)-cueWindow:] // a rune cut in two is no letter
	}
	ws := strings.FieldsFunc(before, func(r rune) bool { return !unicode.IsLetter(r) })
	for i := len(ws) - 1; i >= 0 && i >= len(ws)-3; i-- {
		if cues[strings.ToLower(ws[i])] {
			return true
		}
	}
	return false
}

// cueWindow bounds the text before a name that cueBefore reads: three
// words and the spaces and marks between them, with room to spare.
const cueWindow = 200

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// clipWords keeps the first n words of s.
func clipWords(s string, n int) string {
	if w := strings.Fields(s); len(w) > n {
		return strings.Join(w[:n], " ")
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
