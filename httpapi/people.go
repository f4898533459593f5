package httpapi

import (
	"net/http"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/runstore"
)

// postInput answers a run's clarifying questions: {"answers": ["…", …]},
// one a question, in order ("" keeps a question's assumption).
func (s *Server) postInput(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.runs.Get(r.Context(), id); err != nil {
		s.fail(w, err)
		return
	}
	var body struct {
		Answers []string `json:"answers"`
	}
	if err := s.decodeJSON(w, r, &body, true); err != nil {
		s.fail(w, err)
		return
	}
	if err := s.runs.Answer(r.Context(), id, body.Answers); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "status": runstore.Running, "urls": runURLs(id)})
}

// getPlan returns the plan a run waits to have reviewed, as its
// plan.review_requested event carries it.
func (s *Server) getPlan(w http.ResponseWriter, r *http.Request) {
	p, err := s.runs.Plan(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// postPlan reviews a run's plan: {"action": "accept"} (the plan as
// proposed), {"action": "reject"}, or a plan ({"tasks": […]}, as GET
// returns it, edited) to research instead.
func (s *Server) postPlan(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.runs.Get(r.Context(), id); err != nil {
		s.fail(w, err)
		return
	}
	var body struct {
		deepresearch.Plan
		Action string `json:"action"`
	}
	if err := s.decodeJSON(w, r, &body, true); err != nil {
		s.fail(w, err)
		return
	}
	var rv deepresearch.PlanReview
	switch body.Action {
	case "reject":
		rv.Reject = true
	case "", "accept":
		if body.Tasks != nil && len(body.Tasks) == 0 {
			s.fail(w, badRequest(`"tasks" is empty: a plan needs at least one task (or leave "tasks" out to accept the plan proposed)`))
			return
		}
		rv.Plan = body.Plan
	default:
		s.fail(w, badRequest("action %q: want accept or reject (or a plan)", body.Action))
		return
	}
	status := runstore.Running
	if rv.Reject {
		// The first plan rejected ends the run; a later cycle's ends its
		// research, and the report is written from what was found.
		if p, err := s.runs.Plan(r.Context(), id); err == nil && p.Cycle <= 1 {
			status = runstore.Failed
		}
	}
	if err := s.runs.Review(r.Context(), id, rv); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "status": status, "urls": runURLs(id)})
}
