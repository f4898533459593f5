package extractive

import (
	"strings"
	"testing"
)

// BenchmarkNamesLongSentence: the names of one long sentence full of them
// (a document with no full stop) cost time in its length, not its square.
func BenchmarkNamesLongSentence(b *testing.B) {
	s := "See " + strings.Repeat("the Alpha_beta value and os.Open and \"Some Title\" in Documentation/a-b.rst, ", 4000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		names(s)
	}
}
