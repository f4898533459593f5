// Package terms is the one vocabulary of words the offline parts share:
// the tokenizer, the stemmer and the stop words with which the offline
// model (internal/extractive), the relevance filter (internal/relevance),
// the lexical support check (internal/verify) and the corpus's query
// builder (internal/corpus) compare a question, a passage and a sentence.
// Two parts that split or stem a word differently disagree about what a
// text says: relevance would keep a passage on "election" for a question
// on "elected" that verification then finds unsupported.
package terms

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// IsWordRune reports whether r belongs to a word: a letter, a number or a
// private-use character, as SQLite FTS5's unicode61 tokenizer (the corpus
// index's) has it, so that a query splits the way the index did.
func IsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// Tokens splits s into lower-cased words: runs of IsWordRune runes.
// "Happens-Before, SHA-256 & Go1.22!" gives happens, before, sha, 256,
// go1, 22.
func Tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !IsWordRune(r) })
}

// Stem is a deliberately small English stemmer: enough for "models" to
// meet "model", "queries" "query", "curried" "currying", "elected" "election" and "running"
// "run". It only has to be consistent, not linguistically right: every
// part stems with it, so they agree.
func Stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case len(w) > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")):
		return w[:len(w)-3] + "y" // "queries", "curried"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	for _, suf := range []string{"ation", "ion", "ing", "ed", "ly"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 4 {
			w = w[:len(w)-len(suf)]
			// "running" → "run", "stopped" → "stop": undouble a final
			// consonant the suffix doubled.
			if n := len(w); w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
				w = w[:n-1]
			}
			break
		}
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// IsStop reports whether the lower-cased word w is a stop word: a
// function word or question word that says nothing about a subject
// ("the", "which", "isn"). Stop words never count as terms and never
// enter a search.
func IsStop(w string) bool { return stop[w] }

// IsRelation reports whether the stop word w relates two things in a
// phrase of technical text ("happens before", "not nil", "between two
// goroutines"): not a key term, but a search for the phrase keeps it.
func IsRelation(w string) bool { return relation[w] }

// IsRequest reports whether w is one of the words people use to ask for
// research rather than to name its subject ("explain", "describe",
// "compare", "difference", "make", "way"): not a key term of a question,
// though a claim's sentence means something by it.
func IsRequest(w string) bool { return request[w] }

// IsKey reports whether the lower-cased token w can be a key term: not a
// stop or request word, and two runes long at least (a lone digit counts).
func IsKey(w string) bool {
	if stop[w] || request[w] {
		return false
	}
	if utf8.RuneCountInString(w) < 2 {
		return w >= "0" && w <= "9"
	}
	return true
}

// KeyStems returns the distinct stems of the key terms of s, in order of
// first appearance.
func KeyStems(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range Tokens(s) {
		if !IsKey(t) {
			continue
		}
		if st := Stem(t); !seen[st] {
			seen[st] = true
			out = append(out, st)
		}
	}
	return out
}

// StemSet is the set of the key-term stems of s.
func StemSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range Tokens(s) {
		if IsKey(t) {
			m[Stem(t)] = true
		}
	}
	return m
}

// StemSetParts is StemSet with the parts of every token that joins
// letters and digits ("sha256" → sha, 256; "utf8" → utf, 8), so that a
// text that writes a name joined ("SHA256") covers a question that writes
// it hyphenated ("SHA-256", which Tokens splits), and the other way round.
//
// An identifier written in camel case gives its words too
// ("WithTimeout" → with, timeout; "StartCPUProfile" → start, cpu,
// profile), as one in snake case does by Tokens ("capture_output"): a
// passage that names the function covers the question that asks for what
// its name says.
//
// An agent noun gives its verb's stem too ("reader" → read, "writer" →
// write, "scanner" → scan, "server" → serve, "encoder" → encode): an API
// names its types after what they do (csv.reader, bufio.Scanner,
// json.Encoder), and a question asks how to do it.
func StemSetParts(s string) map[string]bool { return stemSetParts(s, true) }

// QuestionStems is StemSetParts without the verbs of agent nouns: the
// stems a question asks for. A text's agent noun meets the question's
// verb; the question gains no stems its words do not hold ("numb" of
// "number"), which would weigh as rare terms no passage covers.
func QuestionStems(s string) map[string]bool { return stemSetParts(s, false) }

func stemSetParts(s string, verbs bool) map[string]bool {
	m := map[string]bool{}
	st := stemmers.Get().(*stemmer)
	defer stemmers.Put(st)
	st.each(s, verbs, func(stem string) {
		if !m[stem] {
			m[strings.Clone(stem)] = true // stem may be st's scratch
		}
	})
	return m
}

// EachStem calls fn with each stem StemSetParts(s) holds, in text order,
// a stem as often as the text gives it: the set without the set, for a
// caller that only asks which of some stems a text holds (a scorer over
// every unit of a long document). The string fn gets may live in a
// buffer reused for the next: fn clones it to keep it.
func EachStem(s string, fn func(stem string)) {
	st := stemmers.Get().(*stemmer)
	defer stemmers.Put(st)
	st.each(s, true, fn)
}

