package fetch

import (
	"errors"
	"net/http"
	"strconv"
)

// Sentinels every *Error wraps one of. Test for them with errors.Is.
var (
	// ErrBlocked: the address is internal (loopback, private, link-local,
	// CGNAT, cloud metadata, ...) and not on the allowlist.
	ErrBlocked = errors.New("address not allowed")
	// ErrScheme: the URL is not http or https.
	ErrScheme = errors.New("only http and https URLs are fetched")
	// ErrTooLarge: the body is larger than Config.MaxBytes.
	ErrTooLarge = errors.New("page too large")
	// ErrTooManyRedirects: more than Config.MaxRedirects redirects.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrStatus: the server answered with a status other than 2xx.
	ErrStatus = errors.New("unexpected HTTP status")
	// ErrContentType: the page is of a type the fetcher cannot read as text.
	ErrContentType = errors.New("unsupported content type")
	// ErrNoText: the page has no readable text.
	ErrNoText = errors.New("no readable text")
)

// Error reports a fetch that failed: the URL asked for, the step that
// failed ("url", "dial", "redirect", "status", "read", "decode", "extract"),
// and why. Err wraps one of the sentinels above, a context error, or a
// network error.
type Error struct {
	URL  string
	Step string
	Err  error
}

func (e *Error) Error() string {
	return "fetch " + strconv.Quote(e.URL) + ": " + e.Step + ": " + e.Err.Error()
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// StatusError is the reason for an ErrStatus: the status the server
// answered, and the URL that answered it (after redirects). It unwraps to
// ErrStatus.
type StatusError struct {
	Code int
	URL  string
}

func (e *StatusError) Error() string {
	return ErrStatus.Error() + " " + strconv.Itoa(e.Code) + " " + http.StatusText(e.Code) + " from " + e.URL
}

// Unwrap returns ErrStatus.
func (e *StatusError) Unwrap() error { return ErrStatus }

// AddrError is the reason for an ErrBlocked: which host and address were
// refused, and the class of address. It unwraps to ErrBlocked.
type AddrError struct {
	Host   string // the host name or literal the URL named
	Addr   string // the address and port that would have been dialled
	Reason string // "loopback", "private", "link-local", "cloud metadata", ...
}

func (e *AddrError) Error() string {
	s := "refusing " + e.Reason + " address " + e.Addr
	if e.Host != "" && e.Host != e.Addr {
		s += " (" + e.Host + ")"
	}
	return s + "; add HOST:PORT to fetch.allow (--fetch-allow) to open it"
}

// Unwrap returns ErrBlocked.
func (e *AddrError) Unwrap() error { return ErrBlocked }
