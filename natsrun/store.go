package natsrun

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/runstore"
)

// Store is a deepresearch.Store kept in JetStream, so that every server
// process connected to the cluster reads, follows and takes over every
// run, with no process holding a run's record alone:
//
//   - each run's record (question, request, status, usage, attempts,
//     owner) is a key of the runs bucket, a KV bucket (Names.RunsBucket:
//     run.<id>); every change of status is a compare-and-set on the key's
//     revision, so of two processes that reopen an interrupted run one
//     fails;
//   - its events are the run's subject of the events stream, as EventLog
//     publishes them (headers Deepresearch-Seq and -Attempt, message id
//     run/seq, so an event published again is a duplicate the stream
//     drops), each event's data exactly json.Marshal of it;
//   - its report and the text of the sources it cites are blobs of the
//     reports bucket, a KV bucket (Names.ReportsBucket: <id>.report,
//     <id>.source.<hash of the source's ID>; see putBlob);
//   - its journal is the run's subject of the journal stream, the one
//     workers append to (Journal), so the run's journal and the workers'
//     are one.
//
// # Ownership
//
// A live run is owned by the Store that created or reopened it, which
// holds its lease: a key of the runs bucket (lease.<id>) naming the owner
// and when the lease expires, on the Store's clock, renewed every
// StoreOptions.Renew by a compare-and-set on its revision. Only the owner
// appends to a run, and only while its lease holds by its own clock: a
// Store whose renewal finds the lease taken, or that could not renew it
// before it expired, stops writing to the run (ErrLeaseLost) and tells
// StoreOptions.OnLost, which should stop the run. Every Store sweeps the
// live runs every Renew: a run whose lease has expired (its owner died, or
// lost the cluster) is marked interrupted — the lease's deletion and the
// record's change both compare-and-set, so an owner that renews meanwhile
// keeps it — and a process's deepresearch.Runs (Resume, KeepResuming)
// takes it up again from its journal, its events going on after the last
// one stored. Leases are timed on the Stores' clocks, which should agree
// within a small part of the lease's TTL across machines.
//
// Store owns one goroutine, the renewal and the sweep; Close stops it. Its
// methods are safe for concurrent use.
type Store struct {
	js      jetstream.JetStream
	kv      jetstream.KeyValue
	blobs   jetstream.KeyValue // reports and sources
	journal *Journal
	names   Names
	clock   clock.Clock
	opts    StoreOptions
	owner   string

	mu     sync.Mutex
	held   map[string]*heldRun // the live runs this Store owns
	onLost func(run string)

	stop     chan struct{}
	done     chan struct{}
	stopBeat context.CancelFunc
	beatDone chan struct{}
	once     sync.Once
}

// StoreOptions configure a Store; zero fields take the defaults.
type StoreOptions struct {
	// LeaseTTL is how long a run's lease holds without a renewal (default
	// 30s): how long a run whose owner died waits before another process
	// takes it over.
	LeaseTTL time.Duration
	// Renew is how often the Store renews its leases and sweeps the runs
	// whose lease expired (default LeaseTTL/3).
	Renew time.Duration
	// Owner names this Store in the leases it holds (default: a random
	// name); the name of a server process, say.
	Owner string
	// ReadOnly opens a Store that only reads (a command exporting a run,
	// say): it owns no goroutine (no renewal, no sweep, no heartbeat: the
	// cluster does not count it among its servers) and refuses Create
	// and Reopen, so it never owns a run.
	ReadOnly bool
}

// errReadOnly refuses a write to a ReadOnly Store.
var errReadOnly = fmt.Errorf("%w: the store was opened read-only", ErrConfig)

// Errors of a Store, beside the run store's own (runstore.ErrNotFound
// and the rest); match them with errors.Is.
var (
	// ErrLeaseLost reports a write to a run whose lease this Store no
	// longer holds: it expired before it was renewed, or another process
	// took the run over.
	ErrLeaseLost = errors.New("natsrun: the run's lease is lost")
	// ErrNotOwner reports a write to a live run that another process owns.
	ErrNotOwner = errors.New("natsrun: the run is owned by another process")
)

// StoreError is a Store's failure: the operation, the run, and why.
type StoreError struct {
	Op, Run string
	Err     error
}

func (e *StoreError) Error() string {
	if e.Run == "" {
		return "natsrun: store: " + e.Op + ": " + e.Err.Error()
	}
	return "natsrun: store: " + e.Op + " " + e.Run + ": " + e.Err.Error()
}

func (e *StoreError) Unwrap() error { return e.Err }

func storeErr(op, run string, err error) error {
	if err == nil {
		return nil
	}
	return &StoreError{Op: op, Run: run, Err: err}
}

// heldRun is a live run this Store owns: its lease and its log's end.
type heldRun struct {
	mu       sync.Mutex // orders the run's appends
	last     uint64     // the sequence number of its last stored event
	attempt  int
	rev      uint64    // the lease key's revision
	expires  time.Time // the lease's expiry, on the Store's clock
	lost     bool
	released bool // the run ended: its lease is given back
}

// record is a run's record in the runs bucket.
type record struct {
	runstore.Run
	// Owner is the Store that created or last reopened the run.
	Owner string `json:"owner,omitempty"`
}

