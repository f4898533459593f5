package verify

import (
	"context"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// DefaultThreshold is the lexical support score from which a sentence
// counts as supported. It was chosen on testdata/support (see the figures
// in docs/verification.md) and is a compromise: a higher one rejects more
// paraphrases, a lower one accepts more sentences that reuse a source's
// words to say something else.
const DefaultThreshold = 0.6

// Lexical judges support from words alone: the share of the sentence's key
// terms (weighted by rarity, BM25's idf over the sources' sentences, at
// least minIDFSentences of them) that the best-matching passage of the
// source contains, with credit for word pairs in the same order, and
// penalties when the sentence has a figure the passage lacks (halving the
// score: a copy with one figure changed is not supported) or is negated
// where the passage is not (or the reverse). Figures are read as
// quantities, so "$1,499" meets "1499.0" and "March 5, 2024" meets
// "2024-03-05".
// The passage (one sentence of the source, or two adjacent ones) becomes
// the evidence. It is deterministic and needs no model; it cannot tell a
// paraphrase with new words from an unsupported sentence, nor notice that
// the same words say something else.
//
// Cost: one pass over each distinct source text per call, then, per claim,
// a scan of that source's passages (linear in the source's length).
type Lexical struct {
	// Threshold is the score from which a claim is supported; 0 is
	// DefaultThreshold.
	Threshold float64
}

var _ Judge = Lexical{}

// Judge scores every claim. It never fails but when ctx is done.
func (l Lexical) Judge(ctx context.Context, claims []Claim) ([]Verdict, error) {
	th := l.Threshold
	if th == 0 {
		th = DefaultThreshold
	}
	docs := map[string]*lexDoc{}
	var order []*lexDoc
	for _, c := range claims {
		if _, ok := docs[c.Source.Text]; !ok {
			d := newLexDoc(c.Source.Text)
			docs[c.Source.Text] = d
			order = append(order, d)
		}
	}
	df, n := lexDF(order)
	out := make([]Verdict, len(claims))
	for i, c := range claims {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		score, ev := docs[c.Source.Text].best(c.Sentence, df, n)
		out[i] = Verdict{Supported: score >= th, Score: score, Evidence: ev}
	}
	return out, nil
}

// Score returns the lexical support score of sentence against text, and the
// best-matching passage. It is Judge for one claim, with the idf taken from
// text's own sentences.
func Score(sentence, text string) (float64, *Evidence) {
	d := newLexDoc(text)
	df, n := lexDF([]*lexDoc{d})
	return d.best(sentence, df, n)
}

// lexDoc is one source text split into sentences, each with its terms.
type lexDoc struct {
	text  string
	sents []lexSent
	// postings lists, for each term, the sentences that hold it, ascending.
	postings map[string][]int
}

type lexSent struct {
	start, end int
	terms      []string // content terms in order
	set        map[string]bool
	pairs      map[[2]string]bool // adjacent content terms
	nums       map[string]bool
	neg        bool
}

func newLexDoc(text string) *lexDoc {
	d := &lexDoc{text: text, postings: map[string][]int{}}
	for _, sp := range splitSentences(text) {
		toks := tokenize(text[sp.start:sp.end])
		s := lexSent{start: sp.start, end: sp.end, set: map[string]bool{}, pairs: bigrams(toks.terms), nums: map[string]bool{}, neg: toks.neg}
		s.terms = toks.terms
		for _, t := range toks.terms {
			if !s.set[t] {
				d.postings[t] = append(d.postings[t], len(d.sents))
			}
			s.set[t] = true
		}
		for _, x := range toks.nums {
			s.nums[x] = true
		}
		d.sents = append(d.sents, s)
	}
	return d
}

// lexDF counts, for each term, the sentences of docs that hold it.
func lexDF(docs []*lexDoc) (map[string]int, int) {
	df := map[string]int{}
	n := 0
	for _, d := range docs {
		for _, s := range d.sents {
			n++
			for t := range s.set {
				df[t]++
			}
		}
	}
	return df, n
}

// minIDFSentences is the fewest sentences idf is counted over: sources
// of a sentence or two (a table row, a short note) are judged as though
// among that many that do not hold their terms. In one sentence every
// term it holds is as common as can be, and the words a claim adds would
// outweigh those it shares with the source fivefold.
const minIDFSentences = 20

func idf(df map[string]int, n int, t string) float64 {
	n = max(n, minIDFSentences)
	f := float64(df[t])
	return math.Log(1 + (float64(n)-f+0.5)/(f+0.5))
}

// best scores the sentence against every passage (a sentence, or two
// adjacent ones) and returns the best score and passage.
func (d *lexDoc) best(sentence string, df map[string]int, n int) (float64, *Evidence) {
	c := tokenizeClaim(sentence)
	if len(c.terms) == 0 || len(d.sents) == 0 {
		return 0, nil
	}
	terms := uniq(c.terms)
	weights := make([]float64, len(terms))
	total := 0.0
	for i, t := range terms {
		weights[i] = idf(df, n, t)
		total += weights[i]
	}
	pairs := bigrams(c.terms)
	// Only windows holding at least one of the sentence's terms can score
	// above zero: they start at a sentence with a term or just before one.
	var starts []int
	for _, t := range terms {
		for _, i := range d.postings[t] {
			starts = append(starts, i, max(0, i-1))
		}
	}
	if len(starts) == 0 {
		return 0, nil
	}
	slices.Sort(starts)
	starts = slices.Compact(starts)
	bestScore, bestLo, bestHi := -1.0, 0, 0
	for _, lo := range starts {
		for hi := lo; hi < min(lo+2, len(d.sents)); hi++ {
			s := d.scoreWindow(c, terms, weights, total, pairs, lo, hi)
			if s > bestScore+1e-12 {
				bestScore, bestLo, bestHi = s, lo, hi
			}
		}
	}
	start, end := d.sents[bestLo].start, d.sents[bestHi].end
	return bestScore, &Evidence{Quote: d.text[start:end], Start: start, End: end}
}

func (d *lexDoc) scoreWindow(c tokens, terms []string, weights []float64, total float64, pairs map[[2]string]bool, lo, hi int) float64 {
	has := func(t string) bool {
		for i := lo; i <= hi; i++ {
			if d.sents[i].set[t] {
				return true
			}
		}
		return false
	}
	covered := 0.0
	for i, t := range terms {
		if has(t) {
			covered += weights[i]
		}
	}
	cov := 0.0
	if total > 0 {
		cov = covered / total
	}
	bcov := cov
	if len(pairs) > 0 {
		hit := 0
		for p := range pairs {
			for i := lo; i <= hi; i++ {
				if d.sents[i].pairs[p] {
					hit++
					break
				}
			}
		}
		bcov = float64(hit) / float64(len(pairs))
	}
	s := 0.8*cov + 0.2*bcov
	for _, x := range c.nums {
		found := false
		for i := lo; i <= hi; i++ {
			if d.sents[i].nums[x] {
				found = true
			}
		}
		if !found {
			s *= 0.5
			break
		}
	}
	neg := false
	for i := lo; i <= hi; i++ {
		neg = neg || d.sents[i].neg
	}
	if neg != c.neg {
		s *= 0.8
	}
	return s
}

func uniq(ts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func bigrams(ts []string) map[[2]string]bool {
	out := map[[2]string]bool{}
	for i := 1; i < len(ts); i++ {
		out[[2]string{ts[i-1], ts[i]}] = true
	}
	return out
}

// tokens are the words of a text, for matching.
type tokens struct {
	terms []string // content terms (no stop words), stemmed, in order
	nums  []string // quantities, each as one word (quantity.tok), and words with digits
	neg   bool     // a negation word occurs
}

// tokenize reads a source's text's words with the shared vocabulary
// (internal/terms): its words stemmed, stop words left out, its
// quantities each as one word ("$1,499" and "1499.0" both "1499"; see
// quantities; a number in words is both the word and the number), and
// whether it negates.
func tokenize(s string) tokens { return tokenizeAs(s, false) }

// tokenizeClaim is tokenize for a claim: its hedged figures ("about
// 1,500") are no words the source must hold, and its numbers in words no
// figures (a source's are: "two" is also 2).
func tokenizeClaim(s string) tokens { return tokenizeAs(s, true) }

// versionedRe finds a name with a version after a slash ("HTTP/2",
// "TLS/1.3"): one word, whose digits are no figure of their own.
var versionedRe = regexp.MustCompile(`\b(\p{L}+)/(\d+(?:\.\d+)*)\b`)

func tokenizeAs(s string, claim bool) tokens {
	t := tokens{neg: terms.Negated(s)}
	if strings.IndexByte(s, '/') >= 0 {
		s = versionedRe.ReplaceAllStringFunc(s, func(m string) string {
			return strings.ReplaceAll(strings.ReplaceAll(m, "/", ""), ".", "p")
		})
	}
	var spelled []string // a source's numbers in words, as numbers
	for _, w := range terms.Tokens(canonQuantities(s, quantities(s), claim)) {
		if v, ok := numberWords[w]; ok && !claim {
			spelled = append(spelled, numberToken(v))
		}
		switch {
		case terms.IsNegation(w):
		case hasDigit(w):
			// A quantity, or a word with digits ("float64", "SKU001"):
			// a term, and a figure the passage must hold.
			t.terms = append(t.terms, w)
			t.nums = append(t.nums, w)
		case len(w) > 1 && !terms.IsStop(w):
			t.terms = append(t.terms, terms.Stem(w))
		}
	}
	// After the sentence's own words, so that its word pairs stay.
	t.terms = append(t.terms, spelled...)
	t.nums = append(t.nums, spelled...)
	return t
}

func hasDigit(w string) bool {
	for _, r := range w {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

type span struct{ start, end int }

// maxSentence is the longest sentence splitSentences gives: text that
// runs on for longer without a stop is no sentence a citation or a
// passage can rest on, and cutting it keeps every claim, passage and
// quote (repeated for each citation of a result) bounded.
const maxSentence = 1000

// splitSentences splits text into sentences: at '.', '!' or '?' followed
// by a blank, at blank lines, and before lines that start a list item,
// heading or table row; a span longer than maxSentence is cut at blanks.
// Spans are trimmed of surrounding blanks; empty ones are dropped.
func splitSentences(text string) []span {
	var out []span
	emit := func(a, b int) {
		for {
			for a < b && isBlankByte(text[a]) {
				a++
			}
			for b > a && isBlankByte(text[b-1]) {
				b--
			}
			if b-a <= maxSentence {
				break
			}
			cut := a + maxSentence
			if k := strings.LastIndexAny(text[a:cut], " \t\n"); k > 0 {
				cut = a + k
			} else {
				for cut > a+1 && !utf8.RuneStart(text[cut]) {
					cut--
				}
			}
			out = append(out, span{a, cut})
			a = cut
		}
		if b > a {
			out = append(out, span{a, b})
		}
	}
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			rest := text[i+1:]
			if blankLineStart(rest) || startsBlock(rest) {
				emit(start, i)
				start = i + 1
			}
		case c == '.' || c == '!' || c == '?':
			j := i + 1
			for j < len(text) && strings.IndexByte(`"')]*_`, text[j]) >= 0 {
				j++
			}
			if j < len(text) && !isBlankByte(text[j]) {
				continue
			}
			if c == '.' && isAbbrev(text[:i]) {
				continue
			}
			emit(start, j)
			start = j
			i = j - 1
		}
	}
	emit(start, len(text))
	return out
}

func isBlankByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// blankLineStart reports whether s begins with a line of blanks.
func blankLineStart(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// startsBlock reports whether the line s begins a markdown block of its
// own: a list item, heading, quote, table row or fence.
func startsBlock(s string) bool {
	s = strings.TrimLeft(s, " \t")
	switch {
	case s == "":
		return false
	case strings.HasPrefix(s, "- "), strings.HasPrefix(s, "* "), strings.HasPrefix(s, "+ "),
		strings.HasPrefix(s, "#"), strings.HasPrefix(s, ">"), strings.HasPrefix(s, "|"),
		strings.HasPrefix(s, "```"), strings.HasPrefix(s, "~~~"):
		return true
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' '
}

// isAbbrev reports whether the text before a '.' ends with a word that
// does not end a sentence: an abbreviation, an initial or a number.
func isAbbrev(before string) bool {
	j := len(before)
	i := j
	for i > 0 && (isWordByte(before[i-1]) || before[i-1] == '.') {
		i--
	}
	w := strings.ToLower(before[i:j])
	switch w {
	case "e.g", "i.e", "etc", "al", "vs", "cf", "fig", "no", "mr", "mrs", "dr", "st", "approx", "ca", "p", "pp", "eq", "sec", "ch", "vol":
		return true
	}
	return len(w) == 1 && w[0] >= 'a' && w[0] <= 'z' && i > 0 && before[i-1] == ' ' && before[i] >= 'A' && before[i] <= 'Z'
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
