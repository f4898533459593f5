package httpapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/defaults"
)

// DefaultMaxResumes is how many times Resume takes up one run, at most,
// when asked with 0 (serve.max_resumes' default).
const DefaultMaxResumes = defaults.ServeMaxResumes

// Resume takes up the runs the store holds as interrupted that a server
// started — their process died, or a server shut down — each in a new
// attempt that answers from the run's journal every call it had completed
// (see deepresearch.ResearchDurable): nothing completed is paid for twice,
// and the run's events go on after the last one stored, so a client that
// reconnects with Last-Event-ID sees one stream. Call it before serving,
// so that no client finds such a run still interrupted. A run already
// taken up maxResumes times (0: DefaultMaxResumes) is not taken up again
// but ends failed, saying so: a run that crashes its server must not
// crash it forever. Runs beyond MaxRuns stay interrupted for a later
// start. It returns the IDs of the runs it resumed; it needs a store that
// can resume runs (deepresearch.ResumeStore, as sqlitestore's).
func (s *Server) Resume(ctx context.Context, maxResumes int) ([]string, error) {
	st, ok := s.store.(deepresearch.ResumeStore)
	if !ok {
		return nil, errors.New("httpapi: the store cannot resume runs (it keeps no journals)")
	}
	if maxResumes <= 0 {
		maxResumes = DefaultMaxResumes
	}
	runs, err := st.Interrupted(ctx, deepresearch.OriginServer)
	if err != nil {
		return nil, err
	}
	var resumed []string
	for _, run := range runs {
		log := s.log.With().Str("run", run.ID).Int("attempts", run.Attempts).Logger()
		if run.Attempts > maxResumes {
			msg := fmt.Sprintf("interrupted %d times; not resumed again (serve.max_resumes is %d)", run.Attempts, maxResumes)
			if err := st.GiveUp(ctx, run.ID, msg); err != nil {
				log.Error().Err(err).Msg("ending a run that is not resumed")
			}
			log.Warn().Msg("a run interrupted too often is not resumed")
			continue
		}
		err := s.launch(run.ID, func() (deepresearch.Request, deepresearch.Durable, error) {
			return deepresearch.ReopenRun(ctx, st, run.ID)
		})
		if err != nil {
			log.Warn().Err(err).Msg("an interrupted run is not resumed now")
			continue
		}
		log.Info().Msg("resuming an interrupted run")
		resumed = append(resumed, run.ID)
	}
	return resumed, nil
}