// leaseRec is a run's lease in the runs bucket.
type leaseRec struct {
	Owner   string    `json:"owner"`
	Expires time.Time `json:"expires"`
}

// HeaderType is the header of an event's type in the events stream.
const HeaderType = "Deepresearch-Type"

// validID matches the run IDs a Store keeps: KV keys and subject tokens.
var validID = regexp.MustCompile(`^[-_=A-Za-z0-9]{1,128}$`)

func checkID(op, id string) error {
	if !validID.MatchString(id) {
		return storeErr(op, id, fmt.Errorf("%w: a run ID is 1 to 128 letters, digits, -, _ or =", ErrConfig))
	}
	return nil
}

// openStore sets up the streams (setup), the runs bucket and the reports
// bucket of c on js, and returns a Store over them with its renewal
// started (Cluster.OpenStore).
func openStore(ctx context.Context, js jetstream.JetStream, c Config, o StoreOptions) (*Store, error) {
	c, err := c.settle()
	if err != nil {
		return nil, err
	}
	n, err := setup(ctx, js, c)
	if err != nil {
		return nil, err
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 30 * time.Second
	}
	if o.Renew <= 0 {
		o.Renew = o.LeaseTTL / 3
	}
	if o.Owner == "" {
		o.Owner = "store-" + rand.Text()[:12]
	}
	kv, err := leaderBucket(ctx, js, jetstream.KeyValueConfig{Bucket: n.RunsBucket,
		Description: "deepresearch runs: records, leases, sources", History: 1, Storage: jetstream.FileStorage, Replicas: c.Replicas})
	if err != nil {
		return nil, storeErr("open", "", fmt.Errorf("bucket %s: %w", n.RunsBucket, err))
	}
	blobs, err := leaderBucket(ctx, js, jetstream.KeyValueConfig{Bucket: n.ReportsBucket,
		Description: "deepresearch reports and cited sources", History: 1, Storage: jetstream.FileStorage, Replicas: c.Replicas})
	if err != nil {
		return nil, storeErr("open", "", fmt.Errorf("bucket %s: %w", n.ReportsBucket, err))
	}
	s := &Store{js: js, kv: kv, blobs: blobs, journal: newJournal(js, c), names: n, clock: c.clock(), opts: o,
		owner: o.Owner, held: map[string]*heldRun{}, stop: make(chan struct{}), done: make(chan struct{})}
	if o.ReadOnly {
		close(s.done)
		s.stopBeat, s.beatDone = func() {}, s.done
		return s, nil
	}
	go s.renewLoop()
	// The server says it is alive, with the runs it owns (Survey).
	bctx, stopBeat := context.WithCancel(context.WithoutCancel(ctx))
	s.stopBeat, s.beatDone = stopBeat, make(chan struct{})
	if pkv, err := presence(ctx, js, c); err == nil {
		go func() {
			defer close(s.beatDone)
			heartbeat(bctx, s.clock, pkv, o.Renew, func() Member { return Member{Kind: "server", Name: s.owner, Runs: s.owned()} })
		}()
	} else {
		close(s.beatDone)
	}
	return s, nil
}

// leaderBucket creates or updates the bucket of cfg and returns it with
// reads served by its stream's leader, not by any replica: a KV bucket
// answers Get with a "direct get" that a replica behind the leader may
// serve (nats-server#6557), and a run's record or lease read just after
// another server wrote it must be the one written — a review refused as
// "running, not awaiting_plan" by a server that had itself reported the
// run awaiting its plan was such a read, on a three-node cluster.
func leaderBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	if _, err := js.CreateOrUpdateKeyValue(ctx, cfg); err != nil {
		return nil, err
	}
	st, err := js.Stream(ctx, "KV_"+cfg.Bucket)
	if err != nil {
		return nil, err
	}
	if sc := st.CachedInfo().Config; sc.AllowDirect {
		sc.AllowDirect = false
		if _, err := js.UpdateStream(ctx, sc); err != nil {
			return nil, fmt.Errorf("reading from the leader: %w", err)
		}
	}
	return js.KeyValue(ctx, cfg.Bucket) // a handle that reads as the stream now says
}

// OnLost sets fn to be told of each run whose lease this Store loses
// (another process took the run over): it should stop the run, whose
// writes the Store refuses from then on (StopLost gives one that does).
// fn is called on the Store's goroutine and must not block.
func (s *Store) OnLost(fn func(run string)) {
	s.mu.Lock()
	s.onLost = fn
	s.mu.Unlock()
}

// StopLost returns a function for Store.OnLost that stops a run of rs
// whose lease was lost, without waiting for it to stop: canceled, with
// ErrLeaseLost as the cause; the Store keeps none of its stopping. Its
// context is done before it asks, so a run no longer in progress in rs
// (the process that took it over has it) is not canceled there.
func StopLost(rs *deepresearch.Runs) func(run string) {
	return func(run string) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // Cancel returns at once
		_ = rs.Cancel(ctx, run, ErrLeaseLost)
	}
}

// Owner is the name this Store holds leases under.
func (s *Store) Owner() string { return s.owner }

func runKey(id string) string   { return "run." + id }
func leaseKey(id string) string { return "lease." + id }

// sourceHash names a source of a run by its ID.
func sourceHash(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:16])
}

