package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch/natsrun"
)

func init() { extraCommands = append(extraCommands, newClusterCmd) }

func newClusterCmd() *cobra.Command {
	var (
		configFile string
		nf         natsFlags
		asJSON     bool
	)
	cmd := &cobra.Command{
		Use:   "cluster --nats URL",
		Short: "Show the servers and workers alive in a NATS JetStream cluster, and where each run's work stands",
		Long: `cluster reads the cluster of nats.url (--nats) and shows the serve processes
and workers alive (by their heartbeats: a server beats every third of
nats.lease_ttl, a worker every third of its --ack-wait; one not heard for three
beats is shown as gone), the runs each server owns, and for each run its lease
and its agent tasks: how many wait in the work queue, and which worker runs
each of the others. GET /v1/cluster on any server says the same as JSON.`,
		Example: `  deepresearch cluster --nats nats://10.0.0.1:4222
  deepresearch cluster --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, err := nf.settings(cmd, configFile, "cluster")
			if err != nil {
				return err
			}
			conn, err := connectNATS(ctx, s, nf, "deepresearch cluster")
			if err != nil {
				return err
			}
			defer conn.nc.Close()
			st, err := conn.cluster().Survey(ctx)
			if err != nil {
				return fmt.Errorf("NATS at %s: %w", s.NATS.URL, err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			writeCluster(cmd.OutOrStdout(), st, time.Now())
			return nil
		},
	}
	nf.add(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "write the survey as JSON")
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration `FILE`")
	return cmd
}

// writeCluster writes a survey for people: members, then runs. Names
// and IDs come from the cluster: they are written printable.
func writeCluster(w io.Writer, st natsrun.ClusterStatus, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tALIVE\tSEEN\tHOLDS")
	for _, m := range slices.Concat(st.Servers, st.Workers) {
		alive := "yes"
		if !m.Alive {
			alive = "gone"
		}
		holds := slices.Concat(m.Runs, m.Tasks)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s ago\t%s\n", m.Kind, printable(m.Name), alive, now.Sub(m.Seen).Round(time.Second), printable(strings.Join(holds, " ")))
	}
	tw.Flush()
	fmt.Fprintf(w, "\ntasks: %d waiting, %d running\n", st.TasksWaiting, st.TasksRunning)
	if len(st.Runs) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tOWNER\tLEASE\tQUEUED\tRUNNING\tNO WORKER")
	for _, r := range st.Runs {
		lease := "-"
		if !r.LeaseExpires.IsZero() {
			lease = "expires in " + r.LeaseExpires.Sub(now).Round(time.Second).String()
		}
		var running []string
		for task, worker := range r.Running {
			running = append(running, task+"@"+worker)
		}
		slices.Sort(running)
		noWorker := "-" // since when its tasks wait with no worker alive
		if !r.NoWorkerSince.IsZero() {
			noWorker = "for " + now.Sub(r.NoWorkerSince).Round(time.Second).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", printable(r.Run), printable(cmp.Or(r.Owner, "-")), lease, r.Queued,
			printable(cmp.Or(strings.Join(running, " "), "-")), noWorker)
	}
	tw.Flush()
}
