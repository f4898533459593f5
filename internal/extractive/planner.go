package extractive

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/terms"
	"github.com/tmc/langchaingo/llms"
)

// defaultMaxTasks is the plan size when the prompt does not say;
// maxTaskTitle caps the words of a task title.
const (
	defaultMaxTasks = 4
	maxTaskTitle    = 5
)

type planTask struct {
	Title    string `json:"title"`
	Question string `json:"question"`
}

// OverviewTitle is the title of the plan's first task, the question
// itself. Titles are labels: no word of a title enters a search query.
const OverviewTitle = "Overview"

// plan answers a planner conversation: JSON {"tasks":[…]} with up to
// "Max tasks" tasks. The first is the question itself; the others take
// one side of a comparison or coordination each ("Raft and Paxos", "X vs
// Y", "cables laid and repaired"): the question narrowed to that side.
// A coordination of two clauses ("turn it into JSON and read it back") is
// not split. Without a comparison, each strong key phrase of the question is a task "What is
// …?", longest first. A task question adds no word that could enter a
// query. A question with one phrase, or one task allowed, is planned as
// itself.
func plan(msgs []llms.MessageContent) string {
	q := field(msgs, "Question")
	if q == "" {
		q = question(msgs)
	}
	n := defaultMaxTasks
	if v, err := strconv.Atoi(field(msgs, "Max tasks")); err == nil && v > 0 {
		n = v
	}
	var tasks []planTask
	if q != "" {
		tasks = append(tasks, planTask{Title: OverviewTitle, Question: q})
		seen := map[string]bool{normalize(q): true}
		addTask := func(title, tq string) {
			if len(tasks) >= n || seen[normalize(tq)] || seen[normalize(title)] {
				return
			}
			seen[normalize(tq)], seen[normalize(title)] = true, true
			if w := strings.Fields(title); len(w) > maxTaskTitle {
				title = strings.Join(w[:maxTaskTitle], " ")
			}
			tasks = append(tasks, planTask{Title: titleCase(title), Question: tq})
		}
		ps, pairs := keyPhrases(q)
		pairs = slices.DeleteFunc(pairs, func(p pair) bool { return clauses(q, p) })
		if len(pairs) > 0 {
			// One task per side of each comparison: the question with the
			// comparison narrowed to that side.
			for _, p := range pairs {
				for _, side := range []phrase{p.a, p.b} {
					addTask(side.String(), narrow(q, p, side))
				}
			}
		} else {
			var strong []phrase
			for _, p := range ps {
				if subject(q, p) {
					strong = append(strong, p)
				}
			}
			if len(strong) >= 2 {
				for _, p := range longestFirst(strong) {
					addTask(p.String(), "What is "+p.String()+"?")
				}
			}
		}
	}
	if tasks == nil {
		tasks = []planTask{}
	}
	b, _ := json.Marshal(struct {
		Tasks []planTask `json:"tasks"`
	}{tasks})
	return string(b)
}

// phrase is a run of the question's words, as written.
type phrase []string

func (p phrase) String() string { return strings.Join(p, " ") }

// named reports whether a phrase has a name, a number or a compound in
// it ("Go memory model", "SHA-256 checksum", "sync.Mutex"): a subject of
// its own, worth a task. A run of common words ("caller gives") may be a
// verb phrase and is searched, not planned.
func (p phrase) named() bool {
	for _, w := range p {
		if (phrase{w}).strong() {
			return true
		}
	}
	return false
}

// numberWords are numbers written as words: a count, never a subject.
var numberWords = terms.Set(`zero one two three four five six seven eight nine ten eleven twelve
twenty thirty hundred thousand million first second third fourth fifth once twice several`)

// particles end a noun made of a verb ("write-up", "built-in",
// "follow-up"): a word of the question's phrasing, not its subject.
var particles = terms.Set(`up in out on off down over back`)

// subject reports whether phrase p of question q names a subject of its
// own, worth a research task "What is p?": it holds a name — a word
// capitalised where a sentence does not start ("Go", "Raft"), an acronym
// ("TCP"), a code-like word ("sync.Mutex", "spec_ctrl", "SHA256",
// "CamelCase") — or a compound of words ("happens-before"), and is not a
// number written as a word. A sentence-initial capital ("According",
// "Two"), a verb ("loaded") or a common-word phrase is not a subject: a
// task on it searches the words of how the question is put.
func subject(q string, p phrase) bool {
	if len(p) == 1 && numberWords[strings.ToLower(p[0])] {
		return false
	}
	initial := sentenceStarts(q)
	for _, w := range p {
		if numberWords[strings.ToLower(w)] {
			continue
		}
		if nameWord(w, initial[w]) {
			return true
		}
		if parts := strings.Split(w, "-"); len(parts) > 1 && !particles[strings.ToLower(parts[len(parts)-1])] {
			return true
		}
	}
	return false
}

