// Package httpapi is deepresearch's HTTP API, an http.Handler over a
// deepresearch.Runs: research runs started over HTTP, their events
// streamed live as server-sent events or newline-delimited JSON (a client
// that reconnects with Last-Event-ID loses nothing and sees nothing
// twice), their reports in every format of render.Format, a
// person's answers and plan reviews, an OpenAI-compatible chat
// completions endpoint, and a small live web page. `deepresearch serve`
// serves it; an embedder mounts the same *Server in a mux of its own:
//
//	runs, err := deepresearch.NewRuns(researcher, store, deepresearch.RunsOptions{MaxRuns: 4})
//	…
//	defer runs.Close()
//	srv, err := httpapi.New(httpapi.Config{Runs: runs})
//	…
//	mux.Handle("/research/", http.StripPrefix("/research", srv))
//
// It is a codec: the library decides. A request body is decoded into a
// deepresearch.Request (held to its limits by Request.Validate); the Runs
// decides whether it starts (429 beyond RunsOptions.MaxRuns), how long it
// runs, how long a plan waits for its review and what then, and what a
// person's answer or review does; a report is rendered with
// Report.Render, which gives the agents' findings when the writer failed.
// What is left here is HTTP.
//
// Endpoints:
//
//	POST   /v1/research              start a run: 202, {"id", "status", "urls"}
//	GET    /v1/research              the stored runs, newest first (?limit=N): {"runs": [{"id", "question", "status", "created", "usage", "urls"}]}
//	GET    /v1/research/{id}         status, usage and, when done, the report (?format=md|html|json|yaml|xml|mermaid|docx|csl-json|bibtex)
//	DELETE /v1/research/{id}         cancel a running run
//	GET    /v1/research/{id}/events  the run's events: SSE, or NDJSON for Accept: application/x-ndjson
//	POST   /v1/research/{id}/input   answer the run's clarifying questions
//	GET    /v1/research/{id}/plan    the plan the run waits to have reviewed
//	POST   /v1/research/{id}/plan    review it: accept, reject, or a plan to research instead
//	GET    /v1/research/{id}/diff/{other}  what changed from its report to run other's (diff.Result)
//	GET    /v1/research/{id}/fragment       the report as the HTML report's fragment, with verdicts and links to the sources' texts
//	GET    /v1/research/{id}/sources/{n}    reference n's text read, its checked passages highlighted: HTML, or JSON for Accept: application/json
//	GET    /v1/research/{id}/recheck  its report's cited web pages read again (recheck.Result)
//	POST   /v1/research/{id}/ask     a follow-up question of the run: 202 with the follow-up's id, or its events (SSE, NDJSON)
//	GET    /v1/research/{id}/asks    the run's follow-ups, oldest first, with their answers and references
//	POST   /v1/chat/completions      OpenAI-compatible, with and without stream
//	GET    /v1/models                the one model, "deepresearch"
//	GET    /v1/schema/report.json    the JSON report's JSON Schema (render.Schema)
//	GET    /v1/schema/report.xsd     the XML report's XML Schema (render.XMLSchema)
//	GET    /                         the web page
//	GET    /runs/{id}                the web page, opened on run id
//	GET    /followups.js             the page's script for follow-up questions
//	GET    /compare.js               the page's script that compares runs and re-checks a report
//	GET    /page.json                what the page needs first: {"token_required": bool}
//	GET    /healthz                  liveness
//
// Every error is a 4xx or 5xx answer with the JSON body
// {"error": {"message", "type"}}, the shape OpenAI clients parse.
//
// A web page the user visits cannot use the API from the browser: POST
// bodies must be application/json, /v1 requests from another origin are
// refused, and, without a token, so is a request whose Host names another
// server (see guard). Clients are bounded: a body must arrive within
// BodyTimeout, each write must drain within WriteTimeout, and event
// streams are capped (MaxSubscribers, MaxRunSubscribers).
//
// The Runs owns the runs' goroutines; its owner closes it (the runs in
// progress end interrupted, and their streams then end). Events are
// stored before any client sees them: a client only ever reads the
// store's log, so a slow or vanished client never slows or loses a run.
package httpapi

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/jsonkind"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

// ModelID is the model name /v1/models lists and chat completions accept.
const ModelID = "deepresearch"

// Defaults of the zero Config (the first is serve.max_body's).
const (
	DefaultMaxBody   = defaults.ServeMaxBody
	DefaultHeartbeat = 15 * time.Second
)

