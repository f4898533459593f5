package verify

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// What a citing sentence says in so many words is checked against the
// source's text itself, whatever the judge: a quotation must be in the
// source (a misquote is a problem of its own), a sentence copied from the
// source is supported, and a figure the source does not state is not.

// normText is a text normalised for finding quotations in it: blanks
// collapsed to one space, curly quotes straight, an ellipsis three dots,
// dashes hyphens, and markdown's emphasis and code marks left out (see
// normWalk); orig is the text it was made of.
type normText struct {
	s, orig string
}

var normRunes = map[rune]string{
	'“': `"`, '”': `"`, '„': `"`, '″': `"`, '«': `"`, '»': `"`,
	'‘': "'", '’': "'", '‚': "'", '′': "'",
	'…': "...", '–': "-", '—': "-", '\u00a0': " ",
}

// normWalk calls emit with each piece of text's normalised form, in
// order, and the offset of the rune of text it comes from, until emit
// returns false.
func normWalk(text string, emit func(at int, piece string) bool) {
	space := true // no blank at the start
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsSpace(r):
			if !space {
				if !emit(i, " ") {
					return
				}
				space = true
			}
		case r == '*' || r == '`':
		default:
			space = false
			piece, ok := normRunes[r]
			if !ok {
				piece = text[i : i+size]
			}
			if !emit(i, piece) {
				return
			}
		}
		i += size
	}
}

func normalizeText(text string) normText {
	var b strings.Builder
	b.Grow(len(text))
	normWalk(text, func(_ int, piece string) bool { b.WriteString(piece); return true })
	return normText{s: strings.TrimSuffix(b.String(), " "), orig: text}
}

// span returns the bytes of the original text that n.s[lo:hi] came from:
// it walks the text again (a span is wanted only for what is found, and
// keeping a map of every byte would take eight times the text).
func (n normText) span(lo, hi int) (start, end int) {
	count := 0
	normWalk(n.orig, func(at int, piece string) bool {
		if count <= lo && lo < count+len(piece) {
			start = at
		}
		if count <= hi-1 && hi-1 < count+len(piece) {
			_, size := utf8.DecodeRuneInString(n.orig[at:])
			end = at + size
			return false
		}
		count += len(piece)
		return true
	})
	return start, end
}

// find returns where part occurs in n.s from byte from on, allowing the
// case of its first letter to differ ("The rule" quotes "the rule");
// -1 when it does not.
func (n normText) find(part string, from int) int {
	if from > len(n.s) || part == "" {
		return -1
	}
	if i := strings.Index(n.s[from:], part); i >= 0 {
		return from + i
	}
	r, size := utf8.DecodeRuneInString(part)
	var other string
	switch {
	case unicode.IsUpper(r):
		other = string(unicode.ToLower(r)) + part[size:]
	case unicode.IsLower(r):
		other = string(unicode.ToUpper(r)) + part[size:]
	default:
		return -1
	}
	if i := strings.Index(n.s[from:], other); i >= 0 {
		return from + i
	}
	return -1
}

// quotePartTrim is what a quotation's parts are trimmed of: blanks, the
// punctuation a quoting sentence moves inside its quotation marks, and
// the brackets of an elision ("[...]").
const quotePartTrim = ` .,;:!?"'[]()`

// locate finds a quotation in the text: each part between ellipses
// (elisions), in order. It returns the span of the text the quotation
// runs over (from its first part's start to its last part's end), and
// false when a part is not there.
func (n normText) locate(quote string) (lo, hi int, ok bool) {
	q := normalizeText(quote).s
	from, lo, hi := 0, -1, -1
	for _, part := range strings.Split(q, "...") {
		part = strings.Trim(part, quotePartTrim)
		if part == "" {
			continue
		}
		i := n.find(part, from)
		if i < 0 {
			return 0, 0, false
		}
		if lo < 0 {
			lo = i
		}
		from, hi = i+len(part), i+len(part)
	}
	if lo < 0 {
		return 0, 0, false
	}
	return lo, hi, true
}

