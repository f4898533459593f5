package agent

import (
	"slices"
	"testing"
)

func TestParseQuestions(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		want        []string
	}{
		{"none", `{"questions":[]}`, nil},
		{"object", `{"questions":[{"question":"Which Mercury?","assumption":"the planet"}]}`, []string{"Which Mercury?"}},
		{"fenced with prose", "Here:\n```json\n{\"questions\":[\"Which year?\",\"Which country?\"]}\n```\nThanks", []string{"Which year?", "Which country?"}},
		{"bare array", `["A?", {"text":"B?","default":"b"}]`, []string{"A?", "B?"}},
		{"capped at three, blanks and repeats dropped", `{"questions":["A?","","A?","B?","C?","D?"]}`, []string{"A?", "B?", "C?"}},
		{"prose only", "The question is clear.", nil},
		{"broken", `{"questions":[`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, q := range parseQuestions(tc.reply) {
				got = append(got, q.Question)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if q := parseQuestions(`["x", {"text":"B?","default":"b"}]`); q[1].Assumption != "b" {
		t.Errorf("assumption %q", q[1].Assumption)
	}
}
