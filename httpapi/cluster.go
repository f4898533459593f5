package httpapi

import (
	"context"
	"net/http"
)

// ClusterFunc says what the cluster a server belongs to holds: its
// servers and workers alive, the tasks waiting and running per run, the
// runs' leases (natsrun.Survey gives one), as a value GET /v1/cluster
// writes as JSON.
type ClusterFunc func(ctx context.Context) (any, error)

// getCluster answers GET /v1/cluster from Config.Cluster; a server that
// is part of no cluster has none (404).
func (s *Server) getCluster(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Cluster == nil {
		writeError(w, http.StatusNotFound, typeNotFound, "this server is part of no cluster (nats.url is not set)")
		return
	}
	v, err := s.cfg.Cluster(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}
