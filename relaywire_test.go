package deepresearch

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/relay"
	"github.com/deepresearch/deepresearch/runstore"
)

// TestRelayWire pins the JSON of what Runs relays through a shared store
// (a person's word, the owner's outcome), which processes of the previous
// version read and write: a change here is a change of the protocol. Each
// outcome turns back into the error it was made of, and a relayed review
// back into the review.
func TestRelayWire(t *testing.T) {
	review := func(rv PlanReview) relay.Request {
		req, err := reviewRequest(rv)
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	rv := PlanReview{Plan: Plan{Question: "q <&>", Tasks: []events.PlanTask{{Title: "T", Question: "tq"}}, MaxCycles: 2}}
	words := []struct {
		name string
		v    any
		want string
	}{
		{"cancel", relay.Request{Kind: relay.Cancel}, `{"kind":"cancel"}`},
		{"answer", relay.Request{Kind: relay.Answer, Answers: []string{"the Atlantic", ""}}, `{"kind":"answer","answers":["the Atlantic",""]}`},
		{"review", review(rv),
			`{"kind":"review","review":{"Reject":false,"Plan":{"question":"q \u003c\u0026\u003e","tasks":[{"index":0,"id":"","title":"T","question":"tq"}],"max_cycles":2}}}`},
		{"reject", review(PlanReview{Reject: true}),
			`{"kind":"review","review":{"Reject":true,"Plan":{"tasks":null}}}`},
	}
	for _, w := range words {
		b, err := json.Marshal(w.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != w.want {
			t.Errorf("%s:\n%s\nwant:\n%s", w.name, b, w.want)
		}
	}
	outcomes := []struct {
		name string
		err  error
		want string
	}{
		{"taken", nil, `{}`},
		{"invalid", &RequestError{Field: "answers", Problem: "is too long"}, `{"refused":"invalid","field":"answers","problem":"is too long"}`},
		{"not waiting", &RunsError{Run: "r1", Err: ErrNotWaiting, Problem: "run r1 waits for nobody"}, `{"refused":"not_waiting","problem":"run r1 waits for nobody"}`},
		{"not found", runstore.ErrNotFound, `{"refused":"not_found","problem":"` + runstore.ErrNotFound.Error() + `"}`},
		{"other", errors.New("disk full"), `{"refused":"error","problem":"disk full"}`},
	}
	for _, o := range outcomes {
		out := outcome(o.err)
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != o.want {
			t.Errorf("%s:\n%s\nwant:\n%s", o.name, b, o.want)
		}
		back := outcomeErr(out, "r1")
		switch {
		case o.err == nil:
			if back != nil {
				t.Errorf("%s: back as %v", o.name, back)
			}
		case o.name == "other":
			if back == nil || errors.Is(back, o.err) {
				t.Errorf("%s: back as %v; want an error saying what the owner answered", o.name, back)
			}
		default:
			var sentinel error
			var bad *RequestError
			if errors.As(o.err, &bad) {
				if !errors.As(back, &bad) || bad.Field != "answers" {
					t.Errorf("%s: back as %v", o.name, back)
				}
				continue
			}
			for _, s := range relayErrors {
				if errors.Is(o.err, s) {
					sentinel = s
				}
			}
			if !errors.Is(back, sentinel) {
				t.Errorf("%s: back as %v; want %v", o.name, back, sentinel)
			}
		}
	}
	var back PlanReview
	if err := json.Unmarshal(review(rv).Review, &back); err != nil || back.Plan.Question != rv.Plan.Question || len(back.Plan.Tasks) != 1 || back.Plan.MaxCycles != 2 {
		t.Errorf("the review relayed reads back as %+v (%v)", back, err)
	}
}
