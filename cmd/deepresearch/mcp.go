package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/config/load"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/mcpserver"
	"github.com/deepresearch/deepresearch/runstore"
)

func init() { extraCommands = append(extraCommands, newMCPCmd) }

func newMCPCmd() *cobra.Command {
	var configFile string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the citation tools and research over MCP on stdio",
		Long: `mcp serves the Model Context Protocol on stdin/stdout, for Claude Code, Cursor
and other MCP clients. Tools:

  citation_create   create a citation index; returns index_id
  citation_add      add a source's URL; returns its stable citation_number (the
                    same resource under any URL form gets the same number)
  citation_merge    merge one index into another (first seen wins); returns
                    how the merged index's numbers map
  citation_export   the reference list as markdown, csl-json or bibtex
  verify            check a markdown report's citations against its sources
                    (file references and @-mentions against the current folder)
  research          research a question and return the cited report

research uses the same settings as "deepresearch run" (corpus, limits; the
--config file, DEEPRESEARCH_* variables and flags); the research library is
opened on the first research call. Its runs are kept in the run store and
governed as serve's are: at most serve.max_runs at once, each within
serve.run_timeout, and a plan put to review (review: first_plan, for a client
that takes elicitation) waits serve.plan_timeout, then does what
serve.plan_timeout_action says. The log goes to stderr.

Claude Code: claude mcp add deepresearch -- deepresearch mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return serveMCP(cmd, configFile)
		},
	}
	// Its tools return Markdown: no --format.
	load.AddFlagsFor(cmd.Flags(), flagGroups(modelFlags, searchFlags, limitFlags, []string{"style", "store"}, logFlags)...)
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration `FILE`")
	return cmd
}

func serveMCP(cmd *cobra.Command, configFile string) error {
	s, err := settings(cmd, configFile)
	if err != nil {
		return err
	}
	logger, err := config.NewLogger(s, cmd.ErrOrStderr())
	if err != nil {
		return inputError(err)
	}
	tel, stopTelemetry, err := startTelemetry(cmd.Context(), s, "mcp")
	if err != nil {
		return inputError(err)
	}
	defer stopTelemetry() // after lib.Close: every span ended
	// With nats.url, the research tool's runs are coordinated: their
	// agents run on workers and their events go to the events stream.
	var coord *coordination          // set by open, under lib's lock
	defer func() { coord.Close() }() // after lib.Close: no open runs then
	open := func() (*deepresearch.Researcher, error) {
		cfg, err := config.ResearcherConfig(s, &logger)
		if err != nil {
			return nil, err
		}
		tel.apply(&cfg)
		c, err := coordinate(cmd.Context(), s, natsFlags{}, &cfg, "deepresearch mcp")
		if err != nil {
			return nil, err
		}
		r, err := deepresearch.New(cfg)
		if err != nil {
			c.Close() // the next call connects afresh
			return nil, err
		}
		coord = c
		return r, nil
	}
	lib := &lazyResearcher{open: open, tee: func(sink func(events.Event)) func(events.Event) {
		return coord.tee(sink)
	}}
	defer lib.Close()
	// Research runs are kept in the run store (store.path), as `run`
	// keeps them, and governed as the server's are (deepresearch.Runs
	// under serve.max_runs, .run_timeout, .plan_timeout and
	// .plan_timeout_action): the request with the answers the person gave
	// to the clarifying form, and the run's journal, so that `deepresearch
	// resume ID` takes up a run the client's process lost without asking
	// again. A store that cannot be opened costs the record, not the
	// research: the runs are then held in memory for as long as the server
	// lives (deepresearch.RunsOptions.StoreErr).
	ropts := config.RunsOptions(s, runstore.OriginCLI, &logger)
	var store deepresearch.Store
	if st, err := openStore(cmd.Context(), s); err != nil {
		ropts.StoreErr = err
	} else {
		defer st.Close()
		store = st
	}
	runs, err := deepresearch.NewRuns(lib, store, ropts)
	if err != nil {
		return inputError(err)
	}
	defer runs.Close()
	opts := mcpserver.Options{Runs: runs}
	// verify checks file references and @-mentions against the folder
	// the server was started in (a project), and nothing outside it.
	root, err := os.OpenRoot(".")
	if err != nil {
		return inputError(err)
	}
	defer root.Close()
	opts.Files = root.FS()
	srv := mcpserver.New(opts)
	// A malformed line is answered and skipped, never the end of the
	// session (and of every citation index).
	t := &mcpserver.StdioTransport{Reader: cmd.InOrStdin(), Writer: cmd.OutOrStdout()}
	err = srv.Run(cmd.Context(), t)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil // the client hung up, or we were interrupted
	}
	return fmt.Errorf("mcp: %w", err)
}

// lazyResearcher opens the research library on first use, so that a
// client that only wants the citation tools never waits for the corpus.
// It is the Runs' recorder, and, when the run store could not be opened,
// the research tool's Researcher.
type lazyResearcher struct {
	open func() (*deepresearch.Researcher, error)
	// tee, if not nil, adds to a run's sink (the events stream's
	// publisher, with NATS); called after open.
	tee func(func(events.Event)) func(events.Event)
	mu  sync.Mutex
	r   *deepresearch.Researcher
}

// Start opens the library on first use and starts req as opts say (a run
// of the Runs), its events also given to tee.
func (l *lazyResearcher) Start(ctx context.Context, req deepresearch.Request, opts deepresearch.RunOptions) (*deepresearch.Run, error) {
	r, err := l.researcher()
	if err != nil {
		return nil, err
	}
	opts.Sink = l.sink(opts.Sink)
	return r.Start(ctx, req, opts)
}

// sink is a run's sink, with tee's addition.
func (l *lazyResearcher) sink(sink func(events.Event)) func(events.Event) {
	if l.tee == nil {
		return sink
	}
	return l.tee(sink)
}

// researcher opens the library on first use.
func (l *lazyResearcher) researcher() (*deepresearch.Researcher, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r == nil {
		r, err := l.open()
		if err != nil {
			return nil, err
		}
		l.r = r
	}
	return l.r, nil
}

// Clarify returns the clarifying questions a run of req would ask (the
// research tool asks them by elicitation, or returns them).
func (l *lazyResearcher) Clarify(ctx context.Context, req deepresearch.Request) ([]events.Clarification, error) {
	r, err := l.researcher()
	if err != nil {
		return nil, err
	}
	return r.Clarify(ctx, req)
}

// Estimate opens the library on first use and estimates req (the
// research tool's "estimate": true).
func (l *lazyResearcher) Estimate(ctx context.Context, req deepresearch.Request) (*deepresearch.Estimate, error) {
	r, err := l.researcher()
	if err != nil {
		return nil, err
	}
	return r.Estimate(ctx, req)
}

// Close closes the library, if it was opened.
func (l *lazyResearcher) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r == nil {
		return nil
	}
	return l.r.Close()
}
