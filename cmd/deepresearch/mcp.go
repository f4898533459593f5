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
	"github.com/deepresearch/deepresearch/mcpserver"
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
	load.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration file")
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
	open := func() (*deepresearch.Researcher, error) { return deepresearch.FromSettings(s, &logger) }
	lib := &lazyResearcher{open: open}
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
	open func() (*deepresearch.Researcher, error)
	mu   sync.Mutex
	r    *deepresearch.Researcher
}

// Research opens the library on first use and runs req.
func (l *lazyResearcher) Research(ctx context.Context, req deepresearch.Request, sink func(deepresearch.Event)) (*deepresearch.Report, error) {
	l.mu.Lock()
	if l.r == nil {
		r, err := l.open()
		if err != nil {
			l.mu.Unlock()
			return nil, err
		}
		l.r = r
	}
	r := l.r
	l.mu.Unlock()
	return r.Research(ctx, req, sink)
}

func (l *lazyResearcher) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r == nil {
		return nil
	}
	return l.r.Close()
}