// get reads run id's record and its revision.
func (s *Store) get(ctx context.Context, op, id string) (record, uint64, error) {
	if err := checkID(op, id); err != nil {
		return record{}, 0, storeErr(op, id, runstore.ErrNotFound)
	}
	e, err := s.kv.Get(ctx, runKey(id))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return record{}, 0, storeErr(op, id, runstore.ErrNotFound)
	case err != nil:
		return record{}, 0, storeErr(op, id, err)
	}
	var r record
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return record{}, 0, storeErr(op, id, fmt.Errorf("its record is unreadable: %w", err))
	}
	return r, e.Revision(), nil
}

// errChanged: the record changed since it was read, so that what was
// decided on it no longer holds.
var errChanged = errors.New("changed meanwhile")

// change applies fn to run id's record and stores it if its revision has
// not moved meanwhile, reading it again and again while it has. fn
// refuses a change with an error.
func (s *Store) change(ctx context.Context, op, id string, fn func(r *record) error) (record, error) {
	for {
		r, rev, err := s.get(ctx, op, id)
		if err != nil {
			return r, err
		}
		if err := fn(&r); err != nil {
			return r, storeErr(op, id, err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			return r, storeErr(op, id, err)
		}
		_, err = s.kv.Update(ctx, runKey(id), b, rev)
		switch {
		case err == nil:
			return r, nil
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyRevisionMismatch):
			continue
		default:
			return r, storeErr(op, id, err)
		}
	}
}

// owns refuses a change to a live run this Store does not own.
func (s *Store) owns(r *record) error {
	if r.Owner != s.owner {
		return fmt.Errorf("%w (%s)", ErrNotOwner, r.Owner)
	}
	return nil
}

// live refuses a change to a run that has ended.
func live(r *record) error {
	if r.Status.Ended() {
		return fmt.Errorf("%w (%s)", runstore.ErrFinished, r.Status)
	}
	return nil
}

// Create stores a new run, queued, owned by this Store.
func (s *Store) Create(ctx context.Context, run runstore.Run) error {
	if err := checkID("create", run.ID); err != nil {
		return err
	}
	if s.opts.ReadOnly {
		return storeErr("create", run.ID, errReadOnly)
	}
	run.Status = runstore.Queued
	run.Created = s.clock.Now()
	run.Finished = time.Time{}
	run.Usage = events.Usage{}
	run.Events = 0
	run.Error = ""
	run.Attempts = 1
	b, err := json.Marshal(record{Run: run, Owner: s.owner})
	if err != nil {
		return storeErr("create", run.ID, err)
	}
	if _, err := s.kv.Create(ctx, runKey(run.ID), b); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return storeErr("create", run.ID, runstore.ErrExists)
		}
		return storeErr("create", run.ID, err)
	}
	return s.take(ctx, "create", run.ID, 0, 1)
}

// take acquires run id's lease for this Store: a run it has just created
// or reopened (last is its last event's number, attempt its attempt).
func (s *Store) take(ctx context.Context, op, id string, last uint64, attempt int) error {
	now := s.clock.Now()
	b, _ := json.Marshal(leaseRec{Owner: s.owner, Expires: now.Add(s.opts.LeaseTTL)})
	var rev uint64
	e, err := s.kv.Get(ctx, leaseKey(id))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		rev, err = s.kv.Create(ctx, leaseKey(id), b)
	case err != nil:
	default:
		var l leaseRec
		if json.Unmarshal(e.Value(), &l) == nil && l.Owner != s.owner && now.Before(l.Expires.Add(s.opts.Renew)) {
			return storeErr(op, id, fmt.Errorf("%w: %s holds its lease", ErrNotOwner, l.Owner))
		}
		rev, err = s.kv.Update(ctx, leaseKey(id), b, e.Revision())
	}
	if err != nil {
		return storeErr(op, id, fmt.Errorf("taking its lease: %w", err))
	}
	s.mu.Lock()
	s.held[id] = &heldRun{last: last, attempt: attempt, rev: rev, expires: now.Add(s.opts.LeaseTTL)}
	s.mu.Unlock()
	return nil
}

// owned returns the IDs of the live runs this Store owns, sorted.
func (s *Store) owned() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.held))
	for id := range s.held {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// holding returns the run this Store owns, or nil.
func (s *Store) holding(id string) *heldRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[id]
}

// writable checks, for a write to run id, that this Store owns it and
// its lease holds; h is nil for a run it does not own, when the run's
// record says why.
func (s *Store) writable(ctx context.Context, op, id string) (*heldRun, error) {
	if h := s.holding(id); h != nil {
		if err := s.leaseHolds(h); err != nil {
			return nil, storeErr(op, id, err)
		}
		return h, nil
	}
	r, _, err := s.get(ctx, op, id)
	if err != nil {
		return nil, err
	}
	if err := live(&r); err != nil {
		return nil, storeErr(op, id, err)
	}
	return nil, storeErr(op, id, fmt.Errorf("%w (%s)", ErrNotOwner, r.Owner))
}

