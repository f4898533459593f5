package deepresearchtest

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deepresearch/deepresearch/search"
)

// WebServer is a local stand-in for the web: a SearXNG instance's JSON
// search API (GET /search?q=…&format=json, in SearXNG's own response
// format) over a set of documents, and the documents themselves as HTML
// pages (GET /pages/ID), which the search results link to. A document's
// Published date is its results' publishedDate (as SearXNG writes
// Python's isoformat) and, with its Modified date, its page's
// article:published_time and article:modified_time; its Author the page's
// meta author. Point
// deepresearch at it with SEARXNG_URL=URL() (search.searxng_url), and let
// its page fetcher in with --fetch-allow HOST:PORT (fetch.allow): the SSRF
// guard refuses loopback addresses otherwise.
type WebServer struct {
	*httptest.Server
	backend *Backend

	mu      sync.Mutex
	fetched []string
	raw     map[string]rawPage // documents served as files (ServeAs)
	changed map[string]pageChange
}

// NewWebServer serves docs. Each document's URL becomes URL()+"/pages/"+ID
// (any URL it had is ignored), so that fetching it reaches this server.
func NewWebServer(docs ...search.Document) (*WebServer, error) {
	s := &WebServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /pages/{id...}", s.page)
	s.Server = httptest.NewServer(mux)
	for i := range docs {
		if docs[i].DocID == "" {
			docs[i].DocID = "doc-" + itoa(i+1)
		}
		docs[i].URL = s.URL + "/pages/" + url.PathEscape(docs[i].DocID)
	}
	b, err := NewBackend(docs...)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.backend = b
	return s, nil
}

// Fetched returns the URLs of the pages served so far, in order.
func (s *WebServer) Fetched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.fetched)
}

func (s *WebServer) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("format") != "json" {
		// SearXNG answers 403 when the JSON format is not enabled.
		http.Error(w, "Forbidden", http.StatusForbidden)
		return
	}
	res, err := s.backend.Search(r.Context(), q.Get("q"), 10)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	results := make([]map[string]any, 0, len(res))
	for i, hit := range res {
		u, _ := url.Parse(hit.URL)
		results = append(results, map[string]any{
			"url": hit.URL, "title": hit.Title, "content": hit.Snippet, "engine": "deepresearchtest",
			"engines": []string{"deepresearchtest"}, "positions": []int{i + 1}, "score": hit.Score,
			"category": "general", "template": "default.html", "publishedDate": isoformat(hit.Published),
			"parsed_url": []string{u.Scheme, u.Host, u.Path, "", u.RawQuery, ""},
		})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"query": q.Get("q"), "number_of_results": 0, "results": results,
		"answers": []any{}, "corrections": []any{}, "infoboxes": []any{}, "suggestions": []any{}, "unresponsive_engines": []any{},
	})
}

func (s *WebServer) page(w http.ResponseWriter, r *http.Request) {
	d, err := s.backend.Fetch(r.Context(), r.PathValue("id"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.fetched = append(s.fetched, d.URL)
	s.mu.Unlock()
	if s.answerChanged(w, r, &d) {
		return
	}
	if raw, ok := s.rawFor(d.DocID); ok {
		w.Header().Set("Content-Type", raw.contentType)
		w.Write(raw.body)
		return
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>")
	b.WriteString(html.EscapeString(d.Title))
	b.WriteString("</title>")
	for _, m := range [][2]string{{"article:published_time", d.Published}, {"article:modified_time", d.Modified}} {
		if m[1] != "" {
			b.WriteString(`<meta property="` + m[0] + `" content="` + html.EscapeString(m[1]) + `">`)
		}
	}
	if d.Author != "" {
		b.WriteString(`<meta name="author" content="` + html.EscapeString(d.Author) + `">`)
	}
	b.WriteString("</head><body><nav>Home | Search | About</nav><article><h1>")
	b.WriteString(html.EscapeString(d.Title))
	b.WriteString("</h1>\n")
	for _, para := range strings.Split(d.Text, "\n\n") {
		if para = strings.TrimSpace(para); para != "" {
			b.WriteString("<p>" + html.EscapeString(para) + "</p>\n")
		}
	}
	b.WriteString("</article><footer>© deepresearchtest</footer></body></html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(b.String()))
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for n >= 10 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	i--
	b[i] = byte('0' + n)
	return string(b[i:])
}

// isoformat writes an ISO 8601 date as SearXNG's JSON does (Python's
// datetime.isoformat: "2024-03-01T00:00:00", "+00:00" for UTC), or nil
// (null) for none.
func isoformat(date string) any {
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		if _, off := t.Zone(); off == 0 {
			return t.Format("2006-01-02T15:04:05") + "+00:00"
		}
		return t.Format("2006-01-02T15:04:05-07:00")
	}
	if t, err := time.Parse(time.DateOnly, date); err == nil {
		return t.Format("2006-01-02T15:04:05")
	}
	return nil
}
