package websearch

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/deepresearch/deepresearch/search"
)

// exa speaks Exa's search API: POST /search with a JSON body and the key in
// x-api-key, asking for highlights as snippets.
type exa struct{ base, key string }

type exaRequest struct {
	Query      string `json:"query"`
	Type       string `json:"type"`
	NumResults int    `json:"numResults"`
	Contents   struct {
		Highlights struct {
			NumSentences     int `json:"numSentences"`
			HighlightsPerURL int `json:"highlightsPerUrl"`
		} `json:"highlights"`
	} `json:"contents"`
}

type exaResponse struct {
	RequestID string `json:"requestId"`
	Results   []struct {
		ID         string   `json:"id"`
		URL        string   `json:"url"`
		Title      string   `json:"title"`
		Score      float64  `json:"score"`
		Text       string   `json:"text"`
		Summary    string   `json:"summary"`
		Highlights []string `json:"highlights"`
		// PublishedDate is an ISO 8601 time ("2016-05-01T00:00:00.000Z"),
		// when Exa knows one.
		PublishedDate string `json:"publishedDate"`
		// Author is the page's author, when Exa knows one.
		Author string `json:"author"`
	} `json:"results"`
}

func (x *exa) search(ctx context.Context, c *caller, query string, limit int) ([]search.Result, error) {
	r := exaRequest{Query: query, Type: "auto", NumResults: min(limit, 100)}
	r.Contents.Highlights.NumSentences = 3
	r.Contents.Highlights.HighlightsPerURL = 2
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var resp exaResponse
	err = c.call(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.base+"/search", bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-api-key", x.key)
		}
		return req, err
	}, &resp)
	if err != nil {
		return nil, err
	}
	out := make([]search.Result, 0, len(resp.Results))
	for _, r := range resp.Results {
		snippet := strings.Join(r.Highlights, " … ")
		if snippet == "" {
			snippet = r.Summary
		}
		if snippet == "" {
			snippet = r.Text
		}
		out = append(out, search.Result{URL: r.URL, Title: r.Title, Snippet: snippet, Score: r.Score, Published: r.PublishedDate, Author: r.Author})
	}
	return out, nil
}
