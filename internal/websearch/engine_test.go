package websearch_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/search"
)

func TestEngines(t *testing.T) {
	type want struct{ url, title, snippet, published string }
	tests := []struct {
		provider    string
		limit       int
		want        []want
		wantDropped int64
	}{
		{"searxng", 5, []want{
			{"https://en.wikipedia.org/wiki/Submarine_communications_cable", "Submarine communications cable - Wikipedia", "A submarine communications cable is a cable laid on the seabed", ""}, // publishedDate: null
			{"https://www.submarinenetworks.com/en/systems/trans-atlantic/repeaters?utm_source=searx", "How repeaters work & why they matter", "powered over the cable's copper conductor.", "2024-03-01T00:00:00Z"},
		}, 2},
		{"tavily", 5, []want{
			{"https://www.britannica.com/technology/submarine-cable", "Submarine cable | Britannica", "assembly of conductors enclosed by an insulating sheath", ""},
			{"https://en.wikipedia.org/wiki/Submarine_communications_cable#Repeaters", "Submarine communications cable", "Repeaters amplify the signal", "2024-11-14T20:10:19Z"},
		}, 0},
		{"brave", 5, []want{
			{"http://www.en.wikipedia.org/wiki/Submarine_communications_cable", "Submarine communications cable - Wikipedia", "stretches of ocean and sea. Modern cables use optical fibre. Repeaters are powered through the cable.", "2024-11-02T10:12:55Z"},
			{"https://www.telegeography.com/repeaters", "Cable repeaters explained", "Why repeaters sit on the seabed every 70 km.", "2023-05-04"}, // age only
		}, 0},
		{"exa", 5, []want{
			{"https://ieeexplore.ieee.org/document/1234567", "A history of transatlantic cables", "completed in 1858. … It failed after three weeks.", "2016-05-01T00:00:00Z"},
			{"https://en.wikipedia.org/wiki/SS_Great_Eastern", "Cable ship Great Eastern", "designed by Isambard Kingdom Brunel.", ""},
		}, 1},
		{"searxng", 1, []want{
			{"https://en.wikipedia.org/wiki/Submarine_communications_cable", "Submarine communications cable - Wikipedia", "laid on the seabed", ""},
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+strconv.Itoa(tt.limit), func(t *testing.T) {
			a := newAPI(t, tt.provider, tt.limit, reply{body: fixture(t, tt.provider+"/search.json")})
			clk := clock.NewFake(testNow)
			e, err := websearch.New(tt.provider, config(a, clk))
			if err != nil {
				t.Fatal(err)
			}
			var got []search.Result
			waits := clk.Drive(func() { got, err = e.Search(context.Background(), testQuery, tt.limit) })
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d results, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				r := got[i]
				if r.URL != w.url || r.DocID != w.url || r.Title != w.title || r.Channel != websearch.ChannelWeb || !strings.Contains(r.Snippet, w.snippet) || r.Published != w.published {
					t.Errorf("result %d = %+v\nwant url %s title %q snippet containing %q published %q", i, r, w.url, w.title, w.snippet, w.published)
				}
				if i > 0 && r.Score > got[i-1].Score {
					t.Errorf("results not best first: %v after %v", r.Score, got[i-1].Score)
				}
			}
			if tt.provider == "exa" && (got[0].Author != "Bill Burns" || got[1].Author != "") {
				t.Errorf("Exa's authors: %q, %q; want Bill Burns and none", got[0].Author, got[1].Author)
			}
			if d := e.Dropped(); d != tt.wantDropped {
				t.Errorf("Dropped() = %d, want %d", d, tt.wantDropped)
			}
			if n := a.hits.Load(); n != 1 || len(waits) != 0 {
				t.Errorf("%d requests, waits %v; want 1 and none", n, waits)
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	const limit = 3
	ok := func(p string) reply { return reply{body: fixture(t, p+"/search.json")} }
	tests := []struct {
		name      string
		provider  string
		replies   []reply
		cfg       func(*websearch.Config)
		wantErr   error    // nil: the search succeeds
		wantIn    []string // in the error message
		wantHits  int64
		wantWaits []time.Duration // exact; nil with wantBackoff: checked by range
		backoff   bool
	}{
		{name: "tavily bad key", provider: "tavily",
			replies: []reply{{status: 401, body: fixture(t, "tavily/401.json")}},
			wantErr: websearch.ErrAuth, wantIn: []string{"tavily", "HTTP 401", "missing or invalid API key", "TAVILY_API_KEY"}, wantHits: 1},
		{name: "brave bad key", provider: "brave",
			replies: []reply{{status: 401, body: fixture(t, "brave/401.json")}},
			wantErr: websearch.ErrAuth, wantIn: []string{"brave", "subscription token is invalid", "BRAVE_API_KEY"}, wantHits: 1},
		{name: "exa bad key", provider: "exa",
			replies: []reply{{status: 401, body: fixture(t, "exa/401.json")}},
			wantErr: websearch.ErrAuth, wantIn: []string{"exa", "Invalid API key", "EXA_API_KEY"}, wantHits: 1},
		{name: "searxng without JSON", provider: "searxng",
			replies: []reply{{status: 403, header: map[string]string{"Content-Type": "text/html"}, body: []byte("<html><body>403 Forbidden</body></html>")}},
			wantErr: websearch.ErrRejected, wantIn: []string{"searxng", "search.formats"}, wantHits: 1},
		{name: "429 with Retry-After, then success", provider: "brave",
			replies:  []reply{{status: 429, header: map[string]string{"Retry-After": "7"}, body: fixture(t, "brave/429.json")}, ok("brave")},
			wantHits: 2, wantWaits: []time.Duration{7 * time.Second}},
		{name: "429 with an HTTP-date Retry-After", provider: "tavily",
			replies:  []reply{{status: 429, header: map[string]string{"Retry-After": testNow.Add(12 * time.Second).Format(http.TimeFormat)}}, ok("tavily")},
			wantHits: 2, wantWaits: []time.Duration{12 * time.Second}},
		{name: "429 with Brave's X-RateLimit-Reset", provider: "brave",
			replies:  []reply{{status: 429, header: map[string]string{"X-RateLimit-Reset": "1, 1419704"}, body: fixture(t, "brave/429.json")}, ok("brave")},
			wantHits: 2, wantWaits: []time.Duration{time.Second}},
		{name: "429 until the retries run out", provider: "brave",
			replies: []reply{{status: 429, header: map[string]string{"Retry-After": "2"}, body: fixture(t, "brave/429.json")}},
			wantErr: websearch.ErrRateLimited, wantIn: []string{"HTTP 429", "rate limit exceeded", "after 3 attempts"},
			wantHits: 3, wantWaits: []time.Duration{2 * time.Second, 2 * time.Second}},
		{name: "Retry-After longer than we wait", provider: "exa",
			replies: []reply{{status: 429, header: map[string]string{"Retry-After": "3600"}}},
			wantErr: websearch.ErrRateLimited, wantHits: 1, wantWaits: []time.Duration{}},
		{name: "500 then success, with backoff", provider: "searxng",
			replies:  []reply{{status: 500, body: []byte("Internal Server Error")}, {status: 502}, ok("searxng")},
			wantHits: 3, backoff: true},
		{name: "503 every time", provider: "tavily",
			replies: []reply{{status: 503, body: []byte(`{"detail": {"error": "upstream overloaded"}}`)}},
			wantErr: websearch.ErrUnavailable, wantIn: []string{"HTTP 503", "upstream overloaded"}, wantHits: 3, backoff: true},
		{name: "no retries when told", provider: "tavily",
			cfg:     func(c *websearch.Config) { c.Retries = -1 },
			replies: []reply{{status: 503}},
			wantErr: websearch.ErrUnavailable, wantHits: 1, wantWaits: []time.Duration{}},
		{name: "malformed JSON", provider: "exa",
			replies: []reply{{body: []byte(`{"results": [{"url": "https://a.example", "title": `)}},
			wantErr: websearch.ErrMalformed, wantIn: []string{"exa", "malformed response"}, wantHits: 1},
		{name: "wrong JSON shape", provider: "searxng",
			replies: []reply{{body: []byte(`{"results": {"url": "https://a.example"}}`)}},
			wantErr: websearch.ErrMalformed, wantHits: 1},
		{name: "truncated response, then success", provider: "tavily",
			replies:  []reply{{corrupt: true, body: fixture(t, "tavily/search.json")}, ok("tavily")},
			wantHits: 2, backoff: true},
		{name: "bad request", provider: "brave",
			replies: []reply{{status: 422, body: []byte(`{"type": "ErrorResponse", "error": {"status": 422, "code": "VALIDATION", "detail": "Unable to validate request parameter(s)"}}`)}},
			wantErr: websearch.ErrRejected, wantIn: []string{"HTTP 422", "Unable to validate"}, wantHits: 1},
		{name: "every searxng engine unresponsive", provider: "searxng",
			replies: []reply{{body: fixture(t, "searxng/unresponsive.json")}},
			wantErr: websearch.ErrUnavailable, wantIn: []string{"google: Suspended: too many requests", "duckduckgo: timeout"}, wantHits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAPI(t, tt.provider, limit, tt.replies...)
			clk := clock.NewFake(testNow)
			cfg := config(a, clk)
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			e, err := websearch.New(tt.provider, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var res []search.Result
			waits := clk.Drive(func() { res, err = e.Search(context.Background(), testQuery, limit) })
			if tt.wantErr == nil {
				if err != nil || len(res) == 0 {
					t.Fatalf("Search = %d results, %v; want results", len(res), err)
				}
			} else {
				var we *websearch.Error
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &we) || we.Provider != tt.provider || res != nil {
					t.Fatalf("Search = %v, %v; want %v from %s", res, err, tt.wantErr, tt.provider)
				}
				for _, w := range tt.wantIn {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if we.Retryable() != (errors.Is(err, websearch.ErrRateLimited) || errors.Is(err, websearch.ErrUnavailable)) {
					t.Errorf("Retryable() = %v", we.Retryable())
				}
			}
			if n := a.hits.Load(); n != tt.wantHits {
				t.Errorf("%d requests, want %d", n, tt.wantHits)
			}
			switch {
			case tt.backoff:
				if len(waits) != int(tt.wantHits)-1 {
					t.Fatalf("waits %v, want %d", waits, tt.wantHits-1)
				}
				for i, w := range waits {
					lo, hi := time.Second<<i/2, time.Second<<i // Backoff 1s, doubling, jitter in [d/2, d]
					if w < lo || w > hi {
						t.Errorf("wait %d = %v, want in [%v, %v]", i, w, lo, hi)
					}
				}
			case tt.wantWaits != nil:
				if len(waits) != len(tt.wantWaits) {
					t.Fatalf("waits %v, want %v", waits, tt.wantWaits)
				}
				for i := range waits {
					if waits[i] != tt.wantWaits[i] {
						t.Errorf("waits %v, want %v", waits, tt.wantWaits)
					}
				}
			}
		})
	}
}

// TestStalledSearch: a provider that never answers does not hang a search
// whose context ends.
func TestStalledSearch(t *testing.T) {
	stall := make(chan struct{}, 1)
	a := newAPI(t, "tavily", 3, reply{stall: stall})
	e, err := websearch.New("tavily", config(a, clock.NewFake(testNow)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-stall; cancel() }()
	_, err = e.Search(ctx, testQuery, 3)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := a.hits.Load(); n != 1 {
		t.Errorf("%d requests after cancellation, want 1", n)
	}
}

// TestCanceledDuringBackoff: a search whose context ends while it waits to
// retry returns at once with an *Error carrying the cause and the attempts
// made.
func TestCanceledDuringBackoff(t *testing.T) {
	a := newAPI(t, "tavily", 3, reply{status: 503})
	clk := clock.NewFake(testNow)
	e, err := websearch.New("tavily", config(a, clk))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := errors.New("user pressed stop")
	armed := clk.Armed() // closed when the backoff's timer is armed
	go func() { <-armed; cancel(stop) }()
	_, err = e.Search(ctx, testQuery, 3)
	var we *websearch.Error
	if !errors.Is(err, stop) || !errors.As(err, &we) || we.Provider != "tavily" || we.Attempts != 1 {
		t.Fatalf("err = %#v, want a tavily *Error with the cause after 1 attempt", err)
	}
	if n := a.hits.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestNew(t *testing.T) {
	env := map[string]string{"SEARXNG_URL": " http://searx.local:8888/ ", "BRAVE_API_KEY": "BSA-secret-key"}
	cfg := websearch.ConfigFromEnv(func(k string) string { return env[k] })
	if _, err := websearch.New("searxng", cfg); err != nil {
		t.Errorf("searxng: %v", err)
	}
	if _, err := websearch.New("Brave", cfg); err != nil {
		t.Errorf("brave: %v", err)
	}
	tests := []struct {
		provider string
		cfg      websearch.Config
		want     error
		wantIn   string
	}{
		{"tavily", cfg, websearch.ErrNoKey, "set TAVILY_API_KEY"},
		{"exa", cfg, websearch.ErrNoKey, "set EXA_API_KEY"},
		{"searxng", websearch.Config{}, websearch.ErrNoKey, "set SEARXNG_URL"},
		{"searxng", websearch.Config{SearXNGURL: "file:///etc"}, nil, "not an http or https URL"},
		{"google", cfg, websearch.ErrUnknownProvider, "searxng, tavily, brave, exa"},
	}
	for _, tt := range tests {
		_, err := websearch.New(tt.provider, tt.cfg)
		if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.wantIn) {
			t.Errorf("New(%q) err = %v, want %v containing %q", tt.provider, err, tt.want, tt.wantIn)
		}
	}
	st := websearch.Describe(cfg)
	var all strings.Builder
	for _, s := range st {
		all.WriteString(s.Provider + " " + s.EnvVar + " " + s.Endpoint + " " + s.Key + "\n")
	}
	if strings.Contains(all.String(), "BSA-secret-key") {
		t.Errorf("Describe reveals a key:\n%s", all.String())
	}
	if len(st) != 4 || !st[0].Configured || st[1].Configured || !st[2].Configured || st[2].Key != "set (14 chars)" || st[3].Configured {
		t.Errorf("Describe = %+v", st)
	}
}

func TestCheck(t *testing.T) {
	a := newAPI(t, "exa", 1, reply{status: 401, body: fixture(t, "exa/401.json")})
	a.query = "deepresearch"
	e, err := websearch.New("exa", config(a, clock.NewFake(testNow)))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Check(context.Background()); !errors.Is(err, websearch.ErrAuth) || !strings.Contains(err.Error(), "EXA_API_KEY") {
		t.Errorf("Check = %v, want ErrAuth naming EXA_API_KEY", err)
	}
	b := newAPI(t, "searxng", 1, reply{status: 503})
	b.query = "deepresearch"
	e, err = websearch.New("searxng", config(b, clock.NewFake(testNow)))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Check(context.Background()); !errors.Is(err, websearch.ErrUnavailable) || b.hits.Load() != 1 {
		t.Errorf("Check = %v after %d requests, want ErrUnavailable after 1", err, b.hits.Load())
	}
}
