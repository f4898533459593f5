package sqlitestore

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/deepresearch/deepresearch/events"
)

// BenchmarkAppend appends events of a typical size (a 300-byte delta) from
// 100 runs at once, as 100 concurrent research runs do: the cost per event
// of the group-committed log.
//
//	go test ./sqlitestore -run '^$' -bench Append
func BenchmarkAppend(b *testing.B) {
	const runs = 100
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "runs.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	text := strings.Repeat("Cables are repaired by ships. ", 10)
	ids := make([]string, runs)
	for i := range ids {
		ids[i] = fmt.Sprintf("run-%03d", i)
		mustCreateB(b, s, ids[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	per := b.N/runs + 1
	for _, id := range ids {
		wg.Go(func() {
			for seq := 1; seq <= per; seq++ {
				if err := s.Append(b.Context(), ev(id, uint64(seq), events.DeltaData{Text: text})); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(per*runs), "ns/event")
}

func mustCreateB(b *testing.B, s *Store, id string) {
	if err := s.Create(b.Context(), Run{ID: id, Question: "q"}); err != nil {
		b.Fatal(err)
	}
}
