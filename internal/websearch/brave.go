package websearch

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/search"
)

// brave speaks Brave's Web Search API: GET /res/v1/web/search with the key
// in X-Subscription-Token.
type brave struct{ base, key string }

type braveResponse struct {
	Type string `json:"type"`
	Web  *struct {
		Results []struct {
			Title         string   `json:"title"`
			URL           string   `json:"url"`
			Description   string   `json:"description"`
			ExtraSnippets []string `json:"extra_snippets"`
			// PageAge is the page's date ("2024-11-02T10:12:55"); Age the
			// same for people ("November 2, 2024", or "2 days ago").
			PageAge string `json:"page_age"`
			Age     string `json:"age"`
		} `json:"results"`
	} `json:"web"`
}

func (b *brave) search(ctx context.Context, c *caller, query string, limit int) ([]search.Result, error) {
	var resp braveResponse
	err := c.call(ctx, func(ctx context.Context) (*http.Request, error) {
		q := url.Values{
			"q":                {query},
			"count":            {strconv.Itoa(min(limit, 20))}, // Brave's maximum
			"text_decorations": {"false"},
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+"/res/v1/web/search?"+q.Encode(), nil)
		if err == nil {
			req.Header.Set("Accept", "application/json")
			req.Header.Set("X-Subscription-Token", b.key)
		}
		return req, err
	}, &resp)
	if err != nil {
		return nil, err
	}
	if resp.Web == nil {
		return nil, nil // Brave omits "web" when it has no web results
	}
	n := len(resp.Web.Results)
	out := make([]search.Result, 0, n)
	for i, r := range resp.Web.Results {
		snippet := r.Description
		if len(r.ExtraSnippets) > 0 {
			snippet += " " + strings.Join(r.ExtraSnippets, " ")
		}
		// Brave gives ranks, not scores: score by rank, best 1.
		out = append(out, search.Result{URL: r.URL, Title: r.Title, Snippet: snippet, Score: float64(n-i) / float64(n),
			Published: cmp.Or(sourcetext.ParseDate(r.PageAge), sourcetext.ParseDate(r.Age))})
	}
	return out, nil
}
