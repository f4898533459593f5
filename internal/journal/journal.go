package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Log is where journals are kept: any store that appends a run's entries
// durably and reads them back in the order they were appended (the SQLite
// run store, a JetStream stream, MemLog). Entries are opaque to it: the
// bytes Encode wrote.
type Log interface {
	// Append adds entry to run's journal; nothing of it is readable
	// before it is committed. When it returns nil the entry is durable —
	// or, for a log that orders its writes, queued ahead of everything
	// written to the log after Append returns, so that whatever follows
	// from the call (its events, later calls) is never kept without it.
	Append(ctx context.Context, run string, entry []byte) error
	// Entries returns run's entries in the order they were appended (none
	// for a run without a journal).
	Entries(ctx context.Context, run string) ([][]byte, error)
}

// Options configure a Journal. The zero value records nothing and
// replays what it was given.
type Options struct {
	// Log receives every entry recorded; nil records nothing.
	Log Log
	// Offline answers every call from the journal: a call it does not
	// hold fails with an error matching ErrNotJournaled, and nothing is
	// called — except model calls of the Live stages.
	Offline bool
	// Live names stages ("writer", "planner", "researcher", "verify":
	// the first element of a scope) whose model calls are made live,
	// whatever the journal holds; their searches and fetches are answered
	// from the journal when it holds them, and made otherwise.
	Live []string
	// Clock stamps entries (default time.Now).
	Clock func() time.Time
	// Hooks observe the journal; nil fields are skipped.
	Hooks Hooks
}

// Hooks observe a Journal. They are called on the goroutine of the call,
// possibly from several at once.
type Hooks struct {
	// AppendFailed is called when a completed call could not be recorded
	// (an *AppendError). The call's answer is returned all the same; a
	// resumed run will make the call again.
	AppendFailed func(error)
}

// Journal is one run's journal: what earlier attempts recorded, answered
// again, and what this attempt records. It is safe for concurrent use by
// every goroutine of the run. Put it in the run's context with NewContext.
type Journal struct {
	run    string
	opts   Options
	live   map[string]bool
	header *Entry
	index  map[Ref]*Entry // the prior entries, by scope, kind, key, occurrence
	// priorTexts are the texts of the prior text entries, by key.
	priorTexts map[string]string

	mu      sync.Mutex
	seen    map[Ref]int // next occurrence of each (scope, kind, key), this attempt
	used    map[Ref]bool
	stats   Stats
	texts   map[string]bool      // the keys of the text entries the log holds: prior, or appended by this attempt
	writing map[string]*textSlot // text entries being appended
}

// Stats counts what a Journal did.
type Stats struct {
	// Replayed calls were answered from the journal; Recorded ones were
	// made and appended; Live ones were made without being recorded (no
	// Log, or a live stage); Missed ones failed offline.
	Replayed, Recorded, Live, Missed int
	// Unused counts the prior entries no call asked for (so far): a
	// replay that leaves some unused did not retrace its recording.
	Unused int
}

// Open reads run's journal from log (none yet is fine) and returns it as
// New does: opts.Log, not log, is where it records.
func Open(ctx context.Context, log Log, run string, opts Options) (*Journal, error) {
	raw, err := log.Entries(ctx, run)
	if err != nil {
		return nil, fmt.Errorf("journal: read run %s: %w", run, err)
	}
	return New(run, raw, opts)
}

// New returns run's journal holding the encoded entries prior (from an
// earlier attempt, in append order). An entry in a format version this
// package does not read fails with a *VersionError naming it, a malformed
// one with ErrCorrupt; nothing is ever guessed.
func New(run string, prior [][]byte, opts Options) (*Journal, error) {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	j := &Journal{run: run, opts: opts, live: map[string]bool{}, index: map[Ref]*Entry{},
		priorTexts: map[string]string{}, seen: map[Ref]int{}, used: map[Ref]bool{},
		texts: map[string]bool{}, writing: map[string]*textSlot{}}
	for _, s := range opts.Live {
		j.live[s] = true
	}
	parts := map[string][]*String{} // the parts of texts kept in parts, by key
	for i, b := range prior {
		e, err := Decode(b)
		if err != nil && run == "" { // a journal read before its header names its run
			return nil, fmt.Errorf("journal: entry %d: %w", i+1, err)
		} else if err != nil {
			return nil, fmt.Errorf("journal: run %s, entry %d: %w", run, i+1, err)
		}
		switch e.Kind {
		case KindHeader:
			if j.header == nil {
				j.header = &e
			}
			continue
		case KindText:
			if e.Text.Parts == 0 {
				j.priorTexts[e.Key] = string(e.Text.Text)
				continue
			}
			ps := parts[e.Key]
			if ps == nil {
				ps = make([]*String, e.Text.Parts)
				parts[e.Key] = ps
			}
			if len(ps) == e.Text.Parts && ps[e.N] == nil { // the first part recorded stands
				ps[e.N] = &e.Text.Text
			}
			continue
		}
		ref := Ref{Scope: e.Scope, Kind: e.Kind, Key: e.Key, N: e.N}
		if _, dup := j.index[ref]; !dup { // the first answer recorded stands
			j.index[ref] = &e
		}
	}
	if err := textsOf(parts, j.priorTexts); err != nil {
		return nil, fmt.Errorf("journal: run %s: %w", run, err)
	}
	for key := range j.priorTexts {
		j.texts[key] = true
	}
	return j, nil
}

