package terms

import (
	"fmt"
	"slices"
	"testing"
)

func TestStem(t *testing.T) {
	for w, want := range map[string]string{
		"models": "model", "queries": "query", "elected": "elect", "election": "elect",
		"classes": "class", "status": "status", "analysis": "analysis", "go": "go", "running": "run", "stopped": "stop", "stalls": "stall", "curried": "curry", "currying": "curry",
	} {
		if got := Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestTokens(t *testing.T) {
	if got := Tokens("Happens-Before, SHA-256 & Go1.22!"); !slices.Equal(got, []string{"happens", "before", "sha", "256", "go1", "22"}) {
		t.Errorf("Tokens = %q", got)
	}
}

func TestStemSetParts(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"SHA256 sums", []string{"sha256", "sha", "256", "sum"}},
		{"SHA-256", []string{"sha", "256"}},
		{"utf8 text", []string{"utf8", "utf", "8", "text"}},
		{"plain words", []string{"plain", "word"}},
	} {
		got := StemSetParts(tt.in)
		if len(got) != len(tt.want) {
			t.Errorf("StemSetParts(%q) = %v, want %v", tt.in, got, tt.want)
		}
		for _, w := range tt.want {
			if !got[w] {
				t.Errorf("StemSetParts(%q) = %v, lacks %q", tt.in, got, w)
			}
		}
	}
}

func TestCamelWords(t *testing.T) {
	for in, want := range map[string]string{
		"WithTimeout":     "[With Timeout]",
		"StartCPUProfile": "[Start CPU Profile]",
		"ReadAll":         "[Read All]",
		"HTTPRequest":     "[HTTP Request]",
		"Linux":           "[]",
		"HTTP":            "[]",
		"word":            "[]",
		"utf8String":      "[utf8 String]",
	} {
		if got := fmt.Sprint(collect(eachCamel, in)); got != want {
			t.Errorf("eachCamel(%q) = %s; want %s", in, got, want)
		}
	}
	set := StemSetParts("Use WriteFile, or StartCPUProfile.")
	for _, w := range []string{"writefile", "write", "file", "cpu", "profile"} {
		if !set[Stem(w)] {
			t.Errorf("StemSetParts lacks %q: %v", w, set)
		}
	}
}

func TestCompounds(t *testing.T) {
	if got := fmt.Sprint(Compounds("How does Go define happens-before, and what is read-write or opt-in?")); got != "["+Compound("happens", "before")+" "+Compound("opt", "in")+"]" {
		t.Errorf("Compounds = %s", got)
	}
	set := map[string]bool{}
	AddCompounds(set, "The happens before relation is a partial order.")
	if !set[Compound("happens", "before")] {
		t.Errorf("AddCompounds lacks the compound: %v", set)
	}
	set = map[string]bool{}
	AddCompounds(set, "It happens. Before that, nothing.")
	if set[Compound("happens", "before")] {
		t.Error("a sentence break makes no compound")
	}
}

// TestAgentNounsMeetTheirVerbs: a text's agent noun covers the question's
// verb (csv.reader, bufio.Scanner, json.Encoder, a logger), and a
// question gains no stems its words lack.
func TestAgentNounsMeetTheirVerbs(t *testing.T) {
	for noun, verb := range map[string]string{"csv.reader": "read", "csv.writer": "write", "bufio.Scanner": "scan",
		"json.Encoder": "encode", "ListenAndServe starts a server": "serve", "a logger": "log", "NewTicker": "tick"} {
		if !StemSetParts(noun)[Stem(verb)] {
			t.Errorf("StemSetParts(%q) lacks %q's stem %q: %v", noun, verb, Stem(verb), StemSetParts(noun))
		}
	}
	q := QuestionStems("How do I convert a string to a number?")
	if q["numb"] || q["numbe"] || !q[Stem("number")] {
		t.Errorf("QuestionStems adds stems the question does not hold: %v", q)
	}
	if got := collect(eachAgentVerb, "user"); got != nil {
		t.Errorf("eachAgentVerb(user) = %v, want none for a word under five letters", got)
	}
	if got := fmt.Sprint(collect(eachAgentVerb, "scanner")); got != "[scann scanne scan]" {
		t.Errorf("eachAgentVerb(scanner) = %s, want [scann scanne scan]", got)
	}
}

// collect returns what each gives of s, in order; nil for nothing.
func collect(each func(string, func(string)), s string) []string {
	var out []string
	each(s, func(w string) { out = append(out, w) })
	return out
}
