package httpapi

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/clock"
	"github.com/deepresearch/deepresearch/internal/output"
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

// forwardTry bounds the wait for a forwarded request's answer; the
// server that answers gives it AnswerTry, less, so that it does not act
// on a request its asker has given up on.
const forwardTry = 20 * time.Second

// AnswerTry bounds the answer to one forwarded request (Answer's ctx).
const AnswerTry = 15 * time.Second

// forwardedHeaders are the request headers a forwarded request carries:
// what the handlers read. Credentials do not cross: the forwarding server
// checked them, and signs the request with its token (forwardRequest.MAC)
// for the answering server to check against its own.
var forwardedHeaders = []string{"Content-Type", "Accept", "Origin", "Sec-Fetch-Site"}

// forwardedRoutes are the requests for a run that are forwarded, by
// method and the path after /v1/research/{id}: what only the server that
// runs it can answer.
var forwardedRoutes = map[[2]string]bool{
	{http.MethodGet, ""}: true, {http.MethodDelete, ""}: true,
	{http.MethodGet, "/plan"}: true, {http.MethodPost, "/plan"}: true, {http.MethodPost, "/input"}: true,
}

// answerTypes are the media types a forwarded answer may have: a report's
// formats and JSON. Anything else is not an answer of this API.
var answerTypes = func() map[string]bool {
	m := map[string]bool{"application/json": true}
	for _, f := range output.Formats {
		m[f.MediaType()] = true
	}
	return m
}()

// reportCSP is the policy of the report page (no script, nothing from
// outside), and every forwarded answer is served under it.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

// answerHeaders are the response headers a forwarded answer carries.
var answerHeaders = []string{"Content-Type", "Content-Disposition", "Allow", "WWW-Authenticate"}

// copyHeaders sets dst's names to src's values, for those src has.
func copyHeaders(dst, src http.Header, names []string) {
	for _, h := range names {
		if v := src.Values(h); len(v) > 0 {
			dst[h] = v
		}
	}
}

// forwardRequest is a request for a run as it crosses to another server
// process.
type forwardRequest struct {
	Method string `json:"method"`
	// Route is the path after /v1/research/{id} ("", "/plan", "/input").
	Route  string      `json:"route"`
	Query  string      `json:"query,omitempty"`
	Host   string      `json:"host"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body,omitempty"`
	// Time is when it was forwarded; MAC signs it with the forwarding
	// server's token (none without one).
	Time time.Time `json:"time"`
	MAC  []byte    `json:"mac,omitempty"`
}

// mac is the signature of fr for run id under token: HMAC-SHA256 of what
// the request does and when.
func (fr forwardRequest) mac(id, token string) []byte {
	h := hmac.New(sha256.New, []byte(token))
	body := sha256.Sum256(fr.Body)
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n%s\n%x", id, fr.Method, fr.Route, fr.Query, fr.Time.UTC().Format(time.RFC3339Nano), body)
	return h.Sum(nil)
}

// forwardSkew is how old (or how far ahead) a forwarded request may be.
const forwardSkew = time.Minute

// forwardAnswer is that server's answer.
type forwardAnswer struct {
	Status int         `json:"status"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body,omitempty"`
}

// forwardedKey marks the context of a request another server process
// forwarded here, signed with this server's token: it passes auth (the
// forwarding server checked the client's credentials) and is never
// forwarded again.
type forwardedKey struct{}

