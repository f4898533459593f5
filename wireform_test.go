package deepresearch_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
)

// TestRootWireForms pins the JSON of the root's value types that are
// stored and sent: a Budget (a journal's manifest, a worker's job), an
// Answer and a Request's answers (the HTTP API, a stored run's request).
// Each decodes back to what was encoded.
func TestRootWireForms(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"budget", deepresearch.Budget{MaxToolCalls: 3, MaxTokens: 100, Timeout: time.Minute},
			`{"MaxToolCalls":3,"MaxTokens":100,"Timeout":60000000000}`},
		{"zero budget", deepresearch.Budget{}, `{"MaxToolCalls":0,"MaxTokens":0,"Timeout":0}`},
		{"answer", deepresearch.Answer{Question: "Which cable?", Answer: "1858"}, `{"question":"Which cable?","answer":"1858"}`},
		{"no answer", deepresearch.Answer{Question: "Which?"}, `{"question":"Which?","answer":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Fatalf("JSON:\n%s\nwant:\n%s", b, tt.want)
			}
			back := reflect.New(reflect.TypeOf(tt.v))
			if err := json.Unmarshal(b, back.Interface()); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.Elem().Interface(), tt.v) {
				t.Fatalf("decoded %+v; want %+v", back.Elem().Interface(), tt.v)
			}
		})
	}
	// A Request carries its answers under "answers"; its Budget is the
	// operator's, never in a request's JSON.
	var req deepresearch.Request
	in := `{"question":"q","answers":[{"question":"Which cable?","answer":"1858"}]}`
	if err := json.Unmarshal([]byte(in), &req); err != nil {
		t.Fatal(err)
	}
	want := []deepresearch.Answer{{Question: "Which cable?", Answer: "1858"}}
	if !reflect.DeepEqual(req.Answers, want) {
		t.Fatalf("decoded answers %+v; want %+v", req.Answers, want)
	}
	b, err := json.Marshal(deepresearch.Request{Question: "q", Answers: want, Budget: deepresearch.Budget{MaxTokens: 5}})
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	if got := string(fields["answers"]); got != `[{"question":"Which cable?","answer":"1858"}]` {
		t.Errorf("a request's answers: %s", got)
	}
	for k := range fields {
		if k == "Budget" || k == "budget" {
			t.Errorf("a request's JSON holds its budget: %s", b)
		}
	}
}
