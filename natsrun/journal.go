package natsrun

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/clock"
)

// Journal keeps runs' journals in the journal stream, one subject a run,
// so that every worker reads the calls any attempt completed. It is a
// deepresearch.JournalStore: give it as RunOptions.Journal to the agent's
// run, and a redelivered task answers the calls the failed attempt
// completed from it instead of paying for them again.
type Journal struct {
	js    jetstream.JetStream
	names Names
	clock clock.Clock
}

// newJournal returns the journal store of the streams Setup made for c.
func newJournal(js jetstream.JetStream, c Config) *Journal {
	return &Journal{js: js, names: NamesOf(c), clock: c.clock()}
}

// AppendJournal adds entry to run's journal; it returns once the stream
// has stored it (on a majority of its replicas).
func (j *Journal) AppendJournal(ctx context.Context, run string, entry []byte) error {
	if err := checkRun(run); err != nil {
		return err
	}
	if _, err := j.js.Publish(ctx, j.names.Journal(run), entry); err != nil {
		return fmt.Errorf("natsrun: journal of %s: %w", run, err)
	}
	return nil
}

// Journal returns run's entries in the order they were appended.
func (j *Journal) Journal(ctx context.Context, run string) ([][]byte, error) {
	if err := checkRun(run); err != nil {
		return nil, err
	}
	msgs, err := readAll(ctx, j.clock, j.js, j.names.JournalStream, j.names.Journal(run))
	if err != nil {
		return nil, fmt.Errorf("natsrun: journal of %s: %w", run, err)
	}
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = m.Data
	}
	return out, nil
}
