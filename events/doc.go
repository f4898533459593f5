// Package events is the vocabulary every consumer of a research run shares:
// the terminal progress display, the JSON lines a chat backend relays as
// server-sent events, and Go programs that embed the researcher.
//
// An Event is a common header (run, sequence number, time, type, agent,
// section and, for the events of a research cycle, the cycle) and a typed
// Payload whose concrete type matches the event's Type. Events serialise
// to one stable JSON shape ("cycle" is left out when 0):
//
//	{"run_id":"9f86d081884c7d65","seq":7,"time":"2025-01-02T15:04:05.123Z",
//	 "type":"agent.search","agent":2,"section":"History","cycle":1,
//	 "data":{"query":"telegraph cable 1858","results":5}}
//
// Decoding picks the payload struct from "type"; an event type this version
// does not know decodes into RawData, so older consumers keep working when
// newer producers add event types.
//
// # Emitting
//
// An Emitter stamps each payload with the run ID, the next sequence number
// and the time, and hands the event to its sinks.
//
// Ordering: within one run, sequence numbers start at 1 and increase by one
// per event. Every sink sees every event, in sequence order, one at a time,
// even when many agents emit concurrently: delivery happens under the
// emitter's lock, so a sink never needs its own locking against the emitter
// and never sees event n+1 before it has returned from event n. Event times
// never decrease with the sequence number (given a clock that does not go
// backwards).
//
// Backpressure: delivery is synchronous. Emit returns only after every sink
// has returned, so a slow sink slows every goroutine that emits, and a sink
// that blocks forever stalls the run. This is deliberate: nothing is
// buffered or dropped, and memory stays bounded. A sink that must not slow
// the run (a network client that may stall) should copy the event into its
// own bounded queue and decide there what to drop. A sink must not call
// Emit on the emitter that is delivering to it: that deadlocks.
//
// # Resuming
//
// A run whose process died goes on in a new attempt that runs its
// pipeline again from the start; Emitter.Resume makes the new attempt's
// emitter continue the log after the events already committed, dropping
// each one it is asked for again, so that the log holds every event once
// (see resume.go for how an event is recognised across attempts).
//
// # Sinks
//
// JSONLines writes newline-delimited JSON. Any func(Event) becomes a Sink
// through SinkFunc. (The CLI's terminal display is a Sink of its own, kept
// beside the CLI: this package is the vocabulary, not a front end.)
package events
