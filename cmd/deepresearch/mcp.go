package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/config/load"
	"github.com/deepresearch/deepresearch/mcpserver"
	"github.com/deepresearch/deepresearch/sqlitestore"
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
opened on the first research call. The log goes to stderr.

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
	// With nats.url, the research tool's runs are coordinated: their
	// agents run on workers and their events go to the events stream.
	var coord *coordination          // set by open, under lib's lock
	defer func() { coord.Close() }() // after lib.Close: no open runs then
	open := func() (*deepresearch.Researcher, error) {
		cfg, err := deepresearch.ConfigFromSettings(s, &logger)
		if err != nil {
			return nil, err
		}
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
	// Research runs are kept in the run store (store.path), as `run`
	// keeps them: the request with the answers the person gave to the
	// clarifying form, and the run's journal, so that `deepresearch
	// resume ID` takes up a run the client's process lost without asking
	// again. A store that cannot be opened costs the record, not the
	// research.
	openSt := func(ctx context.Context) (*sqlitestore.Store, error) { return openStore(ctx, s) }
	lib := &lazyResearcher{open: open, openStore: openSt, log: logger, tee: func(sink func(deepresearch.Event)) func(deepresearch.Event) {
		return coord.tee(sink)
	}}
	defer lib.Close()
	// verify checks file references and @-mentions against the folder
	// the server was started in (a project), and nothing outside it.
	root, err := os.OpenRoot(".")
	if err != nil {
		return inputError(err)
	}
	defer root.Close()
	srv := mcpserver.New(mcpserver.Options{Research: lib, Files: root.FS()})
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
type lazyResearcher struct {
	open      func() (*deepresearch.Researcher, error)
	openStore func(context.Context) (*sqlitestore.Store, error) // nil: runs are not kept
	// tee, if not nil, adds to a run's sink (the events stream's
	// publisher, with NATS); called after open.
	tee     func(func(deepresearch.Event)) func(deepresearch.Event)
	log     zerolog.Logger
	mu      sync.Mutex
	r       *deepresearch.Researcher
	st      *sqlitestore.Store
	stTried bool
}

// Research opens the library on first use and runs req.
func (l *lazyResearcher) Research(ctx context.Context, req deepresearch.Request, sink func(deepresearch.Event)) (*deepresearch.Report, error) {
	r, err := l.researcher()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if !l.stTried && l.openStore != nil {
		l.stTried = true
		if l.st, err = l.openStore(ctx); err != nil {
			l.log.Warn().Err(err).Msg("research runs will not be kept in the run store")
		}
	}
	st := l.st
	l.mu.Unlock()
	if l.tee != nil {
		sink = l.tee(sink)
	}
	if st == nil {
		return r.Research(ctx, req, sink)
	}
	if req, err = deepresearch.StartRunFrom(context.WithoutCancel(ctx), st, req, deepresearch.OriginCLI); err != nil {
		return nil, err
	}
	return r.Record(ctx, st, req, sink)
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
func (l *lazyResearcher) Clarify(ctx context.Context, req deepresearch.Request) ([]deepresearch.Clarification, error) {
	r, err := l.researcher()
	if err != nil {
		return nil, err
	}
	return r.Clarify(ctx, req)
}

func (l *lazyResearcher) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if l.st != nil {
		err = l.st.Close()
	}
	if l.r == nil {
		return err
	}
	return errors.Join(l.r.Close(), err)
}
