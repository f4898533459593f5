// Package httpapi is deepresearch's HTTP API, an http.Handler: research
// runs started over HTTP and kept in a deepresearch.Store (sqlitestore,
// say), their events streamed live as server-sent events or
// newline-delimited JSON (a client that reconnects with Last-Event-ID
// loses nothing and sees nothing twice), their reports in every format of
// deepresearch.Format, an OpenAI-compatible chat completions endpoint, and
// a small live web page. `deepresearch serve` serves it; an embedder
// mounts the same *Server in a mux of its own:
//
//	srv, err := httpapi.New(httpapi.Config{Runner: researcher, Store: store})
//	…
//	defer srv.Close()
//	mux.Handle("/research/", http.StripPrefix("/research", srv))
//
// It is a front end: the library decides. A request body is decoded into
// a deepresearch.Request and held to its limits (Request.Validate); a run
// is stored with deepresearch.StartRun and run with Researcher.Record;
// a report is rendered with Report.Render, which gives the agents'
// findings when the writer failed. What is left here is HTTP.
//
// Endpoints:
//
//	POST   /v1/research              start a run: 202, {"id", "status", "urls"}
//	GET    /v1/research/{id}         status, usage and, when done, the report (?format=md|html|json|yaml|xml|mermaid|csl-json|bibtex)
//	DELETE /v1/research/{id}         cancel a running run
//	GET    /v1/research/{id}/events  the run's events: SSE, or NDJSON for Accept: application/x-ndjson
//	POST   /v1/chat/completions      OpenAI-compatible, with and without stream
//	GET    /v1/models                the one model, "deepresearch"
//	GET    /v1/schema/report.json    the JSON report's JSON Schema (deepresearch.ReportSchema)
//	GET    /v1/schema/report.xsd     the XML report's XML Schema (deepresearch.ReportXMLSchema)
//	GET    /                         the web page
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
// The server owns the goroutine of each run it starts; Close cancels them
// and waits for them. Events are stored before any client sees them: a
// client only ever reads the store's log, so a slow or vanished client
// never slows or loses a run.
package httpapi

import (
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
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/internal/clock"
	"github.com/deepresearch/deepresearch/internal/defaults"
	"github.com/deepresearch/deepresearch/internal/jsonkind"
)

// ModelID is the model name /v1/models lists and chat completions accept.
const ModelID = "deepresearch"

// Defaults of the zero Config (the first three are serve.max_runs,
// .run_timeout and .max_body's).
const (
	DefaultMaxRuns    = defaults.ServeMaxRuns
	DefaultRunTimeout = defaults.ServeRunTimeout
	DefaultMaxBody    = defaults.ServeMaxBody
	DefaultHeartbeat  = 15 * time.Second
)

// Config configures a Server. Runner and Store are required.
type Config struct {
	// Runner runs the research: a *deepresearch.Researcher.
	Runner Runner
	// Store keeps the runs, their events and reports (sqlitestore, say).
	Store deepresearch.Store
	// Remote, if set, holds the event logs of runs other server processes
	// run (natsrun.Remote): the event stream and status of a run that
	// Store does not hold are served from it (see Remote).
	Remote Remote
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
	// MaxRuns caps the runs in progress; beyond it a new run is answered
	// 429 with Retry-After (default 8).
	MaxRuns int
	// RunTimeout is the time limit of a run (default 10m).
	RunTimeout time.Duration
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
	// Clock arms run time limits, times event stream heartbeats and stamps
	// chat completions; nil means the real clock.
	Clock deepresearch.Clock
	// Logger receives diagnostics; nil disables logging.
	Logger *zerolog.Logger
	// PlanTimeout is how long a run whose plan is put to review waits for its
	// plan's review (0: as long as it takes, across restarts);
	// PlanTimeoutAction is what it does then: PlanTimeoutProceed (the
	// default: research the plan as proposed) or PlanTimeoutCancel (end
	// failed). The run's time limit (RunTimeout) is paused while a run
	// waits for a person, and counts afresh after.
	PlanTimeout       time.Duration
	PlanTimeoutAction string
}

// Why a run's context was canceled; they decide its final status
// (deepresearch.Researcher.Record).
var (
	errCanceled  = deepresearch.ErrCanceledByClient
	errTimeLimit = deepresearch.ErrTimeLimit
	errShutdown  = deepresearch.ErrShutdown
)

// Server serves the API. Create it with New and stop it with Close.
type Server struct {
	cfg   Config
	log   zerolog.Logger
	store deepresearch.Store
	mux   *http.ServeMux

	mu     sync.Mutex // guards runs and closed
	runs   map[string]*liveRun
	closed bool
	wg     sync.WaitGroup

	subMu   sync.Mutex // guards subs and runSubs: the open event streams
	subs    int
	runSubs map[string]int

	nonces nonces // of the forwarded requests answered
}

// liveRun is a run this server is executing.
type liveRun struct {
	cancel context.CancelCauseFunc
	done   chan struct{} // closed once the run is stored as ended
	wait   *waiter       // where it waits for a person
}

//go:embed static
var static embed.FS

