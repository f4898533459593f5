package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/cmd/deepresearch/internal/progress"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/internal/events"
)

func init() { extraCommands = append(extraCommands, newRunCmd, newIndexCmd) }

// runFlags are the run command's own flags; the rest come from config.
type runFlags struct {
	configFile string
	events     string
	output     string
	progress   string
}

func newRunCmd() *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "run QUESTION",
		Short: "Research a question and print a cited report",
		Long: `run plans the question into research tasks, runs research agents in parallel
over the corpus, merges their citations and prints the final report on stdout.

Offline by default: the model is the built-in extractive summariser (it quotes
the most relevant retrieved sentences; it is not a language model) and the
corpus is the Go distribution's documentation, indexed on first use.

Settings come from config/defaults.yaml, a YAML file (--config, else
./deepresearch.yaml, else $XDG_CONFIG_HOME/deepresearch/config.yaml),
DEEPRESEARCH_* environment variables and flags, each overriding the one before.

Progress is shown on stderr when it is a terminal. --events writes every event
as newline-delimited JSON to a file, or to stdout with "-" (then the report is
not printed on stdout unless --output names a file).`,
		Example: `  deepresearch run "How does the Go memory model define happens-before?"
  deepresearch run --corpus ./docs --format html --output report.html "What changed in v2?"
  deepresearch run --events - "Why do goroutines leak?" | jq -c 'select(.type=="agent.search")'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return usageError{fmt.Errorf("run takes one question (quote it), got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runResearch(cmd, rf, args[0])
		},
	}
	config.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&rf.configFile, "config", "", "YAML configuration file")
	cmd.Flags().StringVar(&rf.events, "events", "", `write events as newline-delimited JSON to FILE, or "-" for stdout`)
	cmd.Flags().StringVarP(&rf.output, "output", "o", "", "write the report to FILE (atomically) instead of stdout")
	cmd.Flags().StringVar(&rf.progress, "progress", "auto", "progress on stderr: auto (when a terminal), always or never")
	return cmd
}

// settings loads the configuration for a command.
func settings(cmd *cobra.Command, file string) (config.Settings, error) {
	s, err := config.Load(viper.New(), cmd.Flags(), file)
	if err != nil {
		return s, inputError(err)
	}
	if s.Model.Provider != "extractive" {
		return s, inputError(fmt.Errorf("model.provider %q is not available in this build: use \"extractive\"", s.Model.Provider))
	}
	return s, nil
}

func parseStyleName(s string) (deepresearch.Style, error) {
	st, err := parseStyle(s)
	return deepresearch.Style(st), err
}

func runResearch(cmd *cobra.Command, rf runFlags, question string) error {
	ctx := cmd.Context()
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	s, err := settings(cmd, rf.configFile)
	if err != nil {
		return err
	}
	style, err := parseStyleName(s.Output.Style)
	if err != nil {
		return inputError(fmt.Errorf("output.style: %w", err))
	}
	switch rf.progress {
	case "auto", "always", "never":
	default:
		return usageError{fmt.Errorf("--progress %q: want auto, always or never", rf.progress)}
	}
	logger, err := config.NewLogger(s, stderr)
	if err != nil {
		return inputError(err)
	}

	var sinks []events.Sink
	var evFile *os.File
	var evLines *events.JSONLines
	reportOut := stdout
	switch rf.events {
	case "":
	case "-":
		evLines = events.NewJSONLines(stdout)
		if rf.output == "" {
			reportOut = io.Discard
		}
	default:
		evFile, err = os.Create(rf.events)
		if err != nil {
			return inputError(fmt.Errorf("--events: %w", err))
		}
		defer evFile.Close()
		evLines = events.NewJSONLines(evFile)
	}
	if evLines != nil {
		sinks = append(sinks, evLines)
	}
	// Progress is for people: on a terminal, or when asked for. Otherwise
	// stderr carries only the log (agent failures are warnings).
	var display *progress.Progress
	if rf.progress == "always" || (rf.progress == "auto" && isTerminal(stderr)) {
		display = progress.New(stderr, progress.Options{TTY: true, Width: termWidth()})
		sinks = append(sinks, display)
	}

	r, err := deepresearch.New(deepresearch.Config{
		Corpus:      s.Corpus.Dir,
		IndexPath:   s.Corpus.Index,
		MaxTasks:    s.Research.MaxTasks,
		Parallelism: s.Research.Parallelism,
		SearchLimit: s.Research.SearchLimit,
		Budget: deepresearch.Budget{
			MaxToolCalls: s.Research.MaxToolCalls,
			MaxTokens:    s.Research.MaxTokens,
			Timeout:      s.Research.AgentTimeout,
		},
		Style:  style,
		Logger: &logger,
	})
	if err != nil {
		return inputError(err)
	}
	defer r.Close()

	rep, runErr := r.RunWith(ctx, question, func(e deepresearch.Event) {
		for _, s := range sinks {
			s.Event(e)
		}
	})
	if display != nil {
		display.Flush()
	}
	if evLines != nil && evLines.Err() != nil {
		logger.Error().Err(evLines.Err()).Msg("writing events")
	}
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) {
			return runErr
		}
		if rep != nil && rep.Text == "" && len(rep.Sources) > 0 {
			// The writer failed after the research succeeded: keep the
			// research. The findings go where the report would have.
			if findings, err := rep.Findings(); err == nil {
				if rf.output != "" {
					err = writeAtomic(rf.output, findings)
				} else {
					_, err = io.WriteString(reportOut, findings)
				}
				if err == nil {
					return fmt.Errorf("run: %w (the agents' merged findings were written instead of the report)", runErr)
				}
			}
		}
		return fmt.Errorf("run: %w", runErr)
	}
	doc, err := render(rep, s.Output.Format)
	if err != nil {
		return err
	}
	if rf.output != "" {
		return writeAtomic(rf.output, doc)
	}
	_, err = io.WriteString(reportOut, doc)
	return err
}

// render formats the report as md, html or json.
func render(rep *deepresearch.Report, format string) (string, error) {
	switch format {
	case "md", "":
		return rep.Markdown(), nil
	case "html":
		return rep.HTML()
	case "json":
		doc, err := rep.JSON()
		if err != nil {
			return "", err
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return "", err
		}
		return string(b) + "\n", nil
	}
	return "", inputError(fmt.Errorf("output.format %q: want md, html or json", format))
}

// writeAtomic writes data to path through a temporary file in the same
// folder, so a reader never sees a half-written report.
func writeAtomic(path, data string) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	tmp := f.Name()
	// CreateTemp makes the file private (0600); give the report the mode
	// os.Create would (0666 less the umask, here assumed 022).
	err = f.Chmod(0o644)
	if err == nil {
		_, err = io.WriteString(f, data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing report %s: %w", path, err)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func termWidth() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("COLUMNS"), &n); err == nil && n > 20 {
		return n
	}
	return 100
}

func newIndexCmd() *cobra.Command {
	var configFile string
	cmd := &cobra.Command{
		Use:   "index [DIR]",
		Short: "Build or update the full-text index of a folder of documents",
		Long: `index builds the search index of DIR (default: the configured corpus, else the
Go distribution's documentation), re-reading only new and changed files, and
prints what it did. run does this itself on first use; index lets you do it
ahead of time. Formats: .md .markdown .mdx .txt .text .rst .adoc .asciidoc
.org .tex .html .htm .xhtml.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := settings(cmd, configFile)
			if err != nil {
				return err
			}
			dir := s.Corpus.Dir
			if len(args) == 1 {
				dir = args[0]
			}
			st, err := deepresearch.Index(cmd.Context(), dir, s.Corpus.Index)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "indexed %s into %s: %d files scanned, %d added, %d updated, %d removed, %d unchanged, %d skipped; %d passages\n",
				st.Dir, st.IndexPath, st.Scanned, st.Added, st.Updated, st.Removed, st.Unchanged, st.Skipped, st.Passages)
			return nil
		},
	}
	cmd.Flags().String("corpus", "", "directory of documents (default: the Go distribution's docs)")
	cmd.Flags().String("index", "", "index database file (default: in the user's cache directory)")
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration file")
	return cmd
}
