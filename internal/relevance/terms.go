package relevance

import (
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// stopwords are not key terms: function words, question words and the
// verbs people use to ask for research ("explain", "describe").
var stopwords = terms.Set(`a about above after again against all also am an and any are as at be because
been before being below between both but by can could did do does doing down during each either
few for from further had has have having he her here hers herself him himself his how i if in into
is it its itself just me more most my myself no nor not now of off on only or other ought our
ours ourselves out over own same shall she should so some such than that the their theirs them
themselves then there these they this those through to too under until up upon very was we were
what when where which while who whom whose why will with within without would you your yours
yourself yourselves us may might must need needs one ones get gets got make makes made like
explain explains describe describes define defines tell give show discuss summarize summarise
please let lets kind kinds way ways thing things much many well really compare versus vs
difference differences between`)

func isKey(t string) bool {
	if stopwords[t] {
		return false
	}
	if utf8.RuneCountInString(t) < 2 {
		return t >= "0" && t <= "9"
	}
	return true
}

// KeyTerms returns the distinct key-term stems of s (content words, stop
// words left out) in order of first appearance.
func KeyTerms(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range terms.Tokens(s) {
		if !isKey(t) {
			continue
		}
		st := terms.Stem(t)
		if !seen[st] {
			seen[st] = true
			out = append(out, st)
		}
	}
	return out
}

// termSet is the set of key-term stems of s.
func termSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range terms.Tokens(s) {
		if isKey(t) {
			m[terms.Stem(t)] = true
		}
	}
	return m
}

// SharesKeyTerm reports whether text has at least one key term of
// question.
func SharesKeyTerm(question, text string) bool {
	q := termSet(question)
	if len(q) == 0 {
		return false
	}
	for _, t := range terms.Tokens(text) {
		if isKey(t) && q[terms.Stem(t)] {
			return true
		}
	}
	return false
}
