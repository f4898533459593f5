package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// MinTokenLength is the fewest characters of a bearer token (serve.token):
// a token is a secret, not a password to remember.
const MinTokenLength = 16

// ErrToken reports a bearer token that cannot be a secret.
var ErrToken = errors.New("not a usable bearer token")

// CheckToken returns nil for "" (no token) and for a token of at least
// MinTokenLength characters with no spaces or control characters, and an
// error wrapping ErrToken that says what is wrong otherwise: a token of
// blanks, or a short one, would leave a server open while it seemed
// closed.
func CheckToken(tok string) error {
	switch {
	case tok == "":
		return nil
	case strings.IndexFunc(tok, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("%w: it has spaces or control characters; make one with 'openssl rand -hex 16'", ErrToken)
	case len([]rune(tok)) < MinTokenLength:
		return fmt.Errorf("%w: it has %d characters, fewer than %d; make one with 'openssl rand -hex 16'", ErrToken, len([]rune(tok)), MinTokenLength)
	}
	return nil
}
