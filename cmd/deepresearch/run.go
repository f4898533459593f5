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
	"github.com/deepresearch/deepresearch/config/load"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

func init() { extraCommands = append(extraCommands, newRunCmd) }

// runFlags are the run command's own flags; the rest come from config.
type runFlags struct {
	configFile string
	events     string
	output     string
	progress   string
	resume     string // the ID of an interrupted run to take up (the resume command)
	ask        string // the ID of a stored run the question follows up (the ask command)
	people     peopleFlags
	nats       natsFlags
	// jsonSchema and xmlSchema print the JSON or XML report's schema
	// instead of running.
	jsonSchema, xmlSchema bool
	// estimate prints what the run would spend instead of running it;
	// confirm shows it on the terminal and asks before running.
	estimate, confirm bool
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
not printed on stdout unless --output names a file).

With --nats URL (or nats.url) the run is a coordinator: it plans, publishes each
agent task to the NATS JetStream work queue, where 'deepresearch worker'
processes run them, and merges their results in plan order. Each agent's
events arrive while its worker runs it (relayed live over NATS; any the relay
missed come with its result), so the progress display and --events follow
the workers as they follow a local run.

The run's life is governed as serve's runs are (deepresearch.Runs), by the
same settings: serve.run_timeout bounds it (default 10m; paused while the
prompt waits for you), and a plan shown at the terminal (--review-plan) and
not reviewed within serve.plan_timeout is researched as proposed or ends the
run, as serve.plan_timeout_action says.`,
		Example: `  deepresearch run "How does the Go memory model define happens-before?"
  deepresearch run --corpus ./docs --format html --output report.html "What changed in v2?"
  deepresearch run --events - "Why do goroutines leak?" | jq -c 'select(.type=="agent.search")'
  deepresearch run --format mermaid "How are undersea cables repaired?" > citations.mmd
  deepresearch run --format docx -o report.docx "How are undersea cables repaired?"
  deepresearch run -o report.pdf "How are undersea cables repaired?"
  deepresearch run --json-schema > report.schema.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case rf.jsonSchema || rf.xmlSchema:
				if len(args) != 0 {
					return usageError{errors.New("--json-schema and --xml-schema take no question")}
				}
			case len(args) != 1:
				return usageError{fmt.Errorf("run takes one question (quote it), got %d arguments", len(args))}
			case strings.TrimSpace(args[0]) == "":
				return usageError{errors.New("the question is empty")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case rf.jsonSchema && rf.xmlSchema:
				return usageError{errors.New("--json-schema and --xml-schema: one at a time")}
			case rf.jsonSchema:
				b, err := render.Schema()
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(b)
				return err
			case rf.xmlSchema:
				_, err := cmd.OutOrStdout().Write(render.XMLSchema())
				return err
			}
			return runResearch(cmd, rf, args[0])
		},
	}
	load.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&rf.configFile, "config", "", "YAML configuration `FILE`")
	cmd.Flags().StringVar(&rf.events, "events", "", "write events as newline-delimited JSON to `FILE`, or \"-\" for stdout")
	cmd.Flags().StringVarP(&rf.output, "output", "o", "", "write the report to `FILE` (atomically) instead of stdout (\"-\": stdout); its extension (.html, .json, .docx, .pdf, …) chooses the format unless --format is given")
	cmd.Flags().StringVar(&rf.progress, "progress", "auto", "progress on stderr, `WHEN`: auto (when a terminal), always or never")
	cmd.Flags().BoolVar(&rf.jsonSchema, "json-schema", false, "print the JSON Schema of the JSON report (--format json; the YAML report too) and exit")
	cmd.Flags().BoolVar(&rf.xmlSchema, "xml-schema", false, "print the XML Schema (XSD) of the XML report (--format xml) and exit")
	cmd.Flags().BoolVar(&rf.estimate, "estimate", false, "print what the run would spend — its plan, the expected and maximum model calls, tokens and dollars — and exit (one planning call; --format json for JSON)")
	cmd.Flags().BoolVar(&rf.confirm, "confirm", false, "show the estimate on the terminal and ask before spending")
	rf.people.add(cmd.Flags(), true)
	rf.nats.add(cmd.Flags())
	return cmd
}

