package deepresearch

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/runstore"
)

// Store keeps runs, so that front ends can list them, follow their events
// live and show their reports after they end, in this process or another,
// keep each run's journal, and take interrupted runs up again. It is one
// interface with every capability: sqlitestore implements it in an SQLite
// file, deepresearchtest.NewStore in memory, and one conformance suite
// holds both to it; Runs keeps the runs the HTTP API (httpapi) and the
// MCP server serve in it, and the CLI's runs and show commands read it. Every method is safe for concurrent use and takes
// effect before it returns.
//
// Runs are written in this order: Create and Start (Researcher.Start with RunOptions.Store), each event
// in sequence (Append), with SetStatus while the run waits for a person
// and journal entries (AppendJournal) as its calls complete, then
// PutReport and PutSource, then Finish: once a run has ended, everything
// else of it is there.
type Store interface {
	// Create stores a new run, queued. run.ID must be new (runstore.ErrExists);
	// its Status, times, Usage and Events are the store's to set.
	Create(ctx context.Context, run runstore.Run) error
	// Start marks a queued run running.
	Start(ctx context.Context, id string) error
	// SetStatus sets the status of a live run that waits for a person
	// (runstore.NeedsInput, runstore.AwaitingPlan) or goes on (runstore.Running);
	// Researcher.Start sets them around the request's Hooks, so that `deepresearch
	// runs` and GET /v1/research/{id} show a waiting run as waiting.
	SetStatus(ctx context.Context, id string, status runstore.Status) error
	// Append adds e to its run's log. e.Seq must follow the run's last
	// event (runstore.ErrSeq) and the run must be live (runstore.ErrFinished).
	Append(ctx context.Context, e events.Event) error
	// PutReport stores (or replaces) a run's report, the JSON form of a
	// Report.
	PutReport(ctx context.Context, id string, report json.RawMessage) error
	// PutSource stores (or replaces) a document a run's report cites.
	PutSource(ctx context.Context, src runstore.Source) error
	// Finish ends a live run with a final status, its usage and, for a
	// run that did not finish, what went wrong. Readers of its events end
	// once they have read its last one.
	Finish(ctx context.Context, id string, status runstore.Status, u events.Usage, errMsg string) error

	// Get returns a run (runstore.ErrNotFound when there is none).
	Get(ctx context.Context, id string) (runstore.Run, error)
	// List returns the newest runs first, at most limit of them (all when
	// limit <= 0).
	List(ctx context.Context, limit int) ([]runstore.Run, error)
	// Events follows a run's log from after the event numbered afterSeq
	// (0: from the start): every stored event in order, then each event
	// appended later as it is appended, ending after the last event of a
	// run that has ended. It never yields an event twice or skips one. It
	// ends early, yielding an error last, when the run does not exist,
	// the store fails, or ctx is done.
	Events(ctx context.Context, id string, afterSeq uint64) iter.Seq2[runstore.Event, error]
	// Report returns a run's report as JSON (LoadReport reads it), or
	// runstore.ErrNotFound when it has none.
	Report(ctx context.Context, id string) (json.RawMessage, error)
	// Sources returns the documents stored for a run's report.
	Sources(ctx context.Context, id string) ([]runstore.Source, error)

	// JournalStore keeps each run's journal (see RunOptions.Journal); a run
	// takes journal entries while it is live (runstore.ErrFinished after).
	JournalStore

	// Reopen takes up an interrupted run for a new attempt: it is marked
	// running again and its Attempts counted, atomically, so that of two
	// processes reopening it one fails. Only an interrupted run can be
	// reopened.
	Reopen(ctx context.Context, id string) (runstore.Run, error)
	// Interrupted returns the interrupted runs started by origin, oldest
	// first.
	Interrupted(ctx context.Context, origin string) ([]runstore.Run, error)
	// GiveUp ends an interrupted run that will not be resumed: failed,
	// with msg as its error.
	GiveUp(ctx context.Context, id, msg string) error

	// FollowUps returns the runs whose Parent is id — the follow-up
	// questions asked of run id (Runs.Ask), its thread — oldest first;
	// none for a run without any, or one the store does not hold.
	FollowUps(ctx context.Context, id string) ([]runstore.Run, error)

	// PutRecheck stores the re-check of an ended run's report (rc.RunID),
	// replacing the one before: a store keeps each run's last re-check.
	// rc.Result must be JSON. A run the store does not hold is
	// runstore.ErrNotFound; a live one (it has no report yet) is refused.
	PutRecheck(ctx context.Context, rc runstore.Recheck) error
	// LastRecheck returns run id's last re-check, or runstore.ErrNotFound when
	// it has none.
	LastRecheck(ctx context.Context, id string) (runstore.Recheck, error)
}

// NewRunID returns a fresh run ID: random, URL-safe, and ordered by time
// of creation.
func NewRunID() string { return events.NewRunID() }

// storeRun stores req, checked, in st as a new run, running, started by
// origin (runstore.Run.Origin): what Start does with RunOptions.Store before
// the run begins. It refuses a RunID st already holds (runstore.ErrExists). The
// request is stored as the run's Options, in its JSON form.
func storeRun(ctx context.Context, st Store, req Request, origin string) error {
	opts, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if err := st.Create(ctx, runstore.Run{ID: req.RunID, Question: req.question(), Options: opts, Origin: origin, Parent: req.Parent}); err != nil {
		return err
	}
	return st.Start(ctx, req.RunID)
}

