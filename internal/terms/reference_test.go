package terms

import (
	"maps"
	"strings"
	"testing"
	"unicode"
)

// referenceStemSetParts is stemSetParts as it was written before it
// walked its text without a slice of tokens or a string per word: each
// field, lower-cased, its parts, its camel-case words and the verbs of
// its agent nouns, each collected in a slice first. The faster one must
// give the same sets.
func referenceStemSetParts(s string, verbs bool) map[string]bool {
	m := map[string]bool{}
	add := func(w string) {
		m[Stem(w)] = true
		if verbs {
			for _, v := range referenceAgentVerbs(w) {
				m[Stem(v)] = true
			}
		}
	}
	for _, raw := range strings.FieldsFunc(s, func(r rune) bool { return !IsWordRune(r) }) {
		t := strings.ToLower(raw)
		if IsKey(t) {
			add(t)
			for _, p := range referenceParts(t) {
				if IsKey(p) {
					add(p)
				}
			}
		}
		for _, w := range referenceCamelWords(raw) {
			if w = strings.ToLower(w); IsKey(w) {
				add(w)
			}
		}
	}
	return m
}

func referenceAgentVerbs(w string) []string {
	if len(w) < 5 || !strings.HasSuffix(w, "er") {
		return nil
	}
	base := w[:len(w)-2]
	out := []string{base, w[:len(w)-1]}
	if n := len(base); n >= 4 && base[n-1] == base[n-2] && !strings.ContainsRune("aeiouls", rune(base[n-1])) {
		out = append(out, base[:n-1])
	}
	return out
}

func referenceCamelWords(t string) []string {
	rs := []rune(t)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		lowerUpper := (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])) && unicode.IsUpper(rs[i])
		acronymEnd := i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i+1])
		if lowerUpper || acronymEnd {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	if start == 0 {
		return nil
	}
	return append(out, string(rs[start:]))
}

func referenceParts(t string) []string {
	var out []string
	start := 0
	prev := 0
	for i, r := range t {
		k := 1
		if unicode.IsDigit(r) {
			k = 2
		}
		if prev != 0 && k != prev {
			out = append(out, t[start:i])
			start = i
		}
		prev = k
	}
	if start == 0 {
		return nil
	}
	return append(out, t[start:])
}

// referenceAddCompounds is AddCompounds as it was written before it
// walked its text without a slice of its words.
func referenceAddCompounds(set map[string]bool, s string) {
	var words []string
	start, sepStart := -1, 0
	for i, r := range s {
		if IsWordRune(r) {
			if start < 0 {
				if len(words) > 0 && strings.Trim(s[sepStart:i], " -") != "" || strings.Count(s[sepStart:i], "-") > 1 {
					words = append(words, "")
				}
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, strings.ToLower(s[start:i]))
			start, sepStart = -1, i
		}
	}
	if start >= 0 {
		words = append(words, strings.ToLower(s[start:]))
	}
	prev, prevKey := "", false
	for _, w := range words {
		if w == "" {
			prev = ""
			continue
		}
		key := IsKey(w)
		if prev != "" && key != prevKey && (key || stop[w]) && (prevKey || stop[prev]) {
			set[Compound(prev, w)] = true
		}
		prev, prevKey = w, key
	}
}

// stemSeeds are texts whose words take every path of the stemmer:
// camel case (ASCII and not), parts of letters and digits, agent nouns,
// "ies" stems, upper case, other scripts, invalid UTF-8.
var stemSeeds = []string{
	benchText[:2000],
	"StartCPUProfile WithTimeout HTTPRequest utf8String SHA256 sha-256 Go1.22 IPv6 X11Forwarding",
	"Queries QUERIES curried Carried the SCANNER's Runner writers bufio.Scanner json.Encoder NewTicker",
	"Ärger ÜberÄrger straßeNAME ΣΊΣΥΦΟΣ ΑβΓ Σίσυφος İstanbul ǅemal ǈubljana café CAFÉ naïveTÉ",
	"٣٤٥abc ８０８０port ⅫRoman x²y abc\xffdef Bad\xc3Utf \ue000private word",
	"a I go be is it HTTP Linux word drop_caches capture_output happens-before opt-in",
	"-- Happens Before, not nil; set--up the Queries over WRITERS between two goroutines. It happens. Before that",
}

func TestStemSetPartsSameAsReference(t *testing.T) {
	for _, s := range stemSeeds {
		checkStemSetParts(t, s)
	}
}

func FuzzStemSetPartsSameAsReference(f *testing.F) {
	for _, s := range stemSeeds {
		f.Add(s)
	}
	f.Fuzz(checkStemSetParts)
}

func checkStemSetParts(t *testing.T, s string) {
	for _, verbs := range []bool{true, false} {
		if got, want := stemSetParts(s, verbs), referenceStemSetParts(s, verbs); !maps.Equal(got, want) {
			t.Errorf("stemSetParts(%q, %v) = %v, want %v", s, verbs, got, want)
		}
	}
	got, want := map[string]bool{}, map[string]bool{}
	AddCompounds(got, s)
	referenceAddCompounds(want, s)
	if !maps.Equal(got, want) {
		t.Errorf("AddCompounds(%q) = %v, want %v", s, got, want)
	}
	var each []string
	EachStem(s, func(st string) { each = append(each, strings.Clone(st)) })
	set := map[string]bool{}
	for _, st := range each {
		set[st] = true
	}
	if want := StemSetParts(s); !maps.Equal(set, want) {
		t.Errorf("EachStem(%q) gives %v, want %v", s, set, want)
	}
}
