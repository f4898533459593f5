package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/clock"
)

func TestJSONLines(t *testing.T) {
	var buf bytes.Buffer
	jl := NewJSONLines(&buf)
	c := clock.NewFake(t0)
	em := NewEmitter("r", c, jl)
	for i, p := range samples {
		em.Emit(i-1, "S", p)
		c.Advance(time.Millisecond)
	}
	if err := jl.Err(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	n := 0
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if e.Seq != uint64(n+1) || e.Type != samples[n].EventType() {
			t.Errorf("line %d: seq %d type %s", n+1, e.Seq, e.Type)
		}
		n++
	}
	if n != len(samples) {
		t.Errorf("%d lines, want %d", n, len(samples))
	}
}

type failWriter struct {
	ok     int // writes that succeed
	writes int
}

var errDisk = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > w.ok {
		return 0, errDisk
	}
	return len(p), nil
}

func TestJSONLinesStopsAtFirstError(t *testing.T) {
	w := &failWriter{ok: 1}
	jl := NewJSONLines(w)
	em := NewEmitter("r", nil, jl)
	for range 5 {
		em.Emit(0, "", DeltaData{Text: "x"})
	}
	if !errors.Is(jl.Err(), errDisk) {
		t.Errorf("Err() = %v, want %v", jl.Err(), errDisk)
	}
	if w.writes != 2 {
		t.Errorf("%d writes, want 2 (one good, one failed, then none)", w.writes)
	}
}

func TestJSONLinesEncodingError(t *testing.T) {
	var buf bytes.Buffer
	jl := NewJSONLines(&buf)
	jl.Event(Event{Data: RunStartedData{Config: map[string]any{"f": make(chan int)}}})
	jl.Event(Event{Data: DeltaData{}})
	if jl.Err() == nil {
		t.Error("no error for an unencodable event")
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %q after an error", buf.String())
	}
}

// BenchmarkEmitJSONLines measures emitting one agent.search event to a
// JSON lines sink.
func BenchmarkEmitJSONLines(b *testing.B) {
	jl := NewJSONLines(io.Discard)
	em := NewEmitter("0123456789abcdef", nil, jl)
	p := SearchData{Query: "telegraph cable 1858", Results: 5}
	b.ReportAllocs()
	for b.Loop() {
		em.Emit(2, "History", p)
	}
}
