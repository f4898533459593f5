package events

import (
	"io"
	"sync"
)

// JSONLines is a Sink that writes each event as one line of JSON (the wire
// format of Event.MarshalJSON) followed by a newline, in a single Write
// call. It is safe for concurrent use.
//
// The first error, from encoding an event or from writing, is kept and
// returned by Err; from then on JSONLines writes nothing, so the output is
// never a stream with holes in it.
type JSONLines struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewJSONLines returns a JSONLines sink writing to w.
func NewJSONLines(w io.Writer) *JSONLines {
	return &JSONLines{w: w}
}

// Event writes e as one line.
func (j *JSONLines) Event(e Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	b, err := e.MarshalJSON()
	if err != nil {
		j.err = err
		return
	}
	if _, err := j.w.Write(append(b, '\n')); err != nil {
		j.err = err
	}
}

// Err returns the first encoding or write error, or nil.
func (j *JSONLines) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}
