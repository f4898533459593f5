package relevance

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopwords are not key terms: function words, question words and the
// verbs people use to ask for research ("explain", "describe").
var stopwords = setOf(`a about above after again against all also am an and any are as at be because
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

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m[f] = true
	}
	return m
}

// Stem is a deliberately small English stemmer, enough for "models" to
// meet "model" and "queries" "query". It only has to be consistent.
func Stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	for _, suf := range []string{"ation", "ion", "ing", "ed", "ly"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 4 {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// tokens splits s into lower-cased alphanumeric runs.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

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
	for _, t := range tokens(s) {
		if !isKey(t) {
			continue
		}
		st := Stem(t)
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
	for _, t := range tokens(s) {
		if isKey(t) {
			m[Stem(t)] = true
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
	for _, t := range tokens(text) {
		if isKey(t) && q[Stem(t)] {
			return true
		}
	}
	return false
}
