package relevance

import (
	"context"
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

// duplicate returns the kept passage of another source that sh repeats.
func (f *Filter) duplicate(key string, sh map[uint64]bool) (kept, bool) {
	for _, k := range f.kept {
		if k.key != key && similar(sh, k.shingles) {
			return k, true
		}
	}
	return kept{}, false
}

// sameDocument reports whether the documents a and b, two of whose
// passages repeat each other, repeat each other as a whole: always, when
// Config.Whole cannot tell (not set, no DocID, a read failed).
func (f *Filter) sameDocument(ctx context.Context, a, b string) bool {
	if f.cfg.Whole == nil || a == "" || b == "" || a == b {
		return true
	}
	sa, sb := f.wholeShingles(ctx, a), f.wholeShingles(ctx, b)
	if sa == nil || sb == nil {
		return true
	}
	return similar(sa, sb)
}

func (f *Filter) wholeShingles(ctx context.Context, id string) map[uint64]bool {
	if sh, ok := f.whole[id]; ok {
		return sh
	}
	if f.whole == nil {
		f.whole = map[string]map[uint64]bool{}
	}
	text, err := f.cfg.Whole(ctx, id)
	var sh map[uint64]bool
	if err == nil && text != "" {
		sh = shingles(text)
	}
	f.whole[id] = sh
	return sh
}

// Read is one source as an agent read it, for CopiesAcross: its key (the
// canonical URL, or "id:" and the document ID) and the text the agent was
// shown of it (search passages, the opened document).
type Read struct {
	Key  string
	Text string
}

// CopiesAcross finds the sources that repeat a source read before them
// under another key: the same text under two names or on two sites, kept
// by two agents whose filters never saw each other's sources. reads lists
// every agent's sources, agent by agent in plan order, each agent's in
// the order it numbered them. It returns, for each source that repeats an
// earlier one, the index (in reads) of the first of them; a source
// repeated by several is the original of each. The comparison is the
// filter's own (word shingles, Jaccard or containment; see similar), so
// an excerpt of a page another agent opened whole is a copy too.
//
// Cost: shingling every text once, then comparing each with the sources
// before it: quadratic in the number of sources of a run (a few dozen).
func CopiesAcross(reads []Read) map[int]int {
	out := map[int]int{}
	sh := make([]map[uint64]bool, len(reads))
	for i, r := range reads {
		sh[i] = shingles(r.Text)
		for j := range i {
			if _, copied := out[j]; copied || reads[j].Key == r.Key {
				continue
			}
			if similar(sh[i], sh[j]) {
				out[i] = j
				break
			}
		}
	}
	return out
}
