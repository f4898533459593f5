package worker_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/worker"
)

// TestWire pins the JSON of a Job and a Result, what crosses the wire
// between a coordinator and its workers: a change here is a change of
// the protocol, which workers of the previous version do not speak.
// Each decodes back to what was encoded.
func TestWire(t *testing.T) {
	job := worker.Job{RunID: "r1", Question: "q?", SearchLimit: 5,
		Task:     worker.Task{Index: 1, ID: "t2", Title: "T", Question: "tq", Cycle: 1},
		Settings: worker.Settings{Model: "openai:m", Judge: "lexical", Channel: "corpus", Pages: true},
		Domains:  &domains.Lists{Allow: []string{"*.gov"}, Deny: []string{"x.com"}}}
	job.Budget.MaxToolCalls, job.Budget.MaxTokens, job.Budget.Timeout = 3, 100, time.Minute
	started := events.Event{RunID: "r1", Seq: 1, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Type: events.AgentStarted,
		Data: events.AgentStartedData{Task: events.PlanTask{ID: "t1"}}}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"job", job, `{"run_id":"r1","question":"q?","search_limit":5,"budget":{"MaxToolCalls":3,"MaxTokens":100,"Timeout":60000000000},` +
			`"task":{"Index":1,"ID":"t2","Title":"T","Question":"tq","Objective":"","Cycle":1,"Part":"","Gap":"","Known":null,"Read":null},` +
			`"settings":{"model":"openai:m","judge":"lexical","channel":"corpus","pages":true},"domains":{"allow":["*.gov"],"deny":["x.com"]}}`},
		{"bare job", worker.Job{RunID: "r1", Task: worker.Task{ID: "t1", Question: "q"}},
			`{"run_id":"r1","question":"","search_limit":0,"budget":{"MaxToolCalls":0,"MaxTokens":0,"Timeout":0},` +
				`"task":{"Index":0,"ID":"t1","Title":"","Question":"q","Objective":"","Cycle":0,"Part":"","Gap":"","Known":null,"Read":null}}`},
		{"failed", worker.Result{Failure: &worker.Failure{Kind: events.FailTimeout, Error: "late"},
			Spent: events.Usage{Calls: 1, PromptTokens: 10, CompletionTokens: 2}, DurationMS: 7, Events: []events.Event{started}},
			`{"failure":{"kind":"timeout","error":"late"},"spent":{"prompt_tokens":10,"completion_tokens":2,"calls":1},"duration_ms":7,` +
				`"events":[{"run_id":"r1","seq":1,"time":"2026-01-02T03:04:05Z","type":"agent.started","agent":0,"section":"","data":{"task":{"index":0,"id":"t1","title":"","question":""}}}]}`},
		{"wrote", worker.Result{Output: &worker.Output{Report: "r [1]", Texts: map[int]string{1: "x"}, Usage: events.Usage{Calls: 1}, ToolCalls: 2}, DurationMS: 9},
			`{"output":{"Task":{"Index":0,"ID":"","Title":"","Question":"","Objective":"","Cycle":0,"Part":"","Gap":"","Known":null,"Read":null},` +
				`"Report":"r [1]","Sources":null,"Texts":{"1":"x"},"Relevance":null,"Cited":null,"Unknown":null,` +
				`"Usage":{"prompt_tokens":0,"completion_tokens":0,"calls":1},"ToolCalls":2},"duration_ms":9,"events":null}`},
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
			if again, _ := json.Marshal(back.Elem().Interface()); string(again) != tt.want {
				t.Fatalf("decoded and encoded again:\n%s\nwant:\n%s", again, tt.want)
			}
		})
	}
}
