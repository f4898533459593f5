package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/runstore"
)

// sharedPair starts two servers, A and B, over one cluster store
// (natsrun.Store on an embedded NATS server), their Researchers on model
// (nil: the default offline one).
func sharedPair(t *testing.T, token string, model llms.Model) (a, b *env) {
	t.Helper()
	nsrv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nsrv.Close)
	cfg := natsrun.Config{Prefix: "drshare"}
	open := func(name string) *env {
		nc, err := nats.Connect(nsrv.URL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		cl := natsrun.NewCluster(js, cfg)
		st, err := cl.OpenStore(t.Context(), natsrun.StoreOptions{Owner: name})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		e := &env{t: t, dir: t.TempDir(), clock: clock.NewFake(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))}
		if e.r, err = deepresearch.New(deepresearch.Config{Model: model, Search: deepresearchtest.Corpus(t, filepath.Join("..", "testdata", "corpus"), filepath.Join(e.dir, "index.db")), MaxRetries: -1}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.r.Close() })
		if e.runs, err = deepresearch.NewRuns(e.r, st, deepresearch.RunsOptions{Clock: e.clock}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.runs.Close() })
		st.OnLost(natsrun.StopLost(e.runs))
		survey := func(ctx context.Context) (any, error) { return cl.Survey(ctx) }
		if e.srv, err = New(Config{Runs: e.runs, Token: token, MaxBody: 1 << 20, Clock: e.clock, Cluster: survey}); err != nil {
			t.Fatal(err)
		}
		e.http = httptest.NewServer(e.srv)
		t.Cleanup(func() { e.http.CloseClientConnections(); e.http.Close() })
		return e
	}
	return open("A"), open("B")
}

// TestSharedStore: two servers over one cluster store (natsrun.Store)
// serve one run alike, with no call from one to the other. A run started
// on A waits for its plan's review; through B a client reads its events
// and its plan, and posts the review, which reaches A's run through the
// store (relay.Store); the run finishes on A, and B streams its
// events every number once, byte for byte A's, and gives its report,
// byte for byte A's.
func TestSharedStore(t *testing.T) {
	const token = "shared-token-0123456789"
	auth := []string{"Authorization", "Bearer " + token}
	a, b := sharedPair(t, token, nil)

	res := a.do("POST", "/v1/research", `{"question":"How were undersea cables laid?","review":"first_plan"}`, auth...)
	var s started
	readJSON(t, res, &s)
	// Through B, the run's events up to its plan's review.
	res = b.do("GET", "/v1/research/"+s.ID+"/events", "", auth...)
	readSSE(t, res.Body, func(e sse) bool { return e.event != "plan.review_requested" })
	res.Body.Close()
	var plan deepresearch.Plan
	readJSON(t, b.do("GET", "/v1/research/"+s.ID+"/plan", "", auth...), &plan)
	if len(plan.Tasks) == 0 {
		t.Fatalf("the plan through B has no task: %+v", plan)
	}
	// The review, posted to B, is A's run's.
	if res := b.do("POST", "/v1/research/"+s.ID+"/plan", `{"action":"accept"}`, auth...); res.StatusCode != http.StatusAccepted {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("the review through B: %s %s", res.Status, body)
	}
	a.ended(s.ID)
	events := func(e *env) ([]sse, map[string]any) {
		res := e.do("GET", "/v1/research/"+s.ID+"/events", "", auth...)
		defer res.Body.Close()
		var got []sse
		var end map[string]any
		readSSE(t, res.Body, func(s sse) bool {
			switch {
			case s.comment:
			case s.event == "end":
				json.Unmarshal([]byte(s.data), &end)
				return false
			default:
				got = append(got, s)
			}
			return true
		})
		return got, end
	}
	got, end := events(b)
	want, _ := events(a)
	if len(got) != len(want) || end["status"] != "finished" {
		t.Fatalf("B streamed %d events, ending %v; A streams %d", len(got), end, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d through B: %+v; through A: %+v", i+1, got[i], want[i])
		}
	}
	wantMD := a.do("GET", "/v1/research/"+s.ID+"?format=md", "", auth...)
	wb, _ := io.ReadAll(wantMD.Body)
	gotMD := b.do("GET", "/v1/research/"+s.ID+"?format=md", "", auth...)
	gb, _ := io.ReadAll(gotMD.Body)
	if gotMD.StatusCode != http.StatusOK || string(gb) != string(wb) || len(wb) == 0 {
		t.Errorf("the report through B: %s, %d bytes; A's: %d bytes", gotMD.Status, len(gb), len(wb))
	}
	// Either server shows both alive.
	var cl natsrun.ClusterStatus
	readJSON(t, b.do("GET", "/v1/cluster", "", auth...), &cl)
	if len(cl.Servers) != 2 || cl.Servers[0].Name != "A" || !cl.Servers[0].Alive || cl.Servers[1].Name != "B" || !cl.Servers[1].Alive {
		t.Errorf("GET /v1/cluster: %+v; want servers A and B alive", cl)
	}
	// Cancelling the ended run through B is refused as on A.
	if res := b.do("DELETE", "/v1/research/"+s.ID, "", auth...); res.StatusCode != http.StatusConflict {
		t.Errorf("cancelling the ended run through B: %s", res.Status)
	}
}

