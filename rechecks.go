package deepresearch

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/recheck"
	"github.com/deepresearch/deepresearch/runstore"
)

// rechecker is the goroutine of a Runs that re-checks its stored reports
// every RunsOptions.RecheckEvery; Close stops it and waits for it.
type rechecker struct {
	stop context.CancelFunc
	done chan struct{}
}

// startRechecks starts the Runs' scheduled re-checks when RecheckEvery
// asks for them and the recorder can re-check (a Rechecker); else it
// logs why there are none.
func (rs *Runs) startRechecks() {
	if rs.opts.RecheckEvery <= 0 {
		return
	}
	rc, ok := rs.rec.(Rechecker)
	if !ok {
		rs.log.Warn().Msg("RecheckEvery is set, but the Runs' recorder cannot re-check reports: no scheduled re-checks")
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	rs.recheck = &rechecker{stop: stop, done: make(chan struct{})}
	go func() {
		defer close(rs.recheck.done)
		rs.keepRechecking(ctx, rc)
	}()
}

// stopRechecks stops the scheduled re-checks (a pass under way is
// canceled, and nothing of it is kept that was not kept yet) and waits
// for their goroutine.
func (rs *Runs) stopRechecks() {
	if rs.recheck != nil {
		rs.recheck.stop()
		<-rs.recheck.done
	}
}

// keepRechecking runs a re-check pass RecheckEvery of the Runs' clock
// after it starts, and again RecheckEvery after each pass ends, until ctx
// is done: passes never overlap. Runs found to cite no web page are
// remembered and not read again.
func (rs *Runs) keepRechecking(ctx context.Context, rc Rechecker) {
	noWeb := map[string]bool{}
	for {
		due, stop := clock.After(rs.opts.Clock, rs.opts.RecheckEvery)
		select {
		case <-ctx.Done():
			stop()
			return
		case <-due:
		}
		if err := rs.recheckPass(ctx, rc, noWeb); err != nil && ctx.Err() == nil {
			rs.log.Error().Err(err).Msg("re-checking the stored reports")
		}
	}
}

// recheckPass re-checks the report of every finished run the store holds
// (follow-ups aside) that cites a web page, the least recently checked
// first (never checked before all), RecheckParallel at a time, and
// keeps each result with its run (Store.PutRecheck). A report that no
// longer holds is logged as a warning. It returns what listing the runs
// gave; a run that fails is logged and the pass goes on.
func (rs *Runs) recheckPass(ctx context.Context, rc Rechecker, noWeb map[string]bool) error {
	runs, err := rs.st.List(ctx, 0)
	if err != nil {
		return err
	}
	type due struct {
		id   string
		last time.Time // zero: never checked
	}
	var todo []due
	for _, r := range runs {
		if r.Status != runstore.Finished || r.Parent != "" || noWeb[r.ID] {
			continue
		}
		d := due{id: r.ID}
		if last, err := rs.st.LastRecheck(ctx, r.ID); err == nil {
			d.last = last.Checked
		} else if !errors.Is(err, runstore.ErrNotFound) {
			return err
		}
		todo = append(todo, d)
	}
	slices.SortStableFunc(todo, func(a, b due) int { return cmp.Or(a.last.Compare(b.last), cmp.Compare(a.id, b.id)) })
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		sem = make(chan struct{}, rs.opts.RecheckParallel)
	)
	for _, d := range todo {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return context.Cause(ctx)
		}
		wg.Go(func() {
			defer func() { <-sem }()
			log := rs.log.With().Str("run", d.id).Logger()
			res, err := rc.RecheckRun(ctx, rs.st, d.id)
			switch {
			case err != nil:
				if ctx.Err() == nil {
					log.Warn().Err(err).Msg("re-checking a stored report")
				}
				return
			case !res.ReadWeb():
				mu.Lock()
				noWeb[d.id] = true
				mu.Unlock()
				return
			}
			if err := rs.keepRecheck(context.WithoutCancel(ctx), d.id, res); err != nil {
				log.Error().Err(err).Msg("storing a re-check")
			}
		})
	}
	wg.Wait()
	return nil
}

// keepRecheck stores res as run id's last re-check, when it read a web
// page, tells OnRecheck, and logs a report that no longer holds.
func (rs *Runs) keepRecheck(ctx context.Context, id string, res *recheck.Result) error {
	if !res.ReadWeb() {
		return nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("deepresearch: run %s: encoding its re-check: %w", res.RunID, err)
	}
	if err := rs.st.PutRecheck(ctx, runstore.Recheck{RunID: id, Checked: res.Checked, Holds: res.Holds, Result: b}); err != nil {
		return err
	}
	if rs.opts.OnRecheck != nil {
		rs.opts.OnRecheck(id, res)
	}
	if !res.Holds {
		rs.log.Warn().Str("run", id).Int("claims", len(res.Claims)).Int("changed", res.Summary.Changed).
			Int("gone", res.Summary.Gone).Msg("a stored report no longer holds: a claim's only support changed or went")
	}
	return nil
}

// LastRecheck returns the last re-check kept of stored run id — by the
// scheduled re-checks (RunsOptions.RecheckEvery) or by Recheck — or nil
// when there is none.
func (rs *Runs) LastRecheck(ctx context.Context, id string) (*recheck.Result, error) {
	rc, err := rs.st.LastRecheck(ctx, id)
	if errors.Is(err, runstore.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var res recheck.Result
	if err := json.Unmarshal(rc.Result, &res); err != nil {
		return nil, fmt.Errorf("deepresearch: run %s: its stored re-check: %w", id, err)
	}
	res.Checked, res.Holds = rc.Checked, rc.Holds
	return &res, nil
}
