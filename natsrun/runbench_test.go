package natsrun_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/worker"
)

// The shape of BenchmarkRunsOnWorkers. Every chat completion of every
// role takes runLatency at the model double, which answers at most a cap
// of them at once (a provider's concurrency cap; the others wait their
// turn). A run of the question (max_cycles 1) makes 23 calls: 4 on its
// coordinator (clarify, plan, write, verify), one after another, and 19
// on the workers (3 agents; an agent's tool steps and its report one
// after another, the relevance judgements of its searches in parallel).
// runsInFlight runs are kept in flight at once, so up to 3 × runsInFlight
// agents wait for the workers, each of which runs runWorkerConcurrency
// agents at once: up to 8 workers, the workers' agent slots bound the
// throughput. runModelCap is more calls than can ever be in flight (8
// workers' and the coordinator's model.max_concurrent), so it never
// binds; the last two sizes run 8 workers under lower caps, to show where
// a cap bites.
const (
	runLatency           = 200 * time.Millisecond
	runsInFlight         = 8
	runWorkerConcurrency = 1
	// runMaxConcurrent is model.max_concurrent of every Researcher: the
	// coordinator's runs in flight, so that the coordinator's own limiter
	// does not queue its planner and writer calls.
	runMaxConcurrent = runsInFlight
	runModelCap      = (8 + 1) * runMaxConcurrent
)

