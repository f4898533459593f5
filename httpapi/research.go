package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/recheck"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

// runURLs are where a run's parts are.
func runURLs(id string) map[string]string {
	base := "/v1/research/" + id
	return map[string]string{
		"self":     base,
		"events":   base + "/events",
		"asks":     base + "/asks",
		"markdown": base + "?format=md",
		"html":     base + "?format=html",
		"json":     base + "?format=json",
		"yaml":     base + "?format=yaml",
		"xml":      base + "?format=xml",
		"mermaid":  base + "?format=mermaid",
		"docx":     base + "?format=docx",
		"pdf":      base + "?format=pdf",
		"csl-json": base + "?format=csl-json",
		"bibtex":   base + "?format=bibtex",
	}
}

func (s *Server) postResearch(w http.ResponseWriter, r *http.Request) {
	var q deepresearch.Request
	if err := s.decodeJSON(w, r, &q, true); err != nil {
		s.fail(w, err)
		return
	}
	if q.Estimate {
		// What the run would spend, instead of the run.
		est, err := s.runs.Estimate(r.Context(), q)
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, est)
		return
	}
	id, err := s.start(r.Context(), q)
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Location", "/v1/research/"+id)
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "status": runstore.Running, "urls": runURLs(id)})
}

// runView is GET /v1/research/{id}'s answer.
type runView struct {
	runstore.Run
	URLs map[string]string `json:"urls"`
	// Report is the markdown report (or the agents' findings when the
	// writer failed), once the run has one.
	Report string `json:"report,omitempty"`
	// Recheck is the last re-check kept of the run's report, if any.
	Recheck *recheckView `json:"recheck,omitempty"`
}

// recheckView is what GET /v1/research/{id} says of a run's last
// re-check (deepresearch.Runs.LastRecheck): when, whether the report
// still held, the sources by status and the claims that lost their
// support. GET /v1/research/{id}/recheck re-checks it again, in full.
type recheckView struct {
	CheckedAt time.Time       `json:"checked_at"`
	Holds     bool            `json:"holds"`
	Summary   recheck.Summary `json:"summary"`
	Claims    []recheck.Claim `json:"claims"`
}

// lookup returns the stored run the request's path names.
func (s *Server) lookup(r *http.Request) (runstore.Run, error) {
	return s.runs.Get(r.Context(), r.PathValue("id"))
}

func (s *Server) getResearch(w http.ResponseWriter, r *http.Request) {
	run, err := s.lookup(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	format, asked := r.URL.Query()["format"]
	var f render.Format
	if asked {
		if f, err = render.ParseFormat(format[0]); err != nil {
			s.fail(w, badRequest("%v", err))
			return
		}
	}
	var rep *deepresearch.Report
	if run.Status.Ended() {
		if rep, err = s.runs.Report(r.Context(), run.ID); err != nil && !errors.Is(err, runstore.ErrNotFound) {
			s.fail(w, err)
			return
		}
	}
	if !asked {
		v := runView{Run: run, URLs: runURLs(run.ID)}
		if run.Status.Ended() {
			if rc, err := s.runs.LastRecheck(r.Context(), run.ID); err != nil {
				s.fail(w, err)
				return
			} else if rc != nil {
				v.Recheck = &recheckView{CheckedAt: rc.Checked, Holds: rc.Holds, Summary: rc.Summary, Claims: rc.Claims}
			}
		}
		if rep != nil {
			if md, err := rep.Render(render.Markdown); err == nil {
				v.Report = string(md)
			}
		}
		writeJSON(w, http.StatusOK, v)
		return
	}
	var body []byte
	if rep != nil && f == render.PDF {
		if body, err = s.printPDF(r.Context(), rep); errors.Is(err, deepresearch.ErrNoReport) {
			rep = nil
		} else if err != nil {
			s.fail(w, err)
			return
		}
	} else if rep != nil {
		if body, err = rep.Render(f); err != nil {
			rep = nil // nothing to render: no report, no findings
		}
	}
	if rep == nil {
		msg := fmt.Sprintf("run %s is %s and has no report yet", run.ID, run.Status)
		if run.Status.Ended() {
			msg = fmt.Sprintf("run %s is %s and has no report", run.ID, run.Status)
			if run.Error != "" {
				msg += ": " + run.Error
			}
		}
		s.fail(w, &requestError{http.StatusConflict, typeConflict, msg})
		return
	}
	w.Header().Set("Content-Type", f.MediaType())
	if f.Binary() {
		// A file to save, named by the run.
		w.Header().Set("Content-Disposition", attachment(run.ID, f))
	}
	if f == render.HTML {
		// The page is the report alone: no script, no outside resources.
		w.Header().Set("Content-Security-Policy", reportCSP)
	}
	w.Write(body)
}

// printPDF prints rep as PDF in one of the server's printing slots: with
// none free it is a 429, without a browser a 501 that says what to
// install.
func (s *Server) printPDF(ctx context.Context, rep *deepresearch.Report) ([]byte, error) {
	select {
	case s.prints <- struct{}{}:
		defer func() { <-s.prints }()
	default:
		return nil, &requestError{http.StatusTooManyRequests, typeRate, fmt.Sprintf("the server prints at most %d PDFs at once; try again shortly", cap(s.prints))}
	}
	b, err := rep.RenderContext(ctx, render.PDF, s.cfg.Render)
	if errors.Is(err, render.ErrNoChromium) {
		return nil, &requestError{http.StatusNotImplemented, typeServer, "this server cannot print PDFs: " + render.ErrNoChromium.Error()}
	}
	return b, err
}

// attachment is the Content-Disposition of run id's report in format f:
// an attachment named "report-ID.docx", with any character of the ID
// that is not a letter, digit, dash or underscore replaced by "_" (run
// IDs are the store's, but a file name is the client's to write).
func attachment(id string, f render.Format) string {
	safe := strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return r
		}
		return '_'
	}, id)
	return mime.FormatMediaType("attachment", map[string]string{"filename": "report-" + safe[:min(len(safe), 64)] + f.Extension()})
}

