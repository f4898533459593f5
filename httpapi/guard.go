package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch/clock"
)

// Defaults of the zero Config's limits on clients.
const (
	DefaultBodyTimeout       = 10 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultMaxSubscribers    = 256
	DefaultMaxRunSubscribers = 16
)

// guard is what every request passes before it is routed. It bounds the
// connection's reads of a request body (BodyTimeout) and each write of
// the answer (WriteTimeout), so that no client holds a connection by not
// sending or not reading; and it refuses what a web page could send the
// server from the user's browser:
//
//   - a request whose Host names another server, when no token is set: a
//     page whose name an attacker re-points at this machine (DNS
//     rebinding) would otherwise reach the API as the user;
//   - a /v1 request from another origin: one whose Origin is not the
//     server's own, or that the browser says comes from another site or
//     origin (Sec-Fetch-Site), as net/http's CrossOriginProtection
//     decides for unsafe methods, and for reads too, so that no page opens
//     event streams.
//
// POST bodies must be application/json (decodeJSON), which a page cannot
// send without a preflight, and no answer carries a CORS header, so no
// preflight succeeds. It returns the writer the handlers write through,
// and false when it has answered the request itself.
func (s *Server) guard(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, bool) {
	rc := http.NewResponseController(w)
	// Deadlines on the socket are the operating system's, on real time.
	if r.ContentLength != 0 {
		_ = rc.SetReadDeadline(clock.Real().Now().Add(s.cfg.BodyTimeout))
	}
	w = &timedWriter{ResponseWriter: w, rc: rc, timeout: s.cfg.WriteTimeout}
	if s.cfg.Token == "" && !s.hostAllowed(r) {
		writeError(w, http.StatusForbidden, typePermission, fmt.Sprintf(
			"the Host header %q does not name this server; a server without a token answers only to the address it listens on (or Config.AllowedHosts)", r.Host))
		return w, false
	}
	if strings.HasPrefix(r.URL.Path, "/v1/") {
		if why := crossOrigin(r); why != "" {
			writeError(w, http.StatusForbidden, typePermission, "cross-origin request refused: "+why)
			return w, false
		}
	}
	return w, true
}

// crossOrigin says why r comes from a page of another origin, or "".
func crossOrigin(r *http.Request) string {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return fmt.Sprintf("the browser says it comes from a %s page", site)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return "" // not a browser, or a browser that sends none for this
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Sprintf("Origin %q is not this server's", origin)
	}
	return ""
}

// hostAllowed reports whether r's Host names this server: the address the
// connection came in on (the listening address), a loopback name for it
// when that is a loopback address, or one of Config.AllowedHosts. A
// request that came in on no connection (a test's, or one a program hands
// the handler itself) has nothing to check.
func (s *Server) hostAllowed(r *http.Request) bool {
	host := strings.ToLower(r.Host)
	for _, h := range s.cfg.AllowedHosts {
		if h == "*" || strings.EqualFold(h, host) {
			return true
		}
	}
	name, port := splitHost(host)
	for _, h := range s.cfg.AllowedHosts {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	la, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if la == nil {
		return true // handed over in-process, not read off a connection: nothing to rebind
	}
	lname, lport := splitHost(la.String())
	if port == "" {
		port = "80"
	}
	if port != lport {
		return false
	}
	return name == lname || loopbackName(lname) && loopbackName(name)
}

// splitHost splits host[:port] into its name (without IPv6 brackets) and
// port ("" when none).
func splitHost(hostport string) (string, string) {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return h, p
	}
	return strings.Trim(hostport, "[]"), ""
}

func loopbackName(name string) bool {
	ip := net.ParseIP(name)
	return name == "localhost" || ip != nil && ip.IsLoopback()
}

// timedWriter sets the connection's write deadline before each write and
// flush: a client that stops reading is dropped once one has waited
// timeout, however long the answer (an event stream) goes on.
type timedWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *timedWriter) Write(b []byte) (int, error) {
	w.renew()
	return w.ResponseWriter.Write(b)
}

// FlushError flushes, under the deadline (http.ResponseController finds it).
func (w *timedWriter) FlushError() error {
	w.renew()
	return w.rc.Flush()
}

// Unwrap gives http.ResponseController the writer beneath.
func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *timedWriter) renew() { _ = w.rc.SetWriteDeadline(clock.Real().Now().Add(w.timeout)) }

// subscribe takes a place among the event streams of run id, or returns
// the 429 that says there is none; release gives it back.
func (s *Server) subscribe(id string) (release func(), err error) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	switch {
	case s.subs >= s.cfg.MaxSubscribers:
		return nil, &requestError{http.StatusTooManyRequests, typeRate,
			fmt.Sprintf("%d event streams are open, the most this server serves at once; retry later", s.cfg.MaxSubscribers)}
	case s.runSubs[id] >= s.cfg.MaxRunSubscribers:
		return nil, &requestError{http.StatusTooManyRequests, typeRate,
			fmt.Sprintf("%d event streams of run %s are open, the most one run has; retry later", s.cfg.MaxRunSubscribers, id)}
	}
	s.subs++
	s.runSubs[id]++
	return func() {
		s.subMu.Lock()
		defer s.subMu.Unlock()
		s.subs--
		if s.runSubs[id]--; s.runSubs[id] == 0 {
			delete(s.runSubs, id)
		}
	}, nil
}
