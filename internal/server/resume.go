package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/store"
)

// What started a stored run (store.Run.Origin): a server resumes its own
// runs when it starts; a CLI run is resumed by `deepresearch resume`.
const (
	OriginServer = "server"
	OriginCLI    = "cli"
)

// DefaultMaxResumes is how many times Resume takes up one run, at most,
// when asked with 0.
const DefaultMaxResumes = 3

// request is the library request of a run the server started.
func (q runRequest) request(id string) deepresearch.Request {
	return deepresearch.Request{Question: q.Question, RunID: id, MaxTasks: q.MaxTasks,
		Parallelism: q.Parallelism, SearchLimit: q.SearchLimit, Style: q.Style}
}

// Resume takes up the runs this server's store holds as interrupted that
// a server started — their process died, or a server shut down — each
// in a new attempt that answers from the run's journal every call it had
// completed (see deepresearch.ResearchDurable): nothing completed is paid
// for twice, and the run's events go on after the last one stored. A run
// already taken up maxResumes times (0: DefaultMaxResumes) is not taken
// up again but ends failed, saying so: a run that crashes its server must
// not crash it forever. Runs beyond the server's MaxRuns stay interrupted
// for a later start. It returns the IDs of the runs it resumed.
func (s *Server) Resume(ctx context.Context, maxResumes int) ([]string, error) {
	if maxResumes <= 0 {
		maxResumes = DefaultMaxResumes
	}
	runs, err := s.store.Interrupted(ctx, OriginServer)
	if err != nil {
		return nil, err
	}
	var resumed []string
	for _, run := range runs {
		log := s.log.With().Str("run", run.ID).Int("attempts", run.Attempts).Logger()
		if run.Attempts > maxResumes {
			msg := fmt.Sprintf("interrupted %d times; not resumed again (serve.max_resumes is %d)", run.Attempts, maxResumes)
			if err := s.store.GiveUp(ctx, run.ID, msg); err != nil {
				log.Error().Err(err).Msg("ending a run that is not resumed")
			}
			log.Warn().Msg("a run interrupted too often is not resumed")
			continue
		}
		var q runRequest
		if err := json.Unmarshal(run.Options, &q); err != nil {
			log.Error().Err(err).Msg("a stored run's options are unreadable; it is not resumed")
			continue
		}
		q.Question = strings.TrimSpace(run.Question)
		var d deepresearch.Durable
		err := s.launch(run.ID, func(ctx context.Context) error {
			var err error
			d, err = reopen(ctx, s.store, run.ID)
			return err
		}, func(ctx context.Context) {
			log.Info().Int("events", len(d.Prior)).Msg("resuming an interrupted run")
			record(ctx, s.store, s.cfg.Runner, q.request(run.ID), d, nil, s.log, s.cfg.RunTimeout)
		})
		if err != nil {
			log.Warn().Err(err).Msg("an interrupted run is not resumed now")
			continue
		}
		resumed = append(resumed, run.ID)
	}
	return resumed, nil
}

// reopen reads the events of the interrupted run id, then reopens it for
// a new attempt (see store.Reopen): the run's state for ResearchDurable.
func reopen(ctx context.Context, st *store.Store, id string) (deepresearch.Durable, error) {
	d, err := priorOf(ctx, st, id)
	if err != nil {
		return d, err
	}
	run, err := st.Reopen(ctx, id)
	if err != nil {
		return d, err
	}
	d.Attempt = run.Attempts
	if len(d.Prior) != int(run.Events) {
		return d, fmt.Errorf("run %s: read %d events of %d", id, len(d.Prior), run.Events)
	}
	return d, nil
}

// priorOf reads every event stored for the interrupted run id, and the
// number of the attempt about to be made.
func priorOf(ctx context.Context, st *store.Store, id string) (deepresearch.Durable, error) {
	run, err := st.Get(ctx, id)
	if err != nil {
		return deepresearch.Durable{}, err
	}
	d := deepresearch.Durable{Attempt: run.Attempts + 1}
	stored, err := st.Logged(ctx, id)
	if err != nil {
		return d, err
	}
	for _, e := range stored {
		var ev deepresearch.Event
		if err := json.Unmarshal(e.JSON, &ev); err != nil {
			return d, fmt.Errorf("run %s, event %d: %w", id, e.Seq, err)
		}
		d.Prior = append(d.Prior, ev)
	}
	return d, nil
}

// ResumeRecord takes up the interrupted run id of st in a new attempt with
// r, and keeps it there as Record does: its events after those already
// stored (each stored before sink sees it), its report, cited sources and
// final status. It is `deepresearch resume ID`.
func ResumeRecord(ctx context.Context, st *store.Store, r Runner, id string, sink func(deepresearch.Event), log *zerolog.Logger) (*deepresearch.Report, error) {
	run, err := st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if run.Status != store.Interrupted {
		hint := ""
		if run.Status == store.Running {
			hint = " (a run whose process died is marked interrupted once its process is seen gone, or its lease of 30s has passed)"
		}
		return nil, fmt.Errorf("run %s is %s; only an interrupted run can be resumed%s", id, run.Status, hint)
	}
	var q runRequest
	if err := json.Unmarshal(run.Options, &q); err != nil {
		return nil, fmt.Errorf("run %s: its stored options are unreadable: %w", id, err)
	}
	q.Question = strings.TrimSpace(run.Question)
	d, err := reopen(context.WithoutCancel(ctx), st, id)
	if err != nil {
		return nil, err
	}
	l := zerolog.Nop()
	if log != nil {
		l = *log
	}
	return record(ctx, st, r, q.request(id), d, sink, l, 0)
}
