package deepresearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/internal/runpack"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/verify"
)

// Durable runs: a run started with a Store (or a RunOptions.Journal) keeps a journal of
// every call it pays for — each model call (its request by hash, its whole
// response: streamed text, tool calls, stop reason, usage), each search
// and each page or document read — appended to a JournalStore as each
// call completes, before its answer is used. A run whose process died is
// resumed by running it again with its journal and the events its earlier
// attempts stored: the pipeline starts again from the beginning, every
// call the journal holds is answered from it, and only the rest is made,
// so nothing completed is paid for twice; the event log goes on after its
// last stored event with nothing repeated; sources keep their numbers; the
// report is the one an uninterrupted run would have written. Replay
// re-runs a stored run offline from its journal alone.

// Errors of durable runs; match them with errors.Is.
var (
	// ErrJournalMismatch reports a run resumed by a Researcher configured
	// otherwise than the one that recorded it (another model, other
	// limits): its journal would answer another run's calls.
	ErrJournalMismatch = errors.New("the run's journal was recorded with other settings")
	// ErrReplay reports a journal that cannot be replayed.
	ErrReplay = errors.New("replay")
)

// JournalStore keeps runs' journals: entries appended durably, in order,
// and read back whole. The SQLite run store is one. Entries are opaque
// bytes (one JSON object each, in a versioned format). A store that also
// has QueueJournal(ctx, run, entry, done func(error)) error, queueing an
// entry ahead of everything appended to it afterwards without waiting for
// its commit (the SQLite store does), spares a run waiting for its
// journal: each call's answer is used as soon as its entry is queued.
type JournalStore interface {
	// AppendJournal adds entry to run's journal; when it returns nil the
	// entry is durable, and nothing of it was readable before.
	AppendJournal(ctx context.Context, run string, entry []byte) error
	// Journal returns run's entries in the order they were appended.
	Journal(ctx context.Context, run string) ([][]byte, error)
}

// reopenRun takes up the interrupted run id of st for a new attempt (see
// Store.Reopen) and returns its request and what its earlier
// attempts left: every event they stored and the attempt's number, for
// record (RunOptions.Resume). It fails for a run that is not interrupted,
// saying why.
func reopenRun(ctx context.Context, st Store, id string) (Request, engine.Durability, error) {
	run, err := st.Get(ctx, id)
	if err != nil {
		return Request{}, engine.Durability{}, err
	}
	if run.Status != runstore.Interrupted {
		hint := ""
		if run.Status == runstore.Running {
			hint = " (a run whose process died is marked interrupted once its process is seen gone, or its lease has passed)"
		}
		return Request{}, engine.Durability{}, fmt.Errorf("deepresearch: run %s is %s; only an interrupted run can be resumed%s", id, run.Status, hint)
	}
	var req Request
	if err := json.Unmarshal(run.Options, &req); err != nil {
		return Request{}, engine.Durability{}, fmt.Errorf("deepresearch: run %s: its stored request is unreadable: %w", id, err)
	}
	if req.Question == "" {
		req.Question = run.Question
	}
	req.RunID = id
	// The journal's header keeps the request whole (its budget too,
	// which the stored request's JSON form leaves out).
	if entries, err := st.Journal(ctx, id); err != nil {
		return Request{}, engine.Durability{}, err
	} else if len(entries) > 0 {
		j, err := journal.New(id, entries, journal.Options{Offline: true})
		if err != nil {
			return Request{}, engine.Durability{}, err
		}
		var m runManifest
		if ok, err := j.Manifest(&m); err != nil {
			return Request{}, engine.Durability{}, err
		} else if ok {
			req = m.request()
		}
	}
	d := engine.Durability{Journal: st}
	if run.Events > 0 {
		// The run has ended (interrupted): its log ends.
		for e, err := range st.Events(ctx, id, 0) {
			if err != nil {
				return Request{}, engine.Durability{}, err
			}
			var ev events.Event
			if err := json.Unmarshal(e.JSON, &ev); err != nil {
				return Request{}, engine.Durability{}, fmt.Errorf("deepresearch: run %s, event %d: %w", id, e.Seq, err)
			}
			d.Prior = append(d.Prior, ev)
		}
	}
	reopened, err := st.Reopen(ctx, id)
	if err != nil {
		return Request{}, engine.Durability{}, err
	}
	if uint64(len(d.Prior)) != reopened.Events {
		return Request{}, engine.Durability{}, fmt.Errorf("deepresearch: run %s: read %d events of %d", id, len(d.Prior), reopened.Events)
	}
	d.Attempt = reopened.Attempts
	req.Parent = run.Parent // a follow-up's, kept by the store, not by the request's JSON form
	return req, d, nil
}

