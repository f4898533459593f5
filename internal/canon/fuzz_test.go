package canon

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCanonicalIdempotent checks the invariants of Canonical on any input:
// it does not panic, it fails only with a *URLError wrapping
// ErrMalformedURL, Key agrees with it, canonicalising a canonical URL
// changes nothing, and an https result is a URL net/url reads back with the
// same scheme and a host.
func FuzzCanonicalIdempotent(f *testing.F) {
	for _, tc := range canonCases {
		f.Add(tc.in)
	}
	for _, tc := range canonBadCases {
		f.Add(tc.in)
	}
	for _, group := range canonGroups {
		for _, in := range group {
			f.Add(in)
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Canonical(in)
		if k := Key(in); k != got {
			t.Fatalf("Key(%q) = %q, Canonical gave %q, %v", in, k, got, err)
		}
		if err != nil {
			var ue *URLError
			if !errors.As(err, &ue) || ue.URL != in || !errors.Is(err, ErrMalformedURL) {
				t.Fatalf("Canonical(%q): error %#v is not a *URLError for the input wrapping ErrMalformedURL", in, err)
			}
			if got != "" {
				t.Fatalf("Canonical(%q) returned %q with its error", in, got)
			}
			return
		}
		if got == "" || !utf8.ValidString(got) {
			t.Fatalf("Canonical(%q) = %q: empty or invalid UTF-8", in, got)
		}
		again, err := Canonical(got)
		if err != nil {
			t.Fatalf("Canonical(%q) = %q, then error %v", in, got, err)
		}
		if again != got {
			t.Fatalf("Canonical(%q) = %q, then %q", in, got, again)
		}
		if strings.HasPrefix(got, "https://") {
			u, err := url.Parse(got)
			if err != nil || u.Scheme != "https" || u.Host == "" {
				t.Fatalf("Canonical(%q) = %q, which net/url reads as %#v, %v", in, got, u, err)
			}
		}
	})
}
