package relevance

import (
	"github.com/deepresearch/deepresearch/internal/terms"
)

// KeyTerms returns the distinct key-term stems of s (content words, stop
// words left out) in order of first appearance: terms.KeyStems.
func KeyTerms(s string) []string { return terms.KeyStems(s) }

// SharesKeyTerm reports whether text has at least one key term of
// question.
func SharesKeyTerm(question, text string) bool {
	q := terms.StemSet(question)
	if len(q) == 0 {
		return false
	}
	for _, t := range terms.Tokens(text) {
		if terms.IsKey(t) && q[terms.Stem(t)] {
			return true
		}
	}
	return false
}