// researchDurable runs req, keeping the run durable as d says: every
// call the run's journal holds is answered from it, every other call is
// made and appended to it; the events continue after d.Prior (see
// events.Emitter.Resume: each event the earlier attempts stored is
// recognised and not emitted again; a RunResumed event opens the new
// attempt). A run resumed by a Researcher whose settings differ from the
// recording's (models, limits, judges) fails with ErrJournalMismatch
// before anything is called.
func (r *Researcher) researchDurable(ctx context.Context, req Request, d engine.Durability, sink func(events.Event)) (*Report, error) {
	req = r.fill(req) // checked by Start
	ctx, end, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	ctx, em, err := r.durable(ctx, req, d, sink)
	if err != nil {
		return nil, &StageError{Stage: events.StagePlan, Err: err}
	}
	defer em.Close()
	ctx, span := telemetry.Begin(ctx, r.cfg.Telemetry.TracerProvider, telemetry.SpanRun, req.RunID, trace.SpanKindInternal,
		telemetry.Question.String(telemetry.Text(req.Question)))
	ctx, observed := r.observeRun(ctx)
	rep, err := r.run(ctx, req, em)
	observed(err)
	if rep != nil {
		span.SetAttributes(telemetry.GenAIInputTokens.Int(rep.Usage.PromptTokens), telemetry.GenAIOutputTokens.Int(rep.Usage.CompletionTokens),
			telemetry.Cycle.Int(rep.Cycles))
	}
	telemetry.End(span, err)
	return rep, err
}

// durable opens req's journal as d says and returns ctx carrying it, and
// the run's emitter, resumed after d.Prior (engine.Open). A journal that
// has a header must have been recorded with r's settings for req: else
// ErrJournalMismatch.
func (r *Researcher) durable(ctx context.Context, req Request, d engine.Durability, sink func(events.Event)) (context.Context, *events.Emitter, error) {
	m := sync.OnceValue(func() runManifest { return r.manifest(req) }) // only a run that keeps a journal needs it
	check := func(b json.RawMessage) error {
		var stored runManifest
		if err := json.Unmarshal(b, &stored); err != nil {
			return fmt.Errorf("journal: run %s: manifest: %w", req.RunID, err)
		}
		if diff := stored.differs(m()); diff != "" {
			return fmt.Errorf("%w: %s", ErrJournalMismatch, diff)
		}
		return nil
	}
	return engine.Open(ctx, req.RunID, r.cfg.Clock, r.log.With().Str("run", req.RunID).Logger(), d,
		engine.Header{Program: program(), Manifest: func() any { return m() }, Check: check}, sink)
}

