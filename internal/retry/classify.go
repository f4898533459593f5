package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// Errors from providers may describe themselves to Classify through these
// methods; internal/provider's errors do.
type (
	// StatusCoder is an error that carries the HTTP status of the reply.
	StatusCoder interface{ StatusCode() int }
	// RetryAfterer is an error that carries how long the server asked the
	// caller to wait before trying again (zero when it did not say).
	RetryAfterer interface{ RetryAfter() time.Duration }
	// Temporary is an error that knows whether a second try may succeed.
	Temporary interface{ Temporary() bool }
)

// Classify reports whether a failed model call may succeed if tried again,
// and how long the server asked to wait first (zero when it did not say).
//
// In order: the caller's own cancellation or deadline is final, but
// ErrAttemptTimeout is retried; network timeouts, connection resets and
// refusals, broken pipes and unexpected EOF are retried; an error that says
// Temporary is believed; an HTTP status decides next (408, 425, 429 and 5xx other than 501 are
// retried, other 4xx are not); then langchaingo's llms.Error codes (rate
// limit, unavailable and timeout retried; authentication, invalid request,
// not found, content filter, token limit and quota not); finally the text of errors that langchaingo flattened to
// strings ("status code: 503"). An error nothing recognises is retried, as
// before this classifier existed.
func Classify(err error) (retry bool, after time.Duration) {
	if err == nil {
		return false, 0
	}
	var ra RetryAfterer
	if errors.As(err, &ra) {
		after = ra.RetryAfter()
	}
	if errors.Is(err, ErrAttemptTimeout) {
		return true, after
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false, 0
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true, after
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true, after
	}
	var tmp Temporary
	if errors.As(err, &tmp) {
		return tmp.Temporary(), after
	}
	var sc StatusCoder
	if errors.As(err, &sc) {
		return retryableStatus(sc.StatusCode()), after
	}
	var le *llms.Error
	if errors.As(err, &le) {
		switch le.Code {
		case llms.ErrCodeRateLimit, llms.ErrCodeProviderUnavailable, llms.ErrCodeTimeout:
			return true, after
		case llms.ErrCodeAuthentication, llms.ErrCodeInvalidRequest, llms.ErrCodeResourceNotFound,
			llms.ErrCodeContentFilter, llms.ErrCodeTokenLimit, llms.ErrCodeQuotaExceeded,
			llms.ErrCodeNotImplemented, llms.ErrCodeCanceled:
			return false, 0
		}
	}
	if code, ok := statusInText(err.Error()); ok {
		return retryableStatus(code), after
	}
	return true, after
}

func retryableStatus(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests:
		return true
	case code == http.StatusNotImplemented:
		return false
	case code >= 500:
		return true
	}
	return false
}

// statusInText finds the status langchaingo writes into flattened errors:
// "API returned unexpected status code: 429".
func statusInText(s string) (int, bool) {
	const marker = "status code: "
	i := strings.Index(s, marker)
	if i < 0 {
		return 0, false
	}
	s = s[i+len(marker):]
	j := 0
	for j < len(s) && j < 3 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	code, err := strconv.Atoi(s[:j])
	return code, err == nil && code >= 100
}

// ParseRetryAfter reads an HTTP Retry-After value, either delay-seconds or
// an HTTP date (taken relative to now). It reports false for a value it
// cannot read; a date in the past is a zero wait.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs > 86400 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}
