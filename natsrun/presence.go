package natsrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deepresearch/deepresearch/clock"
)

// Presence: every Store (a server) and every Worker says it is alive by a
// heartbeat, a key of the presence bucket (Names.PresenceBucket:
// server.<name>, worker.<name>) rewritten every beat with the time on its
// clock and what it holds (a server's runs, a worker's tasks).
// Survey reads them with the leases and the work queue: who is alive,
// and where each run's tasks are.

// Member is a server or worker as its last heartbeat says.
type Member struct {
	Kind string    `json:"kind"` // "server" or "worker"
	Name string    `json:"name"`
	Seen time.Time `json:"seen"` // its last heartbeat, on its clock
	// Every is how often it beats; a member not seen for three beats is
	// not alive.
	Every time.Duration `json:"every"`
	Alive bool          `json:"alive"`
	// Runs are the runs a server owns; Tasks the tasks a worker runs
	// (run/cycle/task).
	Runs  []string `json:"runs,omitempty"`
	Tasks []string `json:"tasks,omitempty"`
}

// RunWork is where one run stands in the cluster: its lease, and its
// tasks queued (not yet taken by a worker) and running (on which worker).
type RunWork struct {
	Run string `json:"run"`
	// Owner holds the run's lease until LeaseExpires (empty: no lease,
	// the run is not live in a Store).
	Owner        string    `json:"owner,omitempty"`
	LeaseExpires time.Time `json:"lease_expires,omitzero"`
	// Queued counts the run's tasks in the work queue that no worker
	// says it runs; Running maps each task a worker runs to the worker.
	Queued  int               `json:"queued"`
	Running map[string]string `json:"running,omitempty"`
	// NoWorkerSince is since when one of the run's tasks has waited with
	// no worker alive (Agents.NoWorkerAfter), as its record in the store
	// says; zero when none does.
	NoWorkerSince time.Time `json:"no_worker_since,omitzero"`
}

// ClusterStatus is what Survey found.
type ClusterStatus struct {
	Servers []Member  `json:"servers"`
	Workers []Member  `json:"workers"`
	Runs    []RunWork `json:"runs"`
	// TasksWaiting and TasksRunning are the work queue's own counts: the
	// tasks no worker has taken, and those taken and not yet acked.
	TasksWaiting uint64 `json:"tasks_waiting"`
	TasksRunning int    `json:"tasks_running"`
}

// presenceTTL is how long the presence bucket keeps a heartbeat nobody
// rewrites (on the server's clock): a member gone for good leaves.
const presenceTTL = 10 * time.Minute

// presence opens (creating it if needed) the presence bucket of c.
func presence(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.KeyValue, error) {
	n := NamesOf(c)
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.PresenceBucket,
		Description: "deepresearch servers and workers alive: their heartbeats", History: 1, TTL: presenceTTL,
		Storage: jetstream.FileStorage, Replicas: max(c.Replicas, 1)})
	if err != nil {
		return nil, fmt.Errorf("natsrun: bucket %s: %w", n.PresenceBucket, err)
	}
	return kv, nil
}

// keyUnsafe matches what a KV key may not hold.
var keyUnsafe = regexp.MustCompile(`[^-_=A-Za-z0-9]`)

// beat writes m's heartbeat to kv.
func beat(ctx context.Context, kv jetstream.KeyValue, m Member) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = kv.Put(ctx, m.Kind+"."+keyUnsafe.ReplaceAllString(m.Name, "_"), b)
	return err
}