// TestSharedStoreRelays: a person's answers and a cancellation given to
// B reach the run A has in progress through the store, and B answers
// with what A made of them: answers out of bounds refused as A refuses
// them (400), answers taken (202, the planner sees them), a second
// answer refused (409); a run canceled through B ends canceled on A.
func TestSharedStoreRelays(t *testing.T) {
	const token = "relay-token-0123456789"
	auth := []string{"Authorization", "Bearer " + token}
	m := &asking{Model: deepresearchtest.Model(0)}
	a, b := sharedPair(t, token, m)
	post := func(e *env, path, body string, want int) {
		t.Helper()
		res := e.do("POST", path, body, auth...)
		defer res.Body.Close()
		if res.StatusCode != want {
			msg, _ := io.ReadAll(res.Body)
			t.Fatalf("POST %s: %s %s, want %d", path, res.Status, msg, want)
		}
	}
	status := func(e *env, id string) string {
		var v struct {
			Status string `json:"status"`
		}
		readJSON(t, e.do("GET", "/v1/research/"+id, "", auth...), &v)
		return v.Status
	}
	var s started
	readJSON(t, a.do("POST", "/v1/research", `{"question":"How were undersea cables laid?"}`, auth...), &s)
	res := b.do("GET", "/v1/research/"+s.ID+"/events", "", auth...)
	readSSE(t, res.Body, func(e sse) bool { return e.event != string(events.ClarificationRequested) })
	res.Body.Close()
	if st := status(b, s.ID); st != string(runstore.NeedsInput) {
		t.Fatalf("status through B %s, want needs_input", st)
	}
	post(b, "/v1/research/"+s.ID+"/plan", `{"action":"accept"}`, http.StatusConflict) // not waiting for that
	post(b, "/v1/research/"+s.ID+"/input", `{"answers":["`+strings.Repeat("a", deepresearch.MaxTextBytes+1)+`"]}`, http.StatusBadRequest)
	post(b, "/v1/research/"+s.ID+"/input", `{"answers":["telegraph, 1850-1870","the Atlantic"]}`, http.StatusAccepted)
	a.ended(s.ID)
	if st := status(b, s.ID); st != string(runstore.Finished) {
		t.Fatalf("status through B %s, want finished", st)
	}
	m.mu.Lock()
	planned := slices.Clone(m.planned)
	m.mu.Unlock()
	if len(planned) != 1 || !strings.Contains(planned[0], "Which cables: telegraph or fibre? → telegraph, 1850-1870") {
		t.Errorf("the planner's messages: %q", planned)
	}
	post(b, "/v1/research/"+s.ID+"/input", `{"answers":["again"]}`, http.StatusConflict)

	// A second run, waiting for answers on A, canceled through B.
	readJSON(t, a.do("POST", "/v1/research", `{"question":"Who laid the first transatlantic cable?"}`, auth...), &s)
	res = b.do("GET", "/v1/research/"+s.ID+"/events", "", auth...)
	readSSE(t, res.Body, func(e sse) bool { return e.event != string(events.ClarificationRequested) })
	res.Body.Close()
	res = b.do("DELETE", "/v1/research/"+s.ID, "", auth...)
	var v struct {
		Status string `json:"status"`
	}
	readJSON(t, res, &v)
	if res.StatusCode != http.StatusOK || v.Status != string(runstore.Canceled) {
		t.Fatalf("DELETE through B: %s, status %q; want 200 canceled", res.Status, v.Status)
	}
	a.ended(s.ID)
	if st := status(a, s.ID); st != string(runstore.Canceled) {
		t.Errorf("status on A %s, want canceled", st)
	}
}
