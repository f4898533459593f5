// Package heappeak measures memory for benchmarks: the live heap now,
// and the largest live heap seen while a benchmark runs.
package heappeak

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"
)

const heapObjects = "/memory/classes/heap/objects:bytes"

// Live collects garbage and returns the bytes in live heap objects.
func Live() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Start collects garbage, then samples the live heap every millisecond
// (in a goroutine it owns) until the returned func is called, which
// stops sampling and returns the largest sample in MiB.
func Start() (stop func() float64) {
	runtime.GC()
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	wg.Go(func() {
		s := []metrics.Sample{{Name: heapObjects}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				metrics.Read(s)
				peak = max(peak, s[0].Value.Uint64())
			}
		}
	})
	return func() float64 {
		close(done)
		wg.Wait()
		return float64(peak) / (1 << 20)
	}
}

// Status returns a size from /proc/self/status (VmData, VmHWM, VmSize),
// in bytes: what tests that cap a child process's memory measure. It
// fails where the file is missing (not Linux) or lacks the field.
func Status(field string) (uint64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte(field+":")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/self/status %s: %w", field, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/self/status has no %s", field)
}
