package natsrun

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/worker"
)

// Agents is a worker.Runner that runs a run's agents on worker processes
// (Serve): give it as deepresearch.Config.Agents to the coordinator's
// Researcher. RunAgent publishes the job as a task (message id
// run/cycle/task, so a job submitted again within two minutes is not
// queued twice) and waits for its result on the run's results subject.
// Meanwhile the workers' attempts at the task report the agent's events
// on the task's progress subject (Names.Progress), which RunAgent relays
// to its worker.Progress; the result, published once (its message id is
// the task's), carries them all, and the run emits each once (see package
// worker). Of what a worker reports, live or
// in its result, only the events an agent emits while it runs are taken
// (events.WhileAgentRuns).
//
// Agents owns no goroutine but the subscription nats.go runs progress
// on while RunAgent waits; it is safe for concurrent use.
type Agents struct {
	JS     jetstream.JetStream
	Config Config
	// NoWorkerAfter, when positive, is how long a task may wait, on
	// Config's clock, with no worker alive (by the workers' heartbeats,
	// Survey's rule) before RunAgent says so: a WorkersMissing event told
	// to its progress with attempt 0 (the run emits it at run level),
	// once a task, and OnNoWorker. The task stays queued; the run goes on
	// when a worker appears. 0 never says (nats.no_worker_after).
	NoWorkerAfter time.Duration
	// OnNoWorker, if set, is told since when a task of run has waited
	// with no worker alive, and again with the zero time once a worker
	// is alive or the task has ended (natsrun.Store.SetNoWorker keeps it
	// in the run's status). It is called from RunAgent's own goroutine.
	OnNoWorker func(run string, since time.Time)
}

// RunAgent runs job on a worker and returns its result. It fails when
// the task cannot be published, with ErrDead when it failed on every
// delivery, and with context.Cause(ctx) when ctx is done first. A task
// whose ctx ends for any reason but deepresearch.ErrShutdown (a run
// canceled, past its time limit or budget) is stopped on the workers
// (Stop); one the process is shutting down for stays, for the resumed run.
func (a *Agents) RunAgent(ctx context.Context, job worker.Job, progress worker.Progress) (*worker.Result, error) {
	if _, err := a.Config.settle(); err != nil {
		return nil, err
	}
	payload, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	t := Task{Run: job.RunID, Cycle: job.Task.Cycle, Index: job.Task.Index, Payload: payload}
	if err := checkRun(t.Run); err != nil {
		return nil, err
	}
	if progress != nil {
		// The subscription's goroutine and the watch for workers both
		// report: one at a time.
		var mu sync.Mutex
		inner := progress
		progress = func(attempt, n int, e events.Event) {
			mu.Lock()
			defer mu.Unlock()
			inner(attempt, n, e)
		}
		// Subscribed before the task is queued, so that its first
		// attempt is heard from its first event. A subscription that
		// fails costs the live events only.
		sub, err := a.JS.Conn().Subscribe(NamesOf(a.Config).Progress(t.Run, t.Cycle, t.Index), func(m *nats.Msg) {
			var p progressReport
			if json.Unmarshal(m.Data, &p) == nil && p.Attempt > 0 && agentEvent(p.Event) {
				progress(p.Attempt, p.N, p.Event)
			}
		})
		if err == nil {
			defer sub.Unsubscribe() //nolint:errcheck // the connection's end ends it too
		}
	}
	if err := submit(ctx, a.JS, a.Config, t); err != nil {
		if ctx.Err() != nil {
			// Ended while the server acknowledged the task: it may be
			// queued, and running already.
			a.abandon(ctx, t)
			return nil, fmt.Errorf("natsrun: task %s: %w", t.id(), context.Cause(ctx))
		}
		return nil, err
	}
	if a.NoWorkerAfter > 0 {
		wctx, stopWatch := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() { defer close(watched); a.watchWorkers(wctx, job, progress) }()
		defer func() { stopWatch(); <-watched }()
	}
	// Waiting again after a lost server reads the results stored
	// meanwhile too.
	var rs []Result
	for {
		rs, err = await(ctx, a.JS, a.Config, job.RunID, t.Cycle, []int{t.Index})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			a.abandon(ctx, t)
			return nil, fmt.Errorf("natsrun: result of task %s: %w", t.id(), context.Cause(ctx))
		}
		if errors.Is(err, ErrConfig) {
			return nil, fmt.Errorf("natsrun: result of task %s: %w", t.id(), err)
		}
		clock.Sleep(ctx, a.Config.clock(), awaitPause) //nolint:errcheck // ctx done: the next try says so
	}
	r := rs[0]
	if r.Dead {
		return nil, fmt.Errorf("%w: task %s after %d attempts: %s", ErrDead, t.id(), r.Attempt, r.Error)
	}
	var out worker.Result
	if err := json.Unmarshal(r.Output, &out); err != nil {
		return nil, fmt.Errorf("natsrun: result of task %s from worker %s is unreadable: %w", t.id(), r.Worker, err)
	}
	out.Events = slices.DeleteFunc(out.Events, func(e events.Event) bool { return !agentEvent(e) })
	return &out, nil
}