// runManifest is what a journal's header keeps of how its run was made:
// everything that shapes the run's calls besides their answers, so that a
// replay can run it again and a resumption can check it is the same run.
// It holds no key and no address.
type runManifest struct {
	// Request is the run's request, its zero fields filled in; RunID,
	// Budget and MaxRunAgents, which its JSON form leaves out, beside it.
	Request      Request `json:"request"`
	RunID        string  `json:"run_id"`
	Budget       Budget  `json:"budget"`
	MaxRunAgents int     `json:"max_run_agents,omitempty"`
	// Models names the model of each role ("openai:gpt-4.1-mini").
	Models map[string]string `json:"models"`
	// Judge and Verifier name what judges relevance and support: a
	// model, or "lexical".
	Judge    string `json:"judge"`
	Verifier string `json:"verifier"`
	// Channel is the Source.Channel of search results; Pages says whether
	// runs read web pages.
	Channel     string        `json:"channel"`
	Pages       bool          `json:"pages,omitempty"`
	Unsupported verify.Action `json:"unsupported"`
	// MaxRunTokens and MaxCost are the run budgets; Prices the dollars
	// per million prompt and completion tokens of each role's model, as
	// Config.Price says.
	MaxRunTokens int                   `json:"max_run_tokens,omitempty"`
	MaxCost      float64               `json:"max_cost,omitempty"`
	Prices       map[string][2]float64 `json:"prices,omitempty"`
	// Parent is the run a follow-up follows (Request.Parent, which the
	// request's JSON form leaves out).
	Parent string `json:"parent,omitempty"`
}

// request is the run's request as it was made.
func (m runManifest) request() Request {
	req := m.Request
	req.RunID, req.Budget, req.MaxRunAgents, req.Parent = m.RunID, m.Budget, m.MaxRunAgents, m.Parent
	return req
}

// differs names the first setting in which o differs from m ("" when
// none does).
func (m runManifest) differs(o runManifest) string {
	for _, role := range []string{events.RolePlanner, events.RoleResearcher, events.RoleWriter} {
		if was, is := m.Models[role], o.Models[role]; !sameModel(was, is) {
			return fmt.Sprintf("the %s model was %s when the run started, and is %s now", role, was, is)
		}
	}
	for _, f := range []struct{ name, was, is string }{{"relevance judge", m.Judge, o.Judge}, {"verifier", m.Verifier, o.Verifier}} {
		if !sameModel(f.was, f.is) {
			return fmt.Sprintf("the %s was %s when the run started, and is %s now", f.name, f.was, f.is)
		}
	}
	m.Models, m.Judge, m.Verifier = o.Models, o.Judge, o.Verifier // compared above
	a, b := reflect.ValueOf(m), reflect.ValueOf(o)
	for i := range a.NumField() {
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			name := a.Type().Field(i).Tag.Get("json")
			name, _, _ = strings.Cut(name, ",")
			x, _ := json.Marshal(a.Field(i).Interface())
			y, _ := json.Marshal(b.Field(i).Interface())
			return fmt.Sprintf("%s was %s when the run started, and is %s now", name, x, y)
		}
	}
	return ""
}

func (r *Researcher) manifest(req Request) runManifest {
	m := runManifest{RunID: req.RunID, Budget: req.Budget, MaxRunAgents: req.MaxRunAgents, Parent: req.Parent,
		Models: map[string]string{}, Judge: "lexical", Verifier: "lexical",
		Channel: r.channel(), Pages: r.pages, Unsupported: r.cfg.Unsupported,
		MaxRunTokens: r.cfg.Limits.MaxRunTokens, MaxCost: r.cfg.Limits.MaxCost}
	// The request as its JSON form keeps it, so that a manifest read back
	// compares equal: what that form leaves out is beside it.
	m.Request = req
	m.Request.RunID, m.Request.Budget, m.Request.MaxRunAgents, m.Request.Hooks, m.Request.Parent, m.Request.thread = "", Budget{}, 0, nil, "", nil
	role := map[string]llms.Model{}
	for name, rm := range map[string]llms.Model{events.RolePlanner: r.cfg.PlannerModel, events.RoleResearcher: r.cfg.ResearcherModel, events.RoleWriter: r.cfg.WriterModel} {
		role[name] = cmpModel(rm, r.cfg.Model)
		m.Models[name] = modelName(role[name])
	}
	if r.judge != nil {
		m.Judge = modelName(cmpModel(r.cfg.Judges.Relevance, role[events.RoleResearcher]))
	}
	if r.verifyModel != nil {
		m.Verifier = modelName(cmpModel(r.cfg.Judges.Verify, role[events.RoleWriter]))
	}
	if r.cfg.Price != nil {
		m.Prices = map[string][2]float64{}
		for _, role := range []string{events.RolePlanner, events.RoleResearcher, events.RoleWriter} {
			m.Prices[role] = [2]float64{r.cfg.Price(role, events.Usage{PromptTokens: 1e6}), r.cfg.Price(role, events.Usage{CompletionTokens: 1e6})}
		}
	}
	return m
}

