package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config/load"
)

func init() { extraCommands = append(extraCommands, newDoctorCmd) }

func newDoctorCmd() *cobra.Command {
	var configFile string
	var noCall, asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show the configured models and search backends, and check that each answers",
		Long: `doctor shows which model each role uses (planner, researcher, writer), which
search backends and corpus a run would use, and where each key comes from —
never the key itself — then makes one small call to each to check that it
answers (one short model call per model, one search per web backend, an index
sync of the corpus). --no-call only describes. Exit status 1 when a part is
not configured or does not answer.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := settings(cmd, configFile)
			if err != nil {
				return err
			}
			ds := deepresearch.Diagnose(cmd.Context(), s, !noCall)
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(ds); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "PART\tPROVIDER\tDETAIL\tKEY\tSTATUS")
				for _, d := range ds {
					part := d.Part
					if d.Role != "" {
						part += " (" + d.Role + ")"
					}
					status := "configured"
					switch {
					case !d.OK():
						status = "FAIL: " + d.Err
					case d.Checked:
						status = "ok"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", part, d.Provider, d.Detail, d.Key, status)
				}
				tw.Flush()
			}
			for _, d := range ds {
				if !d.OK() {
					return errors.New("doctor: some parts are not configured or do not answer")
				}
			}
			return nil
		},
	}
	load.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration file")
	cmd.Flags().BoolVar(&noCall, "no-call", false, "describe only; make no call")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the diagnosis as JSON")
	return cmd
}
