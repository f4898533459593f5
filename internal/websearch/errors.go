package websearch

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinels every *Error wraps one of. Test for them with errors.Is.
var (
	// ErrNoKey: the provider needs an API key (or an address) and none is set.
	ErrNoKey = errors.New("not configured")
	// ErrAuth: the provider rejected the key (HTTP 401 or 403).
	ErrAuth = errors.New("API key rejected")
	// ErrRateLimited: HTTP 429, still failing after the retries.
	ErrRateLimited = errors.New("rate limited")
	// ErrUnavailable: HTTP 5xx, a reset connection or a timeout, still
	// failing after the retries.
	ErrUnavailable = errors.New("service unavailable")
	// ErrRejected: the provider rejected the request (another 4xx).
	ErrRejected = errors.New("request rejected")
	// ErrMalformed: the response is not the provider's JSON.
	ErrMalformed = errors.New("malformed response")
	// ErrUnknownProvider: a provider name that is not one of Providers.
	ErrUnknownProvider = errors.New("unknown search provider")
)

// Error reports a failed call to a search provider: which provider, what
// operation, the HTTP status (0 when there was no response), what the
// provider said, and for key problems the variable to set. Err wraps one of
// the sentinels above or a context error.
type Error struct {
	Provider string // "searxng", "tavily", "brave", "exa"
	Op       string // "search", "fetch", "config"
	Status   int
	// Detail is the provider's own message, cleaned and shortened.
	Detail string
	// EnvVar is the variable that configures the provider, for ErrNoKey
	// and ErrAuth.
	EnvVar string
	// RetryAfter is how long the provider asked to wait (429, 503).
	RetryAfter time.Duration
	// Attempts is how many requests were made.
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "websearch: %s %s: %v", e.Provider, e.Op, e.Err)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, ": %s", e.Detail)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	switch {
	case errors.Is(e.Err, ErrNoKey) && e.EnvVar != "":
		fmt.Fprintf(&b, "; set %s", e.EnvVar)
	case errors.Is(e.Err, ErrAuth) && e.EnvVar != "":
		fmt.Fprintf(&b, "; check %s", e.EnvVar)
	}
	return b.String()
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether trying again later may succeed.
func (e *Error) Retryable() bool {
	return errors.Is(e.Err, ErrRateLimited) || errors.Is(e.Err, ErrUnavailable)
}