// modelName names a model for the manifest: "provider:name" for a
// provider's, "extractive" for the built-in one, through the wrappers
// around them (each has an Unwrap method: provider.ToolFallback,
// retry.Limited). A model of an embedder's that names itself no other way
// is named by its Go type.
func modelName(m llms.Model) string {
	for range 16 { // wrappers do not nest deeper
		switch n := m.(type) {
		case nil, *extractive.Model:
			return "extractive"
		case interface{ Provider() string }:
			if name, ok := m.(interface{ Name() string }); ok {
				return n.Provider() + ":" + name.Name()
			}
			return n.Provider()
		case interface{ Unwrap() llms.Model }:
			m = n.Unwrap()
			continue
		}
		break
	}
	return fmt.Sprintf("%T", m)
}

// legacyModelName reports whether name is how journals written before
// models were named through their wrappers name every provider's model:
// the wrapper's Go type.
func legacyModelName(name string) bool {
	return name == "*provider.ToolFallback" || name == "*retry.Limited"
}

// sameModel reports whether the model named run when a run started is
// the one named here now. A legacy name stands for any provider's model.
func sameModel(run, here string) bool {
	if legacyModelName(run) {
		return here != "extractive" && here != "lexical" && !strings.HasPrefix(here, "*")
	}
	return run == here
}

// program names this program and its version, for journal headers.
func program() string {
	v := "(unknown)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
	}
	return "deepresearch " + v
}

// liveStages are the stages Replay can run live: those whose Scope is a
// stage of a run's journal (StageAssess's calls are StagePlan's).
var liveStages = []events.Stage{events.StagePlan, events.StageResearch, events.StageReport, events.StageVerify}

// The scopes of a run's calls in its journal (Stage.Scope), then for an
// agent its task (internal/engine names those and a sectioned report's
// sections, the writer's). An assessment of a research cycle belongs to
// the planner's (it plans the next cycle, with the planner's model), as
// do the clarifying questions.
var scopeClarify = events.StagePlan.Scope() + "/clarify"

// ReplayOptions tune Replay.
type ReplayOptions struct {
	// Live names stages (events.StagePlan — its assessments and clarifying
	// questions too —, StageResearch, StageReport, StageVerify) whose
	// model calls are made again, live, with With's models (a research
	// stage also searches with With's backend what the journal does not
	// hold); every other call is answered from the journal.
	Live []events.Stage
	// With supplies the live stages' models and search backend: a
	// Researcher built from the settings (config.NewResearcher). Needed when Live
	// is not empty.
	With *Researcher
}

// ReplayStats says how a replay went.
type ReplayStats struct {
	// Replayed calls were answered from the journal, Live ones made
	// again; Missed ones were asked for but not in the journal; Unused
	// journal entries were never asked for.
	Replayed, Live, Missed, Unused int
}

