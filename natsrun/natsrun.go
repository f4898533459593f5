// Package natsrun spreads research over machines through NATS JetStream:
// a work queue of agent tasks that survives a lost worker, per-run event
// subjects a follower replays from any sequence (Last-Event-ID), results
// per run, and a journal of each run's paid-for calls that every worker
// reads, so a redelivered task replays what the failed attempt completed;
// and a run store in JetStream (Store) that every server of a cluster
// shares. Every entry point is a method of a Cluster (NewCluster: a
// JetStream context and a Config), whose doc comment maps the package's
// ideas to their files.
//
// # Names
//
// With the default prefix "deepresearch" (Config.Prefix), Cluster.Setup
// creates:
//
//	stream DEEPRESEARCH_TASKS    subjects deepresearch.tasks.>     work-queue retention; message id run/cycle/task
//	stream DEEPRESEARCH_EVENTS   subjects deepresearch.events.>    one subject a run: deepresearch.events.<run>
//	stream DEEPRESEARCH_RESULTS  subjects deepresearch.results.>   one subject a run: deepresearch.results.<run>
//	stream DEEPRESEARCH_JOURNAL  subjects deepresearch.journal.>   one subject a run: deepresearch.journal.<run>
//	consumer workers on DEEPRESEARCH_TASKS (durable pull, explicit ack)
//	bucket DEEPRESEARCH_PRESENCE (KV)                              the servers' and workers' heartbeats (Survey)
//
// A task the coordinator no longer wants (its run was canceled, went past
// its time limit or budget) is stopped by a notice on
// deepresearch.results.<run>.stop.<cycle>.<task> (Stop): a worker that has
// not started it drops it, and one running it cancels its handler.
//
// Every stream has Config.Replicas replicas (3 on a three-node cluster).
// A dead task (one delivered Config.MaxDeliver times without an ack) is
// announced on deepresearch.events.<run> as a task.dead event.
//
// # Research on workers
//
// Agents is the worker.Runner of a coordinator: each agent task of a run
// becomes a task here, its payload a worker.Job, and the run waits for
// its result, a worker.Result carrying the agent's events. Cluster.Serve (`deepresearch worker`) runs a Worker
// whose handler (Cluster.AgentHandler) runs each job with
// Researcher.ServeAgent against the run's journal in the journal stream.
// EventLog publishes a coordinator's events to the run's events subject
// for Cluster.Follow; a Store (Cluster.OpenStore) stores them there itself.
//
// # Concurrency
//
// Cluster, Journal, Agents and EventLog are safe for concurrent use; they
// own no goroutine. Worker.Run and Cluster.Serve own their goroutines and
// wait for them; a Store owns its renewal and heartbeat, which Close
// stops.
package natsrun

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch/clock"
)

// DefaultPrefix is Config.Prefix's default.
const DefaultPrefix = "deepresearch"

// Config names and sizes the streams. Its zero value is usable: prefix
// "deepresearch", one replica, a 30s ack wait, 5 deliveries.
type Config struct {
	// Prefix starts every subject; its upper case starts every stream
	// name. Empty means DefaultPrefix.
	Prefix string
	// Replicas is every stream's replica count (1, 3 or 5; 0 means 1).
	Replicas int
	// AckWait is how long a task may go without an ack or an in-progress
	// heartbeat before it is redelivered (0 means 30s). A worker sends a
	// heartbeat every AckWait/3 while its agent runs.
	AckWait time.Duration
	// MaxDeliver bounds the deliveries of one task (0 means 5); after the
	// last failed one the task is dead.
	MaxDeliver int
	// Clock times this package's own waits: the time limit of each try
	// at a request, the pause before trying again, a follower's poll, a
	// worker's in-progress heartbeat, EventLog's back-off. Nil means the
	// real clock. What the NATS client and server time themselves (a
	// reconnect's wait, AckWait, a request's default timeout) is on real
	// time; so is a pull's expiry at the server, which on any clock but
	// the real one is the client's default.
	Clock clock.Clock
	// Log, when not nil, is told of each task a worker takes and how it
	// ends (done, failed and given back for another delivery, dead,
	// stopped by its coordinator, given back at shutdown), with the
	// task, the attempt, the worker and how long it ran.
	Log *zerolog.Logger
}

// clock returns the Config's clock: Clock, or the real one.
func (c Config) clock() clock.Clock { return clock.Or(c.Clock) }