// nameWord reports whether w, as written, is a name: code-like (a dot,
// an underscore, a slash, letters and digits together, a capital after a
// small letter), an acronym of two letters or more, or capitalised where
// no sentence starts (initial is false).
func nameWord(w string, initial bool) bool {
	if strings.ContainsAny(w, "._/()") {
		return true
	}
	letters, digits, upper, innerUpper := 0, 0, 0, false
	prevLower := false
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
				innerUpper = innerUpper || prevLower
			}
			prevLower = unicode.IsLower(r)
		}
	}
	switch {
	case letters > 0 && digits > 0, innerUpper:
		return true
	case letters >= 2 && upper == letters:
		return true
	}
	first, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(first) && !initial
}

// sentenceStarts returns the words of q, as written, that start a
// sentence: its first word and any after ". ", "! ", "? " or ": ".
func sentenceStarts(q string) map[string]bool {
	out := map[string]bool{}
	start := true
	for _, f := range strings.Fields(q) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if start && w != "" {
			out[w] = true
			start = false
		}
		if last := f[len(f)-1]; strings.IndexByte(".!?:", last) >= 0 {
			start = true
		}
	}
	return out
}

// strong reports whether a phrase names something on its own: several
// words, or one that is a name, a number or a compound ("Raft",
// "SHA-256", "sync.Mutex"). A lone common word ("compute") is not.
func (p phrase) strong() bool {
	if len(p) > 1 {
		return true
	}
	for i, r := range p[0] {
		if unicode.IsDigit(r) || r == '-' || r == '.' || r == '_' || (unicode.IsUpper(r) && i >= 0) {
			return true
		}
	}
	return false
}

// maxPhraseWords caps a phrase.
const maxPhraseWords = 5

// scaffold are words that frame a question rather than name its subject
// ("How does X work", "What is X used for"): they end a phrase and never
// enter a query.
var scaffold = terms.Set(`work works working worked use uses used using mean means meaning meant
happen occur occurs affect affects differ differs relate relates related role purpose
good best better bad common typical usually generally exactly actually possible example examples
know known difference differences similar similarities`)

// articles may stand between a connector and the second side of a
// comparison ("a process and a thread").
var articles = terms.Set(`a an the`)

// pair is two phrases joined by "and", "or", "vs" or "versus" ("with"
// modifies more often than it joins: "logs with levels"): a and b as
// written, with the connector between them; sides a and b with a shared
// head or tail distributed ("cables laid and repaired" → "cables laid",
// "cables repaired").
type pair struct {
	rawA, rawB phrase
	conn       string
	a, b       phrase
}

// keyPhrases returns the question's key phrases in order (quoted terms
// and runs of neighbouring content words: stop words, scaffold words and
// punctuation end a run) and its comparisons.
func keyPhrases(q string) (phrases []phrase, pairs []pair) {
	seen := map[string]bool{}
	add := func(p phrase) int {
		k := normalize(p.String())
		if k == "" || seen[k] {
			return -1
		}
		seen[k] = true
		phrases = append(phrases, p)
		return len(phrases) - 1
	}
	// Quoted terms are phrases as they stand: each is replaced by a
	// placeholder word the walk below turns back into its phrase.
	var quoted []phrase
	rest := q
	for _, qs := range [][2]string{{`"`, `"`}, {"“", "”"}} {
		for {
			i := strings.Index(rest, qs[0])
			if i < 0 {
				break
			}
			j := strings.Index(rest[i+len(qs[0]):], qs[1])
			if j < 0 {
				break
			}
			inner := rest[i+len(qs[0]) : i+len(qs[0])+j]
			ph := ""
			if ws := strings.Fields(inner); len(ws) > 0 && len(ws) <= 8 {
				ph = " \x00" + strconv.Itoa(len(quoted)) + " "
				quoted = append(quoted, phrase(ws))
			}
			rest = rest[:i] + ph + rest[i+len(qs[0])+j+len(qs[1]):]
		}
	}

	var cur phrase
	var last phrase   // the last run closed, while a connector may follow
	joined := false   // a connector stands between last and cur
	articled := false // an article opens cur, after the connector
	conn := ""
	closeRun := func() {
		if len(cur) == 0 {
			return
		}
		add(cur)
		if joined && len(last) > 0 {
			pairs = append(pairs, makePair(last, cur, conn, articled))
		}
		last = cur
		cur = nil
		joined, articled = false, false
	}
	for _, f := range strings.Fields(rest) {
		if strings.HasPrefix(f, "\x00") {
			closeRun()
			if k, err := strconv.Atoi(f[1:]); err == nil && k < len(quoted) {
				cur = quoted[k]
				closeRun()
			}
			continue
		}
		w := strings.TrimFunc(f, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '#' && r != '_' // "__init__" whole
		})
		lw := strings.ToLower(w)
		switch {
		case w == "":
			closeRun()
			last = nil
			continue
		case lw == "and" || lw == "or" || lw == "vs" || lw == "versus" || lw == "v":
			closeRun()
			joined, conn = len(last) > 0, f
			continue
		case joined && len(cur) == 0 && articles[lw]:
			articled = true
			continue // "a process and a thread": the article leaves the pair whole
		case !terms.IsKey(lw) || scaffold[lw]:
			// "the HOWTO sends you", "the README tells you to": a word in
			// -s before an object pronoun is the phrase's verb, not its
			// last noun.
			if n := len(cur); n >= 2 && objectStarts[lw] && verbS(cur[n-1]) {
				cur = cur[:n-1]
			}
			closeRun()
			last = nil
			continue
		}
		cur = append(cur, w)
		if len(cur) == maxPhraseWords {
			closeRun()
		}
		// Punctuation after the word ends the run.
		if end := f[len(f)-1]; strings.IndexByte(",;:?!.)", end) >= 0 && !strings.HasSuffix(f, w) {
			closeRun()
			if end != ',' {
				last = nil
			}
		}
	}
	closeRun()
	return phrases, pairs
}

