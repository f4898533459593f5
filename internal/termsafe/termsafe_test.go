package termsafe

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain, tab\tand newline\n", "plain, tab\tand newline\n"},
		{"\x1b]0;pwned\x07title\x1b[2J", "]0;pwnedtitle[2J"},
		{"C1 \u009b31m and DEL \x7f and a lone \x9b byte", "C1 31m and DEL  and a lone  byte"},
		{"über ✓ \u00a0", "über ✓ \u00a0"},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestJSON(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"q": "a\x1b[2J\u009b\x7fb"})
	got := JSON(in)
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["q"] != "a\x1b[2J\u009b\x7fb" {
		t.Errorf("JSON(%s) = %s: not the same value (%v)", in, got, err)
	}
	if bytes.ContainsAny(got, "\x1b\x7f") || bytes.Contains(got, []byte("\u009b")) {
		t.Errorf("JSON(%s) = %q holds controls", in, got)
	}
}
