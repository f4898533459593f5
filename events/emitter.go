package events

import (
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/deepresearch/deepresearch/clock"
)

// Sink receives events. An Emitter calls Event for one event at a time, in
// sequence order; see the package documentation for what a slow sink
// costs.
type Sink interface {
	Event(Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Event calls f(e).
func (f SinkFunc) Event(e Event) { f(e) }

// Emitter numbers, timestamps and delivers a run's events. It is safe for
// concurrent use. A nil *Emitter discards events, so code that emits need
// not check whether anyone listens.
type Emitter struct {
	*stream
	cycle int // stamped on every event as Event.Cycle
}

// stream is what the emitters of one run share: one numbering, one lock,
// one set of sinks.
type stream struct {
	runID string
	clock clock.Clock
	sinks []Sink

	mu     sync.Mutex
	seq    uint64
	closed bool
	resume *resumer // set by Resume: the events earlier attempts committed
}

// NewEmitter returns an emitter for run runID that stamps events with c's
// time (the real clock's when c is nil) and delivers them to sinks, in the
// order given.
func NewEmitter(runID string, c clock.Clock, sinks ...Sink) *Emitter {
	return &Emitter{stream: &stream{runID: runID, clock: clock.Or(c), sinks: sinks}}
}

// InCycle returns an emitter of the same run whose events carry cycle as
// their Event.Cycle: the events of research cycle cycle (from 1). It shares
// e's numbering, lock and sinks, so ordering and Close are the run's.
func (e *Emitter) InCycle(cycle int) *Emitter {
	if e == nil {
		return nil
	}
	return &Emitter{stream: e.stream, cycle: cycle}
}

// RunID returns the ID the emitter stamps on its events.
func (e *Emitter) RunID() string {
	if e == nil {
		return ""
	}
	return e.runID
}

// Emit stamps p with the run ID, the next sequence number, the clock's
// time and p's type, and delivers the event to every sink before
// returning. agent is the plan index of the emitting agent (-1 for
// run-level events) and section its task title ("" for run-level events).
// p must not be nil.
//
// Emit holds the emitter's lock while the sinks run: concurrent calls are
// delivered one after another, in sequence order, and each waits for the
// sinks to finish with the events before it.
func (e *Emitter) Emit(agent int, section string, p Payload) {
	if e == nil {
		return
	}
	if p == nil {
		panic("events: Emit with a nil payload")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if e.resume != nil {
		for _, q := range e.resume.pass(agent, p) {
			e.deliver(agent, section, q)
		}
		return
	}
	e.deliver(agent, section, p)
}

// deliver numbers, stamps and delivers one event; e.mu is held.
func (e *Emitter) deliver(agent int, section string, p Payload) {
	e.seq++
	ev := Event{
		RunID:   e.runID,
		Seq:     e.seq,
		Time:    e.clock.Now(),
		Type:    p.EventType(),
		Agent:   agent,
		Section: section,
		Cycle:   e.cycle,
		Data:    p,
	}
	for _, s := range e.sinks {
		s.Event(ev)
	}
}

// Close ends the run's event stream: once Close returns, no sink is called
// again and Emit drops its payload without using a sequence number, so a
// straggler (an agent that ignored cancellation) cannot add events after
// the run's last one, and the numbering keeps no gap. It waits for an Emit
// in progress to finish.
func (e *Emitter) Close() {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
}

// NewRunID returns a random run ID of 16 lower-case hex digits (64 bits
// from crypto/rand).
func NewRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails: see crypto/rand.Read
	return hex.EncodeToString(b[:])
}