// stemmers holds stemmers between calls, so that their buffers are
// reused rather than made anew for every text.
var stemmers = sync.Pool{New: func() any { return new(stemmer) }}

// stemmer walks a text's stems as stemSetParts takes them, lower-casing
// an ASCII word into a buffer of its own rather than a new string.
type stemmer struct {
	lower []byte // the word being stemmed, lower-cased
	stem  []byte // a stem that is not a part of its word ("queries" → query)
}

// each calls fn with the stems of every key word of s, of its parts
// (eachPart) and of its camel-case words (eachCamel), and, when verbs, of
// the verbs of the agent nouns among them (eachAgentVerb).
func (st *stemmer) each(s string, verbs bool, fn func(string)) {
	add := func(w string) {
		fn(st.stemOf(w))
		if verbs {
			eachAgentVerb(w, func(v string) { fn(st.stemOf(v)) })
		}
	}
	start := -1
	for i, r := range s {
		if IsWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			st.word(s[start:i], add)
			start = -1
		}
	}
	if start >= 0 {
		st.word(s[start:], add)
	}
}

// word gives add the key words of the token raw: the token lower-cased,
// its parts (eachPart), and its camel-case words (eachCamel).
func (st *stemmer) word(raw string, add func(string)) {
	if t := st.toLower(raw); IsKey(t) {
		add(t)
		eachPart(t, func(p string) {
			if IsKey(p) {
				add(p)
			}
		})
	}
	eachCamel(raw, func(w string) {
		if w = st.toLower(w); IsKey(w) {
			add(w)
		}
	})
}

// toLower is strings.ToLower(w), for an ASCII word without a new
// string: w itself when it has no upper-case letter, else a string over
// st.lower, valid until the next call.
func (st *stemmer) toLower(w string) string {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return strings.ToLower(w)
		}
	}
	i := 0
	for i < len(w) && (w[i] < 'A' || w[i] > 'Z') {
		i++
	}
	if i == len(w) {
		return w
	}
	st.lower = append(st.lower[:0], w...)
	for j := i; j < len(st.lower); j++ {
		if c := st.lower[j]; 'A' <= c && c <= 'Z' {
			st.lower[j] = c + 'a' - 'A'
		}
	}
	return unsafe.String(unsafe.SliceData(st.lower), len(st.lower))
}

// stemOf is Stem(w), with a stem that is no part of w ("queries" →
// "query") written into st.stem and valid until the next call.
func (st *stemmer) stemOf(w string) string {
	if len(w) > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")) {
		st.stem = append(append(st.stem[:0], w[:len(w)-3]...), 'y')
		return unsafe.String(unsafe.SliceData(st.stem), len(st.stem))
	}
	return Stem(w)
}

// eachAgentVerb calls fn with each verb an agent noun ending in "er" may
// be made from: the word without "er" and without "r", and without the
// consonant the suffix doubled ("scanner" → scann, scanne, scan); not at
// all for a word of under five letters or one that does not end in "er".
// Some are no words ("numb" of "number"): they only have to meet the
// verb's stem where the verb is written.
func eachAgentVerb(w string, fn func(string)) {
	if len(w) < 5 || !strings.HasSuffix(w, "er") {
		return
	}
	base := w[:len(w)-2]
	fn(base)
	fn(w[:len(w)-1])
	if n := len(base); n >= 4 && base[n-1] == base[n-2] && !strings.ContainsRune("aeiouls", rune(base[n-1])) {
		fn(base[:n-1])
	}
}

// eachCamel calls fn with the words of an identifier written in camel
// case: split before an upper-case letter that follows a lower-case one
// or a digit ("ReadAll" → Read, All), and before the last of a run of
// capitals that a lower-case letter follows ("CPUProfile" → CPU,
// Profile); not at all for a word that is not camel case ("Linux",
// "HTTP", "word"). The words are t's substrings.
func eachCamel(t string, fn func(string)) {
	prev, i := utf8.DecodeRuneInString(t)
	start := 0
	for i < len(t) {
		r, n := utf8.DecodeRuneInString(t[i:])
		next, hasNext := rune(0), i+n < len(t)
		if hasNext {
			next, _ = utf8.DecodeRuneInString(t[i+n:])
		}
		lowerUpper := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(r)
		acronymEnd := hasNext && unicode.IsUpper(prev) && unicode.IsUpper(r) && unicode.IsLower(next)
		if lowerUpper || acronymEnd {
			fn(t[start:i])
			start = i
		}
		prev = r
		i += n
	}
	if start > 0 {
		fn(t[start:])
	}
}

