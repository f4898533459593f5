package natsrun

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/telemetry"
)

// Task is one agent task of a run: the unit of the work queue.
type Task struct {
	Run   string `json:"run"`
	Cycle int    `json:"cycle"`
	Index int    `json:"index"`
	// Payload is what the worker's Handler needs to run the task (for
	// deepresearch, the request and the plan task), opaque here.
	Payload json.RawMessage `json:"payload,omitempty"`
	// Attempt numbers the delivery the worker is handling, from 1; set
	// by the worker, not by the coordinator.
	Attempt int `json:"-"`
}

// id is the task's message id, its de-duplication key: run/cycle/task.
func (t Task) id() string { return t.Run + "/" + strconv.Itoa(t.Cycle) + "/" + strconv.Itoa(t.Index) }

// Result is a task's outcome as the worker that finished it published it.
type Result struct {
	Run     string          `json:"run"`
	Cycle   int             `json:"cycle"`
	Index   int             `json:"index"`
	Attempt int             `json:"attempt"`
	Output  json.RawMessage `json:"output,omitempty"`
	// Error is why the task failed; with Dead, it failed on its last
	// delivery and will not be tried again.
	Error string `json:"error,omitempty"`
	Dead  bool   `json:"dead,omitempty"`
	// Worker names the worker that published it.
	Worker string `json:"worker,omitempty"`
}

// submit publishes tasks to the work queue, each message carrying the
// W3C trace context of ctx's span (traceparent) in its headers, which the
// Worker hands to its Handler's context. A task already submitted (the
// same run, cycle and index, within the stream's two-minute de-duplication
// window) is not queued again, so a restarted coordinator may submit its
// plan again.
func submit(ctx context.Context, js jetstream.JetStream, c Config, tasks ...Task) error {
	n := NamesOf(c)
	for _, t := range tasks {
		if err := checkRun(t.Run); err != nil {
			return err
		}
		data, err := json.Marshal(t)
		if err != nil {
			return err
		}
		m := &nats.Msg{Subject: n.Tasks(t.Run), Data: data, Header: nats.Header{}}
		telemetry.Inject(ctx, m.Header) // the worker's spans continue ctx's trace
		if err := publishIdempotent(ctx, c.clock(), js, m, t.id()); err != nil {
			return fmt.Errorf("natsrun: task %s: %w", t.id(), err)
		}
	}
	return nil
}

// ErrStopped is the cause of a handler's context when its task's
// coordinator stopped it (Stop).
var ErrStopped = errors.New("natsrun: the task was stopped by its coordinator")

// stop tells the workers that the coordinator no longer wants the result
// of run's task index of cycle: a worker that takes it afterwards drops
// it, and one running it cancels its handler's context (cause
// ErrStopped) at its next heartbeat (Config.AckWait/3) and publishes no
// result. A stopped task is not delivered again.
func stop(ctx context.Context, js jetstream.JetStream, c Config, run string, cycle, index int) error {
	if err := checkRun(run); err != nil {
		return err
	}
	id := Task{Run: run, Cycle: cycle, Index: index}.id()
	m := &nats.Msg{Subject: NamesOf(c).Stop(run, cycle, index), Data: []byte("{}")}
	if err := publishIdempotent(ctx, c.clock(), js, m, id+"/stop"); err != nil {
		return fmt.Errorf("natsrun: stopping task %s: %w", id, err)
	}
	return nil
}

// stopTry bounds one look for a task's stop notice.
const stopTry = 5 * time.Second

// stopped reports whether t's coordinator stopped it. A notice that cannot
// be read (a server lost meanwhile) counts as none: the task runs.
func stopped(ctx context.Context, c Config, results jetstream.Stream, n Names, t Task) bool {
	ctx, cancel := clock.WithTimeout(ctx, c.clock(), stopTry)
	defer cancel()
	_, err := results.GetLastMsgForSubject(ctx, n.Stop(t.Run, t.Cycle, t.Index))
	return err == nil
}

// Handler runs one task and returns its output. It must stop when ctx is
// done. An error fails this attempt: the task is delivered again, up to
// Config.MaxDeliver times in all.
type Handler func(ctx context.Context, t Task) (json.RawMessage, error)

