package terms

import (
	"slices"
	"testing"
)

func TestStem(t *testing.T) {
	for w, want := range map[string]string{
		"models": "model", "queries": "query", "elected": "elect", "election": "elect",
		"classes": "class", "status": "status", "analysis": "analysis", "go": "go", "running": "run", "stopped": "stop", "stalls": "stall", "curried": "curry", "currying": "curry",
	} {
		if got := Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestTokens(t *testing.T) {
	if got := Tokens("Happens-Before, SHA-256 & Go1.22!"); !slices.Equal(got, []string{"happens", "before", "sha", "256", "go1", "22"}) {
		t.Errorf("Tokens = %q", got)
	}
}
