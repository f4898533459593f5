package config

import (
	"errors"
	"strings"
	"testing"
)

// TestTokenChecked (issue 18, #2): serve.token is no token, or a secret:
// blanks and short tokens are refused, naming the key and never showing
// the token.
func TestTokenChecked(t *testing.T) {
	for _, tc := range []struct {
		token, want string
	}{
		{"", ""},
		{"0123456789abcdef", ""},
		{" ", "spaces"},
		{"\t", "spaces"},
		{" 0123456789abcdef ", "spaces"},
		{"tok en0123456789ab", "spaces"},
		{"0123456789abcde", "15 characters"},
	} {
		s := Defaults()
		s.Serve.Token = tc.token
		err := s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("token %q: %v", tc.token, err)
		case tc.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "serve.token = (hidden)") || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("token %q: %v; want serve.token refused for %q", tc.token, err, tc.want)
		case tc.want != "" && strings.TrimSpace(tc.token) != "" && strings.Contains(err.Error(), strings.TrimSpace(tc.token)):
			t.Errorf("token %q: the message shows it: %v", tc.token, err)
		}
	}
}
