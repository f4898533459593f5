package httpapi

import (
	"context"
	"fmt"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/clock"
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
// start. It returns the IDs of the runs it resumed.
func (s *Server) Resume(ctx context.Context, maxResumes int) ([]string, error) {
	st := s.store
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

// ResumeEvery is how often KeepResuming looks for interrupted runs when
// asked with 0: a third of sqlitestore's lease (30s), as its heartbeat.
const ResumeEvery = 10 * time.Second

// KeepResuming calls Resume every period (0: ResumeEvery) of the
// server's clock until ctx is done or the server is closed, and returns
// then. A run whose process died while its lease still held — a server
// started within the lease of one that was killed, whose process cannot
// be seen gone — is marked interrupted by the store once the lease has
// passed; KeepResuming takes it up then, not at this server's next start.
// So it does a run interrupted by another server's shutdown, or left
// interrupted beyond MaxRuns once a slot is free. Call Resume first, before
// serving; KeepResuming's goroutine is the caller's.
func (s *Server) KeepResuming(ctx context.Context, maxResumes int, period time.Duration) {
	if period <= 0 {
		period = ResumeEvery
	}
	t := clock.NewTicker(s.cfg.Clock, period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return
		}
		ids, err := s.Resume(ctx, maxResumes)
		if err != nil {
			s.log.Error().Err(err).Msg("resuming interrupted runs")
		} else if len(ids) > 0 {
			s.log.Info().Strs("runs", ids).Msg("resumed interrupted runs")
		}
	}
}