// timeout returns err as the same call gives it on the real clock: a
// context.Canceled of ctx whose time was up on another clock (WithTimeout
// on a Fake ends its context so) is context.DeadlineExceeded.
func timeout(ctx context.Context, err error) error {
	if err != nil && errors.Is(err, context.Canceled) && clock.TimedOut(ctx) {
		return context.DeadlineExceeded
	}
	return err
}

// ErrConfig reports a Config that cannot be set up.
var ErrConfig = errors.New("natsrun: bad configuration")

func (c Config) settle() (Config, error) {
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if strings.ContainsAny(c.Prefix, " .*>\t\n") {
		return c, fmt.Errorf("%w: prefix %q must be one subject token", ErrConfig, c.Prefix)
	}
	switch c.Replicas {
	case 0:
		c.Replicas = 1
	case 1, 3, 5:
	default:
		return c, fmt.Errorf("%w: replicas is %d; want 1, 3 or 5", ErrConfig, c.Replicas)
	}
	if c.AckWait <= 0 {
		c.AckWait = 30 * time.Second
	}
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = 5
	}
	return c, nil
}

// Names are the streams, consumer and subjects of a Config.
type Names struct {
	TasksStream, EventsStream, ResultsStream, JournalStream string
	// RunsBucket is the KV bucket of a Store's run records and leases;
	// ReportsBucket the KV bucket of its reports and cited sources' text.
	RunsBucket, ReportsBucket string
	// PresenceBucket is the KV bucket of the servers' and workers'
	// heartbeats (Survey).
	PresenceBucket string
	// Consumer is the workers' durable pull consumer on TasksStream.
	Consumer string
	prefix   string
}

// NamesOf returns the names Cluster.Setup creates for c.
func NamesOf(c Config) Names {
	c, _ = c.settle()
	up := strings.ToUpper(strings.ReplaceAll(c.Prefix, "-", "_"))
	return Names{TasksStream: up + "_TASKS", EventsStream: up + "_EVENTS", ResultsStream: up + "_RESULTS",
		JournalStream: up + "_JOURNAL", RunsBucket: up + "_RUNS", ReportsBucket: up + "_REPORTS", PresenceBucket: up + "_PRESENCE", Consumer: "workers", prefix: c.Prefix}
}

// Tasks is the subject of run's tasks.
func (n Names) Tasks(run string) string { return n.prefix + ".tasks." + run }

// Events is the subject of run's events.
func (n Names) Events(run string) string { return n.prefix + ".events." + run }

// Results is the subject of run's results.
func (n Names) Results(run string) string { return n.prefix + ".results." + run }

// Stop is the subject of the notice that the coordinator no longer wants
// the result of run's task index of cycle (Stop): in the results stream,
// outside the run's results subject.
func (n Names) Stop(run string, cycle, index int) string {
	return n.prefix + ".results." + run + ".stop." + strconv.Itoa(cycle) + "." + strconv.Itoa(index)
}

// Progress is the subject on which the workers running run's task index
// of cycle report its agent's events as they happen (Agents): plain NATS,
// in no stream, so a report nobody listens to is not kept.
func (n Names) Progress(run string, cycle, index int) string {
	return n.prefix + ".progress." + run + "." + strconv.Itoa(cycle) + "." + strconv.Itoa(index)
}

// Stored is the subject on which a Store announces, once the stream has
// it, each event of run it stored (its number as the data), and the
// run's end (no data): plain NATS, in no stream, for the Store's
// followers (Store.Events).
func (n Names) Stored(run string) string { return n.prefix + ".stored." + run }

// Journal is the subject of run's journal.
func (n Names) Journal(run string) string { return n.prefix + ".journal." + run }

// checkRun rejects a run ID that is not one subject token.
func checkRun(run string) error {
	if run == "" || strings.ContainsAny(run, " .*>\t\n") {
		return fmt.Errorf("%w: run ID %q must be one subject token", ErrConfig, run)
	}
	return nil
}

