// Package vector is what dense retrieval needs and nothing more: the
// Embedder a backend asks for vectors, unit vectors and their similarity,
// a compact encoding for storing them, and reciprocal rank fusion for
// merging a vector ranking with a lexical one. It does no I/O.
package vector

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/tmc/langchaingo/embeddings"
)

// Embedder turns passages and queries into vectors: langchaingo's
// embeddings.Embedder, with the name of its model ("openai:text-embedding-3-small"),
// under which vectors are cached so that one model's vectors are never
// compared with another's. EmbedDocuments gets one batch per call and
// must return one vector per text, in order.
type Embedder interface {
	embeddings.Embedder
	Name() string
}

// Named gives a name to an embeddings.Embedder that has none.
func Named(e embeddings.Embedder, name string) Embedder { return named{e, name} }

type named struct {
	embeddings.Embedder
	name string
}

func (n named) Name() string { return n.name }

// Normalize scales v to unit length in place and returns it; a zero
// vector stays zero (it is similar to nothing).
func Normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Dot is the dot product of two vectors of one length: the cosine
// similarity of unit vectors.
func Dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Encode stores v as little-endian float32s.
func Encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// ErrEncoding reports a stored vector whose bytes are no float32s.
var ErrEncoding = errors.New("vector: stored vector is not a whole number of float32s")

// Decode reads a vector Encode wrote, appending it to dst.
func Decode(dst []float32, b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return dst, fmt.Errorf("%w (%d bytes)", ErrEncoding, len(b))
	}
	for i := 0; i < len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst, nil
}

// RRFOffset is the k of reciprocal rank fusion (Cormack, Clarke and
// Büttcher, 2009): an item ranked r-th (from 1) in a list scores
// 1/(k + r) from it.
const RRFOffset = 60

// Fuse merges rankings of item ids, each best first, by reciprocal rank
// fusion: an item's score is the sum over the rankings it is in of
// 1/(RRFOffset + rank). It returns every item once, best first (ties in
// order of first appearance, list by list), with its score.
func Fuse(rankings ...[]int64) ([]int64, map[int64]float64) {
	score := map[int64]float64{}
	var order []int64
	for _, list := range rankings {
		for r, id := range list {
			if _, seen := score[id]; !seen {
				order = append(order, id)
			}
			score[id] += 1 / float64(RRFOffset+r+1)
		}
	}
	first := make(map[int64]int, len(order))
	for i, id := range order {
		first[id] = i
	}
	slices.SortStableFunc(order, func(a, b int64) int {
		if c := cmp.Compare(score[b], score[a]); c != 0 {
			return c
		}
		return first[a] - first[b]
	})
	return order, score
}
