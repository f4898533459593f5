package extractive

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// word is one content word: its surface form (lower-cased, as written) for
// search queries and its stem for matching.
type word struct {
	surface string
	stem    string
}

// keyWords returns the distinct content words of s in order of first
// appearance.
func keyWords(s string) []word {
	var out []word
	seen := map[string]bool{}
	for _, t := range terms.Tokens(s) {
		if !terms.IsKey(t) {
			continue
		}
		st := terms.Stem(t)
		if seen[st] {
			continue
		}
		seen[st] = true
		out = append(out, word{surface: t, stem: st})
	}
	return out
}

// stemSet is the set of content-word stems of s.
func stemSet(s string) map[string]bool { return terms.StemSetParts(s) }

// sharedIn is shared(stemSet(the texts joined by lines), own) without the
// set: how many of own's stems the texts hold. It is on the path of
// every unit of every source a reporter read.
func sharedIn(own map[string]bool, texts ...string) int {
	var few [16]string
	found := few[:0] // own's stems found
	for _, t := range texts {
		terms.EachStem(t, func(st string) {
			if own[st] && !slices.Contains(found, st) {
				found = append(found, strings.Clone(st))
			}
		})
	}
	return len(found)
}

// questionStems are the stems a question or task asks for
// (terms.QuestionStems): a text's are stemSet's.
func questionStems(s string) map[string]bool { return terms.QuestionStems(s) }

