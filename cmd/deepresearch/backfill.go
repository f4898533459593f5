package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
)

// backfillStored adds to the NATS events stream the events that the
// earlier attempts of run id, which st holds and which is about to be
// resumed, stored and the stream lacks (nothing without NATS).
func (c *coordination) backfillStored(ctx context.Context, st deepresearch.Store, id string) error {
	if c == nil {
		return nil
	}
	prior, err := storedEvents(ctx, st, id)
	if err != nil {
		return err
	}
	return c.backfill(ctx, prior)
}

// storedEvents returns the events st holds of run id, as far as the run
// stood when it was read (the log of a live run goes on).
func storedEvents(ctx context.Context, st deepresearch.Store, id string) ([]events.Event, error) {
	run, err := st.Get(ctx, id)
	if err != nil || run.Events == 0 {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var out []events.Event
	for e, err := range st.Events(ctx, id, 0) {
		if err != nil {
			return nil, err
		}
		var ev events.Event
		if err := json.Unmarshal(e.JSON, &ev); err != nil {
			return nil, fmt.Errorf("run %s, event %d: %w", id, e.Seq, err)
		}
		out = append(out, ev)
		if e.Seq >= run.Events {
			break
		}
	}
	return out, nil
}