// record runs req, a run stored in st, and keeps it there, going on
// after what d says the run's earlier attempts stored, as
// RunOptions.Store documents: each event is given to watch, stored, then
// given to sink, so that a reader of the store never falls behind the
// run's own caller. It returns what researchDurable returned.
func (r *Researcher) record(ctx context.Context, st Store, req Request, d engine.Durability, watch, sink func(events.Event)) (*Report, error) {
	log := r.log.With().Str("run", req.RunID).Logger()
	bg := context.WithoutCancel(ctx)
	if d.Journal == nil {
		d.Journal = st
	}
	if req.Parent != "" && req.thread == nil {
		parent := req.Parent
		req.thread = func(ctx context.Context) (*engine.Thread, error) { return loadThread(ctx, st, parent) }
	}
	shutdown := func() bool { return errors.Is(context.Cause(ctx), ErrShutdown) }
	// A run that waits for a person is stored as waiting before the
	// event that says so (a client that reads it finds the run waiting),
	// and again when the hook is called (a resumed run replays the event
	// without storing it).
	setStatus := func(runstore.Status) {}
	if req.Hooks != nil {
		setStatus = func(status runstore.Status) {
			if err := st.SetStatus(bg, req.RunID, status); err != nil {
				log.Error().Err(err).Str("status", string(status)).Msg("storing the run's status")
			}
		}
		req.Hooks = waitingHooks(req.Hooks, setStatus)
	}
	rep, err := r.researchDurable(ctx, req, d, func(ev events.Event) {
		if shutdown() {
			return // the run stops to be resumed: its log ends where its work did
		}
		watch(ev)
		switch ev.Type {
		case events.ClarificationRequested:
			if req.Hooks != nil && req.Hooks.Ask != nil {
				setStatus(runstore.NeedsInput)
			}
		case events.PlanReviewRequested:
			setStatus(runstore.AwaitingPlan)
		}
		if err := st.Append(bg, ev); err != nil {
			log.Error().Err(err).Uint64("seq", ev.Seq).Msg("storing an event")
		}
		sink(ev)
	})
	// The run's end is decided as it returns: a shutdown while its report
	// and sources are stored does not make a run that ended (its last
	// event, run.finished or error, already out) an interrupted one, to
	// be resumed and go on after its last event.
	status, msg := runEnd(ctx, err)
	var u events.Usage
	if rep != nil && status != runstore.Interrupted {
		u = rep.Usage
		if b, merr := json.Marshal(rep); merr != nil {
			log.Error().Err(merr).Msg("encoding the report")
		} else if perr := st.PutReport(bg, req.RunID, b); perr != nil {
			log.Error().Err(perr).Msg("storing the report")
		}
		r.keepSources(bg, st, req.RunID, rep)
	}
	if ferr := st.Finish(bg, req.RunID, status, u, msg); ferr != nil {
		log.Error().Err(ferr).Msg("storing the run's end")
	}
	return rep, err
}

// waitingHooks wraps h so that set is told the run's status while a hook
// waits for a person, and told runstore.Running after.
func waitingHooks(h *Hooks, set func(runstore.Status)) *Hooks {
	if h == nil {
		return nil
	}
	w := *h
	if ask := h.Ask; ask != nil {
		w.Ask = func(ctx context.Context, qs []events.Clarification) ([]string, error) {
			set(runstore.NeedsInput)
			defer set(runstore.Running)
			return ask(ctx, qs)
		}
	}
	if review := h.Review; review != nil {
		w.Review = func(ctx context.Context, p Plan) (Plan, error) {
			set(runstore.AwaitingPlan)
			defer set(runstore.Running)
			return review(ctx, p)
		}
	}
	return &w
}

// runEnd is the final status of a run that returned err, and what to keep
// of why.
func runEnd(ctx context.Context, err error) (runstore.Status, string) {
	if err == nil {
		return runstore.Finished, ""
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrCanceledByClient):
		return runstore.Canceled, cause.Error()
	case errors.Is(cause, ErrShutdown):
		return runstore.Interrupted, cause.Error()
	case errors.Is(cause, ErrTimeLimit):
		return runstore.Failed, cause.Error()
	case errors.Is(cause, context.Canceled):
		return runstore.Canceled, err.Error()
	}
	return runstore.Failed, err.Error()
}

// fetchTimeout bounds fetching again a cited source whose text the
// agents' results did not hold.
const fetchTimeout = 30 * time.Second

// keepSources stores the text of every source the report cites, so the
// citation can be checked later against what was read: the text the agents
// were shown (Report.SourceTexts), else the document fetched again.
func (r *Researcher) keepSources(ctx context.Context, st Store, id string, rep *Report) {
	read := map[string]string{}
	for _, s := range rep.Sources {
		if t := rep.SourceTexts[s.Number]; t != "" {
			read[s.ID+"\x00"+s.URL] = t
		}
	}
	for _, ref := range rep.References {
		src := ref.Source
		if src.ID == "" {
			continue
		}
		text, ok := read[src.ID+"\x00"+src.URL]
		if !ok {
			fctx, cancel := clock.WithTimeout(ctx, r.cfg.Clock, fetchTimeout)
			doc, err := r.Fetch(fctx, src.ID)
			cancel()
			if err != nil {
				r.log.Warn().Err(err).Str("run", id).Str("source", src.ID).Msg("fetching a cited source to keep its text")
				continue
			}
			text = doc.Text
		}
		if err := st.PutSource(ctx, runstore.Source{RunID: id, ID: src.ID, URL: src.URL, Title: src.Title,
			Channel: src.Channel, Text: text}); err != nil {
			r.log.Error().Err(err).Str("run", id).Str("source", src.ID).Msg("storing a cited source")
		}
	}
}
