package httpapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// storeRemote is a Remote over another server's run store: what
// natsrun.Remote is over a JetStream events stream, with the same
// contract (the run's events in order, each number once).
type storeRemote struct{ st *sqlitestore.Store }

func (s storeRemote) LastEvent(ctx context.Context, id string) (deepresearch.StoredEvent, error) {
	run, err := s.st.Get(ctx, id)
	if err != nil {
		return deepresearch.StoredEvent{}, err
	}
	if run.Events == 0 { // as natsrun.Remote: a run is known by its events
		return deepresearch.StoredEvent{}, fmt.Errorf("%w: %s has no event", deepresearch.ErrRunNotFound, id)
	}
	var last deepresearch.StoredEvent
	for e, err := range s.st.Events(ctx, id, run.Events-min(run.Events, 1)) {
		if err != nil {
			return last, err
		}
		last = e
		if e.Seq >= run.Events {
			break // the last stored: a running run's stream goes on
		}
	}
	return last, nil
}

func (s storeRemote) Follow(ctx context.Context, id string, after uint64, fn func(deepresearch.StoredEvent) bool) error {
	for e, err := range s.st.Events(ctx, id, after) {
		if err != nil {
			return err
		}
		if !fn(e) {
			return nil
		}
	}
	return nil
}

// TestRemoteRun: a server asked for a run another server process runs
// (Config.Remote) streams its events as that server's store holds them,
// from the start or a Last-Event-ID, as SSE or NDJSON, ending with the
// status the last event says; says its status; refuses its report and
// its cancellation, naming where they are; and a run neither holds is 404.
func TestRemoteRun(t *testing.T) {
	a := newEnv(t, envOpts{})
	defer a.close()
	b := newEnv(t, envOpts{remote: storeRemote{a.store}})
	defer b.close()
	id := a.start("How are undersea cables repaired?").ID
	a.ended(id)

	got, end := b.events(id, 0)
	checkRun(t, a.store, id, got, 1)
	if end["status"] != "finished" || end["events"] != float64(len(got)) {
		t.Errorf("end event %v after %d events", end, len(got))
	}
	half := uint64(len(got) / 2)
	rest, _ := b.events(id, half)
	checkRun(t, a.store, id, rest, half+1)
	after, end := b.events(id, uint64(len(got)))
	if len(after) != 0 || end["status"] != "finished" {
		t.Errorf("a reconnect after the last event: %d events, end %v", len(after), end)
	}

	res := b.do("GET", "/v1/research/"+id+"/events", "", "Accept", "application/x-ndjson")
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if lines := strings.Split(strings.TrimSpace(string(body)), "\n"); len(lines) != len(got) || lines[0] != got[0].data {
		t.Errorf("NDJSON: %d lines; the stream has %d", len(lines), len(got))
	}

	var view struct {
		Status   string    `json:"status"`
		Events   uint64    `json:"events"`
		Question string    `json:"question"`
		Created  time.Time `json:"created"`
		Finished time.Time `json:"finished"`
	}
	readJSON(t, b.do("GET", "/v1/research/"+id, ""), &view)
	own, err := a.store.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if view.Status != "finished" || view.Events != uint64(len(got)) || view.Question != own.Question ||
		view.Created.IsZero() || view.Finished.Before(view.Created) {
		t.Errorf("status %+v; the run's own server says %+v", view, own)
	}
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/v1/research/" + id + "?format=md", "another server process"},
		{"DELETE", "/v1/research/" + id, "already ended"},
	} {
		res := b.do(c.method, c.path, "")
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		readJSON(t, res, &e)
		if res.StatusCode != http.StatusConflict || !strings.Contains(e.Error.Message, c.want) {
			t.Errorf("%s %s: %d %q", c.method, c.path, res.StatusCode, e.Error.Message)
		}
	}
	res = b.do("GET", "/v1/research/0123456789abcdef/events", "")
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("a run no server holds: %s", res.Status)
	}
}

// forwardRemote is a storeRemote that forwards requests to the server of
// that store (Forwarder), with the bytes NATS would carry.
type forwardRemote struct {
	storeRemote
	owner **Server
	asked *atomic.Int32
}

func (f forwardRemote) Ask(ctx context.Context, id string, req []byte, accept func([]byte) bool) ([]byte, error) {
	f.asked.Add(1)
	actx, cancel := context.WithTimeout(ctx, AnswerTry)
	defer cancel()
	if ans, ok := (*f.owner).Answer(actx, id, req, 0); ok && accept(ans) {
		return ans, nil
	}
	<-ctx.Done() // nobody answers: the asker waits for its time
	return nil, ctx.Err()
}

