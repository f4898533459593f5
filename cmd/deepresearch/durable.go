package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/config/load"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

func init() { extraCommands = append(extraCommands, newResumeCmd, newReplayCmd, newExportCmd) }

// runIDs is the arguments check of a command that takes n run IDs
// (one or two): any other count is a usage error naming the command.
func runIDs(name string, n int) cobra.PositionalArgs {
	what := "one run ID"
	if n == 2 {
		what = "two run IDs"
	}
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s takes %s, got %d arguments", name, what, len(args))}
		}
		return nil
	}
}

func newResumeCmd() *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "resume ID",
		Short: "Resume an interrupted run from its journal",
		Long: `resume takes up a stored run whose process died (killed, crashed, out of
memory) and finishes it: the run starts again from the beginning, every model
call, search and page read it had completed is answered from its journal, and
only the rest is made, so nothing completed is paid for twice. Its events go
on after the last one stored, its sources keep their numbers, and the report
is the one the run would have written uninterrupted. The report is printed as
run prints it. A run that coordinated workers (run --nats) is resumed with the
same --nats and --ack-wait: the tasks its workers finished meanwhile are taken
from the results stream, and those still running are awaited.

Use the settings the run was started with: a run resumed with another model
or other limits is refused. A server resumes the runs it started by itself
(serve.resume); resume is for runs of the run command (and mcp's). As a
server does, it takes a run up at most serve.max_resumes times, then ends it
failed, and the resumed run is bounded by serve.run_timeout. It asks nobody:
what the run's people said is in its journal.`,
		Example: `  deepresearch runs
  deepresearch resume 9f86d081884c7d65 -o report.md`,
		Args: runIDs("resume", 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rf.resume = args[0]
			return runResearch(cmd, rf, "")
		},
	}
	load.AddFlags(cmd.Flags())
	rf.nats.add(cmd.Flags())
	cmd.Flags().StringVar(&rf.configFile, "config", "", "YAML configuration `FILE`")
	cmd.Flags().StringVar(&rf.events, "events", "", "write the new attempt's events as newline-delimited JSON to `FILE`, or \"-\" for stdout")
	cmd.Flags().StringVarP(&rf.output, "output", "o", "", "write the report to `FILE` (atomically) instead of stdout; its extension (.html, .json, .docx, .pdf, …) chooses the format unless --format is given")
	cmd.Flags().StringVar(&rf.progress, "progress", "auto", "progress on stderr, `WHEN`: auto (when a terminal), always or never")
	return cmd
}

func newReplayCmd() *cobra.Command {
	var configFile, output string
	var live []string
	var check bool
	cmd := &cobra.Command{
		Use:   "replay ID|RUN.tar.zst",
		Short: "Re-run a stored or exported run offline from its journal",
		Long: `replay re-runs a run from its journal, with no network and no key: every model
call, search and page read is answered as it was when the run was made, with
the run's own request and settings, and the report it wrote comes out again,
byte for byte. The run is a stored run's ID, or a file 'deepresearch export'
wrote, from any machine.

--live STAGE (planner, researcher, writer or verify — or the stage's own
word: plan, research, report; repeatable) runs that
stage again against the configured model (and, for the researcher, the
configured search) while the rest replays: a prompt change is tried against
recorded research for the price of one stage. --check compares the replayed
report with the stored one and fails when they differ.

The report is printed in output.format; what was replayed is told on stderr.`,
		Example: `  deepresearch replay 9f86d081884c7d65 --check
  deepresearch export 9f86d081884c7d65 > run.tar.zst && deepresearch replay run.tar.zst
  deepresearch replay 9f86d081884c7d65 --live writer --provider openai --model gpt-4.1`,
		Args: runIDs("replay", 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return replay(cmd, configFile, args[0], live, check, output)
		},
	}
	// The replay runs the run's own request and settings: the flags
	// choose the live stages' models and search, the format and the store.
	load.AddFlagsFor(cmd.Flags(), flagGroups(modelFlags, searchFlags, []string{"format", "store"}, logFlags)...)
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration `FILE`")
	cmd.Flags().StringSliceVar(&live, "live", nil, "run this `STAGE` live: planner, researcher, writer or verify (or plan, research, report; repeatable)")
	cmd.Flags().BoolVar(&check, "check", false, "fail unless the replayed report is byte for byte the stored one")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the report to `FILE` (atomically) instead of stdout; its extension (.html, .json, .docx, .pdf, …) chooses the format unless --format is given")
	return cmd
}

