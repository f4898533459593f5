package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/clock"
	"github.com/deepresearch/deepresearch/natsrun"
)

// TestSharedStore: two servers over one cluster store (natsrun.Store,
// Config.SharedStore) serve one run alike. A run started on A waits for
// its plan's review; through B a client reads its events, posts the
// review (forwarded to A, which owns the run) and cancels nothing it
// should not; the run finishes on A, and B streams its events every
// number once, byte for byte A's, and gives its report, byte for byte
// A's.
func TestSharedStore(t *testing.T) {
	const token = "shared-token-0123456789"
	auth := []string{"Authorization", "Bearer " + token}
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
		st, err := natsrun.OpenStore(t.Context(), js, natsrun.StoreOptions{Config: cfg, Owner: name})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		e := &env{t: t, dir: t.TempDir(), clock: clock.NewFake(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))}
		if e.r, err = deepresearch.New(deepresearch.Config{Corpus: filepath.Join("..", "testdata", "corpus"),
			IndexPath: filepath.Join(e.dir, "index.db"), MaxRetries: -1}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.r.Close() })
		if e.runs, err = deepresearch.NewRuns(e.r, st, deepresearch.RunsOptions{Clock: e.clock}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.runs.Close() })
		st.OnLost(natsrun.StopLost(e.runs))
		remote := &natsrun.Remote{JS: js, Config: cfg}
		survey := func(ctx context.Context) (any, error) { return natsrun.Survey(ctx, js, cfg, time.Now()) }
		if e.srv, err = New(Config{Runs: e.runs, Token: token, Remote: remote, SharedStore: true, MaxBody: 4096, Clock: e.clock,
			Cluster: survey}); err != nil {
			t.Fatal(err)
		}
		actx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { remote.AnswerRuns(actx, e.srv.Answer) }) //nolint:errcheck // stopped below
		t.Cleanup(func() { stop(); wg.Wait() })
		e.http = httptest.NewServer(e.srv)
		t.Cleanup(func() { e.http.CloseClientConnections(); e.http.Close() })
		return e
	}
	a, b := open("A"), open("B")

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
