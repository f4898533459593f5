package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/journal"
)

// A durable run keeps a journal of every call it pays for (the root's
// durable.go says what that gives): Open wires a run's journal and its
// emitter, resumed after the events its earlier attempts stored.

// JournalStore keeps runs' journals: entries appended durably, in order,
// and read back whole (the root's JournalStore, whose documentation is
// the contract).
type JournalStore interface {
	AppendJournal(ctx context.Context, run string, entry []byte) error
	Journal(ctx context.Context, run string) ([][]byte, error)
}

// journalQueue is a JournalStore that orders an entry without waiting for
// its commit (the SQLite store does): QueueJournal returns once entry is
// queued ahead of everything appended to the store after it returns, to
// be committed before it or with it, and tells done the outcome.
type journalQueue interface {
	QueueJournal(ctx context.Context, run string, entry []byte, done func(error)) error
}

// JournalLog is st as a journal's log (journal.Log, journal.DurableLog);
// failed, when not nil, is told of an entry a store that queues could
// not commit.
func JournalLog(st JournalStore, failed func(error)) journal.DurableLog {
	return journalLog{st: st, failed: failed}
}

// journalLog adapts a JournalStore to the journal package's Log. With a
// store that queues (journalQueue), a call's answer is used as soon as its
// entry is queued: the events that follow from it are queued after it, so
// none is stored without it, and the run does not wait for a commit.
type journalLog struct {
	st     JournalStore
	failed func(error) // told of an entry that could not be committed
}

func (l journalLog) Append(ctx context.Context, run string, entry []byte) error {
	if q, ok := l.st.(journalQueue); ok {
		return q.QueueJournal(ctx, run, entry, func(err error) {
			if err != nil && l.failed != nil {
				l.failed(err)
			}
		})
	}
	return l.st.AppendJournal(ctx, run, entry)
}

// AppendDurable appends entry and waits for its commit (a person's
// answer: journal.DurableLog).
func (l journalLog) AppendDurable(ctx context.Context, run string, entry []byte) error {
	return l.st.AppendJournal(ctx, run, entry)
}

func (l journalLog) Entries(ctx context.Context, run string) ([][]byte, error) {
	return l.st.Journal(ctx, run)
}

// Durability says how a run is kept (Open).
type Durability struct {
	// Journal keeps the run's journal, under its run ID (which must then
	// be set). Nil keeps none.
	Journal JournalStore
	// Prior holds every event the run's earlier attempts stored, in Seq
	// order; empty for a run's first attempt. The run's events go on
	// after them.
	Prior []events.Event
	// Attempt numbers this attempt of the run, from 1; 0 means 2 when
	// Prior is not empty.
	Attempt int

	// Replay is a replay's journal, opened offline; set, it is the run's
	// journal and Journal is not used.
	Replay *journal.Journal
}

// Header is what a new journal's header keeps of its run — the program
// that wrote it and the run's manifest — and Check, what an existing
// journal's stored manifest is held to: its error (a journal recorded
// with other settings) fails Open.
type Header struct {
	Program  string
	Manifest func() any // called only for a journal opened new
	Check    func(stored json.RawMessage) error
}

// Open opens run's journal as d says and returns ctx carrying it, and
// the run's emitter (to sink; nil: none), resumed after d.Prior; log is
// the run's. A journal opened new is given h's header; one that has a
// header is held to it (h.Check).
func Open(ctx context.Context, run string, c clock.Clock, log zerolog.Logger, d Durability, h Header, sink func(events.Event)) (context.Context, *events.Emitter, error) {
	var sinks []events.Sink
	if sink != nil {
		sinks = append(sinks, events.SinkFunc(sink))
	}
	em := events.NewEmitter(run, c, sinks...)
	if len(d.Prior) > 0 {
		attempt := d.Attempt
		if attempt == 0 {
			attempt = 2
		}
		prior := d.Prior
		if prior[0].RunID != run {
			return nil, nil, fmt.Errorf("the prior events are of run %s, not %s", prior[0].RunID, run)
		}
		if err := em.Resume(prior, attempt, func(agent int, committed, got events.Type) {
			log.Warn().Int("agent", agent).Str("stored", string(committed)).Str("now", string(got)).
				Msg("the resumed run departs from the events its earlier attempt stored; the agent's events go on from here")
		}); err != nil {
			return nil, nil, err
		}
	}
	if d.Replay != nil {
		return journal.NewContext(ctx, d.Replay), em, nil
	}
	if d.Journal == nil {
		return ctx, em, nil
	}
	failed := func(err error) {
		log.Error().Err(err).Msg("a completed call could not be journaled; resuming the run would make it again")
	}
	jl := journalLog{st: d.Journal, failed: failed}
	// The journal is the run's bookkeeping: opened, and its header
	// written, even when the run is canceled as it starts (the run then
	// ends canceled, and says so in its events).
	bg := context.WithoutCancel(ctx)
	j, err := journal.Open(bg, jl, run, journal.Options{
		Log: jl, Clock: c.Now, Hooks: journal.Hooks{AppendFailed: failed},
	})
	if err != nil {
		return nil, nil, err
	}
	var stored json.RawMessage
	switch ok, err := j.Manifest(&stored); {
	case err != nil:
		return nil, nil, err
	case ok:
		if err := h.Check(stored); err != nil {
			return nil, nil, err
		}
	default:
		b, err := json.Marshal(h.Manifest())
		if err != nil {
			return nil, nil, err
		}
		if err := j.WriteHeader(bg, journal.Header{Program: h.Program, Manifest: b}); err != nil {
			return nil, nil, err
		}
	}
	if n := j.Len(); n > 0 {
		log.Info().Int("journaled", n).Int("events", len(d.Prior)).Msg("resuming from the journal")
	}
	return journal.NewContext(ctx, j), em, nil
}
