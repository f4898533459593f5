package extractive

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// An abbreviation a source defines stands for its expansion: "Package csv
// reads and writes comma-separated values (CSV) files" makes every
// passage that writes "CSV" one about comma-separated values, which is
// what a question asks for in words ("How do I write comma-separated
// values files?" meets "A Writer writes records using CSV encoding").
// Only the sources' own definitions count, so an abbreviation means what
// the corpus says it means, and nothing is guessed from a list.

var (
	// "comma-separated values (CSV)": an abbreviation in parentheses
	// after what it abbreviates.
	abbrevAfterRe = regexp.MustCompile(`\(([A-Z][A-Za-z0-9]{1,7})\)`)
	// "CSV (comma-separated values)": the expansion in parentheses after
	// the abbreviation.
	abbrevBeforeRe = regexp.MustCompile(`\b([A-Z][A-Z0-9]{1,7})\s\(([^()\n]{3,80})\)`)
)

// Bounds on the work abbreviations does: the bytes of each source's text
// it reads and the definitions it keeps.
const (
	maxAbbrevScan = 64 << 10
	maxAbbrevs    = 64
	// maxAbbrevLook is how far before "(CSV)" the expansion may start, in
	// bytes.
	maxAbbrevLook = 100
)

// definedAbbreviations returns the abbreviations the blocks' texts define, each
// (lower-cased, as terms stems it) with the stems of its expansion: the
// words whose initials spell it, in order, of which only stop words ("of",
// "and") may be passed over. An abbreviation defined two ways keeps the
// first; one whose expansion has fewer than two key stems is none.
func definedAbbreviations(blocks []block) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	add := func(abbr string, words []string) {
		lower := strings.ToLower(abbr)
		if len(out) >= maxAbbrevs || !terms.IsKey(lower) {
			return // an abbreviation that is a stop word ("IT", "CAN") no text's stems hold
		}
		st := terms.StemSet(strings.Join(words, " "))
		key := terms.Stem(lower)
		if len(st) < 2 || st[key] {
			return
		}
		if _, ok := out[key]; !ok {
			out[key] = st
		}
	}
	for _, b := range blocks {
		text := b.text
		if len(text) > maxAbbrevScan {
			text = text[:maxAbbrevScan]
		}
		for _, m := range abbrevAfterRe.FindAllStringSubmatchIndex(text, -1) {
			abbr := text[m[2]:m[3]]
			before := text[max(0, m[0]-maxAbbrevLook):m[0]]
			if ws := spelledBy(terms.Tokens(before), abbr, true); ws != nil {
				add(abbr, ws)
			}
		}
		for _, m := range abbrevBeforeRe.FindAllStringSubmatch(text, -1) {
			if ws := spelledBy(terms.Tokens(m[2]), m[1], false); ws != nil {
				add(m[1], ws)
			}
		}
	}
	return out
}

// spelledBy returns the words of ws whose initials spell abbr, or nil: the
// last of ws when last (the expansion ends where the parenthesis opens),
// else all of them. Stop words may be passed over; the first word spells
// the first letter.
func spelledBy(ws []string, abbr string, last bool) []string {
	letters := strings.ToLower(abbr)
	if !last {
		if spell(ws, letters) {
			return ws
		}
		return nil
	}
	// The shortest run of final words that spells it.
	for start := len(ws) - 1; start >= 0 && len(ws)-start <= 2*len(letters); start-- {
		if spell(ws[start:], letters) {
			return ws[start:]
		}
	}
	return nil
}

// spell reports whether the initials of ws spell letters, from the first
// word, each word giving the next letter or, a stop word, none.
func spell(ws []string, letters string) bool {
	if len(ws) == 0 || len(letters) == 0 || ws[0][0] != letters[0] {
		return false
	}
	i := 0
	for _, w := range ws {
		switch {
		case i < len(letters) && w[0] == letters[i]:
			i++
		case !terms.IsStop(w):
			return false
		}
	}
	return i == len(letters)
}

// withAbbreviations adds to a question's own stems and weighted terms each
// abbreviation the sources define whose expansion the question writes out
// whole: a passage that writes "CSV" then shares the question's terms as
// one that writes "comma-separated values" does. It weighs as the
// heaviest of its expansion's stems. A question that writes the
// abbreviation ("How does RAID combine disks?") gains its expansion's
// stems as terms only, each at the abbreviation's weight shared among
// them: a passage that writes the words out ranks a little higher, but
// need not hold them to bear on the question.
func withAbbreviations(own map[string]bool, weights map[string]float64, defined map[string]map[string]bool) {
	// In the abbreviations' order, and each expansion's word at the
	// largest share it is given, so that the weights are the same every
	// run (two abbreviations may share a word: "… protocol"). An
	// iteration adds only its own abbreviation to own, so own[abbr] is
	// still what the question writes when abbr's turn comes.
	shares := map[string]float64{}
	for _, abbr := range slices.Sorted(maps.Keys(defined)) {
		exp := defined[abbr]
		if own[abbr] {
			for st := range exp {
				shares[st] = max(shares[st], weights[abbr]/float64(len(exp)))
			}
			continue
		}
		if !subset(exp, own) {
			continue
		}
		own[abbr] = true
		w := 0.0
		for st := range exp {
			w = max(w, weights[st])
		}
		weights[abbr] = max(weights[abbr], w)
	}
	for st, w := range shares {
		if weights[st] == 0 {
			weights[st] = w
		}
	}
}
