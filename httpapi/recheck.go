package httpapi

import "net/http"

// getRecheck serves run {id}'s report rechecked against today's web
// (recheck.Result) as JSON: each cited web page read again
// through the server's page fetcher and domain policy, and the claims
// that lost their support. 404 when the store holds no such run, 409
// when it has no report. It reads every cited page: a slow answer for a
// report with many sources.
func (s *Server) getRecheck(w http.ResponseWriter, r *http.Request) {
	res, err := s.runs.Recheck(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
