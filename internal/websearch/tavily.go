package websearch

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/deepresearch/deepresearch/search"
)

// tavily speaks Tavily's search API: POST /search with a JSON body and the
// key as a bearer token.
type tavily struct{ base, key string }

type tavilyRequest struct {
	Query             string `json:"query"`
	SearchDepth       string `json:"search_depth"`
	Topic             string `json:"topic"`
	MaxResults        int    `json:"max_results"`
	IncludeAnswer     bool   `json:"include_answer"`
	IncludeRawContent bool   `json:"include_raw_content"`
	IncludeImages     bool   `json:"include_images"`
}

type tavilyResponse struct {
	Query   string `json:"query"`
	Results []struct {
		Title   string  `json:"title"`
		URL     string  `json:"url"`
		Content string  `json:"content"`
		Score   float64 `json:"score"`
		// PublishedDate is given for topic "news" results, as an HTTP
		// date ("Thu, 14 Nov 2024 20:10:19 GMT").
		PublishedDate string `json:"published_date"`
	} `json:"results"`
}

func (t *tavily) search(ctx context.Context, c *caller, query string, limit int) ([]search.Result, error) {
	body, err := json.Marshal(tavilyRequest{
		Query:       query,
		SearchDepth: "basic",
		Topic:       "general",
		MaxResults:  min(limit, 20), // Tavily's maximum
	})
	if err != nil {
		return nil, err
	}
	var resp tavilyResponse
	err = c.call(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.base+"/search", bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+t.key)
		}
		return req, err
	}, &resp)
	if err != nil {
		return nil, err
	}
	out := make([]search.Result, 0, len(resp.Results))
	for _, r := range resp.Results {
		out = append(out, search.Result{URL: r.URL, Title: r.Title, Snippet: r.Content, Score: r.Score, Published: r.PublishedDate})
	}
	return out, nil
}
