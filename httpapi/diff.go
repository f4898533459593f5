package httpapi

import "net/http"

// getDiff serves what changed from run {id}'s report to run {other}'s
// (diff.Result) as JSON: 404 when the store holds either run
// not, 409 when either has no report.
func (s *Server) getDiff(w http.ResponseWriter, r *http.Request) {
	d, err := s.runs.Diff(r.Context(), r.PathValue("id"), r.PathValue("other"))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}
