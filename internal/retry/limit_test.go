package retry_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/retry"
)

// gate counts concurrent calls and holds each until released.
type gate struct {
	mu        sync.Mutex
	now, peak int
	entered   chan struct{}
	release   chan struct{}
}

func (g *gate) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	g.mu.Lock()
	g.now++
	g.peak = max(g.peak, g.now)
	g.mu.Unlock()
	g.entered <- struct{}{}
	<-g.release
	g.mu.Lock()
	g.now--
	g.mu.Unlock()
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "ok"}}}, nil
}

func (g *gate) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, g, p, opts...)
}

func TestLimitedCapsConcurrency(t *testing.T) {
	g := &gate{entered: make(chan struct{}, 8), release: make(chan struct{})}
	m := &retry.Limited{Model: g, Limiter: retry.NewLimiter(2)}
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if _, err := m.GenerateContent(context.Background(), nil); err != nil {
				t.Error(err)
			}
		})
	}
	// Two calls enter; the others wait until a slot is released.
	<-g.entered
	<-g.entered
	for range 6 {
		g.release <- struct{}{}
	}
	wg.Wait()
	if g.peak != 2 {
		t.Errorf("peak concurrency %d, want 2", g.peak)
	}
}

func TestLimiterAcquireHonoursContext(t *testing.T) {
	l := retry.NewLimiter(1)
	if err := l.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire on a full limiter with a done context = %v, want context.Canceled", err)
	}
	l.Release()
	if retry.NewLimiter(0) != nil {
		t.Error("NewLimiter(0) should mean no cap (nil)")
	}
}
