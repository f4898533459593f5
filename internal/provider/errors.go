package provider

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Sentinels; every error this package returns wraps one of them or the
// provider's own error.
var (
	ErrUnknownProvider = errors.New("unknown model provider")
	ErrNoKey           = errors.New("no API key")
	ErrBadKey          = errors.New("API key rejected")
	ErrBadRequest      = errors.New("request rejected")
	ErrRateLimited     = errors.New("rate limited")
	ErrUnavailable     = errors.New("provider unavailable")
	// ErrToolsUnsupported: the provider rejected a request because it
	// offered tools. ToolFallback switches to its text protocol on it.
	ErrToolsUnsupported = errors.New("model does not support tool calling")
	// ErrTruncated: a streamed reply ended before its end marker.
	ErrTruncated = errors.New("stream ended early")
	// ErrMalformed: the provider sent a reply that is not its JSON format.
	ErrMalformed = errors.New("malformed reply")
	// ErrNoAnswer: a check call came back empty.
	ErrNoAnswer = errors.New("model returned no answer")
)

// KeyError says which provider lacks a key and which variables could
// supply it.
type KeyError struct {
	Provider string
	Vars     []string // environment variables read, in order
}

func (e *KeyError) Error() string {
	s := fmt.Sprintf("%s: %s: set %s", e.Provider, ErrNoKey, e.Vars[0])
	for _, v := range e.Vars[1:] {
		s += " or " + v
	}
	return s + " (or model.api_key)"
}

func (e *KeyError) Unwrap() error { return ErrNoKey }

// Error is a failed call to a provider: an HTTP status the provider
// answered with, a stream that broke, or the transport's error.
// It tells retry.Classify its status, Retry-After and whether a second try
// may succeed.
type Error struct {
	Provider string
	// Status is the HTTP status, 0 when none came back.
	Status int
	// Type is the provider's own error type or code, when it sent one
	// ("invalid_request_error", "overloaded_error", "INVALID_ARGUMENT").
	Type string
	// Message is what the provider said, trimmed.
	Message string
	// Var names the variable holding the key, for a rejected key.
	Var string
	// Wait is the Retry-After the provider sent, 0 when none.
	Wait time.Duration
	// Kind is the sentinel this error matches: ErrBadKey, ErrBadRequest,
	// ErrToolsUnsupported, ErrRateLimited, ErrUnavailable, ErrTruncated,
	// ErrMalformed, or nil.
	Kind error
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	var s string
	switch {
	case errors.Is(e.Kind, ErrBadKey):
		s = fmt.Sprintf("%s: API key rejected (HTTP %d)", e.Provider, e.Status)
		if e.Var != "" {
			s += ": check " + e.Var + " or model.api_key"
		}
	case errors.Is(e.Kind, ErrToolsUnsupported):
		s = fmt.Sprintf("%s: model does not support tool calling (HTTP %d)", e.Provider, e.Status)
	case errors.Is(e.Kind, ErrBadRequest):
		s = fmt.Sprintf("%s: request rejected (HTTP %d)", e.Provider, e.Status)
	case e.Status != 0:
		s = fmt.Sprintf("%s: HTTP %d %s", e.Provider, e.Status, http.StatusText(e.Status))
	case e.Kind != nil:
		s = fmt.Sprintf("%s: %s", e.Provider, e.Kind)
	default:
		s = e.Provider
	}
	if e.Wait > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.Wait)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the sentinel and the underlying error.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if errors.Is(e.Kind, ErrToolsUnsupported) {
		errs = append(errs, ErrBadRequest)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// StatusCode returns the HTTP status, for retry.Classify.
func (e *Error) StatusCode() int { return e.Status }

// RetryAfter returns the wait the provider asked for, for retry.Classify.
func (e *Error) RetryAfter() time.Duration { return e.Wait }

// Temporary reports whether a second try may succeed, for retry.Classify:
// a broken or garbled stream may, as may a retryable status; a rejected
// key or request may not. Without either it defers to the status.
func (e *Error) Temporary() bool {
	switch {
	case errors.Is(e.Kind, ErrTruncated), errors.Is(e.Kind, ErrMalformed),
		errors.Is(e.Kind, ErrRateLimited), errors.Is(e.Kind, ErrUnavailable):
		return true
	case errors.Is(e.Kind, ErrBadKey), errors.Is(e.Kind, ErrBadRequest):
		return false
	}
	return true
}
