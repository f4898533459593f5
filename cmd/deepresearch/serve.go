package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/config/load"
	"github.com/deepresearch/deepresearch/httpapi"
	"github.com/deepresearch/deepresearch/natsrun"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
	"github.com/deepresearch/deepresearch/worker"
)

func init() { extraCommands = append(extraCommands, newServeCmd) }

func newServeCmd() *cobra.Command {
	var configFile string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve research over HTTP: runs, live event streams, an OpenAI-compatible chat endpoint and a web page",
		Long: `serve listens on serve.addr (--addr; loopback by default) and serves:

  POST   /v1/research              start a run (202, its id and URLs)
  GET    /v1/research/{id}         status, usage and the report (?format=md|html|json)
  DELETE /v1/research/{id}         cancel a run
  GET    /v1/research/{id}/events  events as server-sent events (Last-Event-ID resumes),
                                   or NDJSON for Accept: application/x-ndjson
  POST   /v1/chat/completions      OpenAI-compatible (model "deepresearch"), streaming or not
  GET    /v1/models, GET /healthz, GET / (a web page)

Runs, their events, journals, reports and cited sources are kept in the run
store (store.path). Runs a server left interrupted (killed, crashed or shut
down) are resumed when it starts again (serve.resume: auto; at most
serve.max_resumes times each): every model call, search and page read they
had completed is answered from their journal, and their events go on where
they stopped. A bearer token (serve.token, better DEEPRESEARCH_SERVE_TOKEN;
at least 16 characters, no spaces) is required when set, and must be set to
listen beyond the loopback interface. Without one, the server answers only
requests whose Host names the address it listens on, and no /v1 request from
a web page of another origin. The first line on stdout says where it listens
(useful with --addr 127.0.0.1:0).

With nats.url, the runs' agents run on 'deepresearch worker' processes of
that NATS JetStream cluster, and the cluster is the run store (not
store.path): every serve process of it serves every run, and a run whose
server died is taken over by another once its lease (nats.lease_ttl, 30s)
has passed, going on from its journal. Without it, --nats-listen HOST:PORT (nats.listen)
makes the server a hub of its own: it runs an embedded JetStream server there
(its streams in nats.store_dir, by default beside store.path), which is its
run store too, takes nats.workers agents at once itself (default 4), and
workers started with --nats nats://HOST:PORT take the rest; the second line
on stdout says where. 'deepresearch export --nats URL ID' exports a run of a
cluster's store.
Beyond the loopback interface the hub requires nats.token
(DEEPRESEARCH_NATS_TOKEN), which workers then send too.`,
		Example: `  deepresearch serve --corpus ./docs
  DEEPRESEARCH_SERVE_TOKEN=… deepresearch serve --addr :8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return serve(cmd, configFile) },
	}
	// Each request names its report's format: no --format.
	load.AddFlagsFor(cmd.Flags(), flagGroups(modelFlags, searchFlags, limitFlags, []string{"style", "store"}, logFlags)...)
	load.AddServeFlags(cmd.Flags())
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration `FILE`")
	return cmd
}

func serve(cmd *cobra.Command, configFile string) error {
	ctx := cmd.Context()
	s, err := settings(cmd, configFile)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(s.Serve.Addr)
	if err != nil {
		return inputError(fmt.Errorf("serve.addr %q: %w", s.Serve.Addr, err))
	}
	if !config.IsLoopback(host) && s.Serve.Token == "" {
		return inputError(fmt.Errorf("serve.addr %s listens beyond this machine, so a token is required: set DEEPRESEARCH_SERVE_TOKEN (or serve.token), or listen on 127.0.0.1", s.Serve.Addr))
	}
	logger, err := config.NewLogger(s, cmd.ErrOrStderr())
	if err != nil {
		return inputError(err)
	}
	cfg, err := config.ResearcherConfig(s, &logger)
	if err != nil {
		return inputError(err)
	}
	tel, stopTelemetry, err := startTelemetry(ctx, s, "serve")
	if err != nil {
		return inputError(err)
	}
	defer stopTelemetry() // after r.Close: every span ended
	tel.apply(&cfg)
	// Without nats.url but with nats.listen, the server is a hub: a
	// JetStream server of its own, which workers join. Either way the
	// cluster is the run store (natsrun.Store): every server of it
	// serves, resumes and takes over every run.
	var hub *natsrun.Embedded
	if s.NATS.URL == "" && s.NATS.Listen != "" {
		if hub, err = startHub(s); err != nil {
			return err
		}
		defer hub.Close()
		s.NATS.URL = hub.URL()
	}
	// With NATS, the runs' agents run on workers ('deepresearch worker').
	coord, err := coordinate(ctx, s, natsFlags{}, &cfg, "deepresearch serve")
	if err != nil {
		return err
	}
	defer coord.Close()
	if coord != nil {
		// The runs' journals are the journal stream's, where the workers
		// append their agents' calls: there is nothing to copy into them.
		cfg.Agents = runnerOnly{cfg.Agents}
	}
	r, err := deepresearch.New(cfg)
	if err != nil {
		return inputError(err)
	}
	defer r.Close()
	if hub != nil && s.NATS.Workers > 0 {
		// The hub's own workers: this process takes its share of the
		// agents, as a worker process would.
		wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := coord.conn.cluster().Serve(wctx, r, s.NATS.Workers, "serve"); wctx.Err() == nil {
				logger.Error().Err(err).Msg("the hub's own workers stopped: its runs' agents wait for worker processes")
			}
		}()
		defer func() { stop(); <-done }()
	}
	var st deepresearch.Store
	var cluster *natsrun.Store
	if coord != nil {
		if cluster, err = coord.conn.cluster().OpenStore(ctx, natsrun.StoreOptions{LeaseTTL: s.NATS.LeaseTTL, Owner: serverName()}); err != nil {
			return fmt.Errorf("opening the cluster's run store at %s: %w", s.NATS.URL, err)
		}
		defer cluster.Close()
		st = cluster
		// A run whose tasks wait with no worker alive says so in its
		// status on every server (set before any run starts).
		coord.Agents.OnNoWorker = func(run string, since time.Time) {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := cluster.SetNoWorker(sctx, run, since); err != nil {
				logger.Debug().Err(err).Str("run", run).Msg("keeping whether the run's tasks wait for a worker")
			}
		}
	} else {
		local, err := openStore(ctx, s)
		if err != nil {
			return err
		}
		defer local.Close()
		st = local
	}
	// The runs' life — admission, time limits, plan reviews, resuming —
	// is the library's (deepresearch.Runs); the server is its HTTP codec.
	runs, err := newRuns(s, r, st, runstore.OriginServer, &logger)
	if err != nil {
		return err
	}
	defer runs.Close()
	if cluster != nil {
		// A run whose lease another server took over stops here; a
		// person's word given to another server for a run in progress
		// here reaches it through the store (relay.Store).
		cluster.OnLost(natsrun.StopLost(runs))
	}
	var survey httpapi.ClusterFunc // GET /v1/cluster, with NATS
	if coord != nil {
		survey = func(ctx context.Context) (any, error) {
			return coord.conn.cluster().Survey(ctx)
		}
	}
	srv, err := httpapi.New(httpapi.Config{Runs: runs, Token: s.Serve.Token, Cluster: survey, MaxBody: s.Serve.MaxBody, Logger: &logger, Render: config.RenderOptions(s)})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.Serve.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if s.Serve.Resume == "auto" {
		// Runs a server of this store left interrupted go on, from their
		// journals; their clients reconnect with Last-Event-ID. They are
		// taken up before the first request is served, so that a client
		// never finds one of them still interrupted.
		ids, err := runs.Resume(ctx)
		if err != nil {
			logger.Error().Err(err).Msg("resuming interrupted runs")
		} else if len(ids) > 0 {
			logger.Info().Strs("runs", ids).Msg("resumed interrupted runs")
		}
		// And those interrupted later: a run whose process died within
		// its lease is interrupted once the lease has passed.
		kctx, stopResuming := context.WithCancel(ctx)
		resuming := make(chan struct{})
		every := time.Duration(0) // Runs.KeepResuming's default
		if cluster != nil {
			every = max(s.NATS.LeaseTTL/3, time.Second) // a run the cluster store sweeps is taken over soon
		}
		go func() { defer close(resuming); runs.KeepResuming(kctx, every) }()
		defer func() { stopResuming(); <-resuming }()
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(cmd.OutOrStdout(), "deepresearch: listening on http://%s\n", ln.Addr())
	if hub != nil {
		fmt.Fprintf(cmd.OutOrStdout(), "deepresearch: NATS JetStream for workers on nats://%s\n", hub.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err = <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// Stop: the runs in progress end interrupted (their streams then end),
	// then open connections get a few seconds to finish.
	runs.Close()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// serverName names this server process in the leases of the runs it
// owns: its host and process ID.
func serverName() string {
	host, err := os.Hostname()
	if err != nil {
		host = "serve"
	}
	return host + "-" + strconv.Itoa(os.Getpid())
}

// startHub starts serve's embedded JetStream server on nats.listen, its
// streams in nats.store_dir (default: a "nats" directory beside the run
// store), requiring nats.token when it is set.
func startHub(s config.Settings) (*natsrun.Embedded, error) {
	host, port, err := net.SplitHostPort(s.NATS.Listen)
	if err != nil {
		return nil, inputError(fmt.Errorf("nats.listen %q: %w", s.NATS.Listen, err))
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return nil, inputError(fmt.Errorf("nats.listen %q: the port is not a number", s.NATS.Listen))
	}
	dir := s.NATS.StoreDir
	if dir == "" {
		store := s.Store.Path
		if store == "" {
			if store, err = config.DefaultStorePath(); err != nil {
				return nil, err
			}
		}
		dir = filepath.Join(filepath.Dir(store), "nats")
	}
	if host == "" {
		host = "0.0.0.0"
	}
	hub, err := natsrun.StartEmbedded(natsrun.EmbeddedOptions{StoreDir: dir, Host: host, Port: n, Token: s.NATS.Token, Name: "deepresearch-serve"})
	if err != nil {
		return nil, fmt.Errorf("serve: nats.listen %s: %w", s.NATS.Listen, err)
	}
	return hub, nil
}

// newRuns is the Runs of a serving command (serve, mcp): rec runs its
// runs and st keeps them, from origin, under the serve.* limits.
func newRuns(s config.Settings, rec deepresearch.RunRecorder, st deepresearch.Store, origin string, logger *zerolog.Logger) (*deepresearch.Runs, error) {
	runs, err := deepresearch.NewRuns(rec, st, config.RunsOptions(s, origin, logger))
	if err != nil {
		return nil, inputError(err)
	}
	return runs, nil
}

// openStore opens the run store of store.path (default
// config.DefaultStorePath).
func openStore(ctx context.Context, s config.Settings) (*sqlitestore.Store, error) {
	path := s.Store.Path
	if path == "" {
		p, err := config.DefaultStorePath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	st, err := sqlitestore.Open(ctx, path, sqlitestore.Options{})
	if err != nil {
		return nil, fmt.Errorf("opening the run store (store.path): %w", err)
	}
	return st, nil
}

// openClusterToRead opens the run store of the cluster of s.NATS.URL to
// read (natsrun.StoreOptions.ReadOnly), for command name; close it with
// the function returned.
func openClusterToRead(ctx context.Context, s config.Settings, name string) (*natsrun.Store, func(), error) {
	conn, err := connectNATS(ctx, s, natsFlags{}, name)
	if err != nil {
		return nil, nil, err
	}
	st, err := conn.cluster().OpenStore(ctx, natsrun.StoreOptions{ReadOnly: true})
	if err != nil {
		conn.nc.Close()
		return nil, nil, fmt.Errorf("opening the cluster's run store at %s: %w", s.NATS.URL, err)
	}
	return st, func() { st.Close(); conn.nc.Close() }, nil
}

// runnerOnly is the worker.Runner it holds without its worker.Journal: a
// run whose store keeps its journal where the workers journal (the
// cluster store's journal stream) has nothing to copy from them.
// (An interface embedded promotes only its own methods.)
type runnerOnly struct{ worker.Runner }
