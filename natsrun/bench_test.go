package natsrun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/natsrun"
)

// Benchmark shape: each run is benchTasks agent tasks of benchSteps model
// calls; the model double answers each call after benchLatency and at most
// benchModelCap calls at once (a provider's concurrency cap).
const (
	benchTasks    = 4
	benchSteps    = 4
	benchRuns     = 8 // runs in flight at once
	benchLatency  = 25 * time.Millisecond
	benchModelCap = 16
)

// BenchmarkWorkers measures runs per minute and the p99 delay from an
// agent publishing an event to a follower (another connection) reading it,
// with 1, 2, 4 and 8 workers against the latency-bound double, on one
// embedded server.
func BenchmarkWorkers(b *testing.B) {
	srv, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	cfg := natsrun.Config{Prefix: "drbench", AckWait: 10 * time.Second}
	capSem := make(chan struct{}, benchModelCap)
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		capSem <- struct{}{}
		time.Sleep(benchLatency) // the model's latency: what the double is bound by
		<-capSem
	}))
	defer model.Close()
	conn := func() jetstream.JetStream {
		nc, err := nats.Connect(srv.URL())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(nc.Close)
		js, _ := jetstream.New(nc)
		return js
	}
	js := conn()
	cl := natsrun.NewCluster(js, cfg)
	if _, err := cl.Setup(context.Background()); err != nil {
		b.Fatal(err)
	}
	var gen atomic.Int64
	for _, workers := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range workers {
				wjs := conn()
				w := &natsrun.Worker{JS: wjs, Config: cfg, Handle: func(ctx context.Context, t natsrun.Task) (json.RawMessage, error) {
					for step := range benchSteps {
						req, _ := http.NewRequestWithContext(ctx, http.MethodPost, model.URL, nil)
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							return nil, err
						}
						resp.Body.Close()
						// One event log a task: a run's events are numbered by
						// its one coordinator, in order; here each agent's are.
						stamp := strconv.FormatInt(time.Now().UnixNano(), 10)
						log := t.Run + "-" + strconv.Itoa(t.Index)
						if err := natsrun.NewCluster(wjs, cfg).PublishEvent(ctx, log, int64(step+1), t.Attempt, []byte(stamp)); err != nil {
							return nil, err
						}
					}
					return json.RawMessage(`"done"`), nil
				}}
				wg.Go(func() { w.Run(ctx) }) //nolint:errcheck // stopped by cancel
			}
			var mu sync.Mutex
			var delays []time.Duration
			runs := 0
			start := time.Now()
			for b.Loop() {
				var rg sync.WaitGroup
				for range benchRuns {
					run := "r" + strconv.FormatInt(gen.Add(1), 10)
					tasks, idx := tasksOf(run, benchTasks)
					if err := cl.Submit(ctx, tasks...); err != nil {
						b.Fatal(err)
					}
					rg.Go(func() {
						fctx, stop := context.WithCancel(ctx)
						defer stop()
						var fg sync.WaitGroup
						for i := range benchTasks {
							fg.Go(func() {
								log := run + "-" + strconv.Itoa(i)
								cl.Follow(fctx, log, 0, func(seq int64, data []byte) bool { //nolint:errcheck // stopped
									ns, _ := strconv.ParseInt(string(data), 10, 64)
									mu.Lock()
									delays = append(delays, time.Since(time.Unix(0, ns)))
									mu.Unlock()
									return seq < benchSteps
								})
							})
						}
						if _, err := cl.Await(ctx, run, 1, idx); err != nil {
							b.Error(err)
						}
						fg.Wait()
					})
				}
				rg.Wait()
				runs += benchRuns
			}
			elapsed := time.Since(start)
			cancel()
			wg.Wait()
			slices.Sort(delays)
			if len(delays) > 0 {
				b.ReportMetric(float64(runs)/elapsed.Minutes(), "runs/min")
				b.ReportMetric(float64(delays[len(delays)*99/100].Microseconds())/1000, "p99-event-ms")
			}
		})
	}
}