// Replay re-runs the run recorded in journal (its entries, as a
// JournalStore or an exported run holds them) offline: with the
// recording's request and settings, every call answered from the journal,
// no network and no key. It returns the report the run wrote, byte for
// byte. With opts.Live, those stages run again against opts.With's
// models while the rest replays: a prompt change is tried against
// recorded research for the price of one stage.
//
// Replay reports events to sink (if not nil) as RunOptions.Sink says, and says
// in ReplayStats how the replay went: without live stages, calls asked for
// and not in the journal (Missed), or journaled and not asked for
// (Unused), mean the run departed from its recording — a program that
// prompts otherwise, or a section the recording wrote from findings the
// replay completes at another moment; the report then says whether it
// changed. A journal written in a format version this program does not
// read is refused by name, as is one without the header naming its run.
func Replay(ctx context.Context, entries [][]byte, opts ReplayOptions, sink func(events.Event)) (*Report, ReplayStats, error) {
	scopes := make([]string, len(opts.Live))
	for i, s := range opts.Live {
		if !slices.Contains(liveStages, s) {
			return nil, ReplayStats{}, configErrorf("live stage %q: want plan, research, report or verify", s)
		}
		scopes[i] = s.Scope()
	}
	if len(opts.Live) > 0 && opts.With == nil {
		return nil, ReplayStats{}, configErrorf("live stages need a Researcher (ReplayOptions.With) to run them")
	}
	j, err := journal.New("", entries, journal.Options{Offline: true, Live: scopes})
	if err != nil {
		return nil, ReplayStats{}, fmt.Errorf("deepresearch: %w: %w", ErrReplay, err)
	}
	var m runManifest
	switch ok, err := j.Manifest(&m); {
	case err != nil:
		return nil, ReplayStats{}, fmt.Errorf("deepresearch: %w: %w", ErrReplay, err)
	case !ok:
		return nil, ReplayStats{}, fmt.Errorf("deepresearch: %w: the journal has no header naming its run", ErrReplay)
	}
	r, err := replayer(m, opts)
	if err != nil {
		return nil, ReplayStats{}, err
	}
	defer r.Close()
	req := m.request()
	if err := req.check(); err != nil { // the journal is another program's
		return nil, ReplayStats{}, &StageError{Stage: events.StagePlan, Err: err}
	}
	rep, runErr := r.researchDurable(ctx, req, engine.Durability{Replay: j}, sink)
	s := j.Stats()
	stats := ReplayStats{Replayed: s.Replayed, Live: s.Live, Missed: s.Missed, Unused: s.Unused}
	return rep, stats, runErr
}

// errOffline answers a call a replay must not make.
var errOffline = errors.New("deepresearch: replay is offline: the call is not in the journal")

// offlineModel is the model of a stage that replays: it is never called,
// as the journal answers every call first.
type offlineModel struct{}

func (offlineModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, errOffline
}

