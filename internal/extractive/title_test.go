package extractive

import "testing"

// TestTitleOf (issue 32): a report's title keeps the question's question
// mark; a title cut short ends in "…" instead, and other final
// punctuation goes.
func TestTitleOf(t *testing.T) {
	tests := []struct{ q, want string }{
		{"How does Raft elect a leader?", "How does Raft elect a leader?"},
		{"  why do goroutines leak?  ", "Why do goroutines leak?"},
		{"What changed?!", "What changed?"},
		{"Tell me about undersea cables.", "Tell me about undersea cables"},
		{"How were the first transatlantic telegraph cables laid, and who repaired them when they failed?",
			"How were the first transatlantic telegraph cables laid?"},
		{"How were the first transatlantic telegraph cables laid and repaired by the ships of the day?",
			"How were the first transatlantic telegraph cables laid and repaired by the…"},
		{"Where can I see, for each memory mapping of a running process, how much of it is resident?",
			"Where can I see, for each memory mapping of a running process,…"},
		{"?", "Research report"},
	}
	for _, tt := range tests {
		if got := titleOf(tt.q); got != tt.want {
			t.Errorf("titleOf(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}
