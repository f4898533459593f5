package verify

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchInput builds a report of about size bytes citing 50 sources of
// about 5 KB each, one citation per sentence, built from the labelled
// set's passages and sentences.
func benchInput(b *testing.B, size int) (string, []Source) {
	ps, cs := loadSupportSet(b, "claims.json")
	var srcs []Source
	for i := range 50 {
		p := ps[i%len(ps)]
		text := strings.Repeat(p.Text+"\n\n", max(1, 5000/len(p.Text)))
		srcs = append(srcs, Source{Number: i + 1, URL: fmt.Sprintf("https://go.dev/doc/%d", i), Text: text})
	}
	var r strings.Builder
	r.WriteString("# Report\n\n")
	for i := 0; r.Len() < size; i++ {
		c := cs[i%len(cs)]
		n := 1
		for j, p := range ps {
			if p.ID == c.Passage {
				n = j + 1
			}
		}
		n += len(ps) * ((i / len(cs)) % 3)
		fmt.Fprintf(&r, "%s [%d]. ", strings.TrimSuffix(c.Sentence, "."), n)
		if i%5 == 4 {
			r.WriteString("\n\n")
		}
	}
	return r.String(), srcs
}

// BenchmarkCheck measures a whole check of a 150 KB report (about 1,000
// citations) and of one four times larger.
func BenchmarkCheck(b *testing.B) {
	for _, size := range []int{150 << 10, 600 << 10} {
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			report, srcs := benchInput(b, size)
			b.SetBytes(int64(len(report)))
			b.ReportAllocs()
			var n int
			for b.Loop() {
				res, err := Check(context.Background(), report, srcs, Options{})
				if err != nil {
					b.Fatal(err)
				}
				n = res.Summary.Citations
			}
			b.ReportMetric(float64(n), "citations")
		})
	}
}
