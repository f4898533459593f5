package canon

import "testing"

func TestLinkable(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://example.com/a", true},
		{"HTTP://example.com", true},
		{"file:///usr/share/doc/x.md", true},
		{"javascript:alert(document.domain)", false},
		{"JavaScript:alert(1)", false},
		{"data:text/html,<script>alert(1)</script>", false},
		{"vbscript:msgbox", false},
		{"//example.com/a", false},
		{"/relative/path", false},
		{"https://", false},
		{"https:example.com", false},
		{"https://exa mple.com", false},
		{"https://example.com/\x1b[31m", false},
		{"", false},
		{"mailto:a@example.com", false},
	} {
		if got := Linkable(tc.url); got != tc.want {
			t.Errorf("Linkable(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}