// BenchmarkRunsOnWorkers measures whole research runs across machines:
// one coordinator (a deepresearch.Researcher whose Config.Agents is
// natsrun.Agents, its events published by natsrun.EventLog) keeps
// runsInFlight runs of the question in flight, their agents run on 1, 2,
// 4 and 8 workers (natsrun.Serve, each with its own Researcher, its own
// index of the corpus and its own NATS connection), all against one
// embedded JetStream server, and every model call (coordinator's and
// agents') goes over HTTP to the latency-bound OpenAI-wire double, which
// answers with the offline extractive model. Sizes are named by their
// workers and the double's cap.
//
// One b.Loop iteration starts one run per worker (so -benchtime Nx runs
// N × workers runs, and each size takes about as long as the others when
// the throughput grows linearly); ns/op is reported per run. Metrics:
//
//   - runs/min: runs finished per minute of wall time, from the first
//     run started to the last finished.
//   - p50-event-ms, p99-event-ms: the delay of an event from the
//     coordinator emitting it (Event.Time, stamped as it is numbered,
//     before EventLog publishes it) to a follower on another NATS
//     connection (natsrun.Follow, one a run, following before the run
//     starts) receiving it, over every event of every run. It is the
//     cost of the events path (publish, store, deliver), not how late an
//     agent's events are: an agent's events travel with its result and
//     are emitted when it ends (see worker.Runner).
//   - events/run: the events of a run, each of which was timed.
//   - calls/run: chat completions per run.
//   - model-peak: the most chat completions in flight at the double at
//     once (at most the size's cap; at it, the cap bound).
//   - cpu-cores: the process's CPU time (user + system) over wall time:
//     everything here (server, workers, coordinator, double) shares the
//     machine's cores, and the figures are latency-bound only while this
//     stays well under them.
//
// Every run must finish without an error with a complete report that
// has references and no failed agent, and its follower must have
// received every event it emitted; the benchmark fails otherwise.
//
// go test -run '^$' -bench BenchmarkRunsOnWorkers -benchtime 8x ./natsrun
func BenchmarkRunsOnWorkers(b *testing.B) {
	ctx := context.Background()
	srv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	model := newCappedDouble(runLatency)
	defer model.Close()
	cfg := natsrun.Config{Prefix: "drrunbench"}
	conn := func() jetstream.JetStream {
		nc, err := nats.Connect(srv.URL())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			b.Fatal(err)
		}
		return js
	}
	researcher := func(agents worker.Runner) *deepresearch.Researcher {
		s := config.Defaults()
		s.Model.Provider = "openai"
		s.Model.Name = "extractive"
		s.Model.BaseURL = model.URL + "/v1"
		s.Model.MaxConcurrent = runMaxConcurrent
		s.Corpus.Dir = filepath.Join("..", "testdata", "corpus")
		s.Corpus.Index = filepath.Join(b.TempDir(), "index.db")
		s.Research.MaxCycles = 1
		c, err := config.ResearcherConfig(s, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Agents = agents
		r, err := deepresearch.New(c)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { r.Close() })
		// Each index is built before anything is timed.
		if _, err := c.Search.(*corpus.Corpus).Sync(ctx); err != nil {
			b.Fatal(err)
		}
		return r
	}
	coordJS, followJS := conn(), conn()
	cl := natsrun.NewCluster(coordJS, cfg)
	if _, err := cl.Setup(ctx); err != nil {
		b.Fatal(err)
	}
	coord := researcher(&natsrun.Agents{JS: coordJS, Config: cfg})
	evLog := &natsrun.EventLog{JS: coordJS, Config: cfg}
	// With store, the coordinator records each run in the cluster store
	// (natsrun.Store: its events appended to the events stream one by
	// one, each acknowledged) instead of publishing them with EventLog.
	st, err := cl.OpenStore(ctx, natsrun.StoreOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	type workerProc struct {
		r  *deepresearch.Researcher
		js jetstream.JetStream
	}
	var pool []workerProc
	for range 8 {
		pool = append(pool, workerProc{researcher(nil), conn()})
	}

	var gen atomic.Int64
	for _, size := range []struct {
		workers, limit int
		store          bool
	}{
		{1, runModelCap, false}, {2, runModelCap, false}, {4, runModelCap, false}, {8, runModelCap, false},
		{8, 8, false}, {8, 4, false}, // where a cap bites
		{1, runModelCap, true}, {8, runModelCap, true}, // recorded in the cluster store
	} {
		workers := size.workers
		name := fmt.Sprintf("workers=%d,cap=%d", workers, size.limit)
		if size.store {
			name = "store," + name
		}
		b.Run(name, func(b *testing.B) {
			model.setLimit(size.limit)
			wctx, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			for i, w := range pool[:workers] {
				wg.Go(func() {
					err := natsrun.NewCluster(w.js, cfg).Serve(wctx, w.r, runWorkerConcurrency, fmt.Sprintf("w%d", i+1))
					if !errors.Is(err, context.Canceled) {
						b.Errorf("worker %d: %v", i+1, err)
					}
				})
			}
			defer func() { stop(); wg.Wait() }()

			var mu sync.Mutex
			var delays []time.Duration
			run := func(id string) error {
				// The follower: another connection, following the run
				// until run.finished. It is following before the run
				// starts: it has received a probe published to the run's
				// events subject (a message without a sequence number,
				// which Follow gives as 0) — else the first events would
				// wait for its consumer to be created.
				fctx, cancel := context.WithCancel(ctx)
				defer cancel()
				var got []time.Duration
				ready, followed := make(chan struct{}), make(chan error, 1)
				go func() {
					followed <- natsrun.NewCluster(followJS, cfg).Follow(fctx, id, 0, func(seq int64, data []byte) bool {
						at := time.Now()
						if seq == 0 {
							close(ready)
							return true
						}
						var ev struct {
							Time time.Time `json:"time"`
							Type string    `json:"type"`
						}
						if err := json.Unmarshal(data, &ev); err != nil {
							return true // counted as missing below
						}
						got = append(got, at.Sub(ev.Time))
						return ev.Type != "run.finished"
					})
				}()
				if _, err := followJS.Publish(ctx, natsrun.NamesOf(cfg).Events(id), []byte("probe")); err != nil {
					return err
				}
				select {
				case <-ready:
				case err := <-followed:
					return fmt.Errorf("run %s: follow: %v", id, err)
				case <-time.After(time.Minute):
					return fmt.Errorf("run %s: the follower never received its probe", id)
				}
				var emitted atomic.Int64
				sink := func(e events.Event) { emitted.Add(1); evLog.Event(e) }
				rctx, rcancel := context.WithTimeout(ctx, 5*time.Minute) // a failure timeout only
				defer rcancel()
				opts := deepresearch.RunOptions{Sink: sink}
				if size.store {
					opts = deepresearch.RunOptions{Store: st, Sink: func(events.Event) { emitted.Add(1) }}
				}
				rep, err := startWait(rctx, coord, deepresearch.Request{Question: question, RunID: id}, opts)
				if err != nil {
					return fmt.Errorf("run %s: %w", id, err)
				}
				if !rep.Complete() || len(rep.References) == 0 {
					return fmt.Errorf("run %s: report complete %v with %d references", id, rep.Complete(), len(rep.References))
				}
				for _, s := range rep.Sections {
					if s.Failure != nil {
						return fmt.Errorf("run %s: agent %q failed: %s", id, s.Task.Title, s.Failure.Error)
					}
				}
				select {
				case err := <-followed:
					if err != nil {
						return fmt.Errorf("run %s: follow: %w", id, err)
					}
				case <-time.After(time.Minute):
					return fmt.Errorf("run %s: the follower never received run.finished", id)
				}
				if int64(len(got)) != emitted.Load() {
					return fmt.Errorf("run %s: emitted %d events, the follower received %d", id, emitted.Load(), len(got))
				}
				mu.Lock()
				delays = append(delays, got...)
				mu.Unlock()
				return nil
			}

			calls0 := model.calls.Load()
			cpu0 := cpuTime()
			slots := make(chan struct{}, runsInFlight)
			var runs sync.WaitGroup
			n := 0
			start := time.Now()
			for b.Loop() {
				for range workers {
					slots <- struct{}{}
					id := fmt.Sprintf("bench%d", gen.Add(1))
					n++
					runs.Go(func() {
						defer func() { <-slots }()
						if err := run(id); err != nil {
							b.Error(err)
						}
					})
				}
			}
			runs.Wait()
			elapsed := time.Since(start)
			cpu := cpuTime() - cpu0
			if b.Failed() || len(delays) == 0 {
				return
			}
			slices.Sort(delays)
			ms := func(q int) float64 { return float64(delays[(len(delays)-1)*q/100].Microseconds()) / 1000 }
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n), "ns/op")
			b.ReportMetric(float64(n)/elapsed.Minutes(), "runs/min")
			b.ReportMetric(ms(50), "p50-event-ms")
			b.ReportMetric(ms(99), "p99-event-ms")
			b.ReportMetric(float64(len(delays))/float64(n), "events/run")
			b.ReportMetric(float64(model.calls.Load()-calls0)/float64(n), "calls/run")
			b.ReportMetric(float64(model.peak.Load()), "model-peak")
			b.ReportMetric(cpu.Seconds()/elapsed.Seconds(), "cpu-cores")
		})
	}
}