// recording is a run to replay: its journal and its stored report.
type recording struct {
	journal [][]byte
	report  json.RawMessage // nil when the run has none
}

// loadRecording reads the run named by arg: an exported file, else a
// stored run's ID.
func loadRecording(cmd *cobra.Command, s config.Settings, arg string) (recording, error) {
	if fi, err := os.Stat(arg); err == nil && fi.Mode().IsRegular() {
		f, err := os.Open(arg)
		if err != nil {
			return recording{}, inputError(err)
		}
		defer f.Close()
		x, err := deepresearch.ReadExport(f)
		if err != nil {
			return recording{}, inputError(fmt.Errorf("%s: %w", arg, err))
		}
		return recording{journal: x.Journal, report: x.Report}, nil
	}
	ctx := cmd.Context()
	st, err := openStore(ctx, s)
	if err != nil {
		return recording{}, err
	}
	defer st.Close()
	run, err := st.Get(ctx, arg)
	if errors.Is(err, runstore.ErrNotFound) {
		return recording{}, inputError(fmt.Errorf("no run %q in %s, and no file of that name", arg, storePath(s)))
	} else if err != nil {
		return recording{}, err
	}
	j, err := st.Journal(ctx, run.ID)
	if err != nil {
		return recording{}, err
	}
	if len(j) == 0 {
		return recording{}, inputError(fmt.Errorf("run %s has no journal (it was made before runs kept one)", run.ID))
	}
	rec := recording{journal: j}
	if b, err := st.Report(ctx, run.ID); err == nil {
		rec.report = b
	} else if !errors.Is(err, runstore.ErrNotFound) {
		return recording{}, err
	}
	return rec, nil
}

// liveStage is the stage --live names: by the role of its model
// ("planner", "researcher", "writer", the words the flag has always
// taken) or by its own word ("plan", "verify", …). Replay refuses a word
// that names no stage it can run live.
func liveStage(name string) events.Stage {
	for _, s := range []events.Stage{events.StagePlan, events.StageResearch, events.StageReport} {
		if s.Role() == name {
			return s
		}
	}
	return events.Stage(name)
}

func replay(cmd *cobra.Command, configFile, arg string, live []string, check bool, outPath string) error {
	ctx := cmd.Context()
	s, err := settings(cmd, configFile)
	if err != nil {
		return err
	}
	logger, err := config.NewLogger(s, cmd.ErrOrStderr())
	if err != nil {
		return inputError(err)
	}
	var out *output
	if outPath != "" {
		if out, err = checkOutput(outPath); err != nil {
			return inputError(fmt.Errorf("--output: %w", err))
		}
	}
	format, err := reportFormat(cmd, s, outPath)
	if err != nil {
		return err
	}
	if out == nil || out.isStdout() {
		if err := binaryToTerminal(format, cmd.OutOrStdout(), "--format"); err != nil {
			return err
		}
	}
	rec, err := loadRecording(cmd, s, arg)
	if err != nil {
		return err
	}
	opts := deepresearch.ReplayOptions{}
	for _, name := range live {
		opts.Live = append(opts.Live, liveStage(name))
	}
	if len(live) > 0 {
		// The live stages' models and search come from the settings.
		r, err := config.NewResearcher(s, &logger)
		if err != nil {
			return inputError(err)
		}
		defer r.Close()
		opts.With = r
	}
	rep, stats, runErr := deepresearch.Replay(ctx, rec.journal, opts, nil)
	fmt.Fprintf(cmd.ErrOrStderr(), "deepresearch: replayed %d calls from the journal; %d made live\n", stats.Replayed, stats.Live)
	if len(live) == 0 && (stats.Missed > 0 || stats.Unused > 0) {
		fmt.Fprintf(cmd.ErrOrStderr(), "deepresearch: the replay departed from the recording: %d calls were not in the journal, %d journaled calls were not asked for\n",
			stats.Missed, stats.Unused)
	}
	switch {
	case errors.Is(runErr, deepresearch.ErrConfig):
		return inputError(runErr)
	case errors.Is(runErr, deepresearch.ErrReplay):
		// A journal that cannot be replayed is the input's fault.
		return inputError(fmt.Errorf("%s: %w", arg, runErr))
	}
	if rep == nil {
		return runErr
	}
	doc, err := rep.RenderContext(ctx, format, config.RenderOptions(s))
	if err != nil {
		return errors.Join(runErr, err)
	}
	if check {
		cf, cdoc := format, doc
		if format == render.PDF {
			// A PDF carries the time it was printed: the reports are
			// compared as JSON.
			cf = render.JSON
			if cdoc, err = rep.Render(cf); err != nil {
				return errors.Join(runErr, err)
			}
		}
		if err := sameAsStored(rec.report, cf, cdoc); err != nil {
			return errors.Join(runErr, err)
		}
	}
	// As run and show print it: a pack may be tampered with, and a
	// model's text is the model's.
	doc = printableDoc(format, doc)
	if out != nil {
		err = out.write(doc)
	} else {
		_, err = cmd.OutOrStdout().Write(doc)
	}
	return errors.Join(runErr, err)
}

