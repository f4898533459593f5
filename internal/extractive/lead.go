package extractive

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// A report opens with the few sentences that answer, above the passages
// that give them their context: a reader who stops after the first lines
// has the answer — a definition, or the answer's names: the function, the
// setting, the command, the value. The sentences are the findings' own,
// verbatim and cited; the passages they come from are quoted below
// without them.

// Bounds on the lead: its sentences, its words, and a sentence's words.
const (
	maxLeadSentences = 3
	maxLeadWords     = 80
	minLeadWords     = 5
	maxLeadSentWords = 50
	// leadFloor: a lead sentence scores at least this share of the best.
	leadFloor = 0.6
	// nameWeight is what each name a sentence gives that the question
	// does not (answerNames, at most maxNamesCounted) adds to its
	// coverage of the question's terms.
	nameWeight      = 0.15
	maxNamesCounted = 1
)

// leadSentence is a candidate sentence of the lead.
type leadSentence struct {
	text  string
	score float64
	stems map[string]bool
}

// leadOf returns the lead: at most maxLeadSentences sentences of the
// passages (none an earlier section repeats), best first, each bearing on
// the question (bearsOn), standing on its own — it opens its paragraph or
// gives a name the question lacks (answerNames) — and scoring, by its
// coverage of the question's terms with its sources' titles plus what a
// name weighs, at least leadFloor of the best; none nearly repeating
// another, none of a source the report may not cite (fits). Ties go to
// the earlier passage, so the lead is the same every run.
func leadOf(all []passage, q string, qterms map[string]float64, own map[string]bool, titles map[string]string, fits func(passage) bool) []leadSentence {
	lowerQ := strings.ToLower(q)
	qWords := terms.Tokens(lowerQ)
	var cands []leadSentence
	for _, p := range all {
		if p.dup {
			continue
		}
		// Each paragraph's own sentences (a label ends its paragraph),
		// none of one that introduces a block: the block goes with them.
		type sent struct {
			text  string
			first bool // its paragraph's first
		}
		var sents []sent
		for _, par := range append([]passage{p}, p.more...) {
			if par.block == "" {
				for k, s := range sentences(par.text) {
					sents = append(sents, sent{s, k == 0})
				}
			}
		}
		for _, st := range sents {
			s := st.text
			n := len(strings.Fields(s))
			if n < minLeadWords || n > maxLeadSentWords || !hasMarkerRe.MatchString(s) || !bearsOn(s, titles, own) {
				continue
			}
			bare := strings.TrimSpace(sourceMarkerRe.ReplaceAllString(s, ""))
			if strings.HasSuffix(bare, ":") {
				continue // it introduces what follows it ("Example LookPath:")
			}
			if rowLike(bare) {
				continue // a table's row: a record, quoted with its table
			}
			if r, _ := utf8.DecodeRuneInString(bare); unicode.IsLower(r) && !isName(strings.Fields(bare)[0]) {
				continue // a list item or a clause, out of its context ("w happens before r.")
			}
			names := answerNames(bare, lowerQ, qWords)
			if names == 0 && !st.first {
				// A sentence inside its paragraph leans on the ones
				// before it ("Over the next thirteen hours …"); one that
				// gives a name stands on it.
				continue
			}
			sc := score(withTitles(s, titles), qterms) + nameWeight*float64(min(names, maxNamesCounted))
			cands = append(cands, leadSentence{text: s, score: sc, stems: stemSet(s)})
		}
	}
	if len(cands) == 0 {
		return nil
	}
	slices.SortStableFunc(cands, func(a, b leadSentence) int { return cmp.Compare(b.score, a.score) })
	best := cands[0].score
	var out []leadSentence
	words := 0
	for _, c := range cands {
		if len(out) == maxLeadSentences || c.score < leadFloor*best {
			break
		}
		n := len(strings.Fields(c.text))
		if words+n > maxLeadWords || !fits(passage{markers: distinctMarkers(c.text)}) ||
			slices.ContainsFunc(out, func(o leadSentence) bool { return jaccard(o.stems, c.stems) > nearDuplicate }) {
			continue
		}
		words += n
		out = append(out, c)
	}
	return out
}

// answerNames counts the names sentence s gives that the lower-cased
// question q does not: words written as code or as a setting, a path, an
// address or a value are ("NewRequestWithContext", "overcommit_memory",
// "sys.path", "/proc/sys/vm", "--race", "%p", "stable@vger.kernel.org",
// "3.82", "clock_gettime()"). A plain word, capitalised or not, is none.
// qWords are the question's words (terms.Tokens of q).
func answerNames(s, q string, qWords []string) int {
	n := 0
	var seen []string
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, `"'“”‘’,;:!?*`+"`")
		w = strings.TrimSuffix(strings.TrimRight(w, "."), "()")
		w = strings.TrimLeft(w, "([{<")
		w = strings.TrimRight(w, ")]}>")
		if !isName(w) {
			continue
		}
		lw := strings.ToLower(strings.TrimLeft(w, "-%/"))
		if len(lw) >= 3 && strings.Contains(q, lw) || slices.Contains(qWords, lw) || slices.Contains(seen, lw) {
			continue
		}
		seen = append(seen, lw)
		n++
	}
	return n
}

// isName reports whether the word w is written as a name rather than a
// word (answerNames).
func isName(w string) bool {
	if utf8.RuneCountInString(w) < 2 {
		return false
	}
	if w[0] == '-' || w[0] == '%' || w[0] == '/' {
		return len(w) > 1 && (unicode.IsLetter(rune(w[1])) || w[0] == '/' && len(w) > 2)
	}
	if strings.ContainsAny(w, "_@/") {
		return true
	}
	if i := strings.IndexByte(w, '.'); i > 0 && i < len(w)-1 && !abbreviations[strings.ToLower(w)] {
		return true // a dotted name or a version: sys.path, 3.82 (not "e.g.")
	}
	upper, lowerBefore := 0, false
	for i, r := range w {
		switch {
		case unicode.IsUpper(r):
			if i > 0 && lowerBefore {
				return true // camel case: NewTicker, setRlimit
			}
			upper++
		case unicode.IsLower(r):
			lowerBefore = true
			if upper > 1 && w[i:] != "s" {
				return true // an upper-case run then lower: HTTPClient (not URLs)
			}
		}
	}
	return false
}