// Config configures a Server. Runs is required.
type Config struct {
	// Runs starts, limits and keeps the runs the server serves
	// (deepresearch.NewRuns); its owner closes it.
	Runs *deepresearch.Runs
	// Cluster, if set, answers GET /v1/cluster: who is alive in the
	// cluster and where its runs' work stands.
	Cluster ClusterFunc
	// Token is the bearer token every /v1 request must carry
	// (Authorization: Bearer TOKEN, or the page's deepresearch_token
	// cookie): at least 16 characters, no spaces (config.CheckToken). ""
	// requires none; the server then answers only requests whose Host
	// names the address it is reached on (see AllowedHosts).
	Token string
	// AllowedHosts are names (host, or host:port) a server without a
	// token may be reached by besides the address a request came in on
	// and, on loopback, localhost: the name a proxy in front of it
	// forwards, say. "*" accepts any (the proxy checks Host).
	AllowedHosts []string
	// MaxBody caps a request body in bytes (default 1 MiB).
	MaxBody int64
	// Heartbeat is how often an idle event stream gets an SSE comment
	// (default 15s).
	Heartbeat time.Duration
	// RetryAfter is what a 429 answer's Retry-After says (default 5s).
	RetryAfter time.Duration
	// BodyTimeout bounds the reading of a request body (default 10s): a
	// client that sends its headers and not its body is answered 408, or
	// cut off when it was refused before its body was read.
	BodyTimeout time.Duration
	// WriteTimeout bounds each write of an answer (default 30s): a client
	// that stops reading, an event stream's included, is dropped.
	WriteTimeout time.Duration
	// MaxSubscribers caps the event streams open at once (default 256),
	// MaxRunSubscribers those of one run (default 16); beyond, 429.
	MaxSubscribers, MaxRunSubscribers int
	// Clock times event stream heartbeats, bounds the waits for other
	// server processes and stamps chat completions; nil means the real
	// clock. (The Runs has its own, for run time limits.)
	Clock clock.Clock
	// Logger receives diagnostics; nil disables logging.
	Logger *zerolog.Logger
	// Render is what rendering a report needs beyond it: the browser
	// ?format=pdf prints with (config.RenderOptions).
	Render render.Options
	// MaxPrints caps the PDFs printed at once, each a browser process
	// (default DefaultMaxPrints); beyond, 429.
	MaxPrints int
}

// DefaultMaxPrints is Config.MaxPrints' default.
const DefaultMaxPrints = 2

// Server serves the API. Create it with New.
type Server struct {
	cfg  Config
	log  zerolog.Logger
	runs *deepresearch.Runs
	mux  *http.ServeMux

	subMu   sync.Mutex // guards subs and runSubs: the open event streams
	subs    int
	runSubs map[string]int

	prints chan struct{} // a slot for each PDF being printed (Config.MaxPrints)
}

//go:embed static
var static embed.FS

