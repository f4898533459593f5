package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch/config/load"
)

func init() { extraCommands = append(extraCommands, newAskCmd) }

func newAskCmd() *cobra.Command {
	var rf runFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ask RUN QUESTION",
		Short: "Ask a follow-up question of a stored run",
		Long: `ask answers a follow-up question about a stored run's report. The answer is
written first from the run's own sources — the text the run store kept of
each — and cites them with the report's own numbers: [3] in the answer is [3]
of the report. Only when those sources do not hold the answer is new research
done: one cycle, with the run's settings, whose new sources are numbered after
the report's. The follow-up is stored as a run of its own, linked to the run it
follows ('deepresearch runs' lists it; show, resume and export take its ID),
and a follow-up asked of a follow-up joins the same thread.

The answer is printed as run prints a report (output.format, or --json).`,
		Example: `  deepresearch runs
  deepresearch ask 9f86d081884c7d65 "Which of the cited repairs took longest?"
  deepresearch ask 9f86d081884c7d65 "What did it cost?" --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError{fmt.Errorf("ask takes a run ID and a question, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				if err := cmd.Flags().Set("format", "json"); err != nil {
					return err
				}
			}
			rf.ask = args[0]
			return runResearch(cmd, rf, args[1])
		},
	}
	load.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&rf.configFile, "config", "", "YAML configuration `FILE`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the answer as JSON (--format json)")
	cmd.Flags().StringVar(&rf.events, "events", "", "write the follow-up's events as newline-delimited JSON to `FILE`, or \"-\" for stdout")
	cmd.Flags().StringVarP(&rf.output, "output", "o", "", "write the answer to `FILE` (atomically) instead of stdout; its extension (.html, .json, .docx, .pdf, …) chooses the format unless --format is given")
	cmd.Flags().StringVar(&rf.progress, "progress", "auto", "progress on stderr, `WHEN`: auto (when a terminal), always or never")
	return cmd
}