// Run returns the ID of the journal's run.
func (j *Journal) Run() string { return j.run }

// Header returns the journal's header, or nil when it has none yet.
func (j *Journal) Header() *Header {
	if j.header == nil {
		return nil
	}
	return j.header.Header
}

// Len returns how many call entries the journal held when it was opened.
func (j *Journal) Len() int { return len(j.index) }

// WriteHeader records h as the journal's header, unless it has one (a
// resumed run keeps the header of its first attempt).
func (j *Journal) WriteHeader(ctx context.Context, h Header) error {
	j.mu.Lock()
	if j.header != nil {
		j.mu.Unlock()
		return nil
	}
	e := &Entry{Kind: KindHeader, Time: j.opts.Clock(), Header: &h}
	j.header = e
	j.mu.Unlock()
	if j.opts.Log == nil {
		return nil
	}
	b, err := Encode(*e)
	if err == nil {
		err = j.opts.Log.Append(ctx, j.run, b)
	}
	if err != nil {
		return fmt.Errorf("journal: run %s: write header: %w", j.run, err)
	}
	return nil
}

// Import appends to the journal's log the entries of another log of the
// same run (a worker's, whose agents journaled their calls there) whose
// scope keep accepts and which the log does not hold yet (the same scope,
// kind, key and occurrence), in their order, with the text entries they
// refer to that the log does not hold, and returns how many it appended.
// Headers are not imported. A journal without a log imports nothing.
func (j *Journal) Import(ctx context.Context, entries [][]byte, keep func(scope string) bool) (int, error) {
	if j.opts.Log == nil {
		return 0, nil
	}
	have, err := j.opts.Log.Entries(ctx, j.run)
	if err != nil {
		return 0, fmt.Errorf("journal: read run %s: %w", j.run, err)
	}
	known := map[Ref]bool{}
	for _, b := range have {
		if ref, ok := refOf(b); ok {
			known[ref] = true
		}
	}
	// The entries to import, and the texts they refer to.
	take := make([]bool, len(entries))
	kinds := make([]Ref, len(entries))
	texts := map[string]bool{}
	for i, b := range entries {
		e, err := Decode(b)
		if err != nil {
			return 0, fmt.Errorf("journal: run %s, imported entry %d: %w", j.run, i+1, err)
		}
		ref := Ref{Scope: e.Scope, Kind: e.Kind, Key: e.Key, N: e.N}
		kinds[i] = ref
		if e.Kind == KindHeader || e.Kind == KindText || !keep(e.Scope) || known[ref] {
			continue
		}
		take[i] = true
		if d := e.Document; d != nil && d.TextKey != "" {
			texts[d.TextKey] = true
		}
		if p := e.Page; p != nil && p.TextKey != "" {
			texts[p.TextKey] = true
		}
	}
	n := 0
	for i, b := range entries {
		ref := kinds[i]
		if ref.Kind == KindText {
			take[i] = texts[ref.Key] && !known[ref]
		}
		if !take[i] || known[ref] {
			continue
		}
		if err := j.opts.Log.Append(ctx, j.run, b); err != nil {
			return n, fmt.Errorf("journal: run %s: import: %w", j.run, err)
		}
		known[ref] = true
		if ref.Kind == KindText {
			j.mu.Lock()
			j.texts[ref.Key] = true
			j.mu.Unlock()
		}
		n++
	}
	return n, nil
}

