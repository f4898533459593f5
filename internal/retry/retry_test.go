package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/internal/retry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// flaky fails its first n calls with err (a 503 by default), streaming
// first if told to. It notes the time of each call, so that the waits
// between them can be read off a synctest bubble's clock.
type flaky struct {
	fails       int
	calls       int
	streamFirst bool
	err         error
	at          []time.Time
}

func (f *flaky) GenerateContent(ctx context.Context, _ []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	f.calls++
	f.at = append(f.at, time.Now())
	if f.calls <= f.fails {
		if f.streamFirst && o.StreamingFunc != nil {
			o.StreamingFunc(ctx, []byte("partial"))
		}
		if f.err != nil {
			return nil, f.err
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

// waits returns the time between f's calls: the waits the retries took.
func (f *flaky) waits() []time.Duration {
	var d []time.Duration
	for i := 1; i < len(f.at); i++ {
		d = append(d, f.at[i].Sub(f.at[i-1]))
	}
	return d
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
		{"bad key is not retried", &flaky{fails: 1, err: statusErr(401)}, 3, false, true, 1},
		{"bad request is not retried", &flaky{fails: 1, err: statusErr(400)}, 3, false, true, 1},
		{"429 is retried", &flaky{fails: 1, err: statusErr(429)}, 3, false, false, 2},
		{"connection reset is retried", &flaky{fails: 1, err: fmt.Errorf("send request: %w", syscall.ECONNRESET)}, 3, false, false, 2},
		{"caller's cancellation is not retried", &flaky{fails: 1, err: context.Canceled}, 3, false, true, 1},
	}
	for _, tt := range tests {
		// In a synctest bubble the backoff waits on the bubble's clock.
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var retried []int
				m := &retry.Model{Model: tt.model, Policy: retry.Policy{Retries: tt.retries, Backoff: time.Second,
					OnRetry: func(a int, err error) { retried = append(retried, a) }}}
				var opts []llms.CallOption
				var got string
				if tt.stream {
					opts = append(opts, llms.WithStreamingFunc(func(_ context.Context, c []byte) error { got += string(c); return nil }))
				}
				ctx, counted := retry.WithCounter(context.Background())
				_, err := m.GenerateContent(ctx, nil, opts...)
				if n := counted.Load(); n != len(retried) {
					t.Errorf("the context's Counter counted %d retries, OnRetry saw %d", n, len(retried))
				}
				if (err != nil) != tt.wantErr {
					t.Fatalf("err = %v, want error %v", err, tt.wantErr)
				}
				if tt.model.calls != tt.wantCalls || len(retried) != tt.wantCalls-1 {
					t.Errorf("%d calls, %d retries; want %d calls", tt.model.calls, len(retried), tt.wantCalls)
				}
				for i, w := range tt.model.waits() {
					if lo, hi := time.Second<<i/2, time.Second<<i; w < lo || w > hi {
						t.Errorf("wait %d = %v, want in [%v, %v]", i, w, lo, hi)
					}
				}
			})
		})
	}
}

// httpErr is an error carrying a status and a Retry-After, as
// internal/provider's errors do.
type httpErr struct {
	code  int
	after time.Duration
}

func (e httpErr) Error() string                  { return fmt.Sprintf("status %d", e.code) }
func (e httpErr) StatusCode() int                { return e.code }
func (e httpErr) RetryAfter() time.Duration      { return e.after }
func statusErr(code int) error                   { return httpErr{code: code} }
func retryAfter(code int, d time.Duration) error { return httpErr{code, d} }

func TestBackoff(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		jitter float64
		max    time.Duration
		want   []time.Duration
	}{
		{"doubles, no jitter", statusErr(503), 0, 0, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}},
		{"jitter fills the upper half", statusErr(503), 0.5, 0, []time.Duration{75 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond}},
		{"capped", statusErr(503), 0, 300 * time.Millisecond, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond, 150 * time.Millisecond}},
		{"Retry-After honoured, unjittered", retryAfter(429, 7*time.Second), 0.9, 0, []time.Duration{7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &flaky{fails: 4, err: tt.err}
				m := &retry.Model{Model: f, Policy: retry.Policy{Retries: 4, Backoff: 100 * time.Millisecond, MaxBackoff: tt.max,
					Jitter: func() float64 { return tt.jitter }}}
				if _, err := m.GenerateContent(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(f.waits()) != fmt.Sprint(tt.want) {
					t.Errorf("waits %v, want %v", f.waits(), tt.want)
				}
			})
		})
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		f := &flaky{fails: 1, err: retryAfter(429, time.Hour)}
		m := &retry.Model{Model: f, Policy: retry.Policy{Retries: 3}}
		_, err := m.GenerateContent(context.Background(), nil)
		var he httpErr
		if !errors.As(err, &he) || he.code != 429 || f.calls != 1 || time.Since(start) != 0 {
			t.Fatalf("err %v after %d calls and %v; want the 429 at once", err, f.calls, time.Since(start))
		}
		if !strings.Contains(err.Error(), "asked to wait 1h0m0s, longer than 2m0s") {
			t.Errorf("err %q does not say why it was not retried", err)
		}
	})
}

func TestCancelDuringBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		stop := errors.New("user pressed stop")
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		time.AfterFunc(10*time.Minute, func() { cancel(stop) })
		f := &flaky{fails: 10}
		p := retry.Policy{Retries: 5, Backoff: time.Hour, MaxBackoff: time.Hour}
		err := p.Do(ctx, func(int) error {
			_, err := f.GenerateContent(ctx, nil)
			return err
		})
		if !errors.Is(err, stop) || f.calls != 1 || time.Since(start) != 10*time.Minute {
			t.Fatalf("err %v after %d calls and %v; want the cause when the wait is cut short", err, f.calls, time.Since(start))
		}
	})
}

// stall blocks its first call until ctx is done, then answers.
type stall struct {
	calls int
	at    []time.Time
}

func (s *stall) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	s.calls++
	s.at = append(s.at, time.Now())
	if s.calls == 1 {
		<-ctx.Done()
		return nil, fmt.Errorf("read body: %w", context.Cause(ctx))
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "ok"}}}, nil
}

func (s *stall) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, p, opts...)
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &stall{}
		m := &retry.Model{Model: model, Policy: retry.Policy{Retries: 1, Backoff: time.Second, Jitter: func() float64 { return 0 }},
			AttemptTimeout: time.Minute}
		resp, err := m.GenerateContent(context.Background(), nil)
		if err != nil || resp.Choices[0].Content != "ok" || model.calls != 2 {
			t.Fatalf("resp %v, err %v, %d calls; want ok after a retry", resp, err, model.calls)
		}
		// The stalled attempt is abandoned after a minute, then the
		// backoff (half a second, unjittered) passes.
		if d := model.at[1].Sub(model.at[0]); d != time.Minute+500*time.Millisecond {
			t.Errorf("the retry came %v after the stalled attempt, want 1m0.5s", d)
		}
	})
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		retry bool
		after time.Duration
	}{
		{"429 with Retry-After", fmt.Errorf("openai: %w", retryAfter(429, 3*time.Second)), true, 3 * time.Second},
		{"500", statusErr(500), true, 0},
		{"502", statusErr(502), true, 0},
		{"501", statusErr(501), false, 0},
		{"408", statusErr(408), true, 0},
		{"400", statusErr(400), false, 0},
		{"401", statusErr(401), false, 0},
		{"403", statusErr(403), false, 0},
		{"404", statusErr(404), false, 0},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), false, 0},
		{"caller deadline", context.DeadlineExceeded, false, 0},
		{"attempt timeout", fmt.Errorf("%w: %w", retry.ErrAttemptTimeout, context.DeadlineExceeded), true, 0},
		{"connection reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, true, 0},
		{"connection refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true, 0},
		{"unexpected EOF", fmt.Errorf("error reading streaming response: %w", io.ErrUnexpectedEOF), true, 0},
		{"net timeout", &net.DNSError{IsTimeout: true}, true, 0},
		{"llms rate limit", llms.NewError(llms.ErrCodeRateLimit, "openai", "slow down"), true, 0},
		{"llms auth", llms.NewError(llms.ErrCodeAuthentication, "openai", "bad key"), false, 0},
		{"flattened 429", errors.New("API returned unexpected status code: 429: Rate limit reached"), true, 0},
		{"flattened 401", errors.New("API returned unexpected status code: 401: Incorrect API key"), false, 0},
		{"unknown", errors.New("something odd"), true, 0},
		{"nil", nil, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			retry, after := retry.Classify(tt.err)
			if retry != tt.retry || after != tt.after {
				t.Errorf("Classify(%v) = %v, %v; want %v, %v", tt.err, retry, after, tt.retry, tt.after)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"Sun, 22 Nov 2026 12:00:20 GMT", 20 * time.Second, true},
		{"Sun, 22 Nov 2026 11:00:00 GMT", 0, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := retry.ParseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
