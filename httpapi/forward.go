package httpapi

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
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
	// holds run id and returns the first answer accept takes, or an error
	// when none answered so before ctx ended (or none could be asked).
	// Whatever else can answer on the way (any client of a NATS cluster)
	// is told from the owner by accept: the answer's MAC.
	Ask(ctx context.Context, id string, req []byte, accept func(answer []byte) bool) ([]byte, error)
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
	// Nonce is random and new for each request: the answering server
	// answers a nonce once (within forwardSkew), and signs it into the
	// answer, which the forwarding server then knows for the answer to
	// its own request.
	Nonce  []byte `json:"nonce"`
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
// the request does (its method, route, query, host, forwarded headers and
// body), when, and its nonce.
func (fr forwardRequest) mac(id, token string) []byte {
	h := hmac.New(sha256.New, []byte(token))
	body := sha256.Sum256(fr.Body)
	fmt.Fprintf(h, "request\n%q\n%q\n%q\n%q\n%q\n%s\n%x\n", id, fr.Method, fr.Route, fr.Query, fr.Host, fr.Time.UTC().Format(time.RFC3339Nano), fr.Nonce)
	writeHeaders(h, fr.Header, forwardedHeaders)
	fmt.Fprintf(h, "%x", body)
	return h.Sum(nil)
}

// writeHeaders writes names' values in h to w, in a form no two header
// sets share.
func writeHeaders(w io.Writer, h http.Header, names []string) {
	for _, name := range names {
		fmt.Fprintf(w, "%q:%q\n", name, h.Values(name))
	}
}

// forwardSkew is how old (or how far ahead) a forwarded request may be.
const forwardSkew = time.Minute

// forwardAnswer is that server's answer.
type forwardAnswer struct {
	Status int         `json:"status"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body,omitempty"`
	// MAC signs it with the answering server's token, for the request's
	// run and nonce (none without a token).
	MAC []byte `json:"mac,omitempty"`
}

// mac is the signature of fa, the answer to the request for run id with
// nonce, under token.
func (fa forwardAnswer) mac(id string, nonce []byte, token string) []byte {
	h := hmac.New(sha256.New, []byte(token))
	body := sha256.Sum256(fa.Body)
	fmt.Fprintf(h, "answer\n%q\n%x\n%d\n", id, nonce, fa.Status)
	writeHeaders(h, fa.Header, answerHeaders)
	fmt.Fprintf(h, "%x", body)
	return h.Sum(nil)
}

// nonceBytes is the length of a forwarded request's nonce.
const nonceBytes = 16

// nonces remembers the nonces of the forwarded requests a server answered
// within forwardSkew, so that a request is answered once: one replayed
// within its minute is refused.
type nonces struct {
	mu   sync.Mutex
	seen map[string]time.Time // nonce → the request's time
}

// fresh reports whether nonce, of a request made at t, was not seen yet,
// and remembers it. It forgets nonces older than forwardSkew (a request
// that old is refused by its time).
func (n *nonces) fresh(nonce []byte, t, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen == nil {
		n.seen = map[string]time.Time{}
	}
	for k, at := range n.seen {
		if now.Sub(at) > 2*forwardSkew {
			delete(n.seen, k)
		}
	}
	if _, ok := n.seen[string(nonce)]; ok {
		return false
	}
	n.seen[string(nonce)] = t
	return true
}

// forwardedKey marks the context of a request another server process
// forwarded here, signed with this server's token: it passes auth (the
// forwarding server checked the client's credentials) and is never
// forwarded again.
type forwardedKey struct{}