// watchWorkers says, NoWorkerAfter after job's task was queued and while
// ctx lasts (until its result), whether any worker is alive to take it:
// with none, a WorkersMissing event to progress (once) and OnNoWorker
// with the time the task was queued; once one is alive again (or the
// watch ends), OnNoWorker with the zero time. It looks again every
// quarter of NoWorkerAfter (at most every minute), on Config's clock; a
// look the cluster does not answer says nothing.
func (a *Agents) watchWorkers(ctx context.Context, job worker.Job, progress worker.Progress) {
	c := a.Config.clock()
	queued := c.Now()
	if clock.Sleep(ctx, c, a.NoWorkerAfter) != nil {
		return
	}
	every := min(max(a.NoWorkerAfter/4, time.Second), time.Minute)
	said, missing := false, false
	defer func() {
		if missing && a.OnNoWorker != nil {
			a.OnNoWorker(job.RunID, time.Time{})
		}
	}()
	for {
		lctx, cancel := clock.WithTimeout(ctx, c, every)
		alive, err := workersAlive(lctx, a.JS, a.Config, c.Now())
		cancel()
		switch {
		case err != nil || ctx.Err() != nil:
		case alive > 0 && missing:
			missing = false
			if a.OnNoWorker != nil {
				a.OnNoWorker(job.RunID, time.Time{})
			}
		case alive == 0 && !missing:
			missing = true
			if !said && progress != nil {
				task := job.Task
				progress(0, 0, events.Event{RunID: job.RunID, Type: events.WorkersMissing, Agent: -1,
					Data: events.WorkersMissingData{Task: events.PlanTask{Index: task.Index, ID: task.ID, Title: task.Title,
						Question: task.Question, Cycle: task.Cycle}, WaitedMS: c.Now().Sub(queued).Milliseconds()}})
			}
			said = true
			if a.OnNoWorker != nil {
				a.OnNoWorker(job.RunID, queued)
			}
		}
		if clock.Sleep(ctx, c, every) != nil {
			return
		}
	}
}

// awaitPause is the wait before RunAgent waits for a result again after
// a lost server.
const awaitPause = 250 * time.Millisecond

// agentEvent reports whether e is an event a worker may report of the
// agent it runs (events.WhileAgentRuns): a worker does not speak for the
// run. The run's relay checks again, for every runner.
func agentEvent(e events.Event) bool {
	return e.Data != nil && events.WhileAgentRuns(e.Data.EventType())
}

// Journal returns run's journal entries in the journal stream, where the
// workers journal their agents' calls: Agents is a worker.Journal, so a
// run copies each agent's entries into its own journal when it takes its
// result.
func (a *Agents) Journal(ctx context.Context, run string) ([][]byte, error) {
	return newJournal(a.JS, a.Config).Journal(ctx, run)
}

