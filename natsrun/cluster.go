package natsrun

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch"
)

// Cluster is a process's view of a deepresearch cluster: a JetStream
// context, the Config that names and sizes the streams and buckets (with
// its defaults filled in), and the clock that times this package's own
// waits (Config.Clock). Every entry point of the package is a method of
// it, or of a value it makes:
//
//   - the work queue (worker.go): Submit, Await and Stop on the
//     coordinator's side, Worker and Serve on the workers';
//   - the event log (events.go): PublishEvent and Follow, and EventLog,
//     which publishes a coordinator's events;
//   - the run store (store.go): OpenStore, a deepresearch.Store in
//     JetStream with leases, relaying (relay.go) and heartbeats;
//   - seeing the cluster (presence.go, describe.go): Survey, Describe;
//   - the journal (journal.go): Journal.
//
// The embedded server (server.go, StartEmbedded) stands apart: it is a
// NATS server, not a client of one.
//
// A Cluster holds no connection of its own and owns no goroutine; it is
// safe for concurrent use. Its zero value is not usable: make one with
// NewCluster.
type Cluster struct {
	js  jetstream.JetStream
	cfg Config // settled
	err error  // the Config's, returned by every method
}

// NewCluster returns the Cluster of js that c names and sizes. It does
// not touch the server (Setup does); a Config that cannot be settled
// (ErrConfig) is returned by every method.
func NewCluster(js jetstream.JetStream, c Config) *Cluster {
	s, err := c.settle()
	return &Cluster{js: js, cfg: s, err: err}
}

// JS is the Cluster's JetStream context.
func (cl *Cluster) JS() jetstream.JetStream { return cl.js }

// Config is the Cluster's Config, its defaults filled in.
func (cl *Cluster) Config() Config { return cl.cfg }

// Names are the streams, buckets, consumer and subjects of the Cluster.
func (cl *Cluster) Names() Names { return NamesOf(cl.cfg) }

// Setup creates or updates the streams, the workers' consumer and the
// presence bucket; it is idempotent, so every process may call it at
// start.
func (cl *Cluster) Setup(ctx context.Context) (Names, error) {
	if cl.err != nil {
		return Names{}, cl.err
	}
	return setup(ctx, cl.js, cl.cfg)
}

// Submit queues tasks, as submit documents: each once (message id
// run/cycle/task), trying again while ctx lasts when the server does not
// answer.
func (cl *Cluster) Submit(ctx context.Context, tasks ...Task) error {
	if cl.err != nil {
		return cl.err
	}
	return submit(ctx, cl.js, cl.cfg, tasks...)
}

// Await returns the results of run's tasks indexes of cycle, in that
// order, as await documents.
func (cl *Cluster) Await(ctx context.Context, run string, cycle int, indexes []int) ([]Result, error) {
	if cl.err != nil {
		return nil, cl.err
	}
	return await(ctx, cl.js, cl.cfg, run, cycle, indexes)
}

// Stop tells the workers that run's task index of cycle is no longer
// wanted, as stop documents.
func (cl *Cluster) Stop(ctx context.Context, run string, cycle, index int) error {
	if cl.err != nil {
		return cl.err
	}
	return stop(ctx, cl.js, cl.cfg, run, cycle, index)
}

// PublishEvent stores event seq of run (its JSON, data) in the events
// stream, as publishEvent documents.
func (cl *Cluster) PublishEvent(ctx context.Context, run string, seq int64, attempt int, data []byte) error {
	if cl.err != nil {
		return cl.err
	}
	return publishEvent(ctx, cl.js, cl.cfg, run, seq, attempt, data)
}

// Follow calls fn with run's events after after, each number once, as
// follow documents.
func (cl *Cluster) Follow(ctx context.Context, run string, after int64, fn func(seq int64, data []byte) bool) error {
	if cl.err != nil {
		return cl.err
	}
	return follow(ctx, cl.js, cl.cfg, run, after, fn)
}

// Survey reads who is alive in the cluster and where each run's work
// stands, judged at the Cluster's clock's now, as survey documents.
func (cl *Cluster) Survey(ctx context.Context) (ClusterStatus, error) {
	if cl.err != nil {
		return ClusterStatus{}, cl.err
	}
	return survey(ctx, cl.js, cl.cfg, cl.cfg.clock().Now())
}

// Describe reports each stream of the Cluster as the server sees it.
func (cl *Cluster) Describe(ctx context.Context) []StreamStatus {
	return describe(ctx, cl.js, cl.cfg)
}

// OpenStore sets up the streams (Setup), the runs bucket and the reports
// bucket, and returns a Store over them, stamping runs and timing leases
// on the Cluster's clock, with its renewal started (unless o.ReadOnly).
// Close it.
func (cl *Cluster) OpenStore(ctx context.Context, o StoreOptions) (*Store, error) {
	if cl.err != nil {
		return nil, cl.err
	}
	return openStore(ctx, cl.js, cl.cfg, o)
}

// Journal is the journal stream's deepresearch.JournalStore.
func (cl *Cluster) Journal() *Journal { return newJournal(cl.js, cl.cfg) }

// AgentHandler adapts r to a Handler that runs agent jobs, as
// agentHandler documents.
func (cl *Cluster) AgentHandler(r *deepresearch.Researcher) Handler {
	return agentHandler(r, cl.js, cl.cfg)
}

// Serve runs r's agents for every run whose tasks reach the workers'
// consumer, at most concurrency at once, until ctx is done, as serve
// documents: `deepresearch worker`.
func (cl *Cluster) Serve(ctx context.Context, r *deepresearch.Researcher, concurrency int, name string) error {
	if cl.err != nil {
		return cl.err
	}
	return serve(ctx, cl.js, cl.cfg, r, concurrency, name)
}

// Agents is the worker.Runner that runs a coordinator's agents on the
// Cluster's workers (set its NoWorkerAfter and OnNoWorker before the
// first run).
func (cl *Cluster) Agents() *Agents { return &Agents{JS: cl.js, Config: cl.cfg} }

// EventLog publishes a coordinator's events to the Cluster's events
// stream.
func (cl *Cluster) EventLog() *EventLog { return &EventLog{JS: cl.js, Config: cl.cfg} }