// leaseHolds says why h may not be written to, if it may not. The caller
// holds h.mu or reads a snapshot.
func (s *Store) leaseHolds(h *heldRun) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case h.released:
		return runstore.ErrFinished
	case h.lost:
		return ErrLeaseLost
	case !s.clock.Now().Before(h.expires):
		return fmt.Errorf("%w: it expired at %s before it was renewed", ErrLeaseLost, h.expires.Format(time.RFC3339Nano))
	}
	return nil
}

// Start marks a queued run running.
func (s *Store) Start(ctx context.Context, id string) error {
	_, err := s.change(ctx, "start", id, func(r *record) error {
		if err := live(r); err != nil {
			return err
		}
		if err := s.owns(r); err != nil {
			return err
		}
		if r.Status != runstore.Queued {
			return fmt.Errorf("it is %s, not queued", r.Status)
		}
		r.Status = runstore.Running
		return nil
	})
	return err
}

// SetStatus sets the status of a live run: running, or waiting for a
// person.
func (s *Store) SetStatus(ctx context.Context, id string, status runstore.Status) error {
	switch status {
	case runstore.Running, runstore.NeedsInput, runstore.AwaitingPlan:
	default:
		return storeErr("set status", id, fmt.Errorf("%s is not the status of a live run", status))
	}
	_, err := s.change(ctx, "set status", id, func(r *record) error {
		if err := live(r); err != nil {
			return err
		}
		if err := s.owns(r); err != nil {
			return err
		}
		r.Status = status
		return nil
	})
	return err
}

// SetNoWorker keeps in the record of run id, a live run this Store owns,
// since when one of its agent tasks has waited with no worker alive
// (Agents.OnNoWorker; zero: none waits so any more), so that its status
// says so on every server.
func (s *Store) SetNoWorker(ctx context.Context, id string, since time.Time) error {
	_, err := s.change(ctx, "set no worker", id, func(r *record) error {
		if err := live(r); err != nil {
			return err
		}
		if err := s.owns(r); err != nil {
			return err
		}
		if r.NoWorkerSince.Equal(since) {
			return errChanged // nothing to store
		}
		r.NoWorkerSince = since
		return nil
	})
	if errors.Is(err, errChanged) {
		return nil
	}
	return err
}

// Append publishes e to its run's subject of the events stream: the next
// number of a live run this Store owns.
func (s *Store) Append(ctx context.Context, e events.Event) error {
	id := e.RunID
	h, err := s.writable(ctx, "append", id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := s.leaseHolds(h); err != nil {
		return storeErr("append", id, err)
	}
	if e.Seq != h.last+1 {
		return storeErr("append", id, fmt.Errorf("%w: event %d after %d", runstore.ErrSeq, e.Seq, h.last))
	}
	data, err := json.Marshal(e)
	if err != nil {
		return storeErr("append", id, err)
	}
	m := nats.NewMsg(s.names.Events(id))
	m.Data = data
	m.Header.Set(HeaderSeq, strconv.FormatUint(e.Seq, 10))
	m.Header.Set(HeaderAttempt, strconv.Itoa(h.attempt))
	m.Header.Set(HeaderType, string(e.Type))
	ack, err := publishAck(ctx, s.clock, s.js, m, id+"/"+strconv.FormatUint(e.Seq, 10))
	if err != nil {
		return storeErr("append", id, fmt.Errorf("event %d: %w", e.Seq, err))
	}
	if ack.Duplicate {
		// Stored before: by an earlier try of this publication, or by
		// another process that numbered the same event.
		st, err := s.js.Stream(ctx, s.names.EventsStream)
		if err != nil {
			return storeErr("append", id, err)
		}
		had, err := st.GetMsg(ctx, ack.Sequence)
		if err != nil {
			return storeErr("append", id, err)
		}
		if !bytes.Equal(had.Data, data) {
			return storeErr("append", id, fmt.Errorf("%w: event %d was stored by another writer", runstore.ErrSeq, e.Seq))
		}
	}
	h.last = e.Seq
	// Followers read it once the stream has it: an announcement of the
	// publication itself could reach them first.
	_ = s.js.Conn().Publish(s.names.Stored(id), []byte(strconv.FormatUint(e.Seq, 10)))
	return nil
}

// PutReport stores (or replaces) a run's report.
func (s *Store) PutReport(ctx context.Context, id string, report json.RawMessage) error {
	if err := checkID("put report", id); err != nil {
		return err
	}
	if !json.Valid(report) {
		return storeErr("put report", id, errors.New("the report is not JSON"))
	}
	if err := putBlob(ctx, s.blobs, id+".report", report); err != nil {
		return storeErr("put report", id, err)
	}
	return nil
}

// PutSource stores (or replaces) a document a run's report cites, with
// the SHA-256 of its text and, when it has none, the time it is stored.
func (s *Store) PutSource(ctx context.Context, src runstore.Source) error {
	if err := checkID("put source", src.RunID); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(src.Text))
	src.SHA256 = hex.EncodeToString(sum[:])
	if src.Fetched.IsZero() {
		src.Fetched = s.clock.Now()
	}
	b, err := json.Marshal(src)
	if err != nil {
		return storeErr("put source", src.RunID, err)
	}
	if err := putBlob(ctx, s.blobs, src.RunID+".source."+sourceHash(src.ID), b); err != nil {
		return storeErr("put source", src.RunID, fmt.Errorf("%s: %w", src.ID, err))
	}
	return nil
}

