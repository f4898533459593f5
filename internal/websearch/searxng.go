package websearch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/deepresearch/deepresearch/search"
)

// searxng speaks SearXNG's search API: GET /search?q=…&format=json.
type searxng struct{ base string }

type searxngResponse struct {
	Query           string          `json:"query"`
	NumberOfResults float64         `json:"number_of_results"`
	Results         []searxngResult `json:"results"`
	// UnresponsiveEngines lists [engine, reason] pairs.
	UnresponsiveEngines [][]string `json:"unresponsive_engines"`
}

type searxngResult struct {
	URL     string   `json:"url"`
	Title   string   `json:"title"`
	Content string   `json:"content"`
	Engine  string   `json:"engine"`
	Engines []string `json:"engines"`
	Score   float64  `json:"score"`
	// PublishedDate is Python's isoformat of the engine's date
	// ("2024-03-01T00:00:00"), or null.
	PublishedDate string `json:"publishedDate"`
}

func (s *searxng) search(ctx context.Context, c *caller, query string, limit int) ([]search.Result, error) {
	var resp searxngResponse
	err := c.call(ctx, func(ctx context.Context) (*http.Request, error) {
		q := url.Values{"q": {query}, "format": {"json"}, "pageno": {"1"}}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/search?"+q.Encode(), nil)
		if err == nil {
			req.Header.Set("Accept", "application/json")
		}
		return req, err
	}, &resp)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Status == http.StatusForbidden {
			// SearXNG answers 403 when the instance does not serve JSON.
			e.Err = ErrRejected
			e.Detail = "the instance does not serve JSON results; add json to search.formats in its settings.yml"
		}
		return nil, err
	}
	if len(resp.Results) == 0 && len(resp.UnresponsiveEngines) > 0 {
		var names []string
		for _, pair := range resp.UnresponsiveEngines {
			names = append(names, strings.Join(pair, ": "))
		}
		return nil, &Error{Provider: "searxng", Op: "search", Err: ErrUnavailable,
			Detail: clean(fmt.Sprintf("no results; unresponsive engines: %s", strings.Join(names, "; ")))}
	}
	out := make([]search.Result, 0, min(limit, len(resp.Results)))
	for _, r := range resp.Results {
		out = append(out, search.Result{URL: r.URL, Title: r.Title, Snippet: r.Content, Score: r.Score, Published: r.PublishedDate})
	}
	return out, nil
}

// redactURL drops the userinfo of a URL, for display.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.User = nil
	return u.String()
}