// settings loads the configuration for a command.
func settings(cmd *cobra.Command, file string) (config.Settings, error) {
	s, err := load.Settings(viper.New(), cmd.Flags(), file)
	if err != nil {
		return s, inputError(err)
	}
	return s, nil
}

// reportFormat is the format a report is written in: --format when the
// command line gives it; else the one the output file's extension names
// (-o report.html, report.docx: what the user named it for, as pandoc
// reads it); else output.format (the settings file, the environment, the
// default); a PDF only when its browser is there.
func reportFormat(cmd *cobra.Command, s config.Settings, path string) (render.Format, error) {
	if f := cmd.Flags().Lookup("format"); (f == nil || !f.Changed) && path != "" && path != "-" {
		if format, ok := formatOfExt[strings.ToLower(filepath.Ext(path))]; ok {
			return renderable(s, format, nil)
		}
	}
	format, err := render.ParseFormat(s.Output.Format)
	if err != nil {
		return "", inputError(fmt.Errorf("output.format: %w", err))
	}
	return renderable(s, format, nil)
}

// renderable is format when it can be rendered here: a PDF needs its
// browser, which is looked for before any research is done.
func renderable(s config.Settings, format render.Format, err error) (render.Format, error) {
	if err == nil {
		err = config.RenderOptions(s).Ready(format)
	}
	if err != nil {
		return "", inputError(err)
	}
	return format, nil
}

// formatOfExt is the format a report file's extension names.
var formatOfExt = map[string]render.Format{
	".md": render.Markdown, ".markdown": render.Markdown,
	".html": render.HTML, ".htm": render.HTML,
	".json": render.JSON, ".yaml": render.YAML, ".yml": render.YAML,
	".xml": render.XML, ".mmd": render.Mermaid, ".docx": render.DOCX,
	".pdf": render.PDF, ".bib": render.BibTeX,
}

