package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/config/load"
	"github.com/deepresearch/deepresearch/natsrun"
)

func init() { extraCommands = append(extraCommands, newWorkerCmd) }

// natsFlags are the flags of the commands that work through NATS
// JetStream (run, worker): --nats overrides nats.url.
type natsFlags struct {
	url     string
	ackWait time.Duration
}

func (f *natsFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "nats", "", "NATS server `URL`s, comma-separated (default: nats.url); agents then run on 'deepresearch worker' processes")
	fs.DurationVar(&f.ackWait, "ack-wait", 0, "the `DURATION` a task may go without a worker's heartbeat before another worker takes it (default 30s; workers and coordinators should agree)")
}

// apply puts the flags into s.
func (f *natsFlags) apply(s *config.Settings) {
	if f.url != "" {
		s.NATS.URL = f.url
	}
}

// settings reads the settings of a command that needs a NATS server
// (cmd names it in the error), with the flags applied: --nats or nats.url
// must name one.
func (f *natsFlags) settings(cmd *cobra.Command, file, name string) (config.Settings, error) {
	s, err := settings(cmd, file)
	if err != nil {
		return s, err
	}
	f.apply(&s)
	if s.NATS.URL == "" {
		return s, usageError{fmt.Errorf("%s needs a NATS server: --nats URL or nats.url", name)}
	}
	return s, nil
}

// natsAuth are the connection options that nats.token asks for.
func natsAuth(c config.NATS) []nats.Option {
	if c.Token == "" {
		return nil
	}
	return []nats.Option{nats.Token(c.Token)}
}

// natsConn is a connection to the JetStream cluster of nats.url with the
// streams set up.
type natsConn struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	cfg natsrun.Config
}

// connectNATS connects to s.NATS.URL and sets up the streams, saying what
// failed and where.
// cluster is the natsrun.Cluster of the connection.
func (c *natsConn) cluster() *natsrun.Cluster { return natsrun.NewCluster(c.js, c.cfg) }

func connectNATS(ctx context.Context, s config.Settings, f natsFlags, name string) (*natsConn, error) {
	nc, js, err := natsrun.Connect(s.NATS.URL, s.NATS.Credentials, name, natsAuth(s.NATS)...)
	if err != nil {
		return nil, fmt.Errorf("NATS at %s is unreachable: %w", s.NATS.URL, err)
	}
	cfg := natsrun.Config{Replicas: s.NATS.Replicas, AckWait: f.ackWait}
	// A cluster that has just started (or lost a node) elects its
	// JetStream leader first: tries of 5s, for 30s in all.
	deadline := time.Now().Add(30 * time.Second)
	for {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = natsrun.NewCluster(js, cfg).Setup(sctx)
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			nc.Close()
			return nil, context.Cause(ctx)
		}
		if time.Now().After(deadline) || errors.Is(err, natsrun.ErrConfig) {
			nc.Close()
			return nil, fmt.Errorf("NATS at %s: setting up the JetStream streams: %w (is JetStream enabled, and are %d servers up for %d replicas?)",
				s.NATS.URL, err, max(1, s.NATS.Replicas), max(1, s.NATS.Replicas))
		}
		select { // a quick refusal (no responders) is asked again shortly
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	return &natsConn{nc: nc, js: js, cfg: cfg}, nil
}

func newWorkerCmd() *cobra.Command {
	var (
		configFile  string
		nf          natsFlags
		concurrency int
	)
	cmd := &cobra.Command{
		Use:   "worker --nats URL",
		Short: "Run research agents for the runs of a NATS JetStream cluster",
		Long: `worker takes agent tasks from the work queue of a NATS JetStream cluster
(stream DEEPRESEARCH_TASKS, durable consumer "workers"), runs each agent with
the same code as an in-process run — its model, search backend and corpus from
this process's settings, which should match the coordinator's — and publishes
its result and events for the run's coordinator ('deepresearch run --nats').
Each model call is journaled in the run's journal (stream DEEPRESEARCH_JOURNAL),
so a task redelivered after its worker died replays the calls already made.

It runs until SIGINT or SIGTERM; then the tasks it holds are released to other
workers at once, and it exits 0.`,
		Example: `  deepresearch worker --nats nats://10.0.0.1:4222,nats://10.0.0.2:4222 --concurrency 8 --provider openai`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, err := nf.settings(cmd, configFile, "worker")
			if err != nil {
				return err
			}
			if concurrency < 1 {
				return usageError{fmt.Errorf("--concurrency %d: want at least 1", concurrency)}
			}
			logger, err := config.NewLogger(s, cmd.ErrOrStderr())
			if err != nil {
				return inputError(err)
			}
			cfg, err := config.ResearcherConfig(s, &logger)
			if err != nil {
				return inputError(err)
			}
			tel, stopTelemetry, err := startTelemetry(ctx, s, "worker")
			if err != nil {
				return inputError(err)
			}
			defer stopTelemetry() // after r.Close: every span ended
			tel.apply(&cfg)
			r, err := deepresearch.New(cfg)
			if err != nil {
				return inputError(err)
			}
			defer r.Close()
			host, _ := os.Hostname()
			name := fmt.Sprintf("%s/%d", host, os.Getpid())
			conn, err := connectNATS(ctx, s, nf, "deepresearch worker "+name)
			if err != nil {
				return err
			}
			defer conn.nc.Close()
			conn.cfg.Log = &logger // each task taken and how it ended
			n := natsrun.NamesOf(conn.cfg)
			fmt.Fprintf(cmd.ErrOrStderr(), "deepresearch worker %s: taking tasks from %s (stream %s, consumer %s), %d at once\n",
				name, conn.nc.ConnectedUrlRedacted(), n.TasksStream, n.Consumer, concurrency)
			err = conn.cluster().Serve(ctx, r, concurrency, name)
			if ctx.Err() != nil && errors.Is(err, context.Cause(ctx)) {
				return nil // stopped, as asked
			}
			return err
		},
	}
	// A task carries the run's limits (search limit, agent budget) and
	// the worker writes no report: its flags choose models and search.
	load.AddFlagsFor(cmd.Flags(), flagGroups(modelFlags, searchFlags, logFlags)...)
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration `FILE`")
	cmd.Flags().IntVar(&concurrency, "concurrency", 1, "`N` agents run at once")
	nf.add(cmd.Flags())
	return cmd
}