// quotedRe finds quotations in a normalised sentence (curly quotes made
// straight): what stands between double quotation marks.
var quotedRe = regexp.MustCompile(`"([^"]+)"`)

// minQuoteWords is the fewest words a quotation has for it to be checked:
// shorter ones are terms ("the so-called "happens before" relation").
const minQuoteWords = 3

// quotations returns the sentence's quotations of minQuoteWords words or
// more, and how many of its words they hold; a sentence of a block quote
// is one quotation, whole.
func quotations(sentence string, blockQuote bool) (quotes []string, words int) {
	s := normalizeText(sentence).s
	if blockQuote {
		s = strings.Trim(s, ` "`)
		if len(strings.Fields(s)) >= minQuoteWords {
			return []string{s}, len(strings.Fields(s))
		}
		return nil, 0
	}
	for _, m := range quotedRe.FindAllStringSubmatch(s, -1) {
		if w := len(strings.Fields(m[1])); w >= minQuoteWords {
			quotes = append(quotes, m[1])
			words += w
		}
	}
	return quotes, words
}

// minVerbatimWords is the fewest words a sentence copied from its source
// without quotation marks has for the copy to support it.
const minVerbatimWords = 5

// literal is what the words of a citing sentence decide on their own: a
// verdict, and the kind of problem a negative one is (ProblemMisquote).
type literal struct {
	verdict Verdict
	kind    ProblemKind
}

// literally checks the sentence's quotations against the text the source
// n is judged against: one that is not in it is a misquote; quotations
// found that make up half the sentence or more support it, as does a
// sentence that is a copy of the source's words. ok is false when the
// words decide nothing: the judge decides.
func literally(sentence string, blockQuote bool, n int, text normText) (literal, bool) {
	quotes, words := quotations(sentence, blockQuote)
	evidence := func(lo, hi int) *Evidence {
		s, e := text.span(lo, hi)
		s, e = sentencesAround(text.orig, s, e)
		return &Evidence{Quote: text.orig[s:e], Start: s, End: e}
	}
	if len(quotes) > 0 {
		var ev *Evidence
		for _, q := range quotes {
			lo, hi, ok := text.locate(q)
			if !ok {
				return literal{verdict: Verdict{Reason: fmt.Sprintf("quote not found in [%d]: “%s”", n, clip(q, 160))}, kind: ProblemMisquote}, true
			}
			if ev == nil {
				ev = evidence(lo, hi)
			}
		}
		if 2*words >= len(strings.Fields(sentence)) {
			return literal{verdict: Verdict{Supported: true, Score: 1, Evidence: ev, Reason: "quoted word for word from the source"}}, true
		}
		return literal{}, false
	}
	s := strings.TrimRight(normalizeText(sentence).s, " .;:!?")
	if len(strings.Fields(s)) < minVerbatimWords {
		return literal{}, false
	}
	if strings.Contains(s, "...") {
		return literal{}, false
	}
	if lo, hi, ok := text.clause(s); ok {
		return literal{verdict: Verdict{Supported: true, Score: 1, Evidence: evidence(lo, hi), Reason: "the source's own words"}}, true
	}
	return literal{}, false
}

// clause finds s in the text as a whole sentence or clause: not begun in
// the middle of one (after a letter, a digit or a comma) nor cut short
// before more of it ("the function is invoked" is not the source's own
// words when the source goes on "… invoked only when …", nor when it
// reads "… not the case that the function is invoked").
func (n normText) clause(s string) (lo, hi int, ok bool) {
	for from := 0; ; {
		i := n.find(s, from)
		if i < 0 {
			return 0, 0, false
		}
		before := strings.TrimRight(n.s[:i], " ")
		after := strings.TrimLeft(n.s[i+len(s):], " ")
		r, _ := utf8.DecodeLastRuneInString(before)
		next, _ := utf8.DecodeRuneInString(after)
		if (before == "" || !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ',') &&
			(after == "" || !unicode.IsLetter(next) && !unicode.IsDigit(next)) {
			return i, i + len(s), true
		}
		from = i + 1
	}
}

