package relevance

import (
	"hash/fnv"
	"strings"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// Near-duplicate detection: word shingles of shingleWords words. Two
// passages of different sources are duplicates when the Jaccard
// similarity of their shingle sets reaches dupJaccard, or when the smaller
// set is contained in the larger one to dupContainment (an excerpt of a
// page published whole elsewhere).
const (
	shingleWords   = 4
	dupJaccard     = 0.6
	dupContainment = 0.85
	minShingles    = 4
)

// shingles hashes the word shingles of text (lower-cased words, all
// punctuation ignored), so that formatting and case do not matter.
func shingles(text string) map[uint64]bool {
	ws := terms.Tokens(text)
	out := map[uint64]bool{}
	if len(ws) < shingleWords {
		if len(ws) > 0 {
			out[hash(strings.Join(ws, " "))] = true
		}
		return out
	}
	for i := 0; i+shingleWords <= len(ws); i++ {
		out[hash(strings.Join(ws[i:i+shingleWords], " "))] = true
	}
	return out
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// similar reports whether two shingle sets are near-duplicates.
func similar(a, b map[uint64]bool) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return false
	}
	inter := 0
	for h := range a {
		if b[h] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if float64(inter) >= dupJaccard*float64(union) {
		return true
	}
	return len(a) >= minShingles && float64(inter) >= dupContainment*float64(len(a))
}

// duplicate returns the key of a kept passage of another source that sh
// repeats.
func (f *Filter) duplicate(key string, sh map[uint64]bool) (string, bool) {
	for _, k := range f.kept {
		if k.key != key && similar(sh, k.shingles) {
			return k.key, true
		}
	}
	return "", false
}
