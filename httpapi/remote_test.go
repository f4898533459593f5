package httpapi

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
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
	var last deepresearch.StoredEvent
	for e, err := range s.st.Events(ctx, id, run.Events-min(run.Events, 1)) {
		if err != nil {
			return last, err
		}
		last = e
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
