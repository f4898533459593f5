package engine

import (
	"slices"
	"testing"
)

// TestUncovered: a question whose key terms the best passages hold is
// covered; one that leaves more than a quarter of them unsaid, or names
// something (of five letters or more) no source of the run holds, is not.
func TestUncovered(t *testing.T) {
	const all = "The repair ship drags a grapnel across the seabed. A cable ship lifts the broken cable. Capacity grew after 1988."
	for _, tt := range []struct {
		name, question, best string
		want                 []string
	}{
		{"covered", "What does a repair ship use to lift a broken cable?", "The repair ship lifts the broken cable with a grapnel.", nil},
		{"a short word unsaid", "What does a repair ship use to lift a broken cable?", "A repair ship lifts a broken cable.", nil},
		{"a word never read", "How did capacity grow in terabits?", "Capacity grew after 1988, and the growth", []string{"grow", "terabits"}},
		{"too little said", "Which grapnel lifts broken cables from the seabed?", "The grapnel.", []string{"lifts", "broken", "cables", "seabed"}},
		{"no key term", "What is it?", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := uncovered(tt.question, tt.best, all); !slices.Equal(got, tt.want) {
				t.Errorf("uncovered = %q, want %q", got, tt.want)
			}
		})
	}
}
