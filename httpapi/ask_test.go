package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
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
			References []deepresearch.Reference `json:"references"`
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
		if f.Status != deepresearch.StatusFinished || f.Parent != parent.ID || !strings.Contains(f.Answer, "## References") || len(f.References) == 0 {
			t.Errorf("follow-up %s: %s, parent %q, answer %q", f.ID, f.Status, f.Parent, f.Answer)
		}
	}
	res = e.do("GET", "/v1/research/"+s.ID+"/asks", "")
	var again threadView
	readJSON(t, res, &again)
	if again.Run != parent.ID || len(again.FollowUps) != 2 {
		t.Errorf("the thread read from a follow-up: %+v", again)
	}

	checkError(t, e.do("POST", "/v1/research/nope/ask", `{"question":"why?"}`), http.StatusNotFound, typeNotFound, `no run "nope"`)
	checkError(t, e.do("GET", "/v1/research/nope/asks", ""), http.StatusNotFound, typeNotFound, `no run "nope"`)
	checkError(t, e.do("POST", "/v1/research/"+parent.ID+"/ask", `{"question":" "}`), http.StatusBadRequest, typeInvalid, "question")
	checkError(t, e.do("POST", "/v1/research/"+parent.ID+"/ask", `{"question":"why?","style":"plain"}`), http.StatusBadRequest, typeInvalid, "style")
	if err := e.store.Create(t.Context(), deepresearch.StoredRun{ID: "queued", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	checkError(t, e.do("POST", "/v1/research/queued/ask", `{"question":"why?"}`), http.StatusConflict, typeConflict, "has no report")
}
