package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/natsrun"
)

// natsForwarder is a storeRemote (the owner's events) that forwards
// requests over a real NATS server (natsrun.Remote.Ask), where the owner
// answers with AnswerRuns.
type natsForwarder struct {
	storeRemote
	nats *natsrun.Remote
}

func (f natsForwarder) Ask(ctx context.Context, id string, req []byte, accept func([]byte) bool) ([]byte, error) {
	return f.nats.Ask(ctx, id, req, accept)
}

// TestForwardedAnswersSigned (issue 29): a client of the NATS cluster
// that holds no serve.token answers every forwarded request at once, with
// a page of its own, unsigned or signed with a key of its own; the
// server that forwarded takes only the owner's answers: each report
// through it is byte for byte the owner's. A forwarded request captured
// on the way is not answered again, and one whose forwarded headers were
// changed is refused.
func TestForwardedAnswersSigned(t *testing.T) {
	const token = "owner-token-0123456789"
	auth := []string{"Authorization", "Bearer " + token}
	srv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	connect := func() (*nats.Conn, *natsrun.Remote) {
		nc, err := nats.Connect(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		return nc, &natsrun.Remote{JS: js, Config: natsrun.Config{Prefix: "drfwd"}}
	}
	a := newEnv(t, envOpts{token: token})
	defer a.close()
	_, owner := connect()
	actx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { owner.AnswerRuns(actx, a.srv.Answer) }) //nolint:errcheck // stopped below
	defer func() { stop(); wg.Wait() }()
	_, asker := connect()
	b := newEnv(t, envOpts{token: token, remote: natsForwarder{storeRemote{a.store}, asker}})
	defer b.close()

	// The forger answers first, with a page of its own, and keeps what it
	// hears.
	forger, _ := connect()
	var (
		mu       sync.Mutex
		captured [][]byte
		forged   atomic.Int32
	)
	page, _ := json.Marshal(forwardAnswer{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
		Body: []byte(`<meta http-equiv="refresh" content="0;url=https://evil.example/">FORGED`)})
	signed, _ := json.Marshal(forwardAnswer{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
		Body: []byte("FORGED"), MAC: forwardAnswer{Status: http.StatusOK}.mac("x", nil, "the forger's own key")})
	if _, err := forger.Subscribe("drfwd.control.*", func(m *nats.Msg) {
		mu.Lock()
		captured = append(captured, m.Data)
		mu.Unlock()
		m.Respond(page)
		m.Respond(signed)
		forged.Add(2)
	}); err != nil {
		t.Fatal(err)
	}
	forger.Flush()

	res := a.do("POST", "/v1/research", `{"question":"How were undersea cables laid?"}`, auth...)
	var s started
	readJSON(t, res, &s)
	a.ended(s.ID)
	want := a.do("GET", "/v1/research/"+s.ID+"?format=html", "", auth...)
	wb, _ := io.ReadAll(want.Body)
	for i := range 10 {
		got := b.do("GET", "/v1/research/"+s.ID+"?format=html", "", auth...)
		gb, _ := io.ReadAll(got.Body)
		if got.StatusCode != http.StatusOK || string(gb) != string(wb) || strings.Contains(string(gb), "FORGED") {
			t.Errorf("request %d through the other server: %d, %d bytes; the owner's: %d bytes%s", i, got.StatusCode, len(gb), len(wb),
				map[bool]string{true: " (the forger's page)"}[strings.Contains(string(gb), "FORGED")])
		}
	}
	if forged.Load() == 0 {
		t.Fatal("the forger heard no request: this test tests nothing")
	}

	mu.Lock()
	req := captured[len(captured)-1]
	mu.Unlock()
	if _, ok := a.srv.Answer(t.Context(), s.ID, req, 0); ok {
		t.Error("a captured request was answered again")
	}
	var fr forwardRequest
	if err := json.Unmarshal(req, &fr); err != nil {
		t.Fatal(err)
	}
	fr.Nonce = []byte("0123456789abcdef") // a fresh nonce would not help either
	for name, change := range map[string]func(*forwardRequest){
		"Accept":  func(fr *forwardRequest) { fr.Header = http.Header{"Accept": {"application/json"}} },
		"Host":    func(fr *forwardRequest) { fr.Host = "evil.example" },
		"nonce":   func(*forwardRequest) {},
		"the run": func(fr *forwardRequest) { fr.Query = "format=md" },
	} {
		c := fr
		change(&c)
		data, _ := json.Marshal(c)
		ans, ok := a.srv.Answer(t.Context(), s.ID, data, 0)
		var got forwardAnswer
		json.Unmarshal(ans, &got)
		if !ok || got.Status != http.StatusUnauthorized || got.MAC != nil {
			t.Errorf("a forwarded request with its %s changed: answered %v, status %d", name, ok, got.Status)
		}
	}
}