// forwarded passes r, a request for the run named by its path, to the
// server process that runs it, when this one does not hold the run in its
// store and Config.Remote is a Forwarder whose events stream has the run
// (or, with Config.SharedStore, the run is live and another process owns
// it), and writes that process's answer. It returns false, having written
// nothing, when r is not to be forwarded or no process answered: the
// handler then answers as for a run it does not hold.
func (s *Server) forwarded(w http.ResponseWriter, r *http.Request, route string) bool {
	f, ok := s.cfg.Remote.(Forwarder)
	if !ok || r.Context().Value(forwardedKey{}) != nil || !forwardedRoutes[[2]string{r.Method, route}] {
		return false
	}
	id := r.PathValue("id")
	run, err := s.runs.Get(r.Context(), id)
	switch {
	case err == nil && s.cfg.SharedStore && !run.Status.Ended() && !s.runs.Owns(id):
		// A live run of the shared store that another server owns.
	case !errors.Is(err, deepresearch.ErrRunNotFound):
		return false // this server's run, or a store error its handler reports
	default:
		if _, err := f.LastEvent(r.Context(), id); err != nil {
			return false // no process's run, or a cluster the handler finds unreachable too
		}
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
	req := forwardRequest{Nonce: make([]byte, nonceBytes), Method: r.Method, Route: route, Query: r.URL.RawQuery, Host: r.Host,
		Header: http.Header{}, Body: body, Time: s.cfg.Clock.Now()}
	rand.Read(req.Nonce)
	copyHeaders(req.Header, r.Header, forwardedHeaders)
	if s.cfg.Token != "" {
		req.MAC = req.mac(id, s.cfg.Token)
	}
	data, err := json.Marshal(req)
	if err != nil {
		s.fail(w, err)
		return true
	}
	ctx, cancel := clock.WithTimeout(r.Context(), s.cfg.Clock, forwardTry)
	defer cancel()
	// Only the owner's answer is taken: one signed with this server's
	// token for this request. A server with another token cannot sign
	// one; its refusal of this server's credentials (an unsigned 401)
	// ends the wait, and is told in this server's words.
	var ans forwardAnswer
	refused := false
	_, err = f.Ask(ctx, id, data, func(b []byte) bool {
		var a forwardAnswer
		if json.Unmarshal(b, &a) != nil {
			return false
		}
		if s.cfg.Token != "" && !hmac.Equal(a.MAC, a.mac(id, req.Nonce, s.cfg.Token)) {
			refused = a.Status == http.StatusUnauthorized && len(a.MAC) == 0
			return refused
		}
		ans = a
		return true
	})
	if err == nil && refused {
		writeError(w, http.StatusUnauthorized, typeAuth, fmt.Sprintf("run %s runs in another server process, which does not accept this server's credentials (servers that forward to each other need the same serve.token and clocks within a minute)", id))
		return true
	}
	if err == nil {
		mt := strings.ToLower(ans.Header.Get("Content-Type"))
		switch {
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
// signed with this server's token (when it has one), recent, and new (its
// nonce not answered before: a replayed request gets no answer): the
// forwarding server checked the client's credentials against its own
// token, so servers that forward to each other share serve.token. The
// answer is signed with the token too, for the request's run and nonce,
// so that the forwarding server takes no one else's; a refusal of the
// request's signature is not (it is a 401 the asker words itself). ctx
// should end within AnswerTry; an answer cut short by it is no answer.
func (s *Server) Answer(ctx context.Context, id string, req []byte, limit int) ([]byte, bool) {
	var fr forwardRequest
	if json.Unmarshal(req, &fr) != nil || !forwardedRoutes[[2]string{fr.Method, fr.Route}] {
		return nil, false
	}
	if _, err := s.runs.Get(ctx, id); err != nil {
		return nil, false
	}
	if (fr.Method != http.MethodGet || fr.Route != "") && !s.runs.Owns(id) {
		return nil, false // another process runs it (a store they share)
	}
	rec := &recorder{header: http.Header{}}
	now := s.cfg.Clock.Now()
	if age := now.Sub(fr.Time); s.cfg.Token != "" && (!hmac.Equal(fr.MAC, fr.mac(id, s.cfg.Token)) || age > forwardSkew || age < -forwardSkew) {
		// Unsigned: the asker cannot tell it from another's, and takes
		// it as a refusal of its credentials only.
		writeError(rec, http.StatusUnauthorized, typeAuth, "the server that runs this run does not accept the credentials of the server that forwarded the request (servers that forward to each other need the same serve.token and clocks within a minute)")
		out, _ := json.Marshal(forwardAnswer{Status: rec.status, Header: http.Header{"Content-Type": rec.header.Values("Content-Type")}, Body: rec.body.Bytes()})
		return out, true
	} else if s.cfg.Token != "" && (len(fr.Nonce) != nonceBytes || !s.nonces.fresh(fr.Nonce, fr.Time, now)) {
		s.log.Warn().Str("run", id).Msg("a forwarded request was replayed, or carries no nonce: not answered")
		return nil, false
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
	if s.cfg.Token != "" {
		ans.MAC = ans.mac(id, fr.Nonce, s.cfg.Token)
	}
	out, err := json.Marshal(ans)
	if err == nil && (limit <= 0 || len(out) <= limit) {
		return out, true
	}
	big := &recorder{header: http.Header{}}
	writeError(big, http.StatusBadGateway, typeServer, fmt.Sprintf(
		"run %s: the answer (%d bytes) is larger than one server process can send another (%d); ask the server that runs the run", id, len(out), limit))
	ans = forwardAnswer{Status: big.status, Header: http.Header{"Content-Type": big.header.Values("Content-Type")}, Body: big.body.Bytes()}
	if s.cfg.Token != "" {
		ans.MAC = ans.mac(id, fr.Nonce, s.cfg.Token)
	}
	out, _ = json.Marshal(ans)
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
