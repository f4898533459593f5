package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch"
)

// A Forwarder is a Remote that can also pass a request for a run to the
// server process that runs it (natsrun.Remote does, over NATS
// request-reply, to the process whose Server answers it with Answer). With
// one, what only the run's own server can do — its report, its
// cancellation, a person's answers to it — works through any server
// process, as its event stream does: a load balancer may send any request
// anywhere.
type Forwarder interface {
	Remote
	// Ask sends req (Answer's wire form) to the server process that
	// holds run id and returns its answer, or an error when none answered
	// before ctx ended (or none could be asked).
	Ask(ctx context.Context, id string, req []byte) ([]byte, error)
}

// forwardTry bounds the wait for a forwarded request's answer.
const forwardTry = 20 * time.Second

// forwardedHeaders are the request headers a forwarded request carries:
// the credentials, for the other server to check as its own, and what the
// handlers read.
var forwardedHeaders = []string{"Authorization", "Cookie", "Content-Type", "Accept", "Origin", "Sec-Fetch-Site"}

// answerHeaders are the response headers a forwarded answer carries.
var answerHeaders = []string{"Content-Type", "Content-Disposition", "Content-Security-Policy", "Allow", "WWW-Authenticate"}

// forwardRequest is a request for a run as it crosses to another server
// process.
type forwardRequest struct {
	Method string      `json:"method"`
	URI    string      `json:"uri"` // path and query
	Host   string      `json:"host"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body,omitempty"`
}

// forwardAnswer is that server's answer.
type forwardAnswer struct {
	Status int         `json:"status"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body,omitempty"`
}

// forwardedKey marks the context of a request another server process
// forwarded here: it is never forwarded again.
type forwardedKey struct{}

// forwarded passes r, a request for the run named by its path, to the
// server process that runs it, when this one does not hold the run in its
// store and Config.Remote is a Forwarder whose events stream has the run,
// and writes that process's answer. It returns false, having written
// nothing, when r is not to be forwarded or no process answered: the
// handler then answers as for a run it does not hold.
func (s *Server) forwarded(w http.ResponseWriter, r *http.Request) bool {
	f, ok := s.cfg.Remote.(Forwarder)
	if !ok || r.Context().Value(forwardedKey{}) != nil {
		return false
	}
	id := r.PathValue("id")
	if _, err := s.store.Get(r.Context(), id); !errors.Is(err, deepresearch.ErrRunNotFound) {
		return false // this server's run, or a store error its handler reports
	}
	if _, err := f.LastEvent(r.Context(), id); err != nil {
		return false // no process's run, or a cluster the handler finds unreachable too
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err != nil {
		s.fail(w, badRequest("the request body: %v", err))
		return true
	}
	req := forwardRequest{Method: r.Method, URI: r.URL.RequestURI(), Host: r.Host, Header: http.Header{}, Body: body}
	for _, h := range forwardedHeaders {
		if v := r.Header.Values(h); len(v) > 0 {
			req.Header[h] = v
		}
	}
	data, err := json.Marshal(req)
	if err != nil {
		s.fail(w, err)
		return true
	}
	ctx, cancel := context.WithTimeout(r.Context(), forwardTry)
	defer cancel()
	b, err := f.Ask(ctx, id, data)
	var ans forwardAnswer
	if err == nil {
		err = json.Unmarshal(b, &ans)
		if err == nil && (ans.Status < 100 || ans.Status > 599) {
			err = fmt.Errorf("its answer has status %d", ans.Status)
		}
	}
	switch {
	case r.Context().Err() != nil:
		return true // the client left
	case err != nil && ctx.Err() != nil:
		writeError(w, http.StatusGatewayTimeout, typeServer, fmt.Sprintf(
			"run %s runs in another server process, which did not answer within %s (it may have stopped; it resumes the run when it starts again)", id, forwardTry))
		return true
	case err != nil:
		s.log.Error().Err(err).Str("run", id).Msg("forwarding a request to the server process that runs the run")
		writeError(w, http.StatusBadGateway, typeServer, fmt.Sprintf("run %s runs in another server process, which could not be asked: %v", id, err))
		return true
	}
	for _, h := range answerHeaders {
		if v := ans.Header.Values(h); len(v) > 0 {
			w.Header()[h] = v
		}
	}
	w.WriteHeader(ans.Status)
	w.Write(ans.Body) //nolint:errcheck // the client left
	return true
}

// Answer handles req, a request another server process forwarded
// (Forwarder.Ask) for run id, when this server holds the run in its store,
// and returns its answer, at most limit bytes long (0: no limit; a longer
// one says so instead). It returns false, to leave the request to the
// process that holds the run, when this one does not, or req is not one
// (a request of another version, say). The forwarded request goes through
// this server's own checks: its credentials are this server's to accept.
func (s *Server) Answer(ctx context.Context, id string, req []byte, limit int) ([]byte, bool) {
	var fr forwardRequest
	if json.Unmarshal(req, &fr) != nil || fr.Method == "" || len(fr.URI) == 0 || fr.URI[0] != '/' {
		return nil, false
	}
	if path, _, _ := strings.Cut(fr.URI, "?"); path != "/v1/research/"+id && !strings.HasPrefix(path, "/v1/research/"+id+"/") {
		return nil, false // only the run's own endpoints are answered for others
	}
	if _, err := s.store.Get(ctx, id); err != nil {
		return nil, false
	}
	hr, err := http.NewRequestWithContext(context.WithValue(ctx, forwardedKey{}, true), fr.Method, fr.URI, bytes.NewReader(fr.Body))
	if err != nil {
		return nil, false
	}
	hr.Host = fr.Host
	for _, h := range forwardedHeaders {
		if v := fr.Header.Values(h); len(v) > 0 {
			hr.Header[h] = v
		}
	}
	rec := &recorder{header: http.Header{}}
	s.ServeHTTP(rec, hr)
	ans := forwardAnswer{Status: rec.status, Header: http.Header{}, Body: rec.body.Bytes()}
	if ans.Status == 0 {
		ans.Status = http.StatusOK
	}
	for _, h := range answerHeaders {
		if v := rec.header.Values(h); len(v) > 0 {
			ans.Header[h] = v
		}
	}
	out, err := json.Marshal(ans)
	if err == nil && (limit <= 0 || len(out) <= limit) {
		return out, true
	}
	big := &recorder{header: http.Header{}}
	writeError(big, http.StatusBadGateway, typeServer, fmt.Sprintf(
		"run %s: the answer (%d bytes) is larger than one server process can send another (%d); ask the server that runs the run", id, len(out), limit))
	out, _ = json.Marshal(forwardAnswer{Status: big.status, Header: http.Header{"Content-Type": big.header.Values("Content-Type")}, Body: big.body.Bytes()})
	return out, true
}

// recorder is the ResponseWriter of a forwarded request.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *recorder) Header() http.Header { return c.header }
func (c *recorder) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}
func (c *recorder) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}
