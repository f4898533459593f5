package fetch

import (
	"context"
	"errors"
)

type ctxKey struct{}

// NewContext returns ctx carrying f: the fetcher of one run, whose cache
// its agents share and which dies with the run.
func NewContext(ctx context.Context, f *Fetcher) context.Context {
	return context.WithValue(ctx, ctxKey{}, f)
}

// FromContext returns the fetcher NewContext put in ctx, or nil.
func FromContext(ctx context.Context) *Fetcher {
	f, _ := ctx.Value(ctxKey{}).(*Fetcher)
	return f
}

// ErrNoFetcher reports a fetch through ContextPages outside a run.
var ErrNoFetcher = errors.New("fetch: no page fetcher for this run")

// ContextPages fetches pages through the fetcher in each call's context,
// so that a long-lived search backend reads pages with the per-run fetcher
// (and cache) of whichever run is asking.
type ContextPages struct{}

// Fetch fetches rawURL with FromContext(ctx).
func (ContextPages) Fetch(ctx context.Context, rawURL string) (Page, error) {
	f := FromContext(ctx)
	if f == nil {
		return Page{}, &Error{URL: rawURL, Step: "fetch", Err: ErrNoFetcher}
	}
	return f.Fetch(ctx, rawURL)
}
