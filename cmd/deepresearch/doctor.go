package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/config/load"
	"github.com/deepresearch/deepresearch/natsrun"
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
			ds := config.Diagnose(cmd.Context(), s, !noCall)
			ds = append(ds, diagnoseNATS(cmd.Context(), s.NATS, !noCall)...)
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(ds); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				pw := printableWriter{W: tw, JSON: false} // a server's error is the server's: a line a Write
				fmt.Fprintln(pw, "PART\tPROVIDER\tDETAIL\tKEY\tSTATUS")
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
					fmt.Fprintf(pw, "%s\t%s\t%s\t%s\t%s\n", part, d.Provider, d.Detail, d.Key, status)
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
	// doctor describes and checks the models and what is searched; it
	// makes no run and logs nothing.
	load.AddFlagsFor(cmd.Flags(), flagGroups(modelFlags, []string{"embeddings", "corpus", "index", "search"})...)
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration `FILE`")
	cmd.Flags().BoolVar(&noCall, "no-call", false, "describe only; make no call")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the diagnosis as JSON")
	return cmd
}

// diagnoseNATS describes the NATS cluster of nats.url and, when call is
// true, connects and describes the cluster and each stream natsrun uses.
func diagnoseNATS(ctx context.Context, c config.NATS, call bool) []config.Diagnosis {
	if c.URL == "" {
		return nil
	}
	key := "none"
	if c.Credentials != "" {
		key = c.Credentials
	} else if c.Token != "" {
		key = "token (nats.token)"
	}
	d := config.Diagnosis{Part: "nats", Provider: "jetstream", Detail: c.URL, Key: key}
	if !call {
		return []config.Diagnosis{d}
	}
	d.Checked = true
	nc, js, err := natsrun.Connect(c.URL, c.Credentials, "deepresearch doctor", natsAuth(c)...)
	if err != nil {
		d.Err = err.Error()
		return []config.Diagnosis{d}
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ai, err := js.AccountInfo(ctx)
	if err != nil {
		d.Err = err.Error()
		return []config.Diagnosis{d}
	}
	d.Detail = fmt.Sprintf("%s (server %s, cluster %q, %d streams)", nc.ConnectedUrlRedacted(), nc.ConnectedServerName(), nc.ConnectedClusterName(), ai.Streams)
	out := []config.Diagnosis{d}
	for _, st := range natsrun.NewCluster(js, natsrun.Config{Replicas: c.Replicas}).Describe(ctx) {
		sd := config.Diagnosis{Part: "stream", Provider: st.Name, Checked: true, Err: st.Err}
		if st.Err == "" {
			sd.Detail = fmt.Sprintf("%s R%d (%d current) leader %s, %d messages, %d consumers", st.Subjects, st.Replicas, st.Current, st.Leader, st.Messages, st.Consumers)
		}
		out = append(out, sd)
	}
	return out
}
