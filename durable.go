package deepresearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/internal/search"
)

// Durable runs: a run recorded with ResearchDurable keeps a journal of
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
	// ErrReplay reports a journal that cannot be replayed, or a replay
	// that departed from its recording.
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

// journalQueue is a JournalStore that orders an entry without waiting for
// its commit (the SQLite store does): QueueJournal returns once entry is
// queued ahead of everything appended to the store after it returns, to
// be committed before it or with it, and tells done the outcome.
type journalQueue interface {
	QueueJournal(ctx context.Context, run string, entry []byte, done func(error)) error
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

func (l journalLog) Entries(ctx context.Context, run string) ([][]byte, error) {
	return l.st.Journal(ctx, run)
}

// Durable says how a run is kept (ResearchDurable).
type Durable struct {
	// Journal keeps the run's journal, under Request.RunID (which must
	// then be set). Nil keeps none.
	Journal JournalStore
	// Prior holds every event the run's earlier attempts stored, in Seq
	// order; empty for a run's first attempt. The run's events go on
	// after them.
	Prior []Event
	// Attempt numbers this attempt of the run, from 1; 0 means 2 when
	// Prior is not empty.
	Attempt int

	replay *journal.Journal // Replay's journal, opened offline
}

// ResearchDurable is Research, keeping the run durable as d says: every
// call the run's journal holds is answered from it, every other call is
// made and appended to it; the events continue after d.Prior (see
// events.Emitter.Resume: each event the earlier attempts stored is
// recognised and not emitted again; a RunResumed event opens the new
// attempt). A run resumed by a Researcher whose settings differ from the
// recording's (models, limits, judges) fails with ErrJournalMismatch
// before anything is called.
func (r *Researcher) ResearchDurable(ctx context.Context, req Request, d Durable, sink func(Event)) (*Report, error) {
	req, style, err := r.settle(req)
	if err != nil {
		return nil, &StageError{Stage: StagePlan, Err: err}
	}
	ctx, end, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	ctx, em, err := r.durable(ctx, req, d, sink)
	if err != nil {
		return nil, &StageError{Stage: StagePlan, Err: err}
	}
	defer em.Close()
	return r.run(ctx, req, style, em)
}

// durable opens req's journal as d says and returns ctx carrying it, and
// the run's emitter, resumed after d.Prior.
func (r *Researcher) durable(ctx context.Context, req Request, d Durable, sink func(Event)) (context.Context, *events.Emitter, error) {
	log := r.log.With().Str("run", req.RunID).Logger()
	var sinks []events.Sink
	if sink != nil {
		sinks = append(sinks, events.SinkFunc(sink))
	}
	em := events.NewEmitter(req.RunID, r.cfg.Clock.Now, sinks...)
	if len(d.Prior) > 0 {
		attempt := d.Attempt
		if attempt == 0 {
			attempt = 2
		}
		prior := d.Prior
		if prior[0].RunID != req.RunID {
			return nil, nil, fmt.Errorf("the prior events are of run %s, not %s", prior[0].RunID, req.RunID)
		}
		if err := em.Resume(prior, attempt, func(agent int, committed, got events.Type) {
			log.Warn().Int("agent", agent).Str("stored", string(committed)).Str("now", string(got)).
				Msg("the resumed run departs from the events its earlier attempt stored; the agent's events go on from here")
		}); err != nil {
			return nil, nil, err
		}
	}
	if d.replay != nil {
		return journal.NewContext(ctx, d.replay), em, nil
	}
	if d.Journal == nil {
		return ctx, em, nil
	}
	failed := func(err error) {
		log.Error().Err(err).Msg("a completed call could not be journaled; resuming the run would make it again")
	}
	jl := journalLog{st: d.Journal, failed: failed}
	j, err := journal.Open(ctx, jl, req.RunID, journal.Options{
		Log: jl, Clock: r.cfg.Clock.Now, Hooks: journal.Hooks{AppendFailed: failed},
	})
	if err != nil {
		return nil, nil, err
	}
	m := r.manifest(req)
	var stored runManifest
	switch ok, err := j.Manifest(&stored); {
	case err != nil:
		return nil, nil, err
	case ok:
		if diff := stored.differs(m); diff != "" {
			return nil, nil, fmt.Errorf("%w: %s", ErrJournalMismatch, diff)
		}
	default:
		b, err := json.Marshal(m)
		if err != nil {
			return nil, nil, err
		}
		if err := j.WriteHeader(ctx, journal.Header{Program: program(), Manifest: b}); err != nil {
			return nil, nil, err
		}
	}
	if n := j.Len(); n > 0 {
		log.Info().Int("journaled", n).Int("events", len(d.Prior)).Msg("resuming from the journal")
	}
	return journal.NewContext(ctx, j), em, nil
}

// runManifest is what a journal's header keeps of how its run was made:
// everything that shapes the run's calls besides their answers, so that a
// replay can run it again and a resumption can check it is the same run.
// It holds no key and no address.
type runManifest struct {
	// Request is the run's request, its zero fields filled in.
	Request Request `json:"request"`
	// Models names the model of each role ("openai:gpt-4.1-mini").
	Models map[string]string `json:"models"`
	// Judge and Verifier say what judges relevance and support: "model"
	// or "lexical".
	Judge    string `json:"judge"`
	Verifier string `json:"verifier"`
	// Channel is the Source.Channel of search results; Pages says whether
	// runs read web pages.
	Channel     string `json:"channel"`
	Pages       bool   `json:"pages,omitempty"`
	Unsupported string `json:"unsupported"`
	// MaxRunTokens and MaxCost are the run budgets; Prices the dollars
	// per million prompt and completion tokens of each role's model, as
	// Config.Price says.
	MaxRunTokens int                   `json:"max_run_tokens,omitempty"`
	MaxCost      float64               `json:"max_cost,omitempty"`
	Prices       map[string][2]float64 `json:"prices,omitempty"`
}

// differs names the first setting in which o differs from m ("" when
// none does).
func (m runManifest) differs(o runManifest) string {
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
	m := runManifest{Request: req, Models: map[string]string{}, Judge: "lexical", Verifier: "lexical",
		Channel: r.channel(), Pages: r.pages, Unsupported: r.cfg.Unsupported,
		MaxRunTokens: r.cfg.MaxRunTokens, MaxCost: r.cfg.MaxCost}
	base := r.cfg.Model
	for role, rm := range map[string]llms.Model{RolePlanner: r.cfg.PlannerModel, RoleResearcher: r.cfg.ResearcherModel, RoleWriter: r.cfg.WriterModel} {
		if rm == nil {
			rm = base
		}
		m.Models[role] = modelName(rm)
	}
	if r.judge != nil {
		m.Judge = "model"
	}
	if r.verifyModel != nil {
		m.Verifier = "model"
	}
	if r.cfg.Price != nil {
		m.Prices = map[string][2]float64{}
		for _, role := range []string{RolePlanner, RoleResearcher, RoleWriter} {
			m.Prices[role] = [2]float64{r.cfg.Price(role, Usage{PromptTokens: 1e6}), r.cfg.Price(role, Usage{CompletionTokens: 1e6})}
		}
	}
	return m
}

// modelName names a model for the manifest: "provider:name" for a
// provider's, "extractive" for the built-in one.
func modelName(m llms.Model) string {
	switch m := m.(type) {
	case nil, *extractive.Model:
		return "extractive"
	case interface{ Provider() string }:
		if n, ok := m.(interface{ Name() string }); ok {
			return m.Provider() + ":" + n.Name()
		}
		return m.Provider()
	}
	return fmt.Sprintf("%T", m)
}

// program names this program and its version, for journal headers.
func program() string {
	v := "(unknown)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
	}
	return "deepresearch " + v
}