// forwarded passes r, a request for the run named by its path, to the
// server process that runs it, when this one does not hold the run in its
// store and Config.Remote is a Forwarder whose events stream has the run,
// and writes that process's answer. It returns false, having written
// nothing, when r is not to be forwarded or no process answered: the
// handler then answers as for a run it does not hold.
func (s *Server) forwarded(w http.ResponseWriter, r *http.Request, route string) bool {
	f, ok := s.cfg.Remote.(Forwarder)
	if !ok || r.Context().Value(forwardedKey{}) != nil || !forwardedRoutes[[2]string{r.Method, route}] {
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
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			writeError(w, http.StatusRequestEntityTooLarge, typeInvalid, fmt.Sprintf("the request body is larger than %d bytes", big.Limit))
			return true
		}
		s.fail(w, badRequest("the request body: %v", err))
		return true
	}
	req := forwardRequest{Method: r.Method, Route: route, Query: r.URL.RawQuery, Host: r.Host, Header: http.Header{},
		Body: body, Time: clock.Real().Now()}
	copyHeaders(req.Header, r.Header, forwardedHeaders)
	if s.cfg.Token != "" {
		req.MAC = req.mac(id, s.cfg.Token)
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
		mt := strings.ToLower(ans.Header.Get("Content-Type"))
		switch {
		case err != nil:
		case ans.Status < 200 || ans.Status > 599:
			err = fmt.Errorf("its answer has status %d", ans.Status)
		case len(ans.Body) > 0 && !answerTypes[mt]:
			err = fmt.Errorf("its answer has content type %q", mt)
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
	copyHeaders(w.Header(), ans.Header, answerHeaders)
	w.Header().Set("Content-Security-Policy", reportCSP)
	w.WriteHeader(ans.Status)
	w.Write(ans.Body) //nolint:errcheck // the client left
	return true
}

// Answer handles req, a request another server process forwarded
// (Forwarder.Ask) for run id, and returns its answer, at most limit bytes
// long (0: no limit; a longer one says so instead). It answers for a run
// this process runs (its cancellation, its plan, a person's answers) or,
// for its report and status, one its store holds; otherwise, or for a
// request that is not one of those (of another version, say), it returns
// false, to leave the request to the process that does. A request must be
// signed with this server's token (when it has one), and recent: the
// forwarding server checked the client's credentials against its own
// token, so servers that forward to each other share serve.token. ctx
// should end within AnswerTry; an answer cut short by it is no answer.
func (s *Server) Answer(ctx context.Context, id string, req []byte, limit int) ([]byte, bool) {
	var fr forwardRequest
	if json.Unmarshal(req, &fr) != nil || !forwardedRoutes[[2]string{fr.Method, fr.Route}] {
		return nil, false
	}
	if _, err := s.store.Get(ctx, id); err != nil {
		return nil, false
	}
	if fr.Method != http.MethodGet || fr.Route != "" {
		s.mu.Lock()
		lr := s.runs[id]
		s.mu.Unlock()
		if lr == nil {
			return nil, false // another process runs it (a store they share)
		}
	}
	rec := &recorder{header: http.Header{}}
	if age := clock.Real().Now().Sub(fr.Time); s.cfg.Token != "" && (!hmac.Equal(fr.MAC, fr.mac(id, s.cfg.Token)) || age > forwardSkew || age < -forwardSkew) {
		writeError(rec, http.StatusUnauthorized, typeAuth, "the server that runs this run does not accept the credentials of the server that forwarded the request (servers that forward to each other need the same serve.token and clocks within a minute)")
	} else {
		uri := "/v1/research/" + url.PathEscape(id) + fr.Route
		if fr.Query != "" {
			uri += "?" + fr.Query
		}
		hr, err := http.NewRequestWithContext(context.WithValue(ctx, forwardedKey{}, true), fr.Method, uri, bytes.NewReader(fr.Body))
		if err != nil {
			return nil, false
		}
		hr.Host = fr.Host
		copyHeaders(hr.Header, fr.Header, forwardedHeaders)
		s.ServeHTTP(rec, hr)
		if ctx.Err() != nil || rec.status == 0 {
			return nil, false
		}
	}
	ans := forwardAnswer{Status: rec.status, Header: http.Header{}, Body: rec.body.Bytes()}
	copyHeaders(ans.Header, rec.header, answerHeaders)
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

// recorder is a ResponseWriter that keeps what a handler answered: a
// forwarded request's answer, the mux's fallback.
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
