package excerpt

import (
	"math"
	"slices"
	"testing"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// referenceScorer is Score as it was computed before the Scorer asked a
// unit only for its weighted stems: the unit's and its heading's whole
// stem sets (terms.StemSetFor), rarities counted over those of every
// unit.
func referenceScorer(weight map[string]float64, units []Unit) func(Unit) float64 {
	df := map[string]int{}
	for _, v := range units {
		for st := range terms.StemSetFor(v.Text, weight) {
			if weight[st] > 0 {
				df[st]++
			}
		}
	}
	var stems []string
	for st := range weight {
		stems = append(stems, st)
	}
	slices.Sort(stems)
	idf, total := map[string]float64{}, 0.0
	for _, st := range stems {
		idf[st] = math.Log(1 + (float64(len(units))+1)/float64(df[st]+1))
		total += weight[st] * idf[st]
	}
	return func(u Unit) float64 {
		if total == 0 {
			return 0
		}
		body, head := terms.StemSetFor(u.Text, weight), terms.StemSetFor(u.Heading, weight)
		got := 0.0
		for _, st := range stems {
			switch {
			case body[st]:
				got += weight[st] * idf[st]
			case head[st]:
				got += weight[st] * idf[st] / 2
			}
		}
		return got / total
	}
}

// TestScoreSameAsReference: scores are the very numbers the stem sets
// gave, for plain stems, compounds, an agent noun's verb and more stems
// than a word of bits holds, and Cut's scores (each unit stemmed once)
// are Score's.
func TestScoreSameAsReference(t *testing.T) {
	units := Units(referencePage(60_000))
	many := Weights("", "How does the scheduler's WithTimeout deadline limit a request? The happens-before relation of replicated logs.")
	for _, w := range benchWords {
		if _, ok := many[terms.Stem(w)]; !ok {
			many[terms.Stem(w)] = 0.5
		}
	}
	many[terms.Compound("the", "process")] = 1
	many[terms.Compound("process", "the")] = 1
	many["read"] = 1 // "reader"'s verb
	if len(many) <= 64 {
		t.Fatalf("%d weighted stems: the test wants more than a word of bits", len(many))
	}
	for name, weight := range map[string]map[string]float64{
		"question": Weights("leader election timeouts", "How does the scheduler's WithTimeout deadline limit a request?"),
		"many":     many,
		"none":     Weights("", "zebra"),
	} {
		s, held := newScorer(weight, units, true)
		ref := referenceScorer(weight, units)
		for i, u := range units {
			want := ref(u)
			if got := s.Score(u); got != want {
				t.Fatalf("%s: Score(unit %d) = %v, want %v", name, i, got, want)
			}
			head := s.newBits()
			s.mark(u.Heading, head)
			if got := s.scoreHeld(held[i*s.words():(i+1)*s.words()], head); got != want {
				t.Fatalf("%s: the held score of unit %d = %v, want %v", name, i, got, want)
			}
		}
	}
}
