package natsrun

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/relay"
	"github.com/deepresearch/deepresearch/runstore"
)

// Relaying: a person's word about a run (its cancellation, answers, a
// plan review) given to any server reaches the server that owns the run
// through the runs bucket, not by calling it. The asker creates the key
// ask.<run>.<nonce> (a relayRec) and watches reply.<run>.<nonce>; the
// owner's Store (ServeRelayed) watches ask.>, claims each request for a
// run it holds by deleting the key (a compare-and-set on its revision, so
// a request is served once), has its Runs do it, and puts the outcome at
// the reply key; the asker reads it and purges both keys.
//
// So only a client that may write the runs bucket can relay a word: the
// same credential that writes runs, leases and events (see the cluster
// page of the docs for the NATS permissions that keep workers out of it).
// A request made while no Store holds the run (its owner died and its
// lease has not passed) is not served: its asker gives up after relayTry.

// relayTry bounds a relayed request: the asker's wait for its outcome,
// and the owner's work on it.
const relayTry = 20 * time.Second

// relayRec is a relayed request as the runs bucket keeps it.
type relayRec struct {
	relay.Request
	// From names the Store that relayed it; Time is when, on its clock.
	From string    `json:"from"`
	Time time.Time `json:"time"`
}

func askKey(id, nonce string) string   { return "ask." + id + "." + nonce }
func replyKey(id, nonce string) string { return "reply." + id + "." + nonce }

var _ relay.Store = (*Store)(nil)

// Relay stores req for the Store that owns run id and waits, at most
// relayTry on the Store's clock, for its outcome; no outcome by then is
// an error wrapping relay.ErrUnanswered.
func (s *Store) Relay(ctx context.Context, id string, req relay.Request) (relay.Outcome, error) {
	var out relay.Outcome
	if checkID("relay", id) != nil {
		return out, storeErr("relay", id, runstore.ErrNotFound)
	}
	nonce := rand.Text()[:16]
	b, err := json.Marshal(relayRec{Request: req, From: s.owner, Time: s.clock.Now()})
	if err != nil {
		return out, storeErr("relay", id, err)
	}
	tctx, cancel := clock.WithTimeout(ctx, s.clock, relayTry)
	defer cancel()
	// failed is the error of a step that failed: the relay's time up
	// (whichever step it ended) says so.
	failed := func(err error) error {
		switch {
		case ctx.Err() != nil:
			return context.Cause(ctx)
		case tctx.Err() != nil:
			return storeErr("relay", id, fmt.Errorf("%w within %s", relay.ErrUnanswered, relayTry))
		}
		return storeErr("relay", id, err)
	}
	// Watched first: an outcome put at once is not missed.
	w, err := s.kv.Watch(tctx, replyKey(id, nonce), jetstream.IgnoreDeletes())
	if err != nil {
		return out, failed(err)
	}
	defer w.Stop() //nolint:errcheck // it has delivered what it had
	defer func() {
		cctx, cancel := clock.WithTimeout(context.WithoutCancel(ctx), s.clock, closeTry)
		defer cancel()
		_ = s.kv.Purge(cctx, askKey(id, nonce))
		_ = s.kv.Purge(cctx, replyKey(id, nonce))
	}()
	if _, err := s.kv.Create(tctx, askKey(id, nonce), b); err != nil {
		return out, failed(err)
	}
	for {
		select {
		case <-tctx.Done():
			return out, failed(nil)
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				return out, failed(errors.New("the watch for the answer stopped"))
			case e == nil:
				continue // nothing stored yet
			}
			if err := json.Unmarshal(e.Value(), &out); err != nil {
				return out, storeErr("relay", id, fmt.Errorf("the answer is unreadable: %w", err))
			}
			return out, nil
		}
	}
}

// ServeRelayed serves what other Stores relay to the runs this Store
// owns: each request is claimed (deleted by revision, so served once),
// given to fn on a goroutine of its own with at most relayTry to answer,
// and its outcome put where its asker watches. A request made long before
// (more than relayTry and a minute, by the clocks of the Stores: its
// asker gave up and died before it could take it back) is dropped. It returns when ctx is
// done, after the fn calls under way, with context.Cause(ctx), or with
// an error when the watch fails.
func (s *Store) ServeRelayed(ctx context.Context, fn func(ctx context.Context, id string, req relay.Request) relay.Outcome) error {
	w, err := s.kv.Watch(ctx, "ask.>", jetstream.IgnoreDeletes())
	if err != nil {
		return storeErr("serve relayed", "", err)
	}
	defer w.Stop() //nolint:errcheck // it stops with ctx
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var e jetstream.KeyValueEntry
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case u, ok := <-w.Updates():
			if !ok {
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
				return storeErr("serve relayed", "", errors.New("the watch stopped"))
			}
			e = u
		}
		if e == nil {
			continue // what was stored has been delivered
		}
		id, nonce, ok := strings.Cut(strings.TrimPrefix(e.Key(), "ask."), ".")
		if !ok || s.holding(id) == nil {
			continue // another Store's run, or none's
		}
		if s.kv.Delete(ctx, e.Key(), jetstream.LastRevision(e.Revision())) != nil {
			continue // claimed, or given up, meanwhile
		}
		var rec relayRec
		err := json.Unmarshal(e.Value(), &rec)
		if err == nil && s.clock.Now().Sub(rec.Time) > relayTry+time.Minute {
			// Its asker gave up long ago (and died before it could take
			// the request back): a word nobody waits for is not done.
			continue
		}
		wg.Go(func() {
			var out relay.Outcome
			if err != nil {
				out = relay.Failed(fmt.Errorf("the relayed request is unreadable: %w", err))
			} else {
				fctx, cancel := clock.WithTimeout(ctx, s.clock, relayTry)
				out = fn(fctx, id, rec.Request)
				cancel()
			}
			b, err := json.Marshal(out)
			if err != nil {
				return
			}
			pctx, cancel := clock.WithTimeout(context.WithoutCancel(ctx), s.clock, closeTry)
			defer cancel()
			_, _ = s.kv.Put(pctx, replyKey(id, nonce), b)
		})
	}
}
