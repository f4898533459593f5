package httpapi

import (
	"net/http"
	"strings"

	"github.com/deepresearch/deepresearch"
)

// askBody is the body of POST /v1/research/{id}/ask.
type askBody struct {
	// Question is the follow-up question.
	Question string `json:"question"`
}

// threadView is GET /v1/research/{id}/asks's answer: the run a thread
// follows and its follow-ups, oldest first, each with its answer once it
// has one.
type threadView struct {
	Run       string                  `json:"run"`
	FollowUps []deepresearch.FollowUp `json:"follow_ups"`
}

// postAsk asks a follow-up question of run {id} (deepresearch.Runs.Ask):
// 202 with the follow-up's ID and URLs, a run like any other; with
// Accept: text/event-stream (or application/x-ndjson), its events are
// streamed in the answer as GET …/events streams them, the follow-up's
// ID in the X-Deepresearch-Run header. 404 for a run the store does not
// hold, 409 for one without a report, 400 for a question Validate
// refuses.
func (s *Server) postAsk(w http.ResponseWriter, r *http.Request) {
	var body askBody
	if err := s.decodeJSON(w, r, &body, true); err != nil {
		s.fail(w, err)
		return
	}
	id, err := s.runs.Ask(r.Context(), r.PathValue("id"), body.Question)
	if err != nil {
		s.fail(w, err)
		return
	}
	accept := r.Header.Get("Accept")
	if strings.Contains(accept, "text/event-stream") || strings.Contains(accept, "application/x-ndjson") {
		w.Header().Set("X-Deepresearch-Run", id)
		r.SetPathValue("id", id)
		s.getEvents(w, r)
		return
	}
	run, err := s.runs.Get(r.Context(), id)
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Location", "/v1/research/"+id)
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "status": run.Status, "parent": run.Parent, "urls": runURLs(id)})
}

// getAsks serves the thread of run {id} (of the run it follows, when it
// is a follow-up): threadView, 404 for a run the store does not hold.
func (s *Server) getAsks(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	thread, err := s.runs.Thread(r.Context(), id)
	if err != nil {
		s.fail(w, err)
		return
	}
	run, err := s.runs.Get(r.Context(), id)
	if err != nil {
		s.fail(w, err)
		return
	}
	if run.Parent != "" {
		id = run.Parent
	}
	if thread == nil {
		thread = []deepresearch.FollowUp{}
	}
	writeJSON(w, http.StatusOK, threadView{Run: id, FollowUps: thread})
}