// setup creates or updates the streams, the workers' consumer and the
// presence bucket of c on js; it is idempotent, so every process may call
// it at start.
func setup(ctx context.Context, js jetstream.JetStream, c Config) (Names, error) {
	c, err := c.settle()
	if err != nil {
		return Names{}, err
	}
	n := NamesOf(c)
	streams := []jetstream.StreamConfig{
		{Name: n.TasksStream, Subjects: []string{c.Prefix + ".tasks.>"}, Retention: jetstream.WorkQueuePolicy,
			Description: "deepresearch agent tasks, one message a task", Duplicates: 2 * time.Minute},
		{Name: n.EventsStream, Subjects: []string{c.Prefix + ".events.>"}, Retention: jetstream.LimitsPolicy,
			Description: "deepresearch run events, one subject a run", MaxAge: 7 * 24 * time.Hour, Duplicates: 2 * time.Minute},
		{Name: n.ResultsStream, Subjects: []string{c.Prefix + ".results.>"}, Retention: jetstream.LimitsPolicy,
			Description: "deepresearch agent results, one subject a run", MaxAge: 7 * 24 * time.Hour, Duplicates: 2 * time.Minute},
		{Name: n.JournalStream, Subjects: []string{c.Prefix + ".journal.>"}, Retention: jetstream.LimitsPolicy,
			Description: "deepresearch run journals: each paid-for call, one subject a run", MaxAge: 7 * 24 * time.Hour},
	}
	for _, sc := range streams {
		sc.Replicas = c.Replicas
		sc.Storage = jetstream.FileStorage
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return n, fmt.Errorf("natsrun: stream %s: %w", sc.Name, err)
		}
	}
	_, err = js.CreateOrUpdateConsumer(ctx, n.TasksStream, jetstream.ConsumerConfig{
		Durable: n.Consumer, Description: "deepresearch workers", AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: c.AckWait, MaxDeliver: c.MaxDeliver, MaxAckPending: 1000, Replicas: c.Replicas,
	})
	if err != nil {
		return n, fmt.Errorf("natsrun: consumer %s: %w", n.Consumer, err)
	}
	// The presence bucket too: workers that start together on a cluster
	// without it each create it at once, and a three-node cluster may
	// answer none of them (each waits out the client's timeout and runs
	// unseen).
	if _, err := presence(ctx, js, c); err != nil {
		return n, err
	}
	return n, nil
}

// publishTry bounds one try of publishIdempotent.
const publishTry = 5 * time.Second

// publishIdempotent publishes m, which carries a message id, trying again
// while ctx lasts when a try gets no acknowledgement: a server lost after
// it received the message but before it answered leaves the publisher
// waiting for an answer that never comes, and the id makes a second copy
// a duplicate the stream drops. The pauses between tries are timed on c,
// each try in real time.
func publishIdempotent(ctx context.Context, c clock.Clock, js jetstream.JetStream, m *nats.Msg, id string) error {
	_, err := publishAck(ctx, c, js, m, id)
	return err
}

// publishAck is publishIdempotent, returning the stream's acknowledgement:
// its Duplicate says a message with the same id was stored before (by this
// publication's earlier try, or by another publisher).
func publishAck(ctx context.Context, c clock.Clock, js jetstream.JetStream, m *nats.Msg, id string) (*jetstream.PubAck, error) {
	for {
		// A try waits on the network: it is bounded in real time, so that
		// a test's clock moving ahead does not fail a publication in flight.
		tctx, cancel := context.WithTimeout(ctx, publishTry)
		ack, err := js.PublishMsg(tctx, m, jetstream.WithMsgID(id))
		err = timeout(tctx, err)
		cancel()
		if err == nil || ctx.Err() != nil {
			return ack, timeout(ctx, err)
		}
		if !transient(err) {
			return nil, err
		}
		// A stream electing a leader answers again within seconds.
		if clock.Sleep(ctx, c, publishPause) != nil {
			return nil, err
		}
	}
}

// errCodeInsufficientResources is the server's "insufficient resources"
// (a storage limit reached), which jetstream names no constant for.
const errCodeInsufficientResources jetstream.ErrorCode = 10023

// publishPause is the wait between two tries of publishIdempotent.
const publishPause = 100 * time.Millisecond

// transient says whether a failed publication may succeed if tried again:
// no answer, no stream answering, a connection being re-established, or
// the server's "temporarily unavailable" (a stream without a leader while
// a lost node's replicas elect one) and other 5xx answers, but for those
// that do not pass: JetStream off, insufficient resources.
func transient(err error) bool {
	var api *jetstream.APIError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout),
		errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, nats.ErrDisconnected), errors.Is(err, nats.ErrConnectionReconnecting):
		return true
	case errors.As(err, &api):
		switch api.ErrorCode {
		case jetstream.JSErrCodeJetStreamNotEnabled, jetstream.JSErrCodeJetStreamNotEnabledForAccount, errCodeInsufficientResources:
			return false // answers that stay the same however often asked
		}
		return api.Code >= 500
	}
	return false
}