// TestForwardedRequests: through a server whose Remote is a Forwarder,
// what only a run's own server can do works from another server process:
// the plan of a run awaiting review, its acceptance, the report in any
// format (byte for byte the owner's), and the cancellation of a run; a
// forwarded request is signed with the forwarding server's token, which
// the owner checks against its own (a server with another token is
// refused, by the owner); a percent-encoded run ID is the run's; a run
// neither holds is still 404.
func TestForwardedRequests(t *testing.T) {
	reviewing := make(chan struct{}, 4)
	a := newEnv(t, envOpts{token: "owner-token-0123456789", wrap: func(r deepresearch.RunRecorder) deepresearch.RunRecorder {
		return reviewSignal{RunRecorder: r, reviewing: reviewing}
	}})
	defer a.close()
	var asked atomic.Int32
	b := newEnv(t, envOpts{token: "owner-token-0123456789", remote: forwardRemote{storeRemote{a.store}, &a.srv, &asked}})
	defer b.close()
	c := newEnv(t, envOpts{token: "other-token-0123456789", remote: forwardRemote{storeRemote{a.store}, &a.srv, &asked}})
	defer c.close()
	auth := []string{"Authorization", "Bearer owner-token-0123456789"}

	res := a.do("POST", "/v1/research", `{"question":"How were undersea cables laid?","review_plan":true,"max_tasks":2,"max_cycles":1}`, auth...)
	var s started
	readJSON(t, res, &s)
	id := s.ID
	<-reviewing
	var plan deepresearch.Plan
	readJSON(t, b.do("GET", "/v1/research/"+id+"/plan", "", auth...), &plan)
	if len(plan.Tasks) == 0 {
		t.Fatalf("the plan through the other server: %+v", plan)
	}
	before := asked.Load()
	if res := c.do("GET", "/v1/research/"+id+"/plan", "", "Authorization", "Bearer other-token-0123456789"); res.StatusCode != http.StatusUnauthorized || asked.Load() != before+1 {
		t.Errorf("through a server with another token: %d, %d asked; want 401 from the owner", res.StatusCode, asked.Load()-before)
	}
	escaped := "/v1/research/" + strings.ReplaceAll(url.PathEscape(id), id[:1], fmt.Sprintf("%%%02X", id[0])) + "/plan"
	if res := b.do("GET", escaped, "", auth...); res.StatusCode != http.StatusOK {
		t.Errorf("GET %s through the other server: %d", escaped, res.StatusCode)
	}
	if res := b.do("POST", "/v1/research/"+id+"/plan", `{"action":"accept"}`, auth...); res.StatusCode != http.StatusAccepted {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("accepting the plan through the other server: %d %s", res.StatusCode, body)
	}
	a.ended(id)
	for _, f := range []string{"md", "html", "json"} {
		want, got := a.do("GET", "/v1/research/"+id+"?format="+f, "", auth...), b.do("GET", "/v1/research/"+id+"?format="+f, "", auth...)
		wb, _ := io.ReadAll(want.Body)
		gb, _ := io.ReadAll(got.Body)
		if got.StatusCode != http.StatusOK || string(gb) != string(wb) || got.Header.Get("Content-Type") != want.Header.Get("Content-Type") {
			t.Errorf("format %s through the other server: %d %q, %d bytes; the owner's: %d %q, %d bytes",
				f, got.StatusCode, got.Header.Get("Content-Type"), len(gb), want.StatusCode, want.Header.Get("Content-Type"), len(wb))
		}
	}

	res = a.do("POST", "/v1/research", `{"question":"How were undersea cables repaired?","review_plan":true}`, auth...)
	readJSON(t, res, &s)
	<-reviewing
	var view struct {
		Status string `json:"status"`
	}
	readJSON(t, b.do("DELETE", "/v1/research/"+s.ID, "", auth...), &view)
	if view.Status != string(deepresearch.StatusCanceled) {
		t.Errorf("canceled through the other server, the run is %q", view.Status)
	}
	if run, err := a.store.Get(t.Context(), s.ID); err != nil || run.Status != deepresearch.StatusCanceled {
		t.Errorf("its own server's store says %q (%v)", run.Status, err)
	}
	if res := b.do("GET", "/v1/research/0123456789abcdef/plan", "", auth...); res.StatusCode != http.StatusNotFound {
		t.Errorf("a run neither holds: %d", res.StatusCode)
	}
}

// lateStart is a RunRecorder whose runs emit their first event a while
// after they are stored, as a run whose first step is slow would.
type lateStart struct{ deepresearch.RunRecorder }

func (l lateStart) Start(ctx context.Context, req deepresearch.Request, opts deepresearch.RunOptions) (*deepresearch.Run, error) {
	opts.Store = lateFirstEvent{opts.Store}
	return l.RunRecorder.Start(ctx, req, opts)
}

// lateFirstEvent is a Store that stores a run's first event a while after
// it is given it.
type lateFirstEvent struct{ deepresearch.Store }

func (s lateFirstEvent) Append(ctx context.Context, e events.Event) error {
	if e.Seq == 1 {
		time.Sleep(200 * time.Millisecond)
	}
	return s.Store.Append(ctx, e)
}

// TestStartedBeforeAnswer: with other server processes (Config.Remote),
// POST /v1/research answers once the run's first event is stored, so a
// client sent at once to another server (which knows runs by their
// events) finds the run there, not a 404.
func TestStartedBeforeAnswer(t *testing.T) {
	var bStore *sqlitestore.Store
	a := newEnv(t, envOpts{wrap: func(r deepresearch.RunRecorder) deepresearch.RunRecorder { return lateStart{r} }, remote: lazyRemote{&bStore}})
	defer a.close()
	b := newEnv(t, envOpts{remote: storeRemote{a.store}})
	defer b.close()
	bStore = b.store
	id := a.start("How are undersea cables repaired?").ID
	res := b.do("GET", "/v1/research/"+id+"/events", "", "Accept", "application/x-ndjson")
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("events through the other server right after the POST: %d %s", res.StatusCode, body)
	}
	a.ended(id)
}

// lazyRemote is a storeRemote over a store opened after the server.
type lazyRemote struct{ st **sqlitestore.Store }

func (l lazyRemote) LastEvent(ctx context.Context, id string) (deepresearch.StoredEvent, error) {
	return storeRemote{*l.st}.LastEvent(ctx, id)
}

func (l lazyRemote) Follow(ctx context.Context, id string, after uint64, fn func(deepresearch.StoredEvent) bool) error {
	return storeRemote{*l.st}.Follow(ctx, id, after, fn)
}
