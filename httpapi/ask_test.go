package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

// TestAskEndpoint (issue 33): POST /v1/research/{id}/ask asks a
// follow-up of a finished run; asked for server-sent events, it streams
// the follow-up's events as GET …/events does — no search when the run's
// sources answer — and its answer cites the run's numbers; asked without,
// it answers 202 with the follow-up's URLs, and a question the run's
// sources do not answer is researched, its new source numbered after the
// run's. GET /v1/research/{id}/asks lists the thread with its answers.
func TestAskEndpoint(t *testing.T) {
	e := newEnv(t, envOpts{})
	parent := e.start("How were transatlantic telegraph cables laid and repaired?")
	e.ended(parent.ID)
	refsOf := func(id string) map[string]int {
		t.Helper()
		res := e.do("GET", "/v1/research/"+id+"?format=json", "")
		var doc struct {
			References []render.Reference `json:"references"`
		}
		readJSON(t, res, &doc)
		out := map[string]int{}
		for _, r := range doc.References {
			out[r.ID] = r.Number
		}
		return out
	}
	numbers := refsOf(parent.ID)
	if numbers["engineering/cable-construction.rst"] == 0 || numbers["capacity/capacity-growth.html"] != 0 {
		t.Fatalf("the run cites %v", numbers)
	}

	res := e.do("POST", "/v1/research/"+parent.ID+"/ask", `{"question":"What material insulated the core of the cable?"}`, "Accept", "text/event-stream")
	id := res.Header.Get("X-Deepresearch-Run")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" || id == "" {
		t.Fatalf("POST ask for events: %s %q, run %q", res.Status, res.Header.Get("Content-Type"), id)
	}
	var got []sse
	var end string
	readSSE(t, res.Body, func(s sse) bool {
		switch {
		case s.comment:
		case s.event == "end":
			end = s.data
			return false
		default:
			got = append(got, s)
		}
		return true
	})
	res.Body.Close()
	checkRun(t, e.store, id, got, 1)
	for _, s := range got {
		if s.event == "agent.search" {
			t.Errorf("a follow-up the run's sources answer searched: %s", s.data)
		}
	}
	if !strings.Contains(end, `"status":"finished"`) {
		t.Errorf("the stream ended with %s", end)
	}
	answer := refsOf(id)
	if len(answer) == 0 {
		t.Fatal("the answer cites nothing")
	}
	for doc, n := range answer {
		if numbers[doc] != n {
			t.Errorf("the answer cites %s as [%d]; the run numbers it [%d]", doc, n, numbers[doc])
		}
	}

	res = e.do("POST", "/v1/research/"+id+"/ask", `{"question":"How did the capacity of submarine cables grow in terabits per second?"}`)
	var s struct {
		started
		Parent string `json:"parent"`
	}
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("POST ask: %s", res.Status)
	}
	readJSON(t, res, &s)
	if s.Parent != parent.ID || s.URLs["events"] != "/v1/research/"+s.ID+"/events" || res.Header.Get("Location") != "/v1/research/"+s.ID {
		t.Errorf("POST ask answered %+v", s)
	}
	e.ended(s.ID)
	if n := refsOf(s.ID)["capacity/capacity-growth.html"]; n <= len(numbers) {
		t.Errorf("the new source is [%d]; want a number after the run's %d", n, len(numbers))
	}

	res = e.do("GET", "/v1/research/"+parent.ID+"/asks", "")
	var thread threadView
	readJSON(t, res, &thread)
	if thread.Run != parent.ID || len(thread.FollowUps) != 2 || thread.FollowUps[0].ID != id || thread.FollowUps[1].ID != s.ID {
		t.Fatalf("the thread: %+v", thread)
	}
	for _, f := range thread.FollowUps {
		if f.Status != runstore.Finished || f.Parent != parent.ID || !strings.Contains(f.Answer, "## References") || len(f.References) == 0 {
			t.Errorf("follow-up %s: %s, parent %q, answer %q", f.ID, f.Status, f.Parent, f.Answer)
		}
	}
	res = e.do("GET", "/v1/research/"+s.ID+"/asks", "")
	var again threadView
	readJSON(t, res, &again)
	if again.Run != parent.ID || len(again.FollowUps) != 2 {
		t.Errorf("the thread read from a follow-up: %+v", again)
	}
	// The runs list names the run each follow-up follows (the page marks
	// them).
	var list struct {
		Runs []listedRun `json:"runs"`
	}
	readJSON(t, e.do("GET", "/v1/research", ""), &list)
	parents := map[string]string{}
	for _, r := range list.Runs {
		parents[r.ID] = r.Parent
	}
	if len(parents) != 3 || parents[parent.ID] != "" || parents[id] != parent.ID || parents[s.ID] != parent.ID {
		t.Errorf("the runs list's parents: %v", parents)
	}

	checkError(t, e.do("POST", "/v1/research/nope/ask", `{"question":"why?"}`), http.StatusNotFound, typeNotFound, `no run "nope"`)
	checkError(t, e.do("GET", "/v1/research/nope/asks", ""), http.StatusNotFound, typeNotFound, `no run "nope"`)
	checkError(t, e.do("POST", "/v1/research/"+parent.ID+"/ask", `{"question":" "}`), http.StatusBadRequest, typeInvalid, "question")
	checkError(t, e.do("POST", "/v1/research/"+parent.ID+"/ask", `{"question":"why?","style":"plain"}`), http.StatusBadRequest, typeInvalid, "style")
	if err := e.store.Create(t.Context(), runstore.Run{ID: "queued", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	checkError(t, e.do("POST", "/v1/research/queued/ask", `{"question":"why?"}`), http.StatusConflict, typeConflict, "has no report")
}

// TestChatFollowUp (issue 33): on the OpenAI-compatible endpoint, a user
// message after an answer that was a run's report asks a follow-up of
// that run — its answer cites the report's numbers — and one after that
// follow-up's answer joins the same thread; a conversation whose earlier
// answer no run gave starts a run of its own.
func TestChatFollowUp(t *testing.T) {
	e := newEnv(t, envOpts{maxBody: 1 << 20}) // the history carries the reports
	type completion struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		DeepResearch chatResult `json:"deepresearch"`
	}
	chat := func(msgs ...string) completion {
		t.Helper()
		var b strings.Builder
		for i, m := range msgs {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			q, _ := json.Marshal(m)
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"role":%q,"content":%s}`, role, q)
		}
		res := e.do("POST", "/v1/chat/completions", `{"model":"deepresearch","messages":[`+b.String()+`]}`)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("chat: %s", res.Status)
		}
		var c completion
		readJSON(t, res, &c)
		if len(c.Choices) != 1 || c.DeepResearch.Status != runstore.Finished {
			t.Fatalf("chat answered %+v", c)
		}
		return c
	}
	const q1, q2, q3 = "How were transatlantic telegraph cables laid and repaired?", "What material insulated the core of the cable?", "How do engineers find where a cable is broken?"
	first := chat(q1)
	numbers := map[string]int{}
	for _, r := range first.DeepResearch.References {
		numbers[r.ID] = r.Number
	}
	second := chat(q1, first.Choices[0].Message.Content, q2)
	run, err := e.store.Get(t.Context(), second.DeepResearch.RunID)
	if err != nil || run.Parent != first.DeepResearch.RunID || run.Question != q2 {
		t.Fatalf("the second turn's run: %+v, %v; want a follow-up of %s", run, err, first.DeepResearch.RunID)
	}
	if len(second.DeepResearch.References) == 0 {
		t.Fatal("the follow-up cites nothing")
	}
	for _, r := range second.DeepResearch.References {
		if n, ok := numbers[r.ID]; !ok || r.Number != n {
			t.Errorf("the follow-up cites %s as [%d]; the report numbers it [%d]", r.ID, r.Number, n)
		}
	}
	third := chat(q1, first.Choices[0].Message.Content, q2, second.Choices[0].Message.Content, q3)
	if run, err := e.store.Get(t.Context(), third.DeepResearch.RunID); err != nil || run.Parent != first.DeepResearch.RunID {
		t.Errorf("the third turn's run: %+v, %v; want a follow-up of %s", run, err, first.DeepResearch.RunID)
	}
	other := chat(q1, "an answer no run gave", q2)
	if run, err := e.store.Get(t.Context(), other.DeepResearch.RunID); err != nil || run.Parent != "" || run.Question != q2 {
		t.Errorf("a turn after another answer: %+v, %v; want a run of its own", run, err)
	}
}
