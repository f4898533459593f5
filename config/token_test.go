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

// TestNATSListenChecked: nats.listen is HOST:PORT, beyond the loopback
// interface only with a nats.token, which is checked as serve.token is and
// never shown.
func TestNATSListenChecked(t *testing.T) {
	for _, tc := range []struct {
		listen, token, want string
	}{
		{"", "", ""},
		{"127.0.0.1:4222", "", ""},
		{"localhost:0", "", ""},
		{"[::1]:4222", "", ""},
		{"0.0.0.0:4222", "0123456789abcdef", ""},
		{"0.0.0.0:4222", "", "nats.token (DEEPRESEARCH_NATS_TOKEN) is required"},
		{":4222", "", "nats.token"},
		{"127.0.0.1", "", "must be HOST:PORT"},
		{"127.0.0.1:99999", "", "must be HOST:PORT"},
		{"127.0.0.1:4222", "short-token", "nats.token = (hidden)"},
		{"127.0.0.1:4222 with a url", "", "with nats.url, leave it empty"},
	} {
		s := Defaults()
		s.NATS.Listen, s.NATS.Token = tc.listen, tc.token
		if l, ok := strings.CutSuffix(tc.listen, " with a url"); ok {
			s.NATS.Listen, s.NATS.URL = l, "nats://127.0.0.1:4222"
		}
		err := s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("listen %q token %q: %v", tc.listen, tc.token, err)
		case tc.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("listen %q token %q: %v; want it refused for %q", tc.listen, tc.token, err, tc.want)
		case tc.token != "" && err != nil && strings.Contains(err.Error(), tc.token):
			t.Errorf("the message shows the token: %v", err)
		}
	}
}
