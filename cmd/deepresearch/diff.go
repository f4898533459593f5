package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

func init() { extraCommands = append(extraCommands, newDiffCmd) }

func newDiffCmd() *cobra.Command {
	var configFile string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff RUN_A RUN_B",
		Short: "Print what changed between two stored runs' reports",
		Long: `diff compares the reports of two stored runs, the older first: the sources
added, dropped and changed (same canonical URL or corpus document, different
text), the cited sentences whose support changed (judged lexically against
each run's own source texts), and the sections added or removed. --json
prints the same as JSON.`,
		Args: runIDs("diff", 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return readStore(cmd, configFile, func(ctx context.Context, s config.Settings, st *sqlitestore.Store) error {
				d, err := deepresearch.DiffRuns(ctx, st, args[0], args[1])
				if errors.Is(err, runstore.ErrNotFound) {
					return inputError(fmt.Errorf("%w in %s (see 'deepresearch runs')", err, storePath(s)))
				} else if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if asJSON {
					return printJSON(out, d)
				}
				return d.WriteText(printableWriter{W: out})
			})
		},
	}
	storeFlags(cmd, &configFile)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the diff as JSON")
	return cmd
}