// The stages Replay can run live.
const (
	LivePlanner    = "planner"
	LiveResearcher = "researcher"
	LiveWriter     = "writer"
	LiveVerify     = "verify"
)

// The scopes of a run's calls in its journal: the stage, then for an
// agent its task.
func scopeAgent(taskID string) string { return LiveResearcher + "/" + taskID }

// ReplayOptions tune Replay.
type ReplayOptions struct {
	// Live names stages (LivePlanner, LiveResearcher, LiveWriter,
	// LiveVerify) whose model calls are made again, live, with With's
	// models (a researcher stage also searches with With's backend what
	// the journal does not hold); every other call is answered from the
	// journal.
	Live []string
	// With supplies the live stages' models and search backend: a
	// Researcher built from the settings (FromSettings). Needed when Live
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
// Replay reports events to sink (if not nil) as Research does. Without
// live stages, a replay that asked for calls its journal lacks, or left
// some unused, departed from its recording: it returns its report and an
// error matching ErrReplay that says so. A journal written in a format
// version this program does not read is refused by name.
func Replay(ctx context.Context, entries [][]byte, opts ReplayOptions, sink func(Event)) (*Report, ReplayStats, error) {
	for _, s := range opts.Live {
		if !slices.Contains([]string{LivePlanner, LiveResearcher, LiveWriter, LiveVerify}, s) {
			return nil, ReplayStats{}, configErrorf("live stage %q: want planner, researcher, writer or verify", s)
		}
	}
	if len(opts.Live) > 0 && opts.With == nil {
		return nil, ReplayStats{}, configErrorf("live stages need a Researcher (ReplayOptions.With) to run them")
	}
	j, err := journal.New("", entries, journal.Options{Offline: true, Live: opts.Live})
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
	rep, runErr := r.ResearchDurable(ctx, m.Request, Durable{replay: j}, sink)
	s := j.Stats()
	stats := ReplayStats{Replayed: s.Replayed, Live: s.Live, Missed: s.Missed, Unused: s.Unused}
	if runErr == nil && len(opts.Live) == 0 && (s.Missed > 0 || s.Unused > 0) {
		runErr = fmt.Errorf("deepresearch: %w: the run departed from its recording: %d calls were not in the journal, %d journaled calls were not made",
			ErrReplay, s.Missed, s.Unused)
	}
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
	live := func(s string) bool { return slices.Contains(opts.Live, s) }
	cfg := Config{
		Model: offlineModel{}, Search: offlineBackend{}, Channel: m.Channel, Unsupported: m.Unsupported,
		MaxRunTokens: m.MaxRunTokens, MaxCost: m.MaxCost, MaxRetries: -1,
	}
	if m.Prices != nil {
		prices := m.Prices
		cfg.Price = func(role string, u Usage) float64 {
			p := prices[role]
			return (float64(u.PromptTokens)*p[0] + float64(u.CompletionTokens)*p[1]) / 1e6
		}
	}
	w := opts.With
	if w != nil {
		cfg.Logger, cfg.Clock = &w.log, w.cfg.Clock
		if live(LivePlanner) {
			cfg.PlannerModel = cmpModel(w.cfg.PlannerModel, w.cfg.Model)
		}
		if live(LiveWriter) {
			cfg.WriterModel = cmpModel(w.cfg.WriterModel, w.cfg.Model)
		}
		if live(LiveResearcher) {
			cfg.ResearcherModel = cmpModel(w.cfg.ResearcherModel, w.cfg.Model)
			cfg.Search, cfg.Corpus, cfg.IndexPath, cfg.Fetch = w.cfg.Search, w.cfg.Corpus, w.cfg.IndexPath, w.cfg.Fetch
		}
	}
	r, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if w != nil && live(LiveResearcher) {
		r.search, r.pages = w.search, w.pages
	}
	if m.Judge == "model" {
		r.judge = &relevance.LLMJudge{Model: r.models[RoleResearcher]}
	}
	if m.Verifier == "model" {
		r.verifyModel = r.models[RoleWriter]
		if w != nil && live(LiveVerify) {
			r.verifyModel = journal.Model{Model: r.withRetries(cmpModel(w.cfg.WriterModel, w.cfg.Model))}
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