// lastSeq returns the number of run id's last event in the events stream
// (0 when it has none).
func (s *Store) lastSeq(ctx context.Context, id string) (uint64, error) {
	r := reader{js: s.js, name: s.names.EventsStream, subject: s.names.Events(id), clock: s.clock}
	if err := r.open(ctx); err != nil {
		return 0, err
	}
	end, err := r.stream.GetLastMsgForSubject(ctx, s.names.Events(id))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	}
	m, seq, err := r.lastEvent(ctx, end)
	if err != nil || m == nil {
		return 0, err
	}
	return uint64(seq), nil
}

// Finish ends a live run with a final status.
func (s *Store) Finish(ctx context.Context, id string, status runstore.Status, u events.Usage, errMsg string) error {
	if !status.Ended() {
		return storeErr("finish", id, fmt.Errorf("%s is not a final status", status))
	}
	return s.end(ctx, "finish", id, func(r *record) error {
		if err := live(r); err != nil {
			return err
		}
		r.Status, r.Usage, r.Error = status, u, errMsg
		return nil
	})
}

// end ends run id as fn says, if this Store owns it (or no Store holds a
// lease on it), its last event's number kept in its record, and gives
// back its lease; followers are told.
func (s *Store) end(ctx context.Context, op, id string, fn func(r *record) error) error {
	h := s.holding(id)
	var last uint64
	if h != nil {
		h.mu.Lock()
		defer h.mu.Unlock()
		if err := s.leaseHolds(h); err != nil {
			return storeErr(op, id, err)
		}
		last = h.last
	} else {
		r, _, err := s.get(ctx, op, id)
		if err != nil {
			return err
		}
		if err := live(&r); err != nil {
			return storeErr(op, id, err)
		}
		if !r.Status.Ended() && r.Owner != s.owner {
			if err := s.leaseExpired(ctx, id); err != nil {
				return storeErr(op, id, err)
			}
		}
		if last, err = s.lastSeq(ctx, id); err != nil {
			return storeErr(op, id, err)
		}
	}
	_, err := s.change(ctx, op, id, func(r *record) error {
		if err := fn(r); err != nil {
			return err
		}
		if h != nil && (r.Owner != s.owner || r.Attempts != h.attempt) {
			return fmt.Errorf("%w: %s took it over (attempt %d)", ErrLeaseLost, r.Owner, r.Attempts)
		}
		r.Finished = s.clock.Now()
		r.Events = last
		r.NoWorkerSince = time.Time{} // an ended run waits for nothing
		return nil
	})
	if err != nil {
		return err
	}
	if h != nil {
		s.release(ctx, id, h)
	}
	s.announceEnd(id)
	return nil
}

// leaseExpired refuses (ErrNotOwner) when another Store's lease on run id
// still holds.
func (s *Store) leaseExpired(ctx context.Context, id string) error {
	e, err := s.kv.Get(ctx, leaseKey(id))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var l leaseRec
	if json.Unmarshal(e.Value(), &l) == nil && l.Owner != s.owner && s.clock.Now().Before(l.Expires.Add(s.opts.Renew)) {
		return fmt.Errorf("%w: %s holds its lease", ErrNotOwner, l.Owner)
	}
	return nil
}

// release forgets a run this Store owned, which has ended, and deletes
// its lease (if it is still this Store's).
func (s *Store) release(ctx context.Context, id string, h *heldRun) {
	s.mu.Lock()
	h.released = true
	rev := h.rev
	if s.held[id] == h {
		delete(s.held, id)
	}
	s.mu.Unlock()
	_ = s.kv.Delete(ctx, leaseKey(id), jetstream.LastRevision(rev))
}

// announceEnd tells the run's followers that its record changed (plain
// NATS; a follower that misses it finds out at its next poll).
func (s *Store) announceEnd(id string) {
	_ = s.js.Conn().Publish(s.names.Stored(id), nil)
}

// Get returns a run; a live run's Events is its log's last number.
func (s *Store) Get(ctx context.Context, id string) (runstore.Run, error) {
	r, _, err := s.get(ctx, "get", id)
	if err != nil {
		return runstore.Run{}, err
	}
	return s.complete(ctx, r)
}

// complete fills in the Events of a live run from its log.
func (s *Store) complete(ctx context.Context, r record) (runstore.Run, error) {
	if r.Status.Ended() {
		return r.Run, nil
	}
	if h := s.holding(r.ID); h != nil {
		h.mu.Lock()
		r.Events = h.last
		h.mu.Unlock()
		return r.Run, nil
	}
	last, err := s.lastSeq(ctx, r.ID)
	if err != nil {
		return runstore.Run{}, storeErr("get", r.ID, err)
	}
	r.Events = last
	return r.Run, nil
}

// all reads every run's record.
func (s *Store) all(ctx context.Context) (map[string]record, error) {
	recs := map[string]record{}
	for e, err := range entries(ctx, s.kv, "run.*") {
		if err != nil {
			return nil, storeErr("list", "", err)
		}
		var r record
		if json.Unmarshal(e.Value(), &r) == nil && r.ID != "" {
			recs[r.ID] = r
		}
	}
	return recs, nil
}

