package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// BenchmarkLoad starts 100 runs at once (and, for comparison, 10) over loopback HTTP on the offline
// model and the test corpus, each followed by its own SSE subscriber, and
// reports runs per second, the delay from an event's creation (its
// emitter timestamp) to its delivery to the subscriber (p50, p99, max;
// "live" counts only events created after the subscriber's stream
// opened), and the peak Go heap. Every subscriber must see every event of
// its run exactly once, in order. Each iteration is bounded to 2 minutes.
// The model answers at once (CPU-bound: every run competes for the CPU)
// or after 50 ms per call, like a fast hosted model.
//
//	go test ./httpapi -run '^$' -bench Load -benchtime 3x
func BenchmarkLoad(b *testing.B) {
	for _, tc := range []struct {
		runs    int
		latency time.Duration
	}{{100, 0}, {100, 50 * time.Millisecond}, {10, 0}} {
		b.Run(fmt.Sprintf("runs=%d/model=%s", tc.runs, tc.latency), func(b *testing.B) { benchLoad(b, tc.runs, tc.latency) })
	}
}

// maxAgents is the cap on agents across runs: two per core for a CPU-bound
// model (no latency), as config.ResearcherConfig sets it for the offline model, so
// that research queues instead of crowding out the delivery of events; a
// model that mostly waits gets room for many (an embedder's choice: real
// providers are capped per provider by model.max_concurrent instead).
func maxAgents(latency time.Duration) int {
	if latency == 0 {
		return 2 * runtime.GOMAXPROCS(0)
	}
	return 8 * runtime.GOMAXPROCS(0)
}

func benchLoad(b *testing.B, runs int, latency time.Duration) {
	dir := b.TempDir()
	r, err := deepresearch.New(deepresearch.Config{
		Model:  deepresearchtest.Model(latency),
		Limits: deepresearch.Limits{MaxAgents: maxAgents(latency)},
		Search: deepresearchtest.Corpus(b, filepath.Join("..", "testdata", "corpus"), filepath.Join(dir, "index.db")),
	})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	warm, err := r.Start(b.Context(), deepresearch.Request{Question: "warm up the index"}, deepresearch.RunOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := warm.Wait(); err != nil {
		b.Fatal(err)
	}
	st, err := sqlitestore.Open(b.Context(), filepath.Join(dir, "runs.db"), sqlitestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rs, err := deepresearch.NewRuns(r, st, deepresearch.RunsOptions{MaxRuns: runs})
	if err != nil {
		b.Fatal(err)
	}
	defer rs.Close()
	srv, err := New(Config{Runs: rs})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * runs, MaxConnsPerHost: 0}}
	defer client.CloseIdleConnections()

	var all, live []time.Duration
	var cpu0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &cpu0)
	var peak atomic.Uint64
	var elapsed time.Duration
	var events int
	for b.Loop() {
		ctx, cancel := context.WithTimeout(b.Context(), 2*time.Minute)
		stopSampling := sampleHeap(&peak)
		start := time.Now()
		var wg sync.WaitGroup
		results := make([]subResult, runs)
		for i := range runs {
			wg.Go(func() {
				results[i] = subscribe(ctx, client, hs.URL, fmt.Sprintf("How are undersea cables repaired? (%d)", i))
			})
		}
		wg.Wait()
		elapsed += time.Since(start)
		stopSampling()
		cancel()
		for i, res := range results {
			if res.err != nil {
				b.Fatalf("run %d: %v", i, res.err)
			}
			run, err := st.Get(b.Context(), res.id)
			if err != nil || run.Status != runstore.Finished || run.Events != uint64(len(res.seqs)) {
				b.Fatalf("run %d: %+v, %v; the subscriber saw %d events", i, run, err, len(res.seqs))
			}
			for j, s := range res.seqs {
				if s != uint64(j+1) {
					b.Fatalf("run %d: event %d has seq %d", i, j, s)
				}
			}
			events += len(res.seqs)
			all = append(all, res.delays...)
			live = append(live, res.delays[res.before:]...)
		}
	}
	b.StopTimer()
	var cpu1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &cpu1)
	iters := float64(b.N)
	cpuSec := float64(cpu1.Utime.Nano()+cpu1.Stime.Nano()-cpu0.Utime.Nano()-cpu0.Stime.Nano()) / 1e9
	b.ReportMetric(cpuSec*1000/(float64(runs)*iters), "cpu-ms/run")
	b.ReportMetric(float64(runs)*iters/elapsed.Seconds(), "runs/s")
	b.ReportMetric(float64(events)/iters/float64(runs), "events/run")
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(ms(percentile(all, 0.50)), "p50-ms")
	b.ReportMetric(ms(percentile(all, 0.99)), "p99-ms")
	b.ReportMetric(ms(percentile(live, 0.99)), "live-p99-ms")
	b.ReportMetric(ms(percentile(all, 1)), "max-ms")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}

type subResult struct {
	id     string
	seqs   []uint64
	delays []time.Duration
	before int // events created before the stream opened
	err    error
}

// subscribe starts a run and follows its SSE stream to the end.
func subscribe(ctx context.Context, client *http.Client, base, question string) (res subResult) {
	body := strings.NewReader(fmt.Sprintf(`{"question":%q}`, question))
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/research", body)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		res.err = err
		return
	}
	var s started
	err = json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted {
		res.err = fmt.Errorf("POST: %s %v", resp.Status, err)
		return
	}
	res.id = s.ID
	req, _ = http.NewRequestWithContext(ctx, "GET", base+s.URLs["events"], nil)
	resp, err = client.Do(req)
	if err != nil {
		res.err = err
		return
	}
	defer resp.Body.Close()
	opened := time.Now()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		data, ok := strings.CutPrefix(string(line), "data: ")
		if !ok {
			continue
		}
		now := time.Now()
		var ev struct {
			Seq  uint64    `json:"seq"`
			Time time.Time `json:"time"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			res.err = err
			return
		}
		if ev.Seq == 0 {
			break // the end event
		}
		res.seqs = append(res.seqs, ev.Seq)
		res.delays = append(res.delays, now.Sub(ev.Time))
		if ev.Time.Before(opened) {
			res.before++
		}
	}
	if err := sc.Err(); err != nil {
		res.err = err
	}
	return
}

// sampleHeap records the largest live heap seen, sampling every
// millisecond until stop is called.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
