package agent

import (
	"context"
	"testing"

	"github.com/deepresearch/deepresearch/internal/extractive"
)

// BenchmarkRun measures one research agent end to end over the in-memory
// backend with the extractive model (no latency): the cost of the agent's
// own bookkeeping, tool formatting and citation processing plus the
// extractive model's work.
func BenchmarkRun(b *testing.B) {
	cfg := Config{Model: extractive.New(extractive.Options{}), Search: newMemBackend(corpusDocs...)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), cfg, raftTask); err != nil {
			b.Fatal(err)
		}
	}
}