// sentencesAround widens text[lo:hi] to the sentences of text it runs
// over, as the lexical judge's evidence is: what a report keeps of its
// source reads whole.
func sentencesAround(text string, lo, hi int) (int, int) {
	const reach = maxSentence
	base := max(0, lo-reach)
	window := text[base:min(len(text), hi+reach)]
	start, end := lo, hi
	for _, s := range splitSentences(window) {
		if base+s.end > lo && base+s.start < hi {
			start, end = min(start, base+s.start), max(end, base+s.end)
		}
	}
	return start, end
}

// missingQuantities returns the sentence's quantities that the source's
// text states nowhere (see quantity.matches), with what the passage the
// sentence was judged against states instead, as a reason: "number not
// in [2]: 2,999; the source says 1499.0". "" when every figure is there.
func missingQuantities(sentence string, n int, srcQuantities []quantity, passage string) string {
	var missing []quantity
	for _, q := range quantities(sentence) {
		found := false
		for _, s := range srcQuantities {
			if q.matches(s) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, q)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	written := make([]string, len(missing))
	for i, q := range missing {
		written[i] = q.written
	}
	what := "number"
	if len(missing) > 1 {
		what = "numbers"
	}
	reason := fmt.Sprintf("%s not in [%d]: %s", what, n, strings.Join(written, ", "))
	// What the passage states instead: its figures of the same unit, else
	// its bare numbers.
	var same, bare []string
	for _, s := range sourceQuantities(passage) {
		switch {
		case !missing[0].comparable(s):
		case s.unit == missing[0].unit && !containsString(same, s.written):
			same = append(same, s.written)
		case s.unit == "" && !containsString(bare, s.written):
			bare = append(bare, s.written)
		}
	}
	says := same
	if len(says) == 0 {
		says = bare
	}
	says = says[:min(len(says), 4)]
	if len(says) > 0 {
		reason += "; the source says " + strings.Join(says, ", ")
	}
	return reason
}

// names returns the spans of the words of a sentence that name
// something: capitalised ("Rust", "TechBook"), or written in capitals
// ("GOGC").
func names(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			j += size
		}
		if unicode.IsUpper(r) {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// missingNames returns the reason a sentence is not supported by a source
// that never names what it names ("it names Rust, which [1] does not"):
// each name of the sentence (see the rules below) must occur in lowered (the source's title and text, lower
// case) as a word. "" when all do.
func missingNames(sentence string, n int, lowered string) string {
	var missing []string
	hay := lowered
	qs := quantities(sentence)
	for _, m := range names(sentence) {
		w := sentence[m[0]:m[1]]
		// The first word of the sentence or of a part of it (after a colon,
		// a semicolon, a dash, an opening quote or parenthesis), a word
		// that names nothing ("However"), or part of a quantity ("March
		// 5", "USD 12") is no name.
		lead := strings.TrimRight(sentence[:m[0]], ` "'“‘(*_`)
		if lead == "" || strings.HasSuffix(lead, ":") || strings.HasSuffix(lead, ";") || strings.HasSuffix(lead, "—") ||
			strings.HasSuffix(lead, " -") || len(lead) < len(sentence[:m[0]]) && strings.ContainsAny(sentence[len(lead):m[0]], `"'“‘(`) ||
			len(w) < 2 || containsString(missing, w) || terms.IsStop(strings.ToLower(w)) ||
			slices.ContainsFunc(qs, func(q quantity) bool { return m[0] < q.end && q.start < m[1] }) {
			continue
		}
		if !hasWord(hay, strings.ToLower(w)) {
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("it names %s, which [%d] does not", strings.Join(missing, ", "), n)
}

// hasWord reports whether w occurs in s as a word (or the start of one:
// "Go" in "Go's").
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		at := i + j
		r, _ := utf8.DecodeLastRuneInString(s[:at])
		if at == 0 || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return true
		}
		i = at + len(w)
	}
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
