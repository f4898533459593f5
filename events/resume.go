package events

import (
	"fmt"
)

// Events of a resumed run.
const (
	// RunResumed says the run's process stopped (it was killed, or its
	// server shut down) and the run goes on in a new attempt
	// (RunResumedData). The events before it stand; none is repeated.
	RunResumed Type = "run.resumed"
	// StreamReset replaces the text an agent's report (or, with Agent -1,
	// the final report) has streamed so far (StreamResetData): a resumed
	// run wrote it again, and not as the earlier attempt had begun to.
	StreamReset Type = "stream.reset"
)

// RunResumedData is the payload of RunResumed.
type RunResumedData struct {
	// Attempt counts the run's attempts: 2 for the first resumption.
	Attempt int `json:"attempt"`
	// After is the sequence number of the last event of the earlier
	// attempts.
	After uint64 `json:"after"`
}

// StreamResetData is the payload of StreamReset.
type StreamResetData struct {
	// Text is the whole text streamed so far; the deltas that follow
	// continue it.
	Text string `json:"text"`
}

func (RunResumedData) EventType() Type  { return RunResumed }
func (StreamResetData) EventType() Type { return StreamReset }

func init() {
	// Kept beside the types they decode, so that this file holds all of
	// resuming.
	decoders[RunResumed] = decode[RunResumedData]
	decoders[StreamReset] = decode[StreamResetData]
}

// A resumed run runs its pipeline again from the start, so its emitter is
// asked again for every event the earlier attempts emitted, though not in
// the same global order: agents run in parallel, and their events
// interleave differently in each attempt. Within one agent (and at run
// level, Agent -1) they come in a deterministic order, given the same
// answers to the run's calls. So an event's identity is its agent and its
// place in that agent's own sequence:
//
//   - a streamed text event (agent.delta, report.delta) is identified by
//     the span of the agent's streamed text it covers, so that the same
//     text in other chunks is still recognised;
//   - any other event by its ordinal among the agent's other events.
//
// RunResumed, StreamReset and WorkersMissing events belong to no
// attempt's pipeline and are not counted.

// resumer recognises the events the earlier attempts of a run committed.
type resumer struct {
	streams map[int]*Retrace
	// diverged, if set, is told of an event that differs from the one the
	// earlier attempt committed in its place.
	diverged func(agent int, committed, got Type)
}

// Retrace passes the events of one agent (or of the run level) from
// successive attempts, so that each is delivered once: an attempt that
// starts again (Restart) retraces what the earlier ones delivered, by the
// identity rules above, and only what goes past it, or departs from it,
// is delivered. A runner whose attempts at an agent stream live (a worker
// that is lost mid-task, then another that runs it again) relays them
// through one. The zero Retrace has delivered nothing; it is not safe for
// concurrent use.
type Retrace struct {
	others []Type // the delivered events other than text, in order
	text   []byte // the delivered streamed text

	n        int  // other events of this attempt so far
	off      int  // bytes of text of this attempt so far
	otherNew bool // past the delivered other events: every one is new
	textNew  bool // past the delivered text: every delta is new
}

// Restart begins another attempt, which retraces the delivered events
// from their start.
func (s *Retrace) Restart() {
	s.n, s.off, s.otherNew, s.textNew = 0, 0, false, false
}

// textOf returns the text of a streamed text payload.
func textOf(p Payload) (string, bool) {
	switch d := p.(type) {
	case DeltaData:
		return d.Text, true
	case ReportDeltaData:
		return d.Text, true
	}
	return "", false
}

func withText(p Payload, text string) Payload {
	switch p.(type) {
	case DeltaData:
		return DeltaData{Text: text}
	case ReportDeltaData:
		return ReportDeltaData{Text: text}
	}
	return p
}

func newResumer(prior []Event) (*resumer, error) {
	r := &resumer{streams: map[int]*Retrace{}}
	for i, e := range prior {
		if e.Seq != uint64(i+1) {
			return nil, fmt.Errorf("events: resume: event %d of the earlier attempts has seq %d; the log must be 1, 2, 3… without gaps", i+1, e.Seq)
		}
		s := r.of(e.Agent)
		switch d := e.Data.(type) {
		case RunResumedData, WorkersMissingData:
		case StreamResetData:
			s.text = append(s.text[:0], d.Text...)
		default:
			if t, ok := textOf(e.Data); ok {
				s.text = append(s.text, t...)
				continue
			}
			s.others = append(s.others, e.Type)
		}
	}
	return r, nil
}