// heartbeat beats for the member what() says every period of c until
// ctx is done; a beat that fails is tried at the next.
func heartbeat(ctx context.Context, c clock.Clock, kv jetstream.KeyValue, period time.Duration, what func() Member) {
	t := clock.NewTicker(c, period)
	defer t.Stop()
	for {
		bctx, cancel := clock.WithTimeout(ctx, c, period)
		m := what()
		m.Seen, m.Every = c.Now(), period
		_ = beat(bctx, kv, m)
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// survey reads who is alive in the cluster of c and where each run's
// work stands: the servers' and workers' heartbeats, the runs' leases and
// the work queue. now is the time a heartbeat is judged alive against.
// It reads every heartbeat and lease: its cost grows with them.
func survey(ctx context.Context, js jetstream.JetStream, c Config, now time.Time) (ClusterStatus, error) {
	c, err := c.settle()
	if err != nil {
		return ClusterStatus{}, err
	}
	n := NamesOf(c)
	var out ClusterStatus
	runs := map[string]*RunWork{}
	work := func(id string) *RunWork {
		if runs[id] == nil {
			runs[id] = &RunWork{Run: id}
		}
		return runs[id]
	}
	if kv, err := js.KeyValue(ctx, n.PresenceBucket); err == nil {
		for e, err := range entries(ctx, kv, ">") {
			if err != nil {
				return out, fmt.Errorf("natsrun: bucket %s: %w", n.PresenceBucket, err)
			}
			var m Member
			if json.Unmarshal(e.Value(), &m) != nil {
				continue
			}
			m.Alive = now.Sub(m.Seen) < 3*m.Every
			switch m.Kind {
			case "server":
				out.Servers = append(out.Servers, m)
			case "worker":
				out.Workers = append(out.Workers, m)
				if m.Alive {
					for _, task := range m.Tasks {
						run, _, _ := strings.Cut(task, "/")
						w := work(run)
						if w.Running == nil {
							w.Running = map[string]string{}
						}
						w.Running[task] = m.Name
					}
				}
			}
		}
	} else if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return out, fmt.Errorf("natsrun: bucket %s: %w", n.PresenceBucket, err)
	}
	if kv, err := js.KeyValue(ctx, n.RunsBucket); err == nil {
		for e, err := range entries(ctx, kv, "lease.*") {
			if err != nil {
				return out, fmt.Errorf("natsrun: bucket %s: %w", n.RunsBucket, err)
			}
			var l leaseRec
			if json.Unmarshal(e.Value(), &l) == nil {
				w := work(strings.TrimPrefix(e.Key(), "lease."))
				w.Owner, w.LeaseExpires = l.Owner, l.Expires
			}
		}
		// A live run's record says whether its tasks wait for a worker.
		for id, w := range runs {
			if w.Owner == "" {
				continue
			}
			if e, err := kv.Get(ctx, runKey(id)); err == nil {
				var r record
				if json.Unmarshal(e.Value(), &r) == nil {
					w.NoWorkerSince = r.NoWorkerSince
				}
			}
		}
	} else if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return out, fmt.Errorf("natsrun: bucket %s: %w", n.RunsBucket, err)
	}
	st, err := js.Stream(ctx, n.TasksStream)
	if err != nil {
		return out, fmt.Errorf("natsrun: stream %s: %w", n.TasksStream, err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(n.prefix+".tasks.>"))
	if err != nil {
		return out, fmt.Errorf("natsrun: stream %s: %w", n.TasksStream, err)
	}
	for subject, count := range info.State.Subjects {
		w := work(strings.TrimPrefix(subject, n.prefix+".tasks."))
		w.Queued = max(int(count)-len(w.Running), 0)
	}
	if cons, err := st.Consumer(ctx, n.Consumer); err == nil {
		if ci, err := cons.Info(ctx); err == nil {
			out.TasksWaiting, out.TasksRunning = ci.NumPending, ci.NumAckPending
		}
	}
	for _, w := range runs {
		out.Runs = append(out.Runs, *w)
	}
	slices.SortFunc(out.Runs, func(a, b RunWork) int { return strings.Compare(a.Run, b.Run) })
	byName := func(a, b Member) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(out.Servers, byName)
	slices.SortFunc(out.Workers, byName)
	return out, nil
}

// workersAlive counts the workers whose heartbeats in the presence
// bucket of c say they are alive at now (none when the bucket does not
// exist yet).
func workersAlive(ctx context.Context, js jetstream.JetStream, c Config, now time.Time) (int, error) {
	n := NamesOf(c)
	kv, err := js.KeyValue(ctx, n.PresenceBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("natsrun: bucket %s: %w", n.PresenceBucket, err)
	}
	alive := 0
	for e, err := range entries(ctx, kv, "worker.*") {
		if err != nil {
			return 0, fmt.Errorf("natsrun: bucket %s: %w", n.PresenceBucket, err)
		}
		var m Member
		if json.Unmarshal(e.Value(), &m) == nil && now.Sub(m.Seen) < 3*m.Every {
			alive++
		}
	}
	return alive, nil
}

// entries yields the entries of kv whose keys match filter, as stored
// when it is called, through one watch; an error ends them.
func entries(ctx context.Context, kv jetstream.KeyValue, filter string) iter.Seq2[jetstream.KeyValueEntry, error] {
	return func(yield func(jetstream.KeyValueEntry, error) bool) {
		w, err := kv.Watch(ctx, filter, jetstream.IgnoreDeletes())
		if err != nil {
			yield(nil, err)
			return
		}
		defer w.Stop() //nolint:errcheck // it has delivered what it had
		for {
			select {
			case <-ctx.Done():
				yield(nil, context.Cause(ctx))
				return
			case e, ok := <-w.Updates():
				switch {
				case !ok:
					yield(nil, errors.New("the watch stopped"))
					return
				case e == nil:
					return // all that was stored has been delivered
				case !yield(e, nil):
					return
				}
			}
		}
	}
}
