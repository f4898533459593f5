package extractive

import (
	"context"
	"testing"
)

// BenchmarkReporter measures one reporter turn over a small research
// conversation (two searches and an open).
func BenchmarkReporter(b *testing.B) {
	m := New(Options{})
	msgs := reporterConversation()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.GenerateContent(context.Background(), msgs); err != nil {
			b.Fatal(err)
		}
	}
}