func (r *resumer) of(agent int) *Retrace {
	s, ok := r.streams[agent]
	if !ok {
		s = &Retrace{}
		r.streams[agent] = s
	}
	return s
}

func (r *resumer) pass(agent int, p Payload) []Payload {
	var diverged func(committed, got Type)
	if r.diverged != nil {
		diverged = func(committed, got Type) { r.diverged(agent, committed, got) }
	}
	return r.of(agent).pass(p, diverged)
}

// Pass returns what to deliver for p, the next payload of this attempt:
// nothing (an earlier attempt delivered it), p, the part of a delta that
// goes past the delivered text, or a StreamReset (then p, for an event
// that is new) where this attempt departs from the delivered text. An
// event that departs from another delivered event (an agent that failed
// before and goes on now) is delivered, and so is every one after it.
func (s *Retrace) Pass(p Payload) []Payload { return s.pass(p, nil) }

func (s *Retrace) pass(p Payload, diverged func(committed, got Type)) []Payload {
	switch d := p.(type) {
	case RunResumedData, WorkersMissingData:
		return []Payload{p}
	case StreamResetData:
		// A reset from upstream (a runner's relay) replaces the text.
		s.text, s.off, s.textNew = append(s.text[:0], d.Text...), len(d.Text), true
		return []Payload{p}
	}
	if text, ok := textOf(p); ok {
		if text == "" {
			if s.textNew {
				return []Payload{p}
			}
			return nil
		}
		off := s.off
		s.off += len(text)
		switch {
		case s.textNew || off == len(s.text):
			s.textNew = true
			s.text = append(s.text, text...)
			return []Payload{p}
		case off+len(text) <= len(s.text):
			if string(s.text[off:off+len(text)]) == text {
				return nil // delivered before
			}
		default:
			if k := len(s.text) - off; text[:k] == string(s.text[off:]) {
				s.textNew = true
				s.text = append(s.text, text[k:]...)
				return []Payload{withText(p, text[k:])}
			}
		}
		s.textNew = true
		s.text = append(s.text[:off], text...)
		return []Payload{StreamResetData{Text: string(s.text)}}
	}
	out := s.End()
	i := s.n
	s.n++
	if !s.otherNew && i < len(s.others) {
		if s.others[i] == p.EventType() {
			return out // delivered before
		}
		if diverged != nil {
			diverged(s.others[i], p.EventType())
		}
	}
	s.otherNew = true
	s.others = append(s.others[:i], p.EventType())
	return append(out, p)
}

// End returns the StreamReset to deliver when this attempt's text stops
// short of the delivered text, and no event of it is still to come that
// retraces the rest: an attempt that streamed less than an earlier one
// had. Pass calls it before an event that is new; a relay calls it when
// an attempt has given its last event.
func (s *Retrace) End() []Payload {
	if s.textNew || s.off >= len(s.text) || !s.otherNew && s.n < len(s.others) {
		return nil
	}
	s.textNew = true
	s.text = s.text[:s.off]
	return []Payload{StreamResetData{Text: string(s.text)}}
}

// Resume makes e the emitter of a run that goes on after prior, the events
// its earlier attempts committed (all of them, in Seq order: 1, 2, 3…).
// Sequence numbers continue after the last of them, and the first event e
// delivers is a RunResumed saying so (attempt is the new attempt's
// number, from 2). From then on Emit recognises each event the earlier
// attempts committed (see the identity rules above) and drops it, so the
// log holds every event once; where the new attempt departs from the
// committed text of a stream, a StreamReset is emitted with the new text
// so far; where it departs from another committed event (an agent that
// failed before and goes on now), diverged (if not nil) is told, and the
// agent's events from there on are all emitted. Resume must be called
// before any other Emit.
func (e *Emitter) Resume(prior []Event, attempt int, diverged func(agent int, committed, got Type)) error {
	if e == nil {
		return nil
	}
	r, err := newResumer(prior)
	if err != nil {
		return err
	}
	r.diverged = diverged
	e.mu.Lock()
	if e.seq != 0 {
		e.mu.Unlock()
		return fmt.Errorf("events: resume: the emitter has already emitted %d events", e.seq)
	}
	e.seq = uint64(len(prior))
	e.resume = r
	e.mu.Unlock()
	e.Emit(-1, "", RunResumedData{Attempt: attempt, After: uint64(len(prior))})
	return nil
}
