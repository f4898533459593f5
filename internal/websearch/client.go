package websearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/retry"
)

// maxResponse caps a provider's response body.
const maxResponse = 8 << 20

// caller makes a provider's HTTP calls: it classifies failures, retries the
// retryable ones through internal/retry (backoff with jitter, honouring
// Retry-After), and decodes JSON.
type caller struct {
	provider string
	envVar   string
	cfg      *Config
}

// call sends the request newReq builds (once per attempt) and decodes a 2xx
// JSON response into out. Failures are *Error values carrying the number
// of attempts made.
func (c *caller) call(ctx context.Context, newReq func(context.Context) (*http.Request, error), out any) error {
	attempts := 0
	p := retry.Policy{
		Retries:       c.cfg.Retries,
		Backoff:       c.cfg.Backoff,
		MaxBackoff:    c.cfg.MaxRetryAfter,
		MaxRetryAfter: c.cfg.MaxRetryAfter,
		Classify: func(err error) (bool, time.Duration) {
			var e *Error
			if !errors.As(err, &e) {
				return false, 0
			}
			return e.Retryable(), e.RetryAfter
		},
		Clock: c.cfg.Clock,
	}
	err := p.Do(ctx, func(attempt int) error {
		attempts = attempt
		err := c.once(ctx, newReq, out)
		var e *Error
		if errors.As(err, &e) {
			e.Attempts = attempt
		}
		return err
	})
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		// ctx ended a wait between attempts.
		return &Error{Provider: c.provider, Op: "search", Attempts: attempts, Err: err}
	}
	return e // as is, also when its Retry-After was too long to wait
}

func (c *caller) once(ctx context.Context, newReq func(context.Context) (*http.Request, error), out any) error {
	fail := func(status int, err error) *Error {
		return &Error{Provider: c.provider, Op: "search", Status: status, EnvVar: c.envVar, Err: err}
	}
	req, err := newReq(ctx)
	if err != nil {
		return fail(0, err)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", c.cfg.UserAgent)
	}
	resp, err := c.cfg.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fail(0, context.Cause(ctx))
		}
		// Connection refused or reset, a timeout, a truncated response:
		// all worth another try.
		return &Error{Provider: c.provider, Op: "search", Detail: clean(fetch.WithoutResolver(unwrapURL(err)).Error()), Err: ErrUnavailable}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		if ctx.Err() != nil {
			return fail(resp.StatusCode, context.Cause(ctx))
		}
		e := fail(resp.StatusCode, ErrUnavailable)
		e.Detail = "reading the response: " + clean(err.Error())
		return e
	}
	switch s := resp.StatusCode; {
	case s >= 200 && s <= 299:
		if len(body) > maxResponse {
			e := fail(s, ErrMalformed)
			e.Detail = fmt.Sprintf("response larger than %d bytes", maxResponse)
			return e
		}
		if err := json.Unmarshal(body, out); err != nil {
			e := fail(s, ErrMalformed)
			e.Detail = clean(err.Error())
			return e
		}
		return nil
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e := fail(s, ErrAuth)
		e.Detail = errorDetail(body)
		return e
	case s == http.StatusTooManyRequests:
		e := fail(s, ErrRateLimited)
		e.Detail = errorDetail(body)
		e.RetryAfter = retryAfter(resp.Header, c.cfg.Clock.Now())
		return e
	case s >= 500:
		e := fail(s, ErrUnavailable)
		e.Detail = errorDetail(body)
		e.RetryAfter = retryAfter(resp.Header, c.cfg.Clock.Now())
		return e
	default:
		e := fail(s, ErrRejected)
		e.Detail = errorDetail(body)
		return e
	}
}

func unwrapURL(err error) error {
	var ne net.Error
	if errors.As(err, &ne) {
		return ne
	}
	return err
}

// retryAfter reads Retry-After (seconds or an HTTP date, as
// retry.ParseRetryAfter does), else the first figure of X-RateLimit-Reset
// (Brave's seconds until the window resets). It returns 0 when there is
// none.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if d, ok := retry.ParseRetryAfter(h.Get("Retry-After"), now); ok {
		return d
	}
	if v := h.Get("X-RateLimit-Reset"); v != "" {
		first, _, _ := strings.Cut(v, ",")
		if n, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && n > 0 {
			return time.Duration(n) * time.Second
		}
	}
	return 0
}

// errorDetail extracts a provider's error message from a response body:
// the JSON shapes the providers use ({"detail": {"error": ...}} for Tavily,
// {"error": {"detail": ...}} for Brave, {"error": ...} for Exa, ...), else
// the body's text, cleaned and shortened.
func errorDetail(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) == nil {
		if s := findMessage(v, 0); s != "" {
			return clean(s)
		}
	}
	s := string(body)
	if strings.Contains(s, "<") { // an HTML error page: not worth quoting
		return ""
	}
	return clean(s)
}

func findMessage(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		// Chroma: {"error": "NotFoundError", "message": "Collection [x] does not exist"}.
		if kind, ok := v["error"].(string); ok {
			if msg, ok := v["message"].(string); ok && msg != "" {
				return kind + ": " + msg
			}
		}
		for _, k := range []string{"detail", "error", "message", "msg"} {
			if s := findMessage(v[k], depth+1); s != "" {
				return s
			}
		}
	}
	return ""
}

// clean makes provider text safe to put in an error: one line, no control
// characters, at most 300 bytes.
func clean(s string) string {
	s = strings.Join(strings.FieldsFunc(s, isSpaceOrControl), " ")
	s = strings.ToValidUTF8(s, "")
	if len(s) > 300 {
		cut := 300
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func isSpaceOrControl(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar
}
