package deepresearch

import (
	"context"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/engine"
)

// ResumeFromEvents runs req, a run whose earlier attempt kept its journal
// in js and its events as prior, in a new attempt that goes on after
// them: what RunOptions.Resume does with a Store, for the tests that
// cut a run off at a chosen event without one.
func ResumeFromEvents(ctx context.Context, r *Researcher, req Request, js JournalStore, prior []events.Event, sink func(events.Event)) (*Report, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	return r.researchDurable(ctx, req, engine.Durability{Journal: js, Prior: prior}, sink)
}
