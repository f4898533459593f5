package main

import (
	"context"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/natsrun"
)

// coordination is what makes a front end's Researcher a coordinator when
// nats.url is set: its runs' agents run on 'deepresearch worker'
// processes, and every event of its runs is published to the events
// stream too, for any process connected to the cluster to follow. run,
// serve and mcp all get theirs here, so the three decide it one way.
type coordination struct {
	conn *natsConn
	// Log publishes the runs' events (natsrun.EventLog).
	Log *natsrun.EventLog
	// Agents runs the runs' agents on the workers; it says when a task
	// waits with no worker alive (nats.no_worker_after).
	Agents *natsrun.Agents
}

// coordinate connects to s.NATS.URL and sets cfg's agent runner to the
// workers'. Without nats.url it returns nil and changes nothing: a nil
// *coordination is valid and does nothing.
func coordinate(ctx context.Context, s config.Settings, f natsFlags, cfg *deepresearch.Config, name string) (*coordination, error) {
	if s.NATS.URL == "" {
		return nil, nil
	}
	conn, err := connectNATS(ctx, s, f, name)
	if err != nil {
		return nil, err
	}
	agents := conn.cluster().Agents()
	agents.NoWorkerAfter = s.NATS.NoWorkerAfter
	cfg.Agents = agents
	return &coordination{conn: conn, Log: conn.cluster().EventLog(), Agents: agents}, nil
}

// tee returns sink with the events also published to the events stream.
func (c *coordination) tee(sink func(events.Event)) func(events.Event) {
	if c == nil {
		return sink
	}
	return func(e events.Event) {
		c.Log.Event(e)
		if sink != nil {
			sink(e)
		}
	}
}

// backfill publishes what the events stream lacks of a resumed run's
// earlier events (natsrun.EventLog.Backfill), before the run goes on.
func (c *coordination) backfill(ctx context.Context, prior []events.Event) error {
	if c == nil {
		return nil
	}
	return c.Log.Backfill(ctx, prior)
}

// Err is the first event that could not be published, if any.
func (c *coordination) Err() error {
	if c == nil {
		return nil
	}
	return c.Log.Err()
}

// Close closes the connection.
func (c *coordination) Close() {
	if c != nil {
		c.conn.nc.Close()
	}
}
