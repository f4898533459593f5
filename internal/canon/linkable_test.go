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

func TestLink(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://example.com/a", "https://example.com/a"},
		{"doi:10.1000/XYZ", "https://doi.org/10.1000/xyz"},
		{" DOI:10.1145/3442188.3445922 ", "https://doi.org/10.1145/3442188.3445922"},
		{"arxiv:2401.12345v2", "https://arxiv.org/abs/2401.12345"},
		{"arXiv:hep-th/9901001", "https://arxiv.org/abs/hep-th/9901001"},
		{"doi:not-a-doi", ""},
		{"arxiv:nonsense", ""},
		{"javascript:alert(1)", ""},
		{"mailto:a@example.com", ""},
		{"", ""},
	} {
		if got := Link(tc.url); got != tc.want {
			t.Errorf("Link(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
