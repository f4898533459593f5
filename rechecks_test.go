package deepresearch_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/recheck"
	"github.com/deepresearch/deepresearch/runstore"
)

// orderRechecker is a Researcher whose RecheckRun notes the runs it is
// asked to re-check, in order, and finds each unchanged: a web page
// read the same, or, for the runs in corpus, nothing but a corpus
// document (skipped).
type orderRechecker struct {
	*deepresearch.Researcher
	clock  clock.Clock
	corpus map[string]bool

	mu    sync.Mutex
	asked []string
}

func (o *orderRechecker) RecheckRun(_ context.Context, _ deepresearch.Store, id string) (*recheck.Result, error) {
	o.mu.Lock()
	o.asked = append(o.asked, id)
	o.mu.Unlock()
	src := recheck.Source{Number: 1, URL: "https://example.org/" + id, Status: recheck.Unchanged}
	if o.corpus[id] {
		src = recheck.Source{Number: 1, Status: recheck.Skipped, Detail: "not a web page"}
	}
	return &recheck.Result{RunID: id, Checked: o.clock.Now(), Holds: true,
		Sources: []recheck.Source{src}, Claims: []recheck.Claim{}}, nil
}

func (o *orderRechecker) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.asked
	o.asked = nil
	return out
}

// TestRecheckOrder: a scheduled pass re-checks the finished runs only
// (not a failed one, nor a follow-up), those never checked first, then
// the least recently checked; a run that cites no web page keeps no
// re-check and is not asked again.
func TestRecheckOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	c := deepresearchtest.NewClock(t0)
	st := deepresearchtest.NewStore(c)
	ctx := t.Context()
	for _, r := range []struct {
		id, parent string
		status     runstore.Status
		checked    time.Duration // 0: never
	}{
		{"a", "", runstore.Finished, 2 * time.Hour},
		{"b", "", runstore.Finished, 0},
		{"c", "", runstore.Finished, time.Hour},
		{"d", "", runstore.Failed, 0},
		{"e", "a", runstore.Finished, 0},
		{"f", "", runstore.Finished, 0},
	} {
		if err := st.Create(ctx, runstore.Run{ID: r.id, Question: "q " + r.id, Parent: r.parent}); err != nil {
			t.Fatal(err)
		}
		if err := st.Start(ctx, r.id); err != nil {
			t.Fatal(err)
		}
		if err := st.Finish(ctx, r.id, r.status, events.Usage{}, ""); err != nil {
			t.Fatal(err)
		}
		if r.checked > 0 {
			b, _ := json.Marshal(recheck.Result{RunID: r.id, Holds: true})
			if err := st.PutRecheck(ctx, runstore.Recheck{RunID: r.id, Checked: t0.Add(-r.checked), Holds: true, Result: b}); err != nil {
				t.Fatal(err)
			}
		}
	}
	rec := &orderRechecker{Researcher: newResearcher(t, deepresearch.Config{}), clock: c, corpus: map[string]bool{"f": true}}
	const every = time.Hour
	runs, err := deepresearch.NewRuns(rec, st, deepresearch.RunsOptions{RecheckEvery: every, RecheckParallel: 1, Clock: c})
	if err != nil {
		t.Fatal(err)
	}
	defer runs.Close()
	if err := c.WaitArmed(ctx, every); err != nil {
		t.Fatal(err)
	}
	pass := func() []string {
		t.Helper()
		c.Advance(every)
		if err := c.WaitArmed(ctx, every); err != nil {
			t.Fatal(err)
		}
		return rec.take()
	}
	if got, want := pass(), []string{"b", "f", "a", "c"}; !slices.Equal(got, want) {
		t.Errorf("the first pass re-checked %v, want %v", got, want)
	}
	for id, kept := range map[string]bool{"a": true, "b": true, "c": true, "d": false, "e": false, "f": false} {
		rc, err := runs.LastRecheck(ctx, id)
		if err != nil || (rc != nil) != kept {
			t.Errorf("run %s: LastRecheck = %+v, %v; want one kept: %v", id, rc, err, kept)
		}
		if kept && !rc.Checked.Equal(t0.Add(every)) {
			t.Errorf("run %s: checked %v, want %v", id, rc.Checked, t0.Add(every))
		}
	}
	if got, want := pass(), []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("the second pass re-checked %v, want %v", got, want)
	}
}