// sameAsStored checks the replayed report doc against the stored report
// rendered in format.
func sameAsStored(stored json.RawMessage, format render.Format, doc []byte) error {
	if stored == nil {
		return errors.New("--check: the run has no stored report to compare with")
	}
	orig, err := deepresearch.LoadReport(stored)
	if err != nil {
		return fmt.Errorf("--check: %w", err)
	}
	want, err := orig.Render(format)
	if err != nil {
		return fmt.Errorf("--check: %w", err)
	}
	if bytes.Equal(doc, want) {
		return nil
	}
	line := 1 + bytes.Count(doc[:commonPrefix(doc, want)], []byte("\n"))
	return fmt.Errorf("--check: the replayed report differs from the stored one from line %d", line)
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func newExportCmd() *cobra.Command {
	var configFile, output, natsURL string
	cmd := &cobra.Command{
		Use:   "export ID",
		Short: "Pack a stored run (journal, events, report) into one file to replay anywhere",
		Long: `export writes a stored run as a zstd-compressed tar archive: its record, its
journal (every model call, search and page read it made, with their answers),
its events and its report. 'deepresearch replay FILE' re-runs it offline on
any machine: to reproduce a bug report, or to try a change against real
research. The archive holds no key: a run's journal and settings never do.
With --nats URL it exports a run of that cluster's run store (the runs of
'serve' with nats.url or --nats-listen) instead of store.path's.`,
		Example: `  deepresearch export 9f86d081884c7d65 > run.tar.zst
  deepresearch export 9f86d081884c7d65 -o run.tar.zst
  deepresearch export --nats nats://10.0.0.1:4222 9f86d081884c7d65 -o run.tar.zst`,
		Args: runIDs("export", 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return export(cmd, configFile, natsURL, args[0], output)
		},
	}
	storeFlags(cmd, &configFile)
	cmd.Flags().StringVar(&natsURL, "nats", "", "export from the run store of the NATS JetStream cluster at `URL` (a server's with nats.url or --nats-listen), not store.path")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the archive to `FILE` (atomically) instead of stdout")
	return cmd
}

func export(cmd *cobra.Command, configFile, natsURL, id, outPath string) error {
	ctx := cmd.Context()
	s, err := settings(cmd, configFile)
	if err != nil {
		return err
	}
	var out *output
	switch {
	case outPath != "":
		if out, err = checkOutput(outPath); err != nil {
			return inputError(fmt.Errorf("--output: %w", err))
		}
	case isTerminal(cmd.OutOrStdout()):
		return inputError(errors.New("the archive is binary: redirect stdout to a file, or name one with -o"))
	}
	var st deepresearch.Store
	where := storePath(s)
	if natsURL != "" {
		s.NATS.URL, where = natsURL, "the run store of NATS at "+natsURL
		cst, closeStore, err := openClusterToRead(ctx, s, "deepresearch export")
		if err != nil {
			return err
		}
		defer closeStore()
		st = cst
	} else {
		local, err := openStore(ctx, s)
		if err != nil {
			return err
		}
		defer local.Close()
		st = local
	}
	if _, err := st.Get(ctx, id); errors.Is(err, runstore.ErrNotFound) {
		return inputError(fmt.Errorf("no run %q in %s (see 'deepresearch runs')", id, where))
	} else if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := deepresearch.ExportRun(ctx, st, id, &b); err != nil {
		return err
	}
	if out != nil {
		return out.write(b.Bytes())
	}
	_, err = cmd.OutOrStdout().Write(b.Bytes())
	return err
}
