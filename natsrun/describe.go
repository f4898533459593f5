package natsrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Connect connects to urls (a server or a comma-separated list of a
// cluster's servers) with the credentials file creds, if not empty, and
// the options extra (nats.Token, say), and reconnects for ever when a
// server is lost.
func Connect(urls, creds, name string, extra ...nats.Option) (*nats.Conn, jetstream.JetStream, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.ErrorHandler(asyncError)}
	if creds != "" {
		opts = append(opts, nats.UserCredentials(creds))
	}
	opts = append(opts, extra...)
	nc, err := nats.Connect(urls, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("natsrun: connecting to %s: %w", urls, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// asyncError reports an error of the connection's own goroutines on
// stderr, as nats.go does by default, but for a slow consumer: a follower
// that falls behind (Follow) drops what it cannot hold on purpose, and
// reads it from the stream.
func asyncError(_ *nats.Conn, sub *nats.Subscription, err error) {
	if errors.Is(err, nats.ErrSlowConsumer) {
		return
	}
	if sub != nil {
		fmt.Fprintf(os.Stderr, "nats: %v on subscription %q\n", err, sub.Subject)
		return
	}
	fmt.Fprintf(os.Stderr, "nats: %v\n", err)
}

// StreamStatus is one stream as Describe found it.
type StreamStatus struct {
	Name     string `json:"name"`
	Subjects string `json:"subjects"`
	Replicas int    `json:"replicas"`
	Messages uint64 `json:"messages"`
	// Cluster and Leader name the stream's cluster and leading server;
	// Current counts its replicas that are current.
	Cluster string `json:"cluster,omitempty"`
	Leader  string `json:"leader,omitempty"`
	Current int    `json:"current"`
	// Consumers counts its consumers.
	Consumers int    `json:"consumers"`
	Err       string `json:"error,omitempty"`
}

// describe reports the streams of c: each one's replicas, leader and size,
// or why it could not be read (not set up yet, no quorum). It is what
// `deepresearch doctor` shows.
func describe(ctx context.Context, js jetstream.JetStream, c Config) []StreamStatus {
	n := NamesOf(c)
	var out []StreamStatus
	for _, name := range []string{n.TasksStream, n.EventsStream, n.ResultsStream, n.JournalStream} {
		st := StreamStatus{Name: name}
		s, err := js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			st.Err = "not set up (a worker or coordinator sets it up when it starts)"
		} else if err != nil {
			st.Err = err.Error()
		}
		if err == nil {
			info := s.CachedInfo()
			st.Replicas, st.Messages, st.Consumers = info.Config.Replicas, info.State.Msgs, info.State.Consumers
			if len(info.Config.Subjects) > 0 {
				st.Subjects = info.Config.Subjects[0]
			}
			if ci := info.Cluster; ci != nil {
				st.Cluster, st.Leader, st.Current = ci.Name, ci.Leader, 1
				for _, p := range ci.Replicas {
					if p.Current {
						st.Current++
					}
				}
			}
		}
		out = append(out, st)
	}
	return out
}