// overlap counts the distinct stems of s that are in want. It is on the
// scoring path of every sentence, so it builds no sets: the stems it has
// counted are few.
func overlap(s string, want map[string]bool) int {
	var counted []string
	for _, t := range terms.Tokens(s) {
		if !terms.IsKey(t) {
			continue
		}
		if st := terms.Stem(t); want[st] && !slices.Contains(counted, st) {
			counted = append(counted, st)
		}
	}
	return len(counted)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// abbreviations end in a period that does not end a sentence. Compared
// lower-cased, without the final period.
var abbreviations = terms.Set(`e.g i.e etc vs cf fig figs eq eqs nos mr mrs dr prof sr jr inc ltd co corp
approx al sec ch vol pp resp dept est u.s u.k u.n e.u a.m p.m ph.d`)

// markerRe matches one citation marker in any of the dialects citeproc
// recognises, anchored at the start.
var markerRe = regexp.MustCompile(`^(?:\[\[[^\[\]\n]{1,40}\]\]|\[\^\d{1,4}\]|\[ref:[^\[\]\n]{1,400}\]|\[\d{1,4}(?:\s*[-–,]\s*\d{1,4})*\]|[【［]\d{1,4}(?:\s*[-–,]\s*\d{1,4})*[】］])`)

// sentences splits a paragraph into sentences. Internal whitespace runs
// are collapsed to single spaces; nothing else changes, so citation
// markers survive verbatim. A citation marker that follows a sentence's
// final punctuation ("… holds. [3] Next …") stays with that sentence.
//
// A period does not end a sentence when it is followed by a non-space
// ("3.14", "sync.Mutex"), ends a known abbreviation ("e.g.", "U.S.") or a
// single-letter initial, or when the next word starts in lower case.
func sentences(par string) []string {
	par = strings.Join(strings.Fields(par), " ")
	var out []string
	start := 0
	i := 0
	for i < len(par) {
		c := par[i]
		if c != '.' && c != '!' && c != '?' {
			i++
			continue
		}
		// Absorb a run of terminators and closing quotes/brackets.
		j := i + 1
		for j < len(par) && strings.IndexByte(".!?\"')”’", par[j]) >= 0 {
			j++
		}
		if j < len(par) && par[j] != ' ' {
			i = j
			continue
		}
		if c == '.' && j == i+1 && isAbbrev(par[start:i]) && !endsAfterAbbrev(par[start:i], par[j:]) {
			i = j
			continue
		}
		end := j
		k := j
		// Attach citation markers that follow the punctuation.
		for {
			p := k
			for p < len(par) && par[p] == ' ' {
				p++
			}
			loc := markerRe.FindStringIndex(par[p:])
			if loc == nil {
				break
			}
			k = p + loc[1]
			end = k
		}
		if end < len(par) {
			next, _ := utf8.DecodeRuneInString(strings.TrimLeft(par[end:], " "))
			if unicode.IsLower(next) {
				i = j
				continue
			}
		}
		if s := strings.TrimSpace(par[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
		i = end
	}
	if s := strings.TrimSpace(par[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// finalAbbrevs often end a sentence: after them a capitalised word that
// usually starts one ("etc. The", "in the U.S. It") starts a new sentence.
var finalAbbrevs = terms.Set(`etc u.s u.k u.n e.u al`)

// starters are words that begin sentences far more often than they
// follow an abbreviation inside one.
var starters = terms.Set(`the a an it its this that these those they there we he she in on at for
but however so thus then also as if when while after before since what which how why`)

// endsAfterAbbrev reports whether the period ending before (an
// abbreviation) also ends the sentence: the abbreviation is one that
// often does, and the next word is a usual sentence starter (for "etc.",
// any capitalised word).
func endsAfterAbbrev(before, after string) bool {
	w := before
	if k := strings.LastIndexAny(w, " ([\"“"); k >= 0 {
		w = w[k+1:]
	}
	lw := strings.ToLower(w)
	if !finalAbbrevs[lw] {
		return false
	}
	next := strings.Fields(after)
	if len(next) == 0 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(next[0])
	if !unicode.IsUpper(r) {
		return false
	}
	return lw == "etc" || starters[strings.ToLower(strings.TrimRight(next[0], ",;:"))]
}

// isAbbrev reports whether the text before a period ends with an
// abbreviation or an initial ("J", "Hans-J", "D").
func isAbbrev(before string) bool {
	w := before
	if k := strings.LastIndexAny(w, " ([\"“"); k >= 0 {
		w = w[k+1:]
	}
	if w == "" {
		return false
	}
	lw := strings.ToLower(w)
	if abbreviations[lw] {
		return true
	}
	initial := w
	if k := strings.LastIndexAny(initial, "-‐"); k >= 0 {
		initial = initial[k+1:] // "Hans-J. Boehm"
		if initial == "" {
			return false
		}
	}
	r, n := utf8.DecodeRuneInString(initial)
	if n == len(initial) && unicode.IsUpper(r) {
		return true // an initial: "J. Smith", "D. E. Knuth"
	}
	// Dotted abbreviations not in the list: "U.S.A", "a.k.a".
	if strings.Contains(w, ".") {
		for _, seg := range strings.Split(w, ".") {
			if utf8.RuneCountInString(seg) > 2 || strings.IndexFunc(seg, unicode.IsDigit) >= 0 {
				return false
			}
		}
		return true
	}
	return false
}

// stripMarkers removes citation-marker lookalikes and markdown link syntax
// from source text, so that a number printed inside a document can never
// reach a report as if it were a citation.
var (
	sourceMarkerRe = regexp.MustCompile(`\[\[[^\[\]\n]*\]\]|\[\^?\d[\d\s,\-–]*\]|[【［][\d\s,\-–]*[】］]|\[ref:[^\]\n]*\]`)
	linkRe         = regexp.MustCompile(`!?\[([^\[\]\n]*)\]\([^()\n]*\)`)
	spaceBeforeRe  = regexp.MustCompile(` +([.,;:!?])`)
)

// pageMarkRe matches the line that starts each page or slide of a paged
// document's extracted text ("--- page 4 ---", "--- slide 2 ---").
var pageMarkRe = regexp.MustCompile(`-{3} (?:page|slide) [0-9]+ -{3}`)

func cleanSourceText(s string) string {
	// The regular expressions run only where they can match: most
	// sentences have no brackets at all, and this is on every model call.
	if strings.Contains(s, "](") {
		s = linkRe.ReplaceAllString(s, "$1")
	}
	if strings.ContainsAny(s, "[【［") {
		s = sourceMarkerRe.ReplaceAllString(s, "")
	}
	if strings.Contains(s, "<") {
		s = labelRe.ReplaceAllString(s, "")
	}
	if strings.Contains(s, "--- ") {
		s = pageMarkRe.ReplaceAllString(s, " ") // a paged document's "--- page 4 ---" is no text of it
	}
	s = strings.ReplaceAll(s, "`", "")
	s = strings.ReplaceAll(s, "**", "")
	s = strings.Join(strings.Fields(s), " ")
	if hasSpaceBeforePunct(s) {
		s = spaceBeforeRe.ReplaceAllString(s, "$1")
	}
	return s
}

func hasSpaceBeforePunct(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] == ' ' && strings.IndexByte(".,;:!?", s[i]) >= 0 {
			return true
		}
	}
	return false
}

var (
	bulletRe  = regexp.MustCompile(`^\s*(?:[-*+•]|\d{1,3}[.)])\s+`)
	hruleRe   = regexp.MustCompile(`^\s*(?:[-*_]\s*){3,}$`)
	tableRe   = regexp.MustCompile(`^\s*\|`)
	headingRe = regexp.MustCompile(`^\s*#{1,6}\s`)
)

// paragraphs splits markdown-ish text into prose paragraphs: fenced and
// indented code, headings, tables and rules are dropped, and every list
// item is a paragraph of its own.
func paragraphs(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			flush()
			continue
		}
		switch {
		case inFence:
			continue
		case t == "":
			flush()
		case (strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")) && codeLike(t):
			flush() // indented code (indented prose is prose: plain text and manual pages indent it)
		case headingRe.MatchString(line), tableRe.MatchString(line), hruleRe.MatchString(line),
			strings.HasPrefix(t, "<") && strings.TrimSpace(labelRe.ReplaceAllString(t, "")) == "":
			flush() // a line of nothing but markup; "<storage> A request…" is prose with a label
		case bulletRe.MatchString(line):
			flush()
			cur = append(cur, bulletRe.ReplaceAllString(line, ""))
		default:
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

// normalize is the key under which two sentences count as duplicates.
func normalize(s string) string {
	// strings.Join(terms.Tokens(s), " "), in one string: the words of the
	// lower-cased text (lower-casing may part a word: "İ" gives "i" and a
	// combining dot), one space between two.
	ls := strings.ToLower(s)
	var b strings.Builder
	b.Grow(len(ls))
	start := -1
	word := func(w string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	for i, r := range ls {
		if terms.IsWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			word(ls[start:i])
			start = -1
		}
	}
	if start >= 0 {
		word(ls[start:])
	}
	return b.String()
}

// proseSentence reports whether s reads like a sentence of prose worth
// quoting: a table row (recordSentence); or a sensible length (a terse
// definition of four words is one), ends like a sentence, starts like one
// (a lower-case start is a name: "fork() creates…"), mostly letters, and
// is not code (see codeLike).
func proseSentence(s string) bool {
	if recordSentence(s) {
		return true
	}
	n := len(strings.Fields(s))
	if n < minSentenceWords || n > 60 || len(s) > 420 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, "\"')”’)]}"))
	if last != '.' && last != '!' && last != '?' {
		return false
	}
	first, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLetter(first) && !unicode.IsDigit(first) && !strings.ContainsRune("\"“'‘([{", first) {
		return false
	}
	if codeLike(s) || strings.Contains(s, "://") {
		return false
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) || r == ' ' {
			letters++
		}
	}
	return letters*10 >= utf8.RuneCountInString(s)*8
}

// minSentenceWords is the fewest words a quotable sentence has.
const minSentenceWords = 4

// codeOperators appear in code and hardly ever in prose.
var codeOperators = []string{"==", "!=", ":=", "->", "=>", "&&", "||", "();", "){", ") {", "= ", " =", "::"}

// codeLike reports whether s reads like code rather than prose: it holds
// an operator of code, ends like a statement or a block (";", "{"), or is
// dense with brackets and symbols. A name in braces or brackets within
// prose ("a {curried function}", "fork() creates") is not code.
func codeLike(s string) bool {
	for _, op := range codeOperators {
		if strings.Contains(s, op) {
			return true
		}
	}
	t := strings.TrimSpace(s)
	if strings.HasSuffix(t, ";") || strings.HasSuffix(t, "{") {
		return true
	}
	sym := 0
	for _, r := range t {
		if strings.ContainsRune("{}[]();=<>|&*$#\\^~", r) {
			sym++
		}
	}
	return sym*100 > utf8.RuneCountInString(t)*6
}

// labelRe matches an angle-bracketed label in plain text ("<programming,
// algorithm>", a tag of HTML): never quoted, since markdown would read it
// as HTML.
var labelRe = regexp.MustCompile(`<[A-Za-z/][^<>\n]{0,60}>`)
