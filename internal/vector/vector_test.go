package vector

import (
	"fmt"
	"math"
	"testing"
)

func TestFuse(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rankings [][]int64
		want     string
	}{
		{"one list keeps its order", [][]int64{{3, 1, 2}}, "[3 1 2]"},
		{"agreement wins", [][]int64{{1, 2, 3}, {3, 2, 4}}, "[3 2 1 4]"},
		{"ties keep first appearance", [][]int64{{1, 2}, {2, 1}}, "[1 2]"},
		{"only in the second list", [][]int64{{}, {7, 8}}, "[7 8]"},
	} {
		got, score := Fuse(tc.rankings...)
		if fmt.Sprint(got) != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, got, tc.want)
		}
		for k := 1; k < len(got); k++ {
			if score[got[k]] > score[got[k-1]] {
				t.Errorf("%s: not best first: %v", tc.name, score)
			}
		}
	}
	if _, s := Fuse([]int64{5}); math.Abs(s[5]-1.0/61) > 1e-12 {
		t.Errorf("score of rank 1: %v, want 1/61", s[5])
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	v := []float32{0, -1.5, 3.25, float32(math.Inf(1)), 1e-30}
	got, err := Decode(nil, Encode(v))
	if err != nil || fmt.Sprint(got) != fmt.Sprint(v) {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := Decode(nil, []byte{1, 2, 3}); err == nil {
		t.Error("3 bytes decoded")
	}
}

func TestNormalize(t *testing.T) {
	v := Normalize([]float32{3, 4})
	if math.Abs(float64(Dot(v, v))-1) > 1e-6 || math.Abs(float64(v[0])-0.6) > 1e-6 {
		t.Errorf("%v", v)
	}
	if z := Normalize([]float32{0, 0}); z[0] != 0 || z[1] != 0 {
		t.Errorf("zero vector became %v", z)
	}
}
