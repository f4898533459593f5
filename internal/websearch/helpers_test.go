package websearch_test

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/websearch"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	testQuery = "submarine cable repeaters"
	tavilyKey = "tvly-test-0123456789"
	braveKey  = "BSA-test-key"
	exaKey    = "exa-test-key"
)

var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// api is a local server speaking one provider's API. It checks every
// request against the provider's published request format, then answers
// with the next reply in its script (the last one repeats).
type api struct {
	*httptest.Server
	provider string
	hits     atomic.Int64

	mu      sync.Mutex
	replies []reply
	limit   int    // the result count the requests must ask for
	query   string // the query they must carry; default testQuery
}

// reply is one scripted answer.
type reply struct {
	status  int
	header  map[string]string
	body    []byte
	stall   chan struct{} // if set: signal it, then hang until the request ends
	corrupt bool          // declare a longer body than is sent, then close
}

func newAPI(t testing.TB, provider string, limit int, replies ...reply) *api {
	t.Helper()
	a := &api{provider: provider, replies: replies, limit: limit}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.hits.Add(1)
		if msg := a.checkRequest(r); msg != "" {
			t.Errorf("%s request: %s", provider, msg)
			http.Error(w, msg, http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		rp := a.replies[0]
		if len(a.replies) > 1 {
			a.replies = a.replies[1:]
		}
		a.mu.Unlock()
		if rp.stall != nil {
			rp.stall <- struct{}{}
			<-r.Context().Done()
			return
		}
		for k, v := range rp.header {
			w.Header().Set(k, v)
		}
		if rp.corrupt {
			w.Header().Set("Content-Length", "100000")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.Write(rp.body[:len(rp.body)/2])
			return // the server closes the connection short of the length
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(cmp.Or(rp.status, http.StatusOK))
		w.Write(rp.body)
	}))
	t.Cleanup(a.Close)
	return a
}

// checkRequest returns what is wrong with r for the provider's API, or "".
func (a *api) checkRequest(r *http.Request) string {
	q := r.URL.Query()
	testQuery := testQuery
	if a.query != "" {
		testQuery = a.query
	}
	switch a.provider {
	case "searxng":
		if r.Method != http.MethodGet || r.URL.Path != "/search" || q.Get("q") != testQuery || q.Get("format") != "json" {
			return "want GET /search?q=" + testQuery + "&format=json, got " + r.Method + " " + r.URL.String()
		}
	case "tavily":
		if r.Method != http.MethodPost || r.URL.Path != "/search" {
			return "want POST /search, got " + r.Method + " " + r.URL.Path
		}
		if r.Header.Get("Authorization") != "Bearer "+tavilyKey || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			return "missing bearer key or JSON content type"
		}
		var body struct {
			Query       string `json:"query"`
			MaxResults  int    `json:"max_results"`
			SearchDepth string `json:"search_depth"`
			Topic       string `json:"topic"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			return "body: " + err.Error()
		}
		if body.Query != testQuery || body.MaxResults != a.limit || body.SearchDepth != "basic" || body.Topic != "general" {
			return "unexpected body"
		}
	case "brave":
		if r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search" {
			return "want GET /res/v1/web/search, got " + r.Method + " " + r.URL.Path
		}
		if r.Header.Get("X-Subscription-Token") != braveKey || r.Header.Get("Accept") != "application/json" {
			return "missing X-Subscription-Token or Accept: application/json"
		}
		if q.Get("q") != testQuery || q.Get("count") != strconv.Itoa(a.limit) {
			return "unexpected query " + r.URL.RawQuery
		}
	case "exa":
		if r.Method != http.MethodPost || r.URL.Path != "/search" {
			return "want POST /search, got " + r.Method + " " + r.URL.Path
		}
		if r.Header.Get("x-api-key") != exaKey || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			return "missing x-api-key or JSON content type"
		}
		var body struct {
			Query      string `json:"query"`
			NumResults int    `json:"numResults"`
			Type       string `json:"type"`
			Contents   struct {
				Highlights *struct {
					NumSentences int `json:"numSentences"`
				} `json:"highlights"`
			} `json:"contents"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			return "body: " + err.Error()
		}
		if body.Query != testQuery || body.NumResults != a.limit || body.Type != "auto" || body.Contents.Highlights == nil {
			return "unexpected body"
		}
	}
	return ""
}

// config points every provider at a, with test keys and a fake clock
// that reads testNow: a test that expects retries searches through
// clk.Drive, which makes the waits between them take no time and returns
// them.
func config(a *api, clk *clock.Fake) websearch.Config {
	return websearch.Config{
		SearXNGURL: a.URL, TavilyURL: a.URL, BraveURL: a.URL, ExaURL: a.URL,
		TavilyKey: tavilyKey, BraveKey: braveKey, ExaKey: exaKey,
		Clock: clk, Backoff: time.Second,
	}
}
