package journal

import (
	"context"
	"slices"
	"sync"
)

// MemLog is a Log in memory: for tests, and for replaying a journal read
// from elsewhere (an exported run). It is safe for concurrent use.
type MemLog struct {
	mu   sync.Mutex
	runs map[string][][]byte
}

// Append implements Log.
func (l *MemLog) Append(_ context.Context, run string, entry []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[string][][]byte{}
	}
	l.runs[run] = append(l.runs[run], slices.Clone(entry))
	return nil
}

// Entries implements Log.
func (l *MemLog) Entries(_ context.Context, run string) ([][]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.runs[run]), nil
}