func (s *Server) deleteResearch(w http.ResponseWriter, r *http.Request) {
	run, err := s.lookup(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	// A run in progress in another server of a shared store is canceled
	// there, through the store (relay.Store).
	if err := s.runs.Cancel(r.Context(), run.ID, nil); err != nil {
		if r.Context().Err() == nil {
			s.fail(w, err)
		}
		return
	}
	if run, err = s.runs.Get(r.Context(), run.ID); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, runView{Run: run, URLs: runURLs(run.ID)})
}

// getEvents streams a run's events from the store: as server-sent events
// (id: the sequence number, event: the type, data: the event's JSON, an
// SSE comment as heartbeat, and a last "end" event carrying the run's
// status), or as newline-delimited JSON for Accept: application/x-ndjson.
// It resumes after Last-Event-ID (or ?after=N) and ends when the run has
// ended and its last event was sent.
func (s *Server) getEvents(w http.ResponseWriter, r *http.Request) {
	run, err := s.lookup(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	var after uint64
	for _, v := range []struct{ name, val string }{{"Last-Event-ID", r.Header.Get("Last-Event-ID")}, {"after", r.URL.Query().Get("after")}} {
		if v.val == "" {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v.val), 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange) || err == nil && n > math.MaxInt64:
			s.fail(w, badRequest("%s %q is out of range: sequence numbers are below 2^63", v.name, v.val))
			return
		case err != nil:
			s.fail(w, badRequest("%s %q is not an event sequence number", v.name, v.val))
			return
		}
		after = n
		break
	}
	release, err := s.subscribe(run.ID)
	if err != nil {
		s.fail(w, err)
		return
	}
	defer release()
	source := s.storeEvents(run.ID, after)
	ndjson := strings.Contains(r.Header.Get("Accept"), "application/x-ndjson")
	h := w.Header()
	if ndjson {
		h.Set("Content-Type", "application/x-ndjson")
	} else {
		h.Set("Content-Type", "text/event-stream")
	}
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if !ndjson {
		fmt.Fprint(w, "retry: 1000\n\n")
	}
	rc.Flush()
	err = s.follow(r, source, func(e runstore.Event) error {
		if ndjson {
			_, err := fmt.Fprintf(w, "%s\n", e.JSON)
			return err
		}
		_, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, e.JSON)
		return err
	}, func() error {
		if ndjson {
			return nil
		}
		_, err := fmt.Fprint(w, ": heartbeat\n\n")
		return err
	}, rc.Flush)
	if err != nil || ndjson {
		return
	}
	var b []byte
	if run, err = s.runs.Get(r.Context(), run.ID); err == nil {
		b, _ = json.Marshal(map[string]any{"id": run.ID, "status": run.Status, "error": run.Error, "events": run.Events})
	}
	if b != nil {
		fmt.Fprintf(w, "event: end\ndata: %s\n\n", b)
		rc.Flush()
	}
}

// eventSource gives a run's events to yield, in order, until yield
// returns false, ctx is done or the run's last event was given.
type eventSource func(ctx context.Context, yield func(runstore.Event) bool) error

// storeEvents is the event source of run id in the Runs' store, after
// seq.
func (s *Server) storeEvents(id string, after uint64) eventSource {
	return func(ctx context.Context, yield func(runstore.Event) bool) error {
		for e, err := range s.runs.Follow(ctx, id, after) {
			if err != nil {
				return err
			}
			if !yield(e) {
				return nil
			}
		}
		return nil
	}
}

// follow calls send with each event of source, beat when no event came
// for Heartbeat, and flush whenever it has sent all it had. It returns
// nil when the run has ended and its last event was sent, and an error
// when the client went away or a write failed. The source is read in a
// goroutine follow owns and waits for.
func (s *Server) follow(r *http.Request, source eventSource, send func(runstore.Event) error, beat, flush func() error) error {
	ctx, cancel := context.WithCancel(r.Context())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	ch := make(chan runstore.Event, 256)
	var ferr error
	wg.Go(func() {
		defer close(ch)
		ferr = source(ctx, func(e runstore.Event) bool {
			select {
			case ch <- e:
				return true
			case <-ctx.Done():
				return false
			}
		})
	})
	hb := clock.NewTicker(s.cfg.Clock, s.cfg.Heartbeat)
	defer hb.Stop()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				wg.Wait()
				return ferr
			}
			if err := send(e); err != nil {
				return err
			}
			if len(ch) == 0 {
				if err := flush(); err != nil {
					return err
				}
			}
		case <-hb.C:
			if err := beat(); err != nil {
				return err
			}
			if err := flush(); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
