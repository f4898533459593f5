package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/internal/retry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// flaky fails its first n calls, streaming first if told to.
type flaky struct {
	fails       int
	calls       int
	streamFirst bool
}

func (f *flaky) GenerateContent(ctx context.Context, _ []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	f.calls++
	if f.calls <= f.fails {
		if f.streamFirst && o.StreamingFunc != nil {
			o.StreamingFunc(ctx, []byte("partial"))
		}
		return nil, errors.New("503 service unavailable")
	}
	if o.StreamingFunc != nil {
		o.StreamingFunc(ctx, []byte("ok"))
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "ok"}}}, nil
}

func (f *flaky) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, f, p, opts...)
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name      string
		model     *flaky
		retries   int
		stream    bool
		wantErr   bool
		wantCalls int
	}{
		{"succeeds after two failures", &flaky{fails: 2}, 2, false, false, 3},
		{"gives up after the retries", &flaky{fails: 5}, 2, false, true, 3},
		{"no retries", &flaky{fails: 1}, 0, false, true, 1},
		{"streamed failure is not retried", &flaky{fails: 1, streamFirst: true}, 3, true, true, 1},
		{"failure before streaming is retried", &flaky{fails: 1}, 3, true, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var retried []int
			m := &retry.Model{Model: tt.model, Retries: tt.retries, Backoff: time.Millisecond,
				OnRetry: func(a int, err error) { retried = append(retried, a) }}
			var opts []llms.CallOption
			var got string
			if tt.stream {
				opts = append(opts, llms.WithStreamingFunc(func(_ context.Context, c []byte) error { got += string(c); return nil }))
			}
			_, err := m.GenerateContent(context.Background(), nil, opts...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.model.calls != tt.wantCalls || len(retried) != tt.wantCalls-1 {
				t.Errorf("%d calls, %d retries; want %d calls", tt.model.calls, len(retried), tt.wantCalls)
			}
		})
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := &retry.Model{Model: &flaky{fails: 10}, Retries: 5, Backoff: time.Hour,
		OnRetry: func(int, error) { cancel() }}
	if _, err := m.GenerateContent(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}