// New returns a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Runs == nil {
		return nil, errors.New("httpapi: Config.Runs is required")
	}
	if err := config.CheckToken(cfg.Token); err != nil {
		return nil, fmt.Errorf("httpapi: Config.Token: %w", err)
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = 5 * time.Second
	}
	cfg.BodyTimeout = defaults.PositiveOr(cfg.BodyTimeout, DefaultBodyTimeout)
	cfg.WriteTimeout = defaults.PositiveOr(cfg.WriteTimeout, DefaultWriteTimeout)
	cfg.MaxSubscribers = defaults.PositiveOr(cfg.MaxSubscribers, DefaultMaxSubscribers)
	cfg.MaxRunSubscribers = defaults.PositiveOr(cfg.MaxRunSubscribers, DefaultMaxRunSubscribers)
	cfg.Clock = clock.Or(cfg.Clock)
	s := &Server{cfg: cfg, log: zerolog.Nop(), runs: cfg.Runs, runSubs: map[string]int{}}
	s.prints = make(chan struct{}, defaults.PositiveOr(cfg.MaxPrints, DefaultMaxPrints))
	if cfg.Logger != nil {
		s.log = *cfg.Logger
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/research", s.auth(s.postResearch))
	mux.HandleFunc("GET /v1/research", s.auth(s.getRuns))
	mux.HandleFunc("GET /v1/research/{id}/fragment", s.auth(s.getFragment))
	mux.HandleFunc("GET /v1/research/{id}/sources/{n}", s.auth(s.getSource))
	mux.HandleFunc("GET /v1/research/{id}", s.auth(s.getResearch))
	mux.HandleFunc("DELETE /v1/research/{id}", s.auth(s.deleteResearch))
	mux.HandleFunc("GET /v1/research/{id}/events", s.auth(s.getEvents))
	mux.HandleFunc("POST /v1/research/{id}/input", s.auth(s.postInput))
	mux.HandleFunc("GET /v1/research/{id}/plan", s.auth(s.getPlan))
	mux.HandleFunc("POST /v1/research/{id}/plan", s.auth(s.postPlan))
	mux.HandleFunc("GET /v1/research/{id}/diff/{other}", s.auth(s.getDiff))
	mux.HandleFunc("GET /v1/research/{id}/recheck", s.auth(s.getRecheck))
	mux.HandleFunc("POST /v1/research/{id}/ask", s.auth(s.postAsk))
	mux.HandleFunc("GET /v1/research/{id}/asks", s.auth(s.getAsks))
	mux.HandleFunc("POST /v1/chat/completions", s.auth(s.postChat))
	mux.HandleFunc("GET /v1/models", s.auth(s.getModels))
	mux.HandleFunc("GET /v1/cluster", s.auth(s.getCluster))
	mux.HandleFunc("GET /v1/schema/report.json", s.getReportSchema)
	mux.HandleFunc("GET /v1/schema/report.xsd", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.Write(render.XMLSchema())
	})
	mux.HandleFunc("GET /{$}", s.page("static/index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /runs/{id}", s.page("static/index.html", "text/html; charset=utf-8")) // the page, opened on a run
	mux.HandleFunc("GET /app.js", s.page("static/app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /app.css", s.page("static/app.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /followups.js", s.page("static/followups.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /compare.js", s.page("static/compare.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /page.json", func(w http.ResponseWriter, r *http.Request) {
		// What the page needs before it has a token: whether it needs one.
		writeJSON(w, http.StatusOK, map[string]bool{"token_required": s.cfg.Token != ""})
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux = mux
	return s, nil
}

// ServeHTTP routes a request. Paths and methods the API does not have are
// answered with JSON errors too.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w, ok := s.guard(w, r)
	if !ok {
		return
	}
	h, pattern := s.mux.Handler(r)
	if pattern == "" {
		// The mux's own 404 or 405 (with its Allow header), as JSON.
		c := &recorder{header: http.Header{}}
		h.ServeHTTP(c, r)
		if allow := c.header.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		if c.status == http.StatusMethodNotAllowed {
			writeError(w, c.status, typeInvalid, fmt.Sprintf("%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, c.header.Get("Allow")))
			return
		}
		writeError(w, http.StatusNotFound, typeNotFound, fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// auth checks the bearer token, when one is configured.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	if s.cfg.Token == "" {
		return h
	}
	want := []byte(s.cfg.Token)
	return func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			if c, err := r.Cookie("deepresearch_token"); err == nil {
				got, ok = c.Value, true
			}
		}
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Bearer realm="deepresearch"`)
			writeError(w, http.StatusUnauthorized, typeAuth, "this server requires a bearer token: send Authorization: Bearer TOKEN")
		case subtle.ConstantTimeCompare([]byte(got), want) != 1:
			w.Header().Set("WWW-Authenticate", `Bearer realm="deepresearch", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, typeAuth, "the bearer token is not valid")
		default:
			h(w, r)
		}
	}
}

// page serves an embedded file of the web page, under a content security
// policy that allows only this origin's script and style: report text is
// untrusted, and the page builds it from text nodes.
func (s *Server) page(name, ctype string) http.HandlerFunc {
	body, err := static.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Write(body)
	}
}

// getReportSchema serves the JSON report's schema. It is public, as the
// page is: it says what a report looks like, not what any run found.
func (s *Server) getReportSchema(w http.ResponseWriter, r *http.Request) {
	b, err := render.Schema()
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	w.Write(b)
}

func (s *Server) getModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": ModelID, "object": "model", "created": 0, "owned_by": "deepresearch",
		}},
	})
}

// Errors are OpenAI's shape: {"error": {"message", "type"}}.
const (
	typeInvalid    = "invalid_request_error"
	typeAuth       = "authentication_error"
	typeNotFound   = "not_found_error"
	typeConflict   = "conflict_error"
	typeRate       = "rate_limit_error"
	typePermission = "permission_error"
	typeServer     = "server_error"
)