// refOf reads what names an encoded entry (its scope, kind, key and
// occurrence) and nothing else: the text of a long one is not copied.
// It reports false for an entry Decode would refuse by its version, or
// that is not JSON.
func refOf(b []byte) (Ref, bool) {
	var e struct {
		V     int    `json:"v"`
		Kind  Kind   `json:"kind"`
		Scope string `json:"scope"`
		Key   string `json:"key"`
		N     int    `json:"n"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.V < OldestVersion || e.V > Version {
		return Ref{}, false
	}
	return Ref{Scope: e.Scope, Kind: e.Kind, Key: e.Key, N: e.N}, true
}

// Stats returns what the journal has done so far.
func (j *Journal) Stats() Stats {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.stats
	s.Unused = len(j.index) - len(j.used)
	return s
}

// decision is what to do with one call.
type decision struct {
	ref   Ref
	entry *Entry // the recorded answer, to replay; nil: make the call
	miss  bool   // offline and not journaled: fail
	keep  bool   // record the call once made
}

// decide numbers a call of kind with key in ctx's scope and says how to
// answer it.
func (j *Journal) decide(ctx context.Context, kind Kind, key string) decision {
	scope := ScopeOf(ctx)
	j.mu.Lock()
	defer j.mu.Unlock()
	base := Ref{Scope: scope, Kind: kind, Key: key}
	n := j.seen[base]
	j.seen[base] = n + 1
	ref := base
	ref.N = n
	d := decision{ref: ref}
	live := j.live[StageOf(scope)]
	if e, ok := j.index[ref]; ok && !(live && kind == KindModel) {
		j.used[ref] = true
		j.stats.Replayed++
		d.entry = e
		return d
	}
	switch {
	case j.opts.Offline && !live:
		j.stats.Missed++
		d.miss = true
	case j.opts.Log == nil || j.opts.Offline:
		j.stats.Live++
	default:
		d.keep = true
	}
	return d
}

// missed returns the error of a call d says is missing.
func (d decision) missed() error {
	return &MissError{Kind: d.ref.Kind, Scope: d.ref.Scope, Key: d.ref.Key, N: d.ref.N}
}

// record appends the entry of a completed call (d.keep must be set). A
// failure to append is told to Hooks.AppendFailed and returned.
func (j *Journal) record(ctx context.Context, d decision, e Entry) error {
	e.Kind, e.Scope, e.Key, e.N, e.Time = d.ref.Kind, d.ref.Scope, d.ref.Key, d.ref.N, j.opts.Clock()
	b, err := Encode(e)
	if err == nil {
		// The call is complete: record it even when the caller's context
		// is done now (its deadline, met at the last moment).
		err = j.opts.Log.Append(context.WithoutCancel(ctx), j.run, b)
	}
	if err != nil {
		err = &AppendError{Kind: e.Kind, Scope: e.Scope, Err: err}
		if f := j.opts.Hooks.AppendFailed; f != nil {
			f(err)
		}
		return err
	}
	j.mu.Lock()
	j.stats.Recorded++
	j.mu.Unlock()
	return nil
}

// recordError records the error a call of d failed with, unless the call
// was cut off by cancellation (see errorRecord).
func (j *Journal) recordError(ctx context.Context, d decision, err error) {
	if erec, ok := errorRecord(ctx, err); ok {
		j.record(ctx, d, Entry{Error: erec})
	}
}

// lookup returns a prior entry by reference (for a document whose text is
// that of a page).
func (j *Journal) lookup(r Ref) *Entry { return j.index[r] }

// Manifest decodes the header's manifest into v; it reports false when the
// journal has no header or its header no manifest.
func (j *Journal) Manifest(v any) (bool, error) {
	h := j.Header()
	if h == nil || len(h.Manifest) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(h.Manifest, v); err != nil {
		return true, fmt.Errorf("journal: run %s: manifest: %w", j.run, err)
	}
	return true, nil
}

type ctxKey struct{}

type scopeKey struct{}

// NewContext returns ctx carrying j: every call made through this
// package's wrappers in ctx (or a context derived from it) is journaled
// in j.
func NewContext(ctx context.Context, j *Journal) context.Context {
	return context.WithValue(ctx, ctxKey{}, j)
}

// FromContext returns the Journal NewContext put in ctx, or nil.
func FromContext(ctx context.Context) *Journal {
	j, _ := ctx.Value(ctxKey{}).(*Journal)
	return j
}

// WithScope returns ctx in which calls belong to scope: a path whose first
// element is the stage ("planner", "researcher/t2", "writer", "verify").
// Calls are counted and found per scope; see the package documentation.
func WithScope(ctx context.Context, scope string) context.Context {
	return context.WithValue(ctx, scopeKey{}, scope)
}

// ScopeOf returns the scope ctx is marked with, or "".
func ScopeOf(ctx context.Context) string {
	s, _ := ctx.Value(scopeKey{}).(string)
	return s
}

// StageOf returns the stage of scope: its first path element.
func StageOf(scope string) string {
	stage, _, _ := strings.Cut(scope, "/")
	return stage
}