// abandon stops task t on the workers (Stop) when ctx ended for a reason
// that ends the run's interest in its result: anything but
// deepresearch.ErrShutdown, after which the resumed run takes the result
// up. It does nothing while ctx lasts.
func (a *Agents) abandon(ctx context.Context, t Task) {
	if ctx.Err() == nil || errors.Is(context.Cause(ctx), deepresearch.ErrShutdown) {
		return
	}
	sctx, cancel := clock.WithTimeout(context.WithoutCancel(ctx), a.Config.clock(), stopTry)
	defer cancel()
	stop(sctx, a.JS, a.Config, t.Run, t.Cycle, t.Index) //nolint:errcheck // then the workers run it for nothing, as before
}

// agentHandler adapts r to a Handler: each task's payload is a
// worker.Job, run with r.ServeAgent against the run's journal
// in the journal stream (so a redelivered task replays the calls the
// failed attempt completed), and its output is the worker.Result. A task
// whose payload is not a job fails on every delivery, saying so.
func agentHandler(r *deepresearch.Researcher, js jetstream.JetStream, c Config) Handler {
	jr := newJournal(js, c)
	return func(ctx context.Context, t Task) (json.RawMessage, error) {
		var job worker.Job
		if err := json.Unmarshal(t.Payload, &job); err != nil {
			return nil, fmt.Errorf("natsrun: task %s: its payload is not an agent job: %w", t.id(), err)
		}
		if job.RunID != t.Run {
			return nil, fmt.Errorf("natsrun: task %s carries a job of run %q", t.id(), job.RunID)
		}
		subject, n := NamesOf(c).Progress(t.Run, t.Cycle, t.Index), 0
		res, err := r.ServeAgent(ctx, job, jr, func(e events.Event) {
			data, err := json.Marshal(progressReport{Attempt: max(1, t.Attempt), N: n, Event: e})
			n++
			if err == nil {
				js.Conn().Publish(subject, data) //nolint:errcheck // a lost report is a gap the result fills
			}
		})
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
}

// progressReport is one event of an attempt at a task, as a worker
// reports it on the task's progress subject.
type progressReport struct {
	Attempt int          `json:"attempt"`
	N       int          `json:"n"`
	Event   events.Event `json:"event"`
}

// serve runs r's agents for every run whose tasks reach the workers'
// consumer, at most concurrency at once (0 means 1), until ctx is done:
// `deepresearch worker`. It sets up the streams first (Setup is
// idempotent). When ctx is done, the tasks it is running are released
// (nak) for another worker to take, and Serve returns context.Cause(ctx)
// once each has been.
func serve(ctx context.Context, js jetstream.JetStream, c Config, r *deepresearch.Researcher, concurrency int, name string) error {
	if _, err := setup(ctx, js, c); err != nil {
		return err
	}
	w := &Worker{JS: js, Config: c, Handle: agentHandler(r, js, c), Concurrency: concurrency, Name: name}
	return w.Run(ctx)
}

// eventTry bounds the publication of one event of EventLog.
const eventTry = 30 * time.Second

// EventLog publishes a run's events to the run's events subject, each
// with its sequence number (HeaderSeq), as the run emits them, so that any
// process connected to the cluster can Follow the run from any sequence
// number (an SSE Last-Event-ID). Give its Event method to Research as the
// sink (or one of the sinks) of a coordinator's run. Event waits until the
// stream has stored the event: a run emits its events one at a time, and
// a slow cluster slows it. An event that cannot be stored within Try
// (default 30s, on Config.Clock, as are the waits below) is skipped (Follow then goes on after it) and Err says
// so; the run goes on. After such a failure of the cluster (a timeout, a
// lost connection; not an event of its own that is refused, too large
// say) the log does not wait on the cluster again at every event: for the
// next Try it skips events at once, then tries one for a fifteenth of
// Try (and, failing, skips for another Try), and goes back to waiting
// once one is stored.
//
// EventLog is safe for concurrent use; it owns no goroutine.
type EventLog struct {
	JS     jetstream.JetStream
	Config Config
	// Attempt numbers the coordinator's attempt at the run (HeaderAttempt;
	// 0 means 1).
	Attempt int
	// Try bounds the wait for one event to be stored (0: 30s).
	Try time.Duration

	mu     sync.Mutex
	err    error
	failed time.Time // when the last event could not be stored; zero after one was
}

// Event publishes e.
func (l *EventLog) Event(e events.Event) {
	try := cmp.Or(l.Try, eventTry)
	c := l.Config.clock()
	l.mu.Lock()
	failed := l.failed
	l.mu.Unlock()
	var err error
	switch since := c.Now().Sub(failed); {
	case failed.IsZero():
	case since < try:
		err = fmt.Errorf("natsrun: event %d of %s: not published: the events stream could not store an event %s ago", e.Seq, e.RunID, since.Round(time.Millisecond))
	default:
		try = max(try/15, 100*time.Millisecond)
	}
	if err == nil {
		var data []byte
		if data, err = e.MarshalJSON(); err == nil {
			ctx, cancel := clock.WithTimeout(context.Background(), c, try)
			err = publishEvent(ctx, l.JS, l.Config, e.RunID, int64(e.Seq), max(1, l.Attempt), data)
			cancel()
		}
		l.mu.Lock()
		switch {
		case err == nil:
			l.failed = time.Time{}
		case transient(err):
			l.failed = c.Now() // the cluster, not this event
		}
		l.mu.Unlock()
	}
	if err != nil {
		l.mu.Lock()
		if l.err == nil {
			l.err = err
		}
		l.mu.Unlock()
	}
}

// Backfill publishes the events of a run's earlier attempts (a resumed
// run's stored events) that its events stream lacks: those numbered after
// the last event the stream holds for the run. A coordinator stores each
// event in its run store before it publishes it, so one killed between
// the two leaves the stream an event short, and its resumed run numbers
// on after it; call Backfill before resuming, and followers see every
// number once and in order. The stream's de-duplication (PublishEvent's
// message id) drops one published twice within its window.
func (l *EventLog) Backfill(ctx context.Context, prior []events.Event) error {
	if len(prior) == 0 {
		return nil
	}
	run := prior[0].RunID
	if err := checkRun(run); err != nil {
		return err
	}
	n := NamesOf(l.Config)
	r := reader{js: l.JS, name: n.EventsStream, subject: n.Events(run), clock: l.Config.clock()}
	var stored int64
	if err := r.open(ctx); err != nil {
		return fmt.Errorf("natsrun: backfilling %s: %w", run, err)
	}
	m, err := r.stream.GetLastMsgForSubject(ctx, r.subject)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
	case err != nil:
		return fmt.Errorf("natsrun: backfilling %s: the stream's last event: %w", run, err)
	default:
		if _, stored, err = r.lastEvent(ctx, m); err != nil {
			return fmt.Errorf("natsrun: backfilling %s: the stream's last event: %w", run, err)
		}
	}
	attempt := 1 // the attempt that emitted e: a run.resumed event opens the next
	for _, e := range prior {
		if d, ok := e.Data.(events.RunResumedData); ok {
			attempt = d.Attempt
		}
		if e.RunID != run {
			return fmt.Errorf("natsrun: backfilling %s: event %d is of run %s", run, e.Seq, e.RunID)
		}
		if int64(e.Seq) <= stored {
			continue
		}
		data, err := e.MarshalJSON()
		if err != nil {
			return fmt.Errorf("natsrun: backfilling %s: event %d: %w", run, e.Seq, err)
		}
		if err := publishEvent(ctx, l.JS, l.Config, run, int64(e.Seq), max(1, attempt), data); err != nil {
			return fmt.Errorf("natsrun: backfilling: %w", err)
		}
	}
	return nil
}

// Err returns the first event that could not be published, or nil.
func (l *EventLog) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
