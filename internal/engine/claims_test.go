package engine

import (
	"slices"
	"testing"
)

// TestClaims: findings split into the sentences their markers support;
// markers written after a full stop stay with the sentence before it.
func TestClaims(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"one line", "Ships use grapnels [1]. Splices take ten days [2].",
			[]string{"Ships use grapnels [1].", "Splices take ten days [2]."}},
		{"markers after the stop", "Ships use grapnels. [1] Splices take ten days. [2][3]",
			[]string{"Ships use grapnels. [1]", "Splices take ten days. [2][3]"}},
		{"headings and blank lines", "## Repair\n\nShips use grapnels [1]!\n\n- A list item [2]",
			[]string{"Ships use grapnels [1]!", "- A list item [2]"}},
		{"no stop inside a number", "It costs 1.5 million dollars [1].", []string{"It costs 1.5 million dollars [1]."}},
		{"nothing", "\n\n", nil},
	} {
		if got := claims(c.text); !slices.Equal(got, c.want) {
			t.Errorf("%s: claims(%q) = %q, want %q", c.name, c.text, got, c.want)
		}
	}
}