// New returns a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Runner == nil || cfg.Store == nil {
		return nil, errors.New("server: Config.Runner and Config.Store are required")
	}
	if err := config.CheckToken(cfg.Token); err != nil {
		return nil, fmt.Errorf("server: Config.Token: %w", err)
	}
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = DefaultMaxRuns
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = DefaultRunTimeout
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
	switch cfg.PlanTimeoutAction {
	case "":
		cfg.PlanTimeoutAction = PlanTimeoutProceed
	case PlanTimeoutProceed, PlanTimeoutCancel:
	default:
		return nil, fmt.Errorf("server: Config.PlanTimeoutAction %q: want proceed or cancel", cfg.PlanTimeoutAction)
	}
	s := &Server{cfg: cfg, log: zerolog.Nop(), store: cfg.Store, runs: map[string]*liveRun{}, runSubs: map[string]int{}}
	if cfg.Logger != nil {
		s.log = *cfg.Logger
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/research", s.auth(s.postResearch))
	mux.HandleFunc("GET /v1/research/{id}", s.auth(s.getResearch))
	mux.HandleFunc("DELETE /v1/research/{id}", s.auth(s.deleteResearch))
	mux.HandleFunc("GET /v1/research/{id}/events", s.auth(s.getEvents))
	mux.HandleFunc("POST /v1/research/{id}/input", s.auth(s.postInput))
	mux.HandleFunc("GET /v1/research/{id}/plan", s.auth(s.getPlan))
	mux.HandleFunc("POST /v1/research/{id}/plan", s.auth(s.postPlan))
	mux.HandleFunc("POST /v1/chat/completions", s.auth(s.postChat))
	mux.HandleFunc("GET /v1/models", s.auth(s.getModels))
	mux.HandleFunc("GET /v1/schema/report.json", s.getReportSchema)
	mux.HandleFunc("GET /v1/schema/report.xsd", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.Write(deepresearch.ReportXMLSchema())
	})
	mux.HandleFunc("GET /{$}", s.page("static/index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /app.js", s.page("static/app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /app.css", s.page("static/app.css", "text/css; charset=utf-8"))
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

// Close stops accepting runs, cancels the runs in progress (they end
// interrupted) and waits for them to be stored.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for _, r := range s.runs {
		r.cancel(errShutdown)
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// auth checks the bearer token, when one is configured.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	if s.cfg.Token == "" {
		return h
	}
	want := []byte(s.cfg.Token)
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(forwardedKey{}) != nil {
			h(w, r) // signed with this token by the server that checked the client's (Answer)
			return
		}
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
	b, err := deepresearch.ReportSchema()
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
	if errors.As(err, &bad) {
		writeError(w, http.StatusBadRequest, typeInvalid, bad.Message())
		return
	}
	if errors.As(err, &re) {
		if re.status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(int(max(1, s.cfg.RetryAfter.Round(time.Second)/time.Second))))
		}
		writeError(w, re.status, re.typ, re.msg)
		return
	}
	s.log.Error().Err(err).Msg("request failed")
	writeError(w, http.StatusInternalServerError, typeServer, "internal error: "+err.Error())
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

// start stores a new run and starts it in a goroutine the server owns.
func (s *Server) start(req deepresearch.Request) (string, error) {
	if err := req.Validate(); err != nil {
		return "", err
	}
	req.RunID = deepresearch.NewRunID()
	err := s.launch(req.RunID, func() (deepresearch.Request, deepresearch.Durable, error) {
		req, err := deepresearch.StartRunFrom(context.Background(), s.store, req, deepresearch.OriginServer)
		return req, deepresearch.Durable{}, err
	})
	return req.RunID, err
}

// launch holds a run slot for id, makes the run live in the store with
// store (a new run, or one reopened), then records it in a goroutine the
// server owns, under the run time limit. It fails when the server is
// closing or full, or when store fails.
func (s *Server) launch(id string, store func() (deepresearch.Request, deepresearch.Durable, error)) error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return &requestError{http.StatusServiceUnavailable, typeServer, "the server is shutting down"}
	case len(s.runs) >= s.cfg.MaxRuns:
		s.mu.Unlock()
		return &requestError{http.StatusTooManyRequests, typeRate,
			fmt.Sprintf("%d runs are in progress, the most this server runs at once; retry later", s.cfg.MaxRuns)}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	lr := &liveRun{cancel: cancel, done: done, wait: newWaiter(done)}
	s.runs[id] = lr // holds the slot
	s.mu.Unlock()

	release := func() {
		s.mu.Lock()
		delete(s.runs, id)
		s.mu.Unlock()
		cancel(nil)
	}
	req, d, err := store()
	if err != nil {
		release()
		close(lr.done)
		return err
	}
	arm := func() func() bool { return s.cfg.Clock.AfterFunc(s.cfg.RunTimeout, func() { cancel(errTimeLimit) }) }
	limit := &pausable{stop: arm(), arm: arm}
	req.Hooks = s.hooks(lr.wait, limit.pause)
	s.wg.Go(func() {
		defer close(lr.done)
		defer release()
		defer limit.halt()
		s.cfg.Runner.RecordDurable(ctx, s.store, req, d, lr.wait.sink)
	})
	if s.cfg.Remote != nil {
		// Other server processes find a run by its events: the answer
		// waits for the first, so that a client sent elsewhere at once
		// (a load balancer) finds the run there too.
		up, stop := clock.After(s.cfg.Clock, startWait)
		defer stop()
		select {
		case <-lr.wait.started:
		case <-lr.done:
		case <-up:
		}
	}
	return nil
}

// startWait bounds the wait for a run's first event (launch).
const startWait = 5 * time.Second