// eachPhraseWord calls fn with the words of s lower-cased, as Tokens
// splits them, and with an empty word wherever anything but spaces or one
// hyphen separates two (punctuation ends a phrase).
func eachPhraseWord(s string, fn func(string)) {
	start, sepStart := -1, 0
	any := false // a word or a break given
	for i, r := range s {
		if IsWordRune(r) {
			if start < 0 {
				if any && strings.Trim(s[sepStart:i], " -") != "" || strings.Count(s[sepStart:i], "-") > 1 {
					fn("")
					any = true
				}
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(strings.ToLower(s[start:i]))
			any = true
			start, sepStart = -1, i
		}
	}
	if start >= 0 {
		fn(strings.ToLower(s[start:]))
	}
}

// AddCompounds adds to set the compound terms of s: each key word next to
// a stop word, within a phrase ("happens before" → happen+before,
// Compound). A question that asks about "happens-before" (Compounds) is
// about the phrase, not about "happens" alone; scorers that weigh such a
// term add a text's compounds to its stems.
func AddCompounds(set map[string]bool, s string) {
	EachCompound(s, func(a, b string) { set[a+"+"+b] = true })
}

// EachCompound calls fn with the two stems of each compound term of s
// that AddCompounds adds ("happens before" → happen, before), in text
// order: the compounds without the strings that join them, for a caller
// that only asks which of some compounds a text holds.
func EachCompound(s string, fn func(a, b string)) {
	prev, prevKey := "", false
	eachPhraseWord(s, func(w string) {
		if w == "" { // a break: no pair across it
			prev = ""
			return
		}
		key := IsKey(w)
		if prev != "" && key != prevKey && (key || stop[w]) && (prevKey || stop[prev]) {
			fn(Stem(prev), Stem(w))
		}
		prev, prevKey = w, key
	})
}

// StemSetFor is StemSetParts of s with, when weight weighs a compound
// term, the compounds of s too (AddCompounds): the stems a scorer that
// weighs terms by weight compares s by.
func StemSetFor(s string, weight map[string]float64) map[string]bool {
	set := StemSetParts(s)
	for k := range weight {
		if strings.Contains(k, "+") {
			AddCompounds(set, s)
			break
		}
	}
	return set
}

// Compound is the term of two adjacent words, one a key word and the
// other a stop word ("happens", "before" → "happen+before"): the form
// StemSetParts gives such a pair, and Compounds a question's.
func Compound(a, b string) string { return Stem(a) + "+" + Stem(b) }

// Compounds returns the compound terms of s's hyphenated words that join
// a key word and a stop word ("happens-before", "opt-in", "set-up"):
// words whose meaning is the pair's.
func Compounds(s string) []string {
	var out []string
	for _, m := range hyphenated.FindAllStringSubmatch(strings.ToLower(s), -1) {
		a, b := m[1], m[2]
		if IsKey(a) != IsKey(b) && (stop[a] || stop[b]) {
			out = append(out, Compound(a, b))
		}
	}
	return out
}

var hyphenated = regexp.MustCompile(`(\pL+)-(\pL+)`)

// eachPart calls fn with each part of a token split at its boundaries
// between letters and digits; not at all for a token of letters only or
// digits only.
func eachPart(t string, fn func(string)) {
	start := 0
	prev := 0 // 1 letter, 2 digit
	for i, r := range t {
		k := 1
		if unicode.IsDigit(r) {
			k = 2
		}
		if prev != 0 && k != prev {
			fn(t[start:i])
			start = i
		}
		prev = k
	}
	if start > 0 {
		fn(t[start:])
	}
}

// IsNegation reports whether the lower-cased word w negates: "not", "no",
// "never", "without"…; Negated finds one in a text, with the contracted
// forms ("isn't", "don’t") that Tokens splits.
func IsNegation(w string) bool { return negation[w] }

// Negated reports whether s holds a negation word or a contracted "n't".
func Negated(s string) bool {
	ls := strings.ToLower(s)
	if strings.Contains(ls, "n't") || strings.Contains(ls, "n’t") {
		return true
	}
	for _, t := range Tokens(ls) {
		if negation[t] {
			return true
		}
	}
	return false
}

// Set returns the set of the space-separated words of s.
func Set(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m[f] = true
	}
	return m
}

var stop = Set(`a about above after again against all also am an and any are as at be because
been before being below both but by can could did do does doing done down during each either
else etc few for from further had has have having he her here hers herself him himself his how i
if in into is it its itself just me more most my myself no nor not now of off on only onto or
other ought our ours ourselves out over own per same shall she should so some such than that the
their theirs them themselves then there these they this those through to too under until up upon
very via was we were what when where which while who whom whose why will with within without would
you your yours yourself yourselves us may might must yet between s t
don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn mustn`)

var request = Set(`explain explains describe describes define defines tell give show discuss
summarize summarise please compare versus vs difference differences
need needs one ones get gets got make makes made like let lets kind kinds way ways thing things
much many well really`)

var relation = Set(`after before between not no above below over under without against`)

var negation = Set(`not no never cannot without neither nor none nothing nobody`)
