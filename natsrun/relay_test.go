package natsrun_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/relay"
	"github.com/deepresearch/deepresearch/runstore"
)

// TestRelay: a word relayed by Store B for a run Store A owns reaches A's
// ServeRelayed once, with what it said, and B gets A's outcome, a
// refusal as A made it; a request left behind long ago is dropped
// unserved, and StopLost in B cancels nothing in A; a word for a run no
// Store serves fails, once B's clock has passed the relay's time, with
// relay.ErrUnanswered, leaving nothing in the bucket.
func TestRelay(t *testing.T) {
	js := standalone(t)
	c := deepresearchtest.NewClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	cl := natsrun.NewCluster(js, natsrun.Config{Prefix: "drrelay", Clock: c})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a failure bound only
	defer cancel()
	open := func(owner string) *natsrun.Store {
		st, err := cl.OpenStore(ctx, natsrun.StoreOptions{Owner: owner, LeaseTTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b := open("A"), open("B")
	if err := a.Create(ctx, runstore.Run{ID: "r1", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var served []relay.Request
	sctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		a.ServeRelayed(sctx, func(_ context.Context, id string, req relay.Request) relay.Outcome { //nolint:errcheck // stopped below
			mu.Lock()
			served = append(served, req)
			mu.Unlock()
			if id != "r1" {
				t.Errorf("served a request for %s", id)
			}
			if len(req.Answers) > 0 && req.Answers[0] == "too long" {
				return relay.Outcome{Refused: "invalid", Field: "answers", Problem: "is too long"}
			}
			return relay.Outcome{}
		})
	})
	defer func() { stop(); wg.Wait() }()

	// A request its asker left behind two minutes ago, then two live ones.
	kv, err := js.KeyValue(ctx, cl.Names().RunsBucket)
	if err != nil {
		t.Fatal(err)
	}
	stale, _ := json.Marshal(map[string]any{"kind": "cancel", "from": "B", "time": c.Now().Add(-2 * time.Minute)})
	if _, err := kv.Create(ctx, "ask.r1.STALE", stale); err != nil {
		t.Fatal(err)
	}
	out, err := b.Relay(ctx, "r1", relay.Request{Kind: relay.Answer, Answers: []string{"the Atlantic"}})
	if err != nil || out != (relay.Outcome{}) {
		t.Fatalf("the answer relayed: %+v, %v", out, err)
	}
	out, err = b.Relay(ctx, "r1", relay.Request{Kind: relay.Answer, Answers: []string{"too long"}})
	if want := (relay.Outcome{Refused: "invalid", Field: "answers", Problem: "is too long"}); err != nil || out != want {
		t.Fatalf("the refused answer relayed: %+v, %v; want A's outcome, %+v", out, err, want)
	}
	// StopLost in B, which does not have run r1 in progress, cancels
	// nothing in A: only the answer relayed after it reaches A.
	runsB, err := deepresearch.NewRuns(researcher(t, nil), b, deepresearch.RunsOptions{Clock: c})
	if err != nil {
		t.Fatal(err)
	}
	natsrun.StopLost(runsB)("r1")
	runsB.Close()
	if _, err := b.Relay(ctx, "r1", relay.Request{Kind: relay.Answer, Answers: []string{"again"}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(served) != 3 || served[0].Kind != relay.Answer || served[0].Answers[0] != "the Atlantic" ||
		served[2].Kind != relay.Answer || served[2].Answers[0] != "again" {
		t.Errorf("A served %+v; want the three answers only: not the stale cancellation, nor StopLost's", served)
	}
	mu.Unlock()

	// Nobody serves run r2. (Asked from a Store of a clock of its own,
	// so that the only wait of 20s armed on it is the relay's.)
	c2 := deepresearchtest.NewClock(c.Now())
	b2, err := natsrun.NewCluster(js, natsrun.Config{Prefix: "drrelay", Clock: c2}).OpenStore(ctx, natsrun.StoreOptions{Owner: "B2", LeaseTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	done := make(chan error, 1)
	go func() {
		_, err := b2.Relay(ctx, "r2", relay.Request{Kind: relay.Cancel})
		done <- err
	}()
	if err := c2.WaitArmed(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	c2.Advance(20 * time.Second)
	if err := <-done; !errors.Is(err, relay.ErrUnanswered) {
		t.Errorf("a word for a run nobody serves: %v; want relay.ErrUnanswered", err)
	}
	keys, err := kv.ListKeysFiltered(ctx, "ask.>", "reply.>")
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for k := range keys.Keys() {
		left = append(left, k)
	}
	if len(left) != 0 {
		t.Errorf("left in the runs bucket: %v", left)
	}
}
