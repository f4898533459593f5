package deepresearch

import (
	"context"

	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/search"
)

// FetchConfig configures the page fetcher a run's web search reads pages
// with: the SSRF guard's allowlist (Allow: HOST:PORT pairs let through
// although internal), a timeout and a size cap.
type FetchConfig = fetch.Config

// Fetch returns a whole document from the Researcher's search backend (the
// local corpus index when Config.Search is nil, opening and indexing it on
// first use), by the Source.ID a run reported. A front end that keeps runs
// uses it to store the text a report cited, so that the citation can be
// checked later without the corpus or the web. Unknown IDs wrap
// ErrNotFound.
func (r *Researcher) Fetch(ctx context.Context, docID string) (search.Document, error) {
	b, err := r.backend(ctx)
	if err != nil {
		return search.Document{}, err
	}
	return b.Fetch(ctx, docID)
}
