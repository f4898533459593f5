package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// wireEvent is the JSON shape of an Event.
type wireEvent struct {
	RunID   string          `json:"run_id"`
	Seq     uint64          `json:"seq"`
	Time    time.Time       `json:"time"`
	Type    Type            `json:"type"`
	Agent   int             `json:"agent"`
	Section string          `json:"section"`
	Cycle   int             `json:"cycle,omitempty"`
	Data    json.RawMessage `json:"data"`
}

// decoders maps every known Type to the decoder of its payload struct.
var decoders = map[Type]func([]byte) (Payload, error){
	RunStarted:             decode[RunStartedData],
	PlanReady:              decode[PlanData],
	ClarificationRequested: decode[ClarificationData],
	ClarificationAnswered:  decode[ClarificationAnsweredData],
	PlanReviewRequested:    decode[PlanReviewData],
	PlanAccepted:           decode[PlanAcceptedData],
	CycleStarted:           decode[CycleStartedData],
	Assessed:               decode[AssessedData],
	AgentStarted:           decode[AgentStartedData],
	SearchIssued:           decode[SearchData],
	SourceFound:            decode[SourceData],
	AgentDelta:             decode[DeltaData],
	AgentCited:             decode[CitedData],
	AgentFinished:          decode[AgentFinishedData],
	AgentFailed:            decode[AgentFailedData],
	SourcesMerged:          decode[MergedData],
	SourcesFiltered:        decode[FilteredData],
	ReportVerified:         decode[VerifiedData],
	ReportDelta:            decode[ReportDeltaData],
	Citation:               decode[CitationData],
	ReportFinished:         decode[ReportFinishedData],
	RunFinished:            decode[RunFinishedData],
	Error:                  decode[ErrorData],
}

func decode[P Payload](data []byte) (Payload, error) {
	var p P
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	return p, nil
}

// MarshalJSON encodes e in the wire format described in the package
// documentation, with "time" in RFC 3339 with nanoseconds. A nil Data
// encodes as "data":null. Type may be left empty when Data is set; it is
// an error for it to differ from Data.EventType().
func (e Event) MarshalJSON() ([]byte, error) {
	t := e.Type
	data := []byte("null")
	if e.Data != nil {
		if t == "" {
			t = e.Data.EventType()
		} else if t != e.Data.EventType() {
			return nil, fmt.Errorf("events: event of type %q carries a %T payload", t, e.Data)
		}
		var err error
		if raw, ok := e.Data.(RawData); ok {
			data = raw.JSON
		} else if data, err = marshalNoEscape(e.Data); err != nil {
			return nil, fmt.Errorf("events: encoding %s payload: %w", t, err)
		}
	}
	if t == "" {
		return nil, errors.New("events: event has no type")
	}
	return marshalNoEscape(wireEvent{
		RunID:   e.RunID,
		Seq:     e.Seq,
		Time:    e.Time,
		Type:    t,
		Agent:   e.Agent,
		Section: e.Section,
		Cycle:   e.Cycle,
		Data:    data,
	})
}

// marshalNoEscape is json.Marshal without escaping <, > and &: report text
// and HTML citations stay readable on the wire.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON decodes the wire format. The payload struct is chosen by
// "type"; for a type this version does not know, Data is a RawData holding
// the "data" member as received. Unknown members are ignored. It is an
// error for "type" to be missing or for "data" not to fit the type's
// payload struct.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wireEvent
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("events: %w", err)
	}
	if w.Type == "" {
		return errors.New("events: event has no type")
	}
	if len(w.Data) == 0 {
		w.Data = json.RawMessage("null")
	}
	var p Payload
	if dec, ok := decoders[w.Type]; ok {
		var err error
		if p, err = dec(w.Data); err != nil {
			return fmt.Errorf("events: decoding %s payload: %w", w.Type, err)
		}
	} else {
		p = RawData{Type: w.Type, JSON: w.Data}
	}
	*e = Event{
		RunID:   w.RunID,
		Seq:     w.Seq,
		Time:    w.Time,
		Type:    w.Type,
		Agent:   w.Agent,
		Section: w.Section,
		Cycle:   w.Cycle,
		Data:    p,
	}
	return nil
}
