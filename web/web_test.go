package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/web"
)

// tavilyServer speaks Tavily's search API (POST /search, a bearer key, a
// JSON body and answer) and counts the requests that carried key.
func tavilyServer(t *testing.T, key string, results ...map[string]any) (*httptest.Server, *int) {
	t.Helper()
	var authorized int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/search" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"detail": map[string]string{"error": "Unauthorized: missing or invalid API key."}})
			return
		}
		var body struct {
			Query      string `json:"query"`
			MaxResults int    `json:"max_results"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Query == "" || body.MaxResults <= 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		authorized++
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"query": body.Query, "results": results, "response_time": 0.5})
	}))
	t.Cleanup(srv.Close)
	return srv, &authorized
}

// TestEngineTakesItsKey: an engine is built from its key and speaks to
// the address Options gives; a wrong key fails the search, naming the
// provider; no key fails at once with ErrNoKey.
func TestEngineTakesItsKey(t *testing.T) {
	srv, authorized := tavilyServer(t, "tv-right", map[string]any{
		"title": "Cable ship", "url": "https://cables.example/ship", "content": "The cable ship Monarch.", "score": 0.9})
	tv, err := web.Tavily("tv-right", web.Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if tv.Name() != "tavily" || tv.Channel() != "web" {
		t.Errorf("Name %q Channel %q", tv.Name(), tv.Channel())
	}
	res, err := tv.Search(context.Background(), "cable ship", 5)
	if err != nil || len(res) != 1 || res[0].DocID != "https://cables.example/ship" || res[0].Channel != "web" || *authorized != 1 {
		t.Fatalf("search: %+v, %v (%d authorized requests)", res, err, *authorized)
	}
	wrong, err := web.Tavily("tv-wrong", web.Options{BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.Search(context.Background(), "cable ship", 5); err == nil || !strings.Contains(err.Error(), "tavily") {
		t.Errorf("search with a wrong key: %v; want an error naming tavily", err)
	}
	if _, err := web.New("brave", "", web.Options{}); !errors.Is(err, web.ErrNoKey) {
		t.Errorf("brave without a key: %v; want ErrNoKey", err)
	}
	if _, err := web.New("altavista", "k", web.Options{}); err == nil || !strings.Contains(err.Error(), "altavista") {
		t.Errorf("an unknown provider: %v", err)
	}
}

// TestCombineSearchesEach: a combined search asks a web engine and a
// local corpus, keeps each result on its own channel, reads a corpus
// document from the corpus, refuses a name given twice, and researches
// end to end as one Config.Search.
func TestCombineSearchesEach(t *testing.T) {
	webDocs, err := deepresearchtest.NewWebServer(search.Document{Title: "Repeaters on the sea floor",
		Text: "Submarine cable repeaters amplify the light every 60 to 100 kilometres along the cable."})
	if err != nil {
		t.Fatal(err)
	}
	defer webDocs.Close()
	sx, err := web.SearXNG(webDocs.URL, web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "repair.md"), []byte("# Cable repair\n\nA cable ship grapples the broken cable repeaters and splices a new length.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := corpus.Open(dir, corpus.Options{IndexPath: filepath.Join(t.TempDir(), "i.db")})
	if err != nil {
		t.Fatal(err)
	}
	both, err := web.Combine(sx, docs)
	if err != nil {
		t.Fatal(err)
	}
	if m := both.Members(); len(m) != 2 || m[0] != search.Backend(sx) || m[1] != search.Backend(docs) {
		t.Errorf("Members: %v", m)
	}
	ctx := context.Background()
	res, err := both.Search(ctx, "cable repeaters", 10)
	if err != nil {
		t.Fatal(err)
	}
	channels := map[string]string{}
	for _, r := range res {
		channels[r.Title] = r.Channel
	}
	if channels["Repeaters on the sea floor"] != "web" || channels["Cable repair"] != "corpus" {
		t.Fatalf("results by channel: %v", channels)
	}
	for _, r := range res {
		if r.Channel == "corpus" {
			doc, err := both.Fetch(ctx, r.DocID)
			if err != nil || !strings.Contains(doc.Text, "splices") {
				t.Errorf("Fetch %s: %+v, %v", r.DocID, doc, err)
			}
		}
	}
	if _, err := web.Combine(docs, docs); err == nil || !strings.Contains(err.Error(), "corpus") {
		t.Errorf("a backend twice: %v; want an error naming it", err)
	}
	if _, err := web.Combine(sx, nil); err == nil {
		t.Error("a nil backend was combined")
	}

	r, err := deepresearch.New(deepresearch.Config{Search: both, Limits: deepresearch.Limits{MaxCycles: 1, MaxTasks: 2}, Judges: deepresearch.Judges{Lexical: true},
		Fetch: deepresearch.FetchConfig{Allow: []string{strings.TrimPrefix(webDocs.URL, "http://")}}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Start(ctx, deepresearch.Request{Question: "How are submarine cable repeaters repaired?"}, deepresearch.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ref := range rep.References {
		seen[ref.Channel] = true
	}
	if !seen["web"] || !seen["corpus"] {
		t.Errorf("the report cites channels %v; want the web page and the corpus file", seen)
	}
	if len(webDocs.Fetched()) == 0 {
		t.Error("no web page was read through the run's fetcher")
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close (which closes the corpus): %v", err)
	}
}