// objectStarts are the object pronouns: a word in -s before one is a
// verb ("tells you", "sends us"). Not an article: a plural noun comes
// before one as often ("format my source files the standard way").
var objectStarts = terms.Set(`you me us them him`)

// verbS reports whether w may be a verb in the third person: lower-case,
// ending in a single "s" ("tells", "sends"; not "class", "status" or
// "README").
func verbS(w string) bool {
	return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") &&
		!strings.HasSuffix(w, "is") && strings.ToLower(w) == w
}

// makePair distributes a shared head or tail over a coordination: a
// multi-word phrase joined to one weak word shares all but its last word
// with it ("telegraph cables laid and repaired"), unless an article opens
// the second side ("field names, or a string": a noun phrase of its own,
// articled); one weak word joined to a weak word with a named tail shares
// the tail ("read and write CSV files").
func makePair(a, b phrase, conn string, articled bool) pair {
	p := pair{rawA: a, rawB: b, conn: conn, a: a, b: b}
	switch {
	case len(a) > 1 && len(b) == 1 && !b.strong() && !articled:
		p.b = append(append(phrase{}, a[:len(a)-1]...), b[0])
	case len(a) == 1 && len(b) > 1 && !a.strong() && !(phrase{b[0]}).strong() && b[1:].named():
		// Two plain words sharing a named tail: "read and write CSV
		// files" → "read CSV files", "write CSV files".
		p.a = append(phrase{a[0]}, b[1:]...)
	}
	return p
}

// clauseWords are words that, right after the second side of a
// coordination, show that it joins two clauses rather than two terms:
// the second side is a verb with its object or particle ("turn it into
// JSON and read it back", "run a program and capture what it prints",
// "notice Ctrl-C and shut down").
var clauseWords = terms.Set(`it its them their what which where who how down up back out a an the this these those`)

// clauses reports whether the coordination p in q joins two clauses: its
// second side, as written, is followed by a clause word. Splitting there
// would leave each task with half of a sentence.
func clauses(q string, p pair) bool {
	re, err := regexp.Compile(`(?i)` + regexp.QuoteMeta(p.conn) + `\s+["“']?` + phraseRe(p.rawB) + `["”']?\s+([\pL]+)`)
	if err != nil {
		return false
	}
	m := re.FindStringSubmatch(q)
	return m != nil && clauseWords[strings.ToLower(m[1])]
}

// narrow returns q with the comparison p narrowed to side: "How were
// cables laid and repaired?" → "How were cables repaired?". When the
// comparison cannot be found as written, it is "What is <side>?".
func narrow(q string, p pair, side phrase) string {
	pat := `(?i)` + phraseRe(p.rawA) + `["”']?,?\s+` + regexp.QuoteMeta(p.conn) + `\s+["“']?` + phraseRe(p.rawB)
	re, err := regexp.Compile(pat)
	if err != nil {
		return "What is " + side.String() + "?"
	}
	loc := re.FindStringIndex(q)
	if loc == nil {
		return "What is " + side.String() + "?"
	}
	// "the difference between A and B" narrowed to one side reads
	// "between A": each side is asked as what it is, as written ("convert
	// between pointer types and uintptr": "uintptr", not "pointer
	// uintptr").
	if before := strings.Fields(q[:loc[0]]); len(before) > 0 && strings.EqualFold(before[len(before)-1], "between") {
		raw := p.rawA
		if slices.Equal(side, p.b) {
			raw = p.rawB
		}
		return "What is " + raw.String() + "?"
	}
	return q[:loc[0]] + side.String() + q[loc[1]:]
}

// phraseRe matches the words of p as written, separated by spaces.
func phraseRe(p phrase) string {
	ws := make([]string, len(p))
	for i, w := range p {
		ws[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(ws, `\s+`)
}

// longestFirst orders phrases by word count, longest first, ties in
// question order.
func longestFirst(ps []phrase) []phrase {
	out := append([]phrase(nil), ps...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// titleCase upper-cases the first letter of a phrase.
func titleCase(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}