type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   string `json:"param,omitempty"`
	Code    string `json:"code,omitempty"`
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]apiError{"error": {Message: msg, Type: typ}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"encoding the answer failed","type":"server_error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// requestError is a bad request: its status and what to tell the caller.
type requestError struct {
	status int
	typ    string
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) *requestError {
	return &requestError{http.StatusBadRequest, typeInvalid, fmt.Sprintf(format, args...)}
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	var re *requestError
	var bad *deepresearch.RequestError
	var refused *deepresearch.RunsError
	switch {
	case errors.As(err, &bad):
		writeError(w, http.StatusBadRequest, typeInvalid, bad.Message())
	case errors.As(err, &refused):
		status, typ := runsStatus(refused.Err)
		if status == http.StatusTooManyRequests {
			s.retryAfter(w)
		}
		writeError(w, status, typ, refused.Message())
	case errors.As(err, &re):
		if re.status == http.StatusTooManyRequests {
			s.retryAfter(w)
		}
		writeError(w, re.status, re.typ, re.msg)
	default:
		s.log.Error().Err(err).Msg("request failed")
		writeError(w, http.StatusInternalServerError, typeServer, "internal error: "+err.Error())
	}
}

// retryAfter says when to retry a 429.
func (s *Server) retryAfter(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(int(max(1, s.cfg.RetryAfter.Round(time.Second)/time.Second))))
}

// runsStatus is the status and error type of what a Runs refused for why.
func runsStatus(why error) (int, string) {
	switch {
	case errors.Is(why, runstore.ErrNotFound):
		return http.StatusNotFound, typeNotFound
	case errors.Is(why, deepresearch.ErrTooManyRuns):
		return http.StatusTooManyRequests, typeRate
	case errors.Is(why, deepresearch.ErrRunsClosed), errors.Is(why, deepresearch.ErrRunStopped):
		return http.StatusServiceUnavailable, typeServer
	}
	return http.StatusConflict, typeConflict // not waiting, elsewhere, ended, answered, exists
}

// decodeJSON reads a JSON request body of at most MaxBody bytes into v.
// strict refuses members v does not have.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any, strict bool) error {
	// A page can send a body of another type without asking first (no
	// CORS preflight): requiring application/json keeps pages out.
	ct := r.Header.Get("Content-Type")
	if mt, _, _ := strings.Cut(ct, ";"); strings.TrimSpace(strings.ToLower(mt)) != "application/json" {
		if ct == "" {
			return &requestError{http.StatusUnsupportedMediaType, typeInvalid, "the body must be sent as Content-Type: application/json"}
		}
		return &requestError{http.StatusUnsupportedMediaType, typeInvalid, fmt.Sprintf("the body must be application/json, not %q", ct)}
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("there is more after the JSON object")
	}
	if err == nil {
		// The body is read: from here the connection's reads are the
		// server's own (the one that notices a client going away must
		// not time out under a streamed answer).
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var ee *elementError
	var word *deepresearch.RequestError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &word):
		return err // a word a member does not know (style, review): named by its member
	case errors.As(err, &ee) && errors.As(ee.Err, &te):
		if te.Field == "" {
			return badRequest("%s must be %s, not %s", ee.Path, jsonkind.Of(te.Type), jsonWord(te.Value))
		}
		return badRequest("%s.%s must be %s, not %s", ee.Path, te.Field, jsonkind.Of(te.Type), jsonWord(te.Value))
	case errors.As(err, &mbe):
		return &requestError{http.StatusRequestEntityTooLarge, typeInvalid, fmt.Sprintf("the body is larger than %d bytes", mbe.Limit)}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &requestError{http.StatusRequestTimeout, typeInvalid, fmt.Sprintf("the body did not arrive within %s", s.cfg.BodyTimeout)}
	case errors.Is(err, io.EOF):
		return badRequest("the body is empty: send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("the body is not valid JSON: it ends too early")
	case errors.As(err, &se):
		return badRequest("the body is not valid JSON (at byte %d): %v", se.Offset, err)
	case errors.As(err, &te):
		if te.Field == "" {
			return badRequest("the body must be a JSON object, not %s", jsonWord(te.Value))
		}
		return badRequest("%q must be %s, not %s", te.Field, jsonkind.Of(te.Type), jsonWord(te.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return badRequest("unknown member %s in the body", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return badRequest("the body is not a valid request: %v", err)
}

// start starts req in the Runs. The run is stored before it returns, so
// a client sent to another server of a shared store at once (a load
// balancer) finds it there too.
func (s *Server) start(ctx context.Context, req deepresearch.Request) (string, error) {
	return s.runs.Start(ctx, req)
}

// reportCSP is the policy of a report page (no script, nothing from
// outside).
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

// recorder is a ResponseWriter that keeps what a handler answered: the
// mux's fallback.
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