// runResearch is the run command: settings to a Researcher, a run of
// the Runs with the chosen sinks (and the person at the terminal), the
// report rendered in the chosen format. Everything it decides about
// research and a run's life is the library's (deepresearch.Runs,
// Report.Render); what is left here is where output goes.
func runResearch(cmd *cobra.Command, rf runFlags, question string) error {
	ctx := cmd.Context()
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	s, err := settings(cmd, rf.configFile)
	if err != nil {
		return err
	}
	format, err := reportFormat(cmd, s, rf.output)
	if err != nil {
		return err
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
	rf.nats.apply(&s)
	cfg, err := config.ResearcherConfig(s, &logger)
	if err != nil {
		return inputError(err)
	}
	tel, stopTelemetry, err := startTelemetry(ctx, s, "run")
	if err != nil {
		return inputError(err)
	}
	defer stopTelemetry() // after r.Close: every span ended
	tel.apply(&cfg)
	// With nats.url the run is a coordinator: agents run on workers.
	coord, err := coordinate(ctx, s, rf.nats, &cfg, "deepresearch run")
	if err != nil {
		return err
	}
	defer coord.Close()
	r, err := deepresearch.New(cfg)
	if err != nil {
		return inputError(err)
	}
	defer r.Close()

	// Outputs are checked before the research, so a bad path costs nothing.
	var report, evOut *output
	if rf.output != "" {
		if report, err = checkOutput(rf.output); err != nil {
			return inputError(fmt.Errorf("--output: %w", err))
		}
	}
	var sinks []events.Sink
	var evLines *events.JSONLines
	reportOut := stdout
	switch rf.events {
	case "":
	case "-":
		if report != nil && report.isStdout() {
			return inputError(fmt.Errorf("--events - and --output %s both name stdout: write one of them to a file", rf.output))
		}
		evLines = events.NewJSONLines(printableWriter{W: stdout, JSON: true}) // a line a Write
		if rf.output == "" {
			reportOut = io.Discard
		}
	default:
		if evOut, err = checkOutput(rf.events); err != nil {
			return inputError(fmt.Errorf("--events: %w", err))
		}
		if report != nil && report.sameFile(evOut) {
			if evOut.isStdout() {
				return inputError(fmt.Errorf("--events %s and --output %s both name stdout: write one of them to a file", rf.events, rf.output))
			}
			return inputError(fmt.Errorf("--events and --output name the same file %s", rf.events))
		}
		var w io.Writer = stdout
		if !evOut.stdout {
			f, err := evOut.open()
			if err != nil {
				return inputError(fmt.Errorf("--events: %w", err))
			}
			defer f.Close()
			w = f
		}
		if evOut.stdout || evOut.fd >= 0 {
			w = printableWriter{W: w, JSON: true} // printed: a line a Write
		}
		evLines = events.NewJSONLines(w)
		if evOut.isStdout() && rf.output == "" {
			reportOut = io.Discard // as with --events -
		}
	}
	if report == nil && reportOut == stdout || report != nil && report.isStdout() {
		if err := binaryToTerminal(format, stdout, "--format"); err != nil {
			return err
		}
	}
	if evLines != nil {
		sinks = append(sinks, evLines)
	}
	if coord != nil {
		sinks = append(sinks, coord.Log)
	}
	// Progress is for people: on a terminal, or when asked for. Otherwise
	// stderr carries only the log (agent failures are warnings).
	var display *progress.Progress
	if rf.progress == "always" || (rf.progress == "auto" && isTerminal(stderr)) {
		display = progress.New(stderr, progress.Options{TTY: true, Width: termWidth()})
		sinks = append(sinks, display)
	}

	sink := func(e events.Event) {
		for _, s := range sinks {
			s.Event(e)
		}
	}
	req := deepresearch.Request{Question: question}
	if rf.resume == "" && rf.ask == "" {
		if req, err = rf.people.request(cmd, req); err != nil {
			return err
		}
	}
	if rf.estimate || rf.confirm {
		if done, err := estimateFirst(cmd, rf, r, req, format); done || err != nil {
			return err
		}
	}
	// The run is kept in the run store (store.path), as the server keeps
	// its runs: `deepresearch runs` lists it, `show ID` prints it.
	st, stErr := openStore(ctx, s)
	var store deepresearch.Store // nil when it could not be opened
	if stErr == nil {
		defer st.Close()
		store = st
	}
	// A run asks nobody unless a person is at the terminal: off it, its
	// clarifying questions keep their assumptions; a resumed run takes
	// what its people said from its journal.
	begin := deepresearch.BeginOptions{Sink: sink, Unattended: true}
	switch {
	case rf.resume != "":
		if stErr != nil {
			return stErr
		}
		if err := coord.backfillStored(ctx, st, rf.resume); err != nil {
			logger.Warn().Err(err).Msg("the NATS events stream may lack events of the run's earlier attempts")
		}
		req, begin.Resume = deepresearch.Request{}, rf.resume
	case rf.ask != "":
		if stErr != nil {
			return stErr
		}
		freq, err := deepresearch.FollowUpRequest(ctx, st, rf.ask, question)
		if errors.Is(err, runstore.ErrNotFound) {
			return inputError(fmt.Errorf("%w in %s (see 'deepresearch runs')", err, storePath(s)))
		}
		if err != nil && (errors.Is(err, deepresearch.ErrConfig) || errors.Is(err, deepresearch.ErrNoReport)) {
			return inputError(err)
		}
		if err != nil {
			return err
		}
		req = freq
	}
	// The run's life is the library's (deepresearch.Runs), as the
	// server's and the MCP server's are, under the same settings:
	// serve.run_timeout (paused while a person is awaited),
	// serve.plan_timeout and .plan_timeout_action, serve.max_resumes. A
	// store that cannot be opened costs the record, not the research
	// (RunsOptions.StoreErr).
	ropts := config.RunsOptions(s, runstore.OriginCLI, &logger)
	ropts.StoreErr = stErr
	runs, err := deepresearch.NewRuns(r, store, ropts)
	if err != nil {
		return inputError(err)
	}
	defer runs.Close()
	var person *attendant
	if req.Hooks != nil {
		// A person at the terminal answers the run's questions and reviews
		// its plan, as an HTTP client answers a server's run.
		t, _ := terminal(cmd)
		person = newAttendant(ctx, t, req.Question, func(err error) {
			runs.Cancel(context.WithoutCancel(ctx), req.RunID, err)
		})
		if req.RunID == "" {
			req.RunID = deepresearch.NewRunID()
		}
		begin.Unattended, begin.Waiting = false, person.waiting
		begin.Sink = func(e events.Event) {
			person.event(e)
			sink(e)
		}
		defer person.close()
	}
	var rep *deepresearch.Report
	run, runErr := runs.Begin(ctx, req, begin)
	if person != nil {
		person.started(run)
	}
	if runErr != nil {
		if errors.Is(runErr, deepresearch.ErrConfig) || errors.Is(runErr, runstore.ErrNotFound) {
			return inputError(runErr) // a request the store refused, or the run did, before anything ran
		}
		return runErr
	}
	// The run outlives the command's context (it is the Runs'): an
	// interrupt cancels it, as it did a run started on that context.
	stopCancel := context.AfterFunc(ctx, func() {
		runs.Cancel(context.WithoutCancel(ctx), run.ID(), context.Cause(ctx))
	})
	defer stopCancel()
	rep, runErr = run.Wait()
	if person != nil {
		person.close() // the prompt in progress, if any, ends with the run
	}
	if display != nil {
		display.Flush()
	}
	if err := coord.Err(); err != nil {
		logger.Warn().Err(err).Msg("some of the run's events are missing from the NATS events stream")
	}
	var evErr error
	if evLines != nil && evLines.Err() != nil {
		evErr = fmt.Errorf("writing events: %w", evLines.Err())
	}
	if rep == nil {
		return errors.Join(runErr, evErr)
	}
	// The report; when the run failed after its research, what of it
	// renders (the agents' findings when the writer failed): the library
	// decides, and no research is lost.
	doc, err := rep.RenderContext(ctx, format, config.RenderOptions(s))
	if runErr != nil && errors.Is(err, deepresearch.ErrNoReport) {
		return errors.Join(runErr, evErr)
	} else if err != nil {
		return errors.Join(runErr, err, evErr)
	}
	doc = printableDoc(format, doc)
	if report != nil && !report.stdout {
		err = report.write(doc)
	} else {
		_, err = reportOut.Write(doc)
	}
	if err != nil {
		err = fmt.Errorf("writing the report: %w", err)
	}
	if runErr != nil && err == nil {
		what := "the report was written unverified"
		if !rep.Complete() {
			what = "the agents' merged findings were written instead of the report"
		}
		runErr = fmt.Errorf("%w (%s)", runErr, what)
	}
	return errors.Join(runErr, err, evErr)
}

// errNotConfirmed is the end of a run the person at the terminal did not
// confirm (--confirm).
var errNotConfirmed = errors.New("not confirmed: nothing was researched")

// estimateFirst estimates req: with --estimate it prints the estimate
// (markdown, or JSON with --format json) and is done; with --confirm it
// shows it at the terminal and asks, done when the answer is not yes.
func estimateFirst(cmd *cobra.Command, rf runFlags, r *deepresearch.Researcher, req deepresearch.Request, format render.Format) (bool, error) {
	var t *prompt
	if !rf.estimate {
		var ok bool
		if t, ok = terminal(cmd); !ok {
			return true, usageError{errors.New("--confirm needs a terminal to ask at; elsewhere, run --estimate first")}
		}
	}
	est, err := r.Estimate(cmd.Context(), req)
	if err != nil {
		return true, err
	}
	if rf.estimate {
		out := printableWriter{W: cmd.OutOrStdout(), JSON: format == render.JSON}
		if format == render.JSON {
			b, err := json.MarshalIndent(est, "", "  ")
			if err != nil {
				return true, err
			}
			_, err = out.Write(append(b, '\n'))
			return true, err
		}
		_, err = io.WriteString(out, est.Markdown())
		return true, err
	}
	fmt.Fprintf(t.out, "\n%s\nRun it? [y/N] ", est.Markdown())
	answer, err := t.line(cmd.Context())
	if err != nil {
		return true, err
	}
	if a := strings.ToLower(answer); a != "y" && a != "yes" {
		return true, errNotConfirmed
	}
	return false, nil
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