// Worker takes tasks from the work queue and runs them with Handle, at most
// Concurrency at once (0 means 1). While a task runs, the worker tells the
// server every Config.AckWait/3 (on Config.Clock) that it is in progress; a
// worker that dies stops telling it, and the task is delivered to another
// worker once AckWait has passed (on the server's clock).
type Worker struct {
	JS     jetstream.JetStream
	Config Config
	Handle Handler
	// Concurrency is the tasks run at once.
	Concurrency int
	// Name names the worker in its results.
	Name string
	// Started, if not nil, is told of every task as its handler starts.
	Started func(Task)

	mu      sync.Mutex
	running map[string]bool // the tasks being handled, by id
}

// tasks returns the ids of the tasks being handled, sorted.
func (w *Worker) tasks() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.running))
	for id := range w.running {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// pullWait is how long one request for a task waits at the server. A
// stopped worker's last request may still take a task within it; that
// task is delivered again once Config.AckWait has passed.
const pullWait = 5 * time.Second

// pullPause is the wait before asking for a task again after a request
// failed (a lost server).
const pullPause = 100 * time.Millisecond

// Run takes and runs tasks until ctx is done; it returns once every task
// it took has been acked or released, with context.Cause(ctx).
func (w *Worker) Run(ctx context.Context) error {
	c, err := w.Config.settle()
	if err != nil {
		return err
	}
	n := NamesOf(c)
	cons, err := w.JS.Consumer(ctx, n.TasksStream, n.Consumer)
	if err != nil {
		return fmt.Errorf("natsrun: consumer %s: %w (run Setup first)", n.Consumer, err)
	}
	results, err := w.JS.Stream(ctx, n.ResultsStream)
	if err != nil {
		return fmt.Errorf("natsrun: stream %s: %w (run Setup first)", n.ResultsStream, err)
	}
	// Each loop asks for one task at a time, when it is free: a task
	// buffered in the client while another runs would get no heartbeat.
	var wg sync.WaitGroup
	// The worker says it is alive, with the tasks it runs (Survey),
	// every AckWait/3; without the presence bucket it runs unseen.
	if kv, err := presence(ctx, w.JS, c); err == nil {
		name := cmp.Or(w.Name, "worker") + "-" + rand.Text()[:6]
		wg.Go(func() {
			heartbeat(ctx, c.clock(), kv, c.AckWait/3, func() Member { return Member{Kind: "worker", Name: name, Tasks: w.tasks()} })
		})
	}
	for range max(1, w.Concurrency) {
		wg.Go(func() {
			for ctx.Err() == nil {
				fctx, cancel := clock.WithTimeout(ctx, c.clock(), pullWait)
				msg, err := cons.Next(jetstream.FetchContext(fctx))
				err = timeout(fctx, err)
				cancel()
				switch {
				case err == nil:
				case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
					continue // no task yet, or stopped
				default: // a lost server: the client reconnects meanwhile
					clock.Sleep(ctx, c.clock(), pullPause) //nolint:errcheck // stopped: the loop ends
					continue
				}
				w.handle(ctx, c, n, results, msg)
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

func (w *Worker) handle(ctx context.Context, c Config, n Names, results jetstream.Stream, msg jetstream.Msg) {
	var t Task
	if err := json.Unmarshal(msg.Data(), &t); err != nil {
		msg.Term() //nolint:errcheck // a malformed task is never retried
		return
	}
	if meta, err := msg.Metadata(); err == nil {
		t.Attempt = int(meta.NumDelivered)
	}
	if stopped(ctx, c, results, n, t) {
		msg.TermWithReason("stopped by its coordinator") //nolint:errcheck // a redelivery is dropped again
		return
	}
	w.mu.Lock()
	if w.running == nil {
		w.running = map[string]bool{}
	}
	w.running[t.id()] = true
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.running, t.id())
		w.mu.Unlock()
	}()
	hctx, stop := context.WithCancelCause(telemetry.Extract(ctx, msg.Headers()))
	beat := clock.NewTicker(c.clock(), c.AckWait/3)
	var halted atomic.Bool // the coordinator stopped the task
	var wg sync.WaitGroup
	wg.Go(func() {
		defer beat.Stop()
		for {
			select {
			case <-hctx.Done():
				return
			case <-beat.C:
				msg.InProgress() //nolint:errcheck // a missed beat ends in a redelivery, which the journal makes cheap
				if stopped(hctx, c, results, n, t) {
					halted.Store(true)
					stop(ErrStopped)
					return
				}
			}
		}
	})
	if w.Started != nil {
		w.Started(t)
	}
	began := c.clock().Now()
	ended, failure := "done", error(nil)
	if c.Log != nil {
		c.Log.Info().Str("task", t.id()).Int("attempt", t.Attempt).Str("worker", w.Name).Msg("task taken")
		defer func() {
			c.Log.Info().Str("task", t.id()).Int("attempt", t.Attempt).Str("worker", w.Name).
				Dur("took", c.clock().Now().Sub(began)).Str("ended", ended).Err(failure).Msg("task ended")
		}()
	}
	out, err := w.Handle(hctx, t)
	stop(nil)
	wg.Wait()
	if halted.Load() {
		ended = "stopped by its coordinator"
		msg.TermWithReason("stopped by its coordinator") //nolint:errcheck // a redelivery is dropped again
		return
	}
	if err != nil && ctx.Err() != nil {
		ended = "given back: the worker is stopping"
		msg.Nak() //nolint:errcheck // shutting down: another worker takes it now
		return
	}
	if err != nil {
		ended, failure = "failed; delivered again", err
		if t.Attempt >= c.MaxDeliver {
			ended = "dead"
		}
	}
	pctx := context.WithoutCancel(ctx)
	res := Result{Run: t.Run, Cycle: t.Cycle, Index: t.Index, Attempt: t.Attempt, Output: out, Worker: w.Name}
	if err != nil {
		if t.Attempt < c.MaxDeliver {
			msg.Nak() //nolint:errcheck // redelivered after AckWait otherwise
			return
		}
		res.Output, res.Error, res.Dead = nil, err.Error(), true
		dead, _ := json.Marshal(map[string]any{"type": "task.dead", "run": t.Run, "cycle": t.Cycle, "index": t.Index,
			"attempts": t.Attempt, "error": err.Error()})
		w.JS.Publish(pctx, n.Events(t.Run), dead, jetstream.WithMsgID(t.id()+"/dead")) //nolint:errcheck // the result says it too
	}
	data, _ := json.Marshal(res)
	rctx, cancel := clock.WithTimeout(pctx, c.clock(), c.AckWait)
	defer cancel()
	if err := publishIdempotent(rctx, c.clock(), w.JS, &nats.Msg{Subject: n.Results(t.Run), Data: data}, t.id()); err != nil {
		if transient(err) && t.Attempt < c.MaxDeliver {
			msg.Nak() //nolint:errcheck // not published: let it run again
			return
		}
		// A result no attempt could publish (larger than the server's
		// max_payload, say) or the last delivery's: a small dead result
		// says why, so the coordinator does not wait for one forever.
		res = Result{Run: t.Run, Cycle: t.Cycle, Index: t.Index, Attempt: t.Attempt, Worker: w.Name, Dead: true,
			Error: fmt.Sprintf("its result (%d bytes) could not be published: %v", len(data), err)}
		ended, failure = "dead: its result could not be published", err
		data, _ = json.Marshal(res)
		if err := publishIdempotent(rctx, c.clock(), w.JS, &nats.Msg{Subject: n.Results(t.Run), Data: data}, t.id()+"/dead"); err != nil {
			msg.Nak() //nolint:errcheck // nothing could be published
			return
		}
	}
	if res.Dead {
		msg.Term() //nolint:errcheck // the result is published
		return
	}
	msg.DoubleAck(pctx) //nolint:errcheck // a lost ack redelivers; the result's id makes the second one a duplicate
}

// ErrDead reports a task that failed on every delivery.
var ErrDead = errors.New("natsrun: task failed on every delivery")

// await waits for the results of run's tasks of cycle with the given
// indexes and returns them in the order of indexes. Results already
// published count, so a restarted coordinator picks up the tasks finished
// while it was away. A dead task's result has Dead set. Like Follow, it
// reads the results stream through no consumer.
func await(ctx context.Context, js jetstream.JetStream, c Config, run string, cycle int, indexes []int) ([]Result, error) {
	if err := checkRun(run); err != nil {
		return nil, err
	}
	n := NamesOf(c)
	pos := make(map[int]int, len(indexes))
	for i, x := range indexes {
		pos[x] = i
	}
	out := make([]Result, len(indexes))
	seen := make([]bool, len(indexes))
	got := 0
	if len(indexes) == 0 {
		return out, nil
	}
	err := tail(ctx, c.clock(), js, n.ResultsStream, n.Results(run), 0, func(m *jetstream.RawStreamMsg) bool {
		var r Result
		if json.Unmarshal(m.Data, &r) != nil || r.Cycle != cycle {
			return true
		}
		if i, ok := pos[r.Index]; ok && !seen[i] {
			out[i], seen[i] = r, true
			got++
		}
		return got < len(indexes)
	})
	if err != nil {
		return out, err
	}
	return out, nil
}
