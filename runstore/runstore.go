// Package runstore is what a run store keeps: the runs with their status
// and usage (Run, Status), each run's event log (Event), the sources its
// report cites with the text that was read (Source), its reports'
// re-checks (Recheck), what started a run (OriginServer, OriginCLI) and
// the errors a store reports (ErrNotFound, ErrExists, ErrSeq,
// ErrFinished). deepresearch.Store keeps them; sqlitestore in an SQLite
// file, natsrun in the cluster's buckets, deepresearchtest in memory.
package runstore

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/deepresearch/deepresearch/internal/usage"
)

// Status is where a run stands.
type Status string

// Run statuses. Queued, Running, NeedsInput and AwaitingPlan are live;
// the others are final.
const (
	Queued      Status = "queued"
	Running     Status = "running"
	Finished    Status = "finished"
	Failed      Status = "failed"
	Canceled    Status = "canceled"
	Interrupted Status = "interrupted" // its process stopped while it ran
	// NeedsInput and AwaitingPlan are live: the run waits for a person,
	// for answers to its clarifying questions or for its plan's review.
	NeedsInput   Status = "needs_input"
	AwaitingPlan Status = "awaiting_plan"
)

// Waiting reports whether s is a status of a run waiting for a person.
func (s Status) Waiting() bool { return s == NeedsInput || s == AwaitingPlan }

// Ended reports whether s is a final status.
func (s Status) Ended() bool {
	switch s {
	case Finished, Failed, Canceled, Interrupted:
		return true
	}
	return false
}

// Run is a stored run.
type Run struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Options are the run's request as JSON (the JSON form of
	// deepresearch.Request).
	Options  json.RawMessage `json:"options,omitempty"`
	Status   Status          `json:"status"`
	Error    string          `json:"error,omitempty"`
	Created  time.Time       `json:"created"`
	Finished time.Time       `json:"finished,omitzero"`
	Usage    usage.Usage     `json:"usage"`
	// Events is the sequence number of the run's last stored event.
	Events uint64 `json:"events"`
	// Origin says what started the run (OriginServer, OriginCLI; "" for
	// a run stored before origins were kept): a server resumes its own.
	Origin string `json:"origin,omitempty"`
	// Attempts counts the run's attempts: 1, plus one per resumption.
	Attempts int `json:"attempts,omitempty"`
	// Parent is the run a follow-up question was asked of ("" for a run
	// of its own): a follow-up is a run whose report answers the question
	// from its parent's sources first (deepresearch's Runs.Ask).
	Parent string `json:"parent,omitempty"`
	// NoWorkerSince, set by a store shared by a cluster (natsrun.Store),
	// is since when one of the run's agent tasks has waited with no
	// worker alive to take it (nats.no_worker_after); zero when none
	// does.
	NoWorkerSince time.Time `json:"no_worker_since,omitzero"`
}

// What started a run (Run.Origin).
const (
	OriginServer = "server"
	OriginCLI    = "cli"
)

// Event is one stored event: JSON is json.Marshal of the event, exactly
// the line `deepresearch run --events` writes.
type Event struct {
	RunID string
	Seq   uint64
	Type  string
	JSON  json.RawMessage
}

// Source is a document a run read, kept so that a citation can be checked
// against the text that was cited without fetching it again.
type Source struct {
	RunID   string    `json:"run_id"`
	ID      string    `json:"id"`
	URL     string    `json:"url"`
	Title   string    `json:"title"`
	Channel string    `json:"channel,omitempty"`
	Text    string    `json:"text"`
	SHA256  string    `json:"sha256"` // hex of Text's SHA-256; the store fills it in
	Fetched time.Time `json:"fetched"`
}

// Errors a store reports; match them with errors.Is.
var (
	// ErrNotFound reports a run the store does not hold, or one without
	// the report asked for.
	ErrNotFound = errors.New("store: run not found")
	// ErrExists reports a run ID that is already taken.
	ErrExists = errors.New("store: run already exists")
	// ErrSeq reports an event whose sequence number is not the next one
	// of its run: the log is append-only and without gaps.
	ErrSeq = errors.New("store: event out of sequence")
	// ErrFinished reports a write to a run that has already ended.
	ErrFinished = errors.New("store: run has ended")
)

// Recheck is the last re-check of an ended run's report against today's
// web (recheck.Result, Runs.RecheckEvery): when it was
// made, whether the report still held, and the whole result as JSON.
type Recheck struct {
	RunID   string    `json:"run_id"`
	Checked time.Time `json:"checked_at"`
	Holds   bool      `json:"holds"`
	// Result is the JSON form of recheck.Result.
	Result json.RawMessage `json:"result"`
}