// cappedDouble is the OpenAI-wire model double of BenchmarkRunsOnWorkers:
// the offline extractive model behind deepresearchtest.OpenAIServer, every
// chat completion answered after latency, at most limit at once.
type cappedDouble struct {
	*httptest.Server
	inner       *deepresearchtest.OpenAIServer
	calls, peak atomic.Int64
	inFlight    atomic.Int64
	sem         atomic.Pointer[chan struct{}] // a slot per call in flight
}

// newCappedDouble starts a cappedDouble. Close it when done.
func newCappedDouble(latency time.Duration) *cappedDouble {
	d := &cappedDouble{inner: deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}),
		deepresearchtest.OpenAIOptions{Delay: latency})}
	next := d.inner.Config.Handler
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			next.ServeHTTP(w, r)
			return
		}
		sem := *d.sem.Load()
		select {
		case sem <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-sem }()
		n := d.inFlight.Add(1)
		for p := d.peak.Load(); n > p && !d.peak.CompareAndSwap(p, n); p = d.peak.Load() {
		}
		d.calls.Add(1)
		next.ServeHTTP(w, r) // waits latency, then answers
		d.inFlight.Add(-1)
	}))
	return d
}

// setLimit caps the calls in flight at once from now on (set it while
// none is) and starts counting their peak again.
func (d *cappedDouble) setLimit(n int) {
	sem := make(chan struct{}, n)
	d.sem.Store(&sem)
	d.peak.Store(0)
}

func (d *cappedDouble) Close() {
	d.Server.Close()
	d.inner.Close()
}

// cpuTime is this process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