func (m offlineModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// offlineBackend is the search backend of a replay.
type offlineBackend struct{}

func (offlineBackend) Search(context.Context, string, int) ([]search.Result, error) {
	return nil, errOffline
}

func (offlineBackend) Fetch(context.Context, string) (search.Document, error) {
	return search.Document{}, errOffline
}

// replayer builds the Researcher that replays a run recorded as m: its
// settings, offline models and backend, and opts.With's for the live
// stages.
func replayer(m runManifest, opts ReplayOptions) (*Researcher, error) {
	live := func(s events.Stage) bool { return slices.Contains(opts.Live, s) }
	cfg := Config{
		Model: offlineModel{}, Search: offlineBackend{}, Channel: m.Channel, Unsupported: m.Unsupported,
		Limits: Limits{MaxRunTokens: m.MaxRunTokens, MaxCost: m.MaxCost}, MaxRetries: -1,
		Judges: Judges{Lexical: true}, // the judges are the recording's, set below
	}
	if m.Prices != nil {
		prices := m.Prices
		cfg.Price = func(role string, u events.Usage) float64 {
			p := prices[role]
			return (float64(u.PromptTokens)*p[0] + float64(u.CompletionTokens)*p[1]) / 1e6
		}
	}
	w := opts.With
	borrowed := false
	if w != nil {
		cfg.Logger, cfg.Clock = &w.log, w.cfg.Clock
		if live(events.StagePlan) {
			cfg.PlannerModel = cmpModel(w.cfg.PlannerModel, w.cfg.Model)
		}
		if live(events.StageReport) {
			cfg.WriterModel = cmpModel(w.cfg.WriterModel, w.cfg.Model)
		}
		if live(events.StageResearch) {
			// The researcher searches live what the journal does not hold.
			cfg.ResearcherModel = cmpModel(w.cfg.ResearcherModel, w.cfg.Model)
			cfg.Search, cfg.Fetch = w.search, w.cfg.Fetch // w's, which the replay leaves open
			borrowed = true
		}
	}
	r, err := New(cfg)
	if err != nil {
		return nil, err
	}
	r.borrowed = borrowed
	if !live(events.StagePlan) || w == nil {
		// The recording's planner decides whether the run asked clarifying
		// questions: the built-in one never does, so its journal holds no
		// such call to answer from.
		r.offline = m.Models[events.RolePlanner] == "extractive"
	}
	if m.Judge != "lexical" {
		r.judge = &relevance.LLMJudge{Model: r.models[events.RoleResearcher]}
		if w != nil && live(events.StageResearch) && w.judge != nil {
			r.judge = w.judge
		}
	}
	if m.Verifier != "lexical" {
		r.verifyModel = r.models[events.RoleWriter]
		if w != nil && live(events.StageVerify) {
			r.verifyModel = cmpModel(w.verifyModel, w.models[events.RoleWriter])
		}
	}
	return r, nil
}

// cmpModel is the first model that is not nil; the built-in model when
// both are.
func cmpModel(ms ...llms.Model) llms.Model {
	for _, m := range ms {
		if m != nil {
			return m
		}
	}
	return extractive.New(extractive.Options{})
}

// ExportRun writes run id of st to w as one file — a zstd-compressed tar
// of the run's record, journal, events and report — that Replay can run
// anywhere (ReadExport reads it back). It holds no key: a run's journal
// and settings never do. The same run exports to the same bytes.
func ExportRun(ctx context.Context, st Store, id string, w io.Writer) error {
	run, err := st.Get(ctx, id)
	if err != nil {
		return err
	}
	p := runpack.Pack{Manifest: runpack.Manifest{Program: program()}}
	if p.Manifest.Run, err = json.Marshal(run); err != nil {
		return err
	}
	if p.Journal, err = st.Journal(ctx, id); err != nil {
		return err
	}
	if run.Events > 0 {
		// The events stored so far: a live run's log would go on.
		for e, err := range st.Events(ctx, id, 0) {
			if err != nil {
				return err
			}
			p.Events = append(p.Events, e.JSON)
			if e.Seq >= run.Events {
				break
			}
		}
	}
	switch p.Report, err = st.Report(ctx, id); {
	case errors.Is(err, runstore.ErrNotFound):
		p.Report = nil
	case err != nil:
		return err
	}
	return runpack.Write(w, p)
}

// ExportedRun is a run ExportRun wrote, read back.
type ExportedRun struct {
	Run runstore.Run
	// Journal holds the run's journal entries, for Replay.
	Journal [][]byte
	// Events holds its events as stored (JSON lines), in Seq order.
	Events [][]byte
	// Report is its report's JSON (LoadReport reads it); nil when it has
	// none.
	Report json.RawMessage
}

// ReadExport reads a run ExportRun wrote. The file is treated as
// untrusted: its size is bounded, and a file of another format or
// version is refused by name.
func ReadExport(r io.Reader) (*ExportedRun, error) {
	p, err := runpack.Read(r)
	if err != nil {
		return nil, fmt.Errorf("deepresearch: %w: %w", ErrReplay, err)
	}
	x := &ExportedRun{Journal: p.Journal, Events: p.Events, Report: p.Report}
	if err := json.Unmarshal(p.Manifest.Run, &x.Run); err != nil {
		return nil, fmt.Errorf("deepresearch: %w: the exported run's record: %w", ErrReplay, err)
	}
	return x, nil
}