// List returns the newest runs first, at most limit of them. It reads
// every run's record: its cost grows with the runs the bucket holds.
func (s *Store) List(ctx context.Context, limit int) ([]runstore.Run, error) {
	recs, err := s.all(ctx)
	if err != nil {
		return nil, err
	}
	sorted := make([]record, 0, len(recs))
	for _, r := range recs {
		sorted = append(sorted, r)
	}
	slices.SortFunc(sorted, func(a, b record) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	if limit > 0 && len(sorted) > limit {
		sorted = sorted[:limit]
	}
	return s.completeAll(ctx, sorted)
}

// Events follows a run's log from after afterSeq: the stored events from
// the events stream, then each one as it is stored (the Store that
// stores it says so on Names.Stored, as it does the run's end, and a read
// every 250ms on the Store's clock catches what a follower missed),
// ending after the last event of a run that has ended.
func (s *Store) Events(ctx context.Context, id string, afterSeq uint64) iter.Seq2[runstore.Event, error] {
	return func(yield func(runstore.Event, error) bool) {
		if err := checkID("events", id); err != nil {
			yield(runstore.Event{}, storeErr("events", id, runstore.ErrNotFound))
			return
		}
		wake := make(chan struct{}, 1)  // an event stored
		ended := make(chan struct{}, 1) // the run's record changed to an end
		sub, err := s.js.Conn().Subscribe(s.names.Stored(id), func(m *nats.Msg) {
			c := wake
			if len(m.Data) == 0 {
				c = ended
			}
			select {
			case c <- struct{}{}:
			default:
			}
		})
		if err != nil {
			yield(runstore.Event{}, storeErr("events", id, err))
			return
		}
		defer sub.Unsubscribe() //nolint:errcheck // the connection may be closing
		// The end is looked for after subscribing: an end stored later
		// is announced to this follower.
		r, _, err := s.get(ctx, "events", id)
		if err != nil {
			yield(runstore.Event{}, err)
			return
		}
		rd := reader{js: s.js, name: s.names.EventsStream, subject: s.names.Events(id), clock: s.clock}
		last := afterSeq
		if afterSeq > 0 {
			if _, err := seek(ctx, &rd, int64(afterSeq)); err != nil {
				yield(runstore.Event{}, storeErr("events", id, err))
				return
			}
		}
		poll := clock.NewTicker(s.clock, pollEvery)
		defer poll.Stop()
		for {
			for !r.Status.Ended() || last < r.Events {
				m, err := rd.read(ctx)
				if err != nil {
					yield(runstore.Event{}, storeErr("events", id, err))
					return
				}
				if m == nil {
					break
				}
				seq, ok := seqOf(m.Header)
				if !ok || uint64(seq) <= last {
					continue // a notice, or a repeat
				}
				last = uint64(seq)
				typ := m.Header.Get(HeaderType)
				if typ == "" {
					typ = eventType(m.Data)
				}
				if !yield(runstore.Event{RunID: id, Seq: last, Type: typ, JSON: m.Data}, nil) {
					return
				}
			}
			if r.Status.Ended() && last >= r.Events {
				return
			}
			check := false
			select {
			case <-ctx.Done():
				yield(runstore.Event{}, context.Cause(ctx))
				return
			case <-wake:
			case <-ended:
				check = true
			case <-poll.C:
				check = true
			}
			if check && !r.Status.Ended() {
				if r, _, err = s.get(ctx, "events", id); err != nil {
					yield(runstore.Event{}, err)
					return
				}
			}
		}
	}
}

// eventType reads the type of an event's JSON.
func eventType(data []byte) string {
	var head struct {
		Type string `json:"type"`
	}
	json.Unmarshal(data, &head) //nolint:errcheck // an event without a type has none
	return head.Type
}

// Report returns a run's report.
func (s *Store) Report(ctx context.Context, id string) (json.RawMessage, error) {
	if checkID("report", id) != nil {
		return nil, storeErr("report", id, runstore.ErrNotFound)
	}
	b, err := getBlob(ctx, s.blobs, id+".report")
	switch {
	case errors.Is(err, runstore.ErrNotFound):
		return nil, storeErr("report", id, fmt.Errorf("%w: it has no report", runstore.ErrNotFound))
	case err != nil:
		return nil, storeErr("report", id, err)
	}
	return b, nil
}

// Sources returns the documents stored for a run's report, by ID.
func (s *Store) Sources(ctx context.Context, id string) ([]runstore.Source, error) {
	if checkID("sources", id) != nil {
		return nil, nil
	}
	keys, err := s.blobs.ListKeysFiltered(ctx, id+".source.*")
	if err != nil {
		return nil, storeErr("sources", id, err)
	}
	var names []string
	for k := range keys.Keys() {
		names = append(names, k)
	}
	var out []runstore.Source
	for _, k := range names {
		b, err := getBlob(ctx, s.blobs, k)
		if errors.Is(err, runstore.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, storeErr("sources", id, fmt.Errorf("%s: %w", k, err))
		}
		var src runstore.Source
		if err := json.Unmarshal(b, &src); err != nil {
			return nil, storeErr("sources", id, fmt.Errorf("%s: %w", k, err))
		}
		out = append(out, src)
	}
	slices.SortFunc(out, func(a, b runstore.Source) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// AppendJournal adds entry to run's journal in the journal stream: a live
// run this Store owns.
func (s *Store) AppendJournal(ctx context.Context, run string, entry []byte) error {
	if _, err := s.writable(ctx, "journal", run); err != nil {
		return err
	}
	return s.journal.AppendJournal(ctx, run, entry)
}

// Journal returns run's entries, its workers' among them, in order.
func (s *Store) Journal(ctx context.Context, run string) ([][]byte, error) {
	if checkID("journal", run) != nil {
		return nil, nil
	}
	return s.journal.Journal(ctx, run)
}

// Reopen takes up an interrupted run: running again, its attempt
// counted, owned by this Store — a compare-and-set on its record, so of
// two processes that reopen it one fails.
func (s *Store) Reopen(ctx context.Context, id string) (runstore.Run, error) {
	if s.opts.ReadOnly {
		return runstore.Run{}, storeErr("reopen", id, errReadOnly)
	}
	r, rev, err := s.get(ctx, "reopen", id)
	if err != nil {
		return runstore.Run{}, err
	}
	if r.Status != runstore.Interrupted {
		return runstore.Run{}, storeErr("reopen", id, fmt.Errorf("it is %s; only an interrupted run is reopened", r.Status))
	}
	r.Status, r.Error, r.Finished, r.Owner = runstore.Running, "", time.Time{}, s.owner
	r.Attempts++
	b, err := json.Marshal(r)
	if err != nil {
		return runstore.Run{}, storeErr("reopen", id, err)
	}
	if _, err := s.kv.Update(ctx, runKey(id), b, rev); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return runstore.Run{}, storeErr("reopen", id, errors.New("another process reopened it first"))
		}
		return runstore.Run{}, storeErr("reopen", id, err)
	}
	if err := s.take(ctx, "reopen", id, r.Events, r.Attempts); err != nil {
		return runstore.Run{}, err
	}
	return r.Run, nil
}

// Interrupted returns the interrupted runs started by origin, oldest
// first. It reads every run's record.
func (s *Store) Interrupted(ctx context.Context, origin string) ([]runstore.Run, error) {
	recs, err := s.all(ctx)
	if err != nil {
		return nil, err
	}
	var out []runstore.Run
	for _, r := range recs {
		if r.Status == runstore.Interrupted && r.Origin == origin {
			out = append(out, r.Run)
		}
	}
	slices.SortFunc(out, func(a, b runstore.Run) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// PutRecheck stores the re-check of an ended run's report, replacing
// the one before, as a blob beside the run's report. A run the store
// does not hold is runstore.ErrNotFound; a live one is refused; the result
// must be JSON.
func (s *Store) PutRecheck(ctx context.Context, rc runstore.Recheck) error {
	if checkID("put re-check", rc.RunID) != nil {
		return storeErr("put re-check", rc.RunID, runstore.ErrNotFound)
	}
	if !json.Valid(rc.Result) {
		return storeErr("put re-check", rc.RunID, errors.New("the result is not JSON"))
	}
	run, err := s.Get(ctx, rc.RunID)
	if err != nil {
		return err
	}
	if !run.Status.Ended() {
		return storeErr("put re-check", rc.RunID, fmt.Errorf("it is %s: only an ended run's report is re-checked", run.Status))
	}
	b, err := json.Marshal(rc)
	if err != nil {
		return storeErr("put re-check", rc.RunID, err)
	}
	if err := putBlob(ctx, s.blobs, rc.RunID+".recheck", b); err != nil {
		return storeErr("put re-check", rc.RunID, err)
	}
	return nil
}

// LastRecheck returns run id's last re-check, or runstore.ErrNotFound when it
// has none.
func (s *Store) LastRecheck(ctx context.Context, id string) (runstore.Recheck, error) {
	var rc runstore.Recheck
	if checkID("re-check", id) != nil {
		return rc, storeErr("re-check", id, runstore.ErrNotFound)
	}
	b, err := getBlob(ctx, s.blobs, id+".recheck")
	switch {
	case errors.Is(err, runstore.ErrNotFound):
		return rc, storeErr("re-check", id, fmt.Errorf("%w: it has not been re-checked", runstore.ErrNotFound))
	case err != nil:
		return rc, storeErr("re-check", id, err)
	}
	if err := json.Unmarshal(b, &rc); err != nil {
		return rc, storeErr("re-check", id, fmt.Errorf("its stored re-check is unreadable: %w", err))
	}
	return rc, nil
}

// FollowUps returns the runs whose Parent is id (the follow-up questions
// asked of it), oldest first; none for "" or an unknown run. Like List,
// it reads every run record.
func (s *Store) FollowUps(ctx context.Context, id string) ([]runstore.Run, error) {
	if id == "" {
		return nil, nil
	}
	recs, err := s.all(ctx)
	if err != nil {
		return nil, err
	}
	var sorted []record
	for _, r := range recs {
		if r.Parent == id {
			sorted = append(sorted, r)
		}
	}
	slices.SortFunc(sorted, func(a, b record) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return s.completeAll(ctx, sorted)
}

// GiveUp ends an interrupted run that will not be resumed: failed, with
// msg as its error.
func (s *Store) GiveUp(ctx context.Context, id, msg string) error {
	_, err := s.change(ctx, "give up", id, func(r *record) error {
		if r.Status != runstore.Interrupted {
			return fmt.Errorf("it is %s; only an interrupted run is given up", r.Status)
		}
		r.Status, r.Error, r.Finished = runstore.Failed, msg, s.clock.Now()
		return nil
	})
	if err == nil {
		s.announceEnd(id)
	}
	return err
}

// renewLoop renews this Store's leases and sweeps the runs whose lease
// expired, every Renew, until Close.
func (s *Store) renewLoop() {
	defer close(s.done)
	t := clock.NewTicker(s.clock, s.opts.Renew)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		ctx, cancel := clock.WithTimeout(context.Background(), s.clock, s.opts.Renew)
		s.renew(ctx)
		s.sweep(ctx)
		cancel()
	}
}

// renew extends the lease of every run this Store owns; a lease another
// process has taken (or deleted, sweeping it) is lost.
func (s *Store) renew(ctx context.Context) {
	s.mu.Lock()
	runs := make(map[string]*heldRun, len(s.held))
	for id, h := range s.held {
		runs[id] = h
	}
	s.mu.Unlock()
	for id, h := range runs {
		s.mu.Lock()
		rev, gone := h.rev, h.lost || h.released
		s.mu.Unlock()
		if gone {
			continue
		}
		now := s.clock.Now()
		b, _ := json.Marshal(leaseRec{Owner: s.owner, Expires: now.Add(s.opts.LeaseTTL)})
		nrev, err := s.kv.Update(ctx, leaseKey(id), b, rev)
		switch {
		case err == nil:
			s.mu.Lock()
			h.rev, h.expires = nrev, now.Add(s.opts.LeaseTTL)
			s.mu.Unlock()
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyRevisionMismatch):
			s.lose(id, h)
		}
		// Any other failure (the cluster unreachable) is tried again at
		// the next renewal; meanwhile the lease may expire, and writes
		// stop then.
	}
}

// lose forgets a run whose lease this Store lost, and says so.
func (s *Store) lose(id string, h *heldRun) {
	s.mu.Lock()
	released := h.released
	h.lost = true
	if s.held[id] == h {
		delete(s.held, id)
	}
	fn := s.onLost
	s.mu.Unlock()
	if !released && fn != nil {
		fn(id)
	}
}

// expiredMsg is the error of a run its owner stopped renewing.
const expiredMsg = "the process running it stopped renewing its lease"

// sweep marks interrupted every live run that no Store holds a valid
// lease on: its lease's deletion and the record's change each
// compare-and-set, so an owner that renews first keeps it.
func (s *Store) sweep(ctx context.Context) {
	recs, err := s.all(ctx)
	if err != nil {
		return
	}
	now := s.clock.Now()
	for id, r := range recs {
		if r.Status.Ended() || s.holding(id) != nil {
			continue
		}
		e, err := s.kv.Get(ctx, leaseKey(id))
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			continue
		default:
			// The owner stops writing when its lease expires by its own
			// clock; the others wait a further Renew before they take
			// the run, for the clocks' disagreement.
			var l leaseRec
			if json.Unmarshal(e.Value(), &l) == nil && now.Before(l.Expires.Add(s.opts.Renew)) {
				continue
			}
			if s.kv.Delete(ctx, leaseKey(id), jetstream.LastRevision(e.Revision())) != nil {
				continue // renewed meanwhile
			}
		}
		last, err := s.lastSeq(ctx, id)
		if err != nil {
			continue
		}
		// The owner may have changed the run's status meanwhile (a run
		// set waiting); a run reopened meanwhile is another's.
		_, err = s.change(ctx, "sweep", id, func(c *record) error {
			if c.Status.Ended() || c.Owner != r.Owner || c.Attempts != r.Attempts {
				return errChanged
			}
			c.Status, c.Error, c.Finished, c.Events = runstore.Interrupted, expiredMsg, now, last
			return nil
		})
		if err == nil {
			s.announceEnd(id)
		}
	}
}

// closeTry bounds what Close stores of the runs it interrupts.
const closeTry = 5 * time.Second

// Close stops the renewal and marks interrupted the runs this Store still
// owns (stop them first to record a better status), giving back their
// leases.
func (s *Store) Close() error {
	s.once.Do(func() {
		s.stopBeat()
		<-s.beatDone
		close(s.stop)
		<-s.done
		s.mu.Lock()
		ids := make([]string, 0, len(s.held))
		for id := range s.held {
			ids = append(ids, id)
		}
		s.mu.Unlock()
		ctx, cancel := clock.WithTimeout(context.Background(), s.clock, closeTry)
		defer cancel()
		for _, id := range ids {
			_ = s.end(ctx, "close", id, func(r *record) error {
				if err := live(r); err != nil {
					return err
				}
				r.Status, r.Error = runstore.Interrupted, "the server stopped before it ended"
				return nil
			})
		}
	})
	return nil
}

// completeAll is complete of each record, in order.
func (s *Store) completeAll(ctx context.Context, recs []record) ([]runstore.Run, error) {
	out := make([]runstore.Run, 0, len(recs))
	for _, r := range recs {
		run, err := s.complete(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, run)
	}
	return out, nil
}
