package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

func init() { extraCommands = append(extraCommands, newRunsCmd, newShowCmd) }

func storeFlags(cmd *cobra.Command, configFile *string) {
	cmd.Flags().StringVar(configFile, "config", "", "YAML configuration `FILE`")
	cmd.Flags().String("store", "", "run store SQLite `FILE` (default: in the user data directory)")
}

func newRunsCmd() *cobra.Command {
	var configFile string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List the stored runs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (retErr error) {
			s, err := settings(cmd, configFile)
			if err != nil {
				return err
			}
			st, damage, err := openStoreToRead(cmd.Context(), s)
			if err != nil {
				return err
			}
			defer st.Close()
			runs, err := st.List(cmd.Context(), limit)
			if errors.Is(err, sqlitestore.ErrCorrupt) {
				damage, err = err, nil // the runs it could read are listed
			}
			if err != nil {
				return err
			}
			defer func() { retErr = errors.Join(retErr, damage) }()
			out := cmd.OutOrStdout()
			if asJSON {
				if runs == nil {
					runs = []sqlitestore.Run{}
				}
				b, err := json.MarshalIndent(runs, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(out, "%s\n", printableJSON(b))
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tCREATED\tEVENTS\tQUESTION")
			for _, r := range runs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.ID, r.Status, r.Created.Local().Format(time.DateTime), r.Events, oneLine(r.Question, 60))
			}
			return tw.Flush()
		},
	}
	storeFlags(cmd, &configFile)
	cmd.Flags().IntVarP(&limit, "limit", "n", 50, "at most `N` runs listed (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "list as JSON")
	return cmd
}

// oneLine shortens s to one printable line of at most n runes; it is for
// people.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(printable(s)), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func newShowCmd() *cobra.Command {
	var configFile string
	var showEvents, status bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a stored run's report (output.format), its status or its events",
		Long: `show prints the report of a stored run in output.format (--format md, html
or json); when the run failed after its research, the agents' findings.
--status prints the run's record as JSON; --events its event log as
newline-delimited JSON, exactly as run --events writes it.`,
		Args: runIDs("show", 1),
		RunE: func(cmd *cobra.Command, args []string) (retErr error) {
			s, err := settings(cmd, configFile)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			st, damage, err := openStoreToRead(ctx, s)
			if err != nil {
				return err
			}
			defer st.Close()
			defer func() { retErr = errors.Join(retErr, damage) }() // shown what it could
			out := cmd.OutOrStdout()
			run, err := st.Get(ctx, args[0])
			if errors.Is(err, sqlitestore.ErrNotFound) {
				return inputError(fmt.Errorf("no run %q in %s (see 'deepresearch runs')", args[0], storePath(s)))
			} else if err != nil {
				return err
			}
			switch {
			case status:
				b, err := json.MarshalIndent(run, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(out, "%s\n", printableJSON(b))
				return err
			case showEvents:
				// A finished run's log ends; a live one's is followed.
				for e, err := range st.Events(ctx, run.ID, 0) {
					if err != nil {
						return err
					}
					if _, err := fmt.Fprintf(out, "%s\n", printableJSON(e.JSON)); err != nil {
						return err
					}
				}
				return nil
			}
			format, err := render.ParseFormat(s.Output.Format)
			if err != nil {
				return inputError(fmt.Errorf("output.format: %w", err))
			}
			if format, err = renderable(s, format, nil); err != nil {
				return err
			}
			if err := binaryToTerminal(format, out, "--format"); err != nil {
				return err
			}
			b, err := st.Report(ctx, run.ID)
			if errors.Is(err, sqlitestore.ErrNotFound) {
				return fmt.Errorf("run %s is %s and has no report", run.ID, run.Status)
			} else if err != nil {
				return err
			}
			rep, err := deepresearch.LoadReport(b)
			if err != nil {
				return err
			}
			doc, err := rep.RenderContext(ctx, format, config.RenderOptions(s))
			if err != nil {
				return fmt.Errorf("run %s is %s: %w", run.ID, run.Status, err)
			}
			_, err = out.Write(printableDoc(format, doc))
			return err
		},
	}
	storeFlags(cmd, &configFile)
	cmd.Flags().String("format", "md", "report `FORMAT`: md, html, json, yaml, xml, mermaid, docx or pdf (binary: redirect them to a file), csl-json (references) or bibtex (references)")
	cmd.Flags().BoolVar(&showEvents, "events", false, "print the event log as newline-delimited JSON")
	cmd.Flags().BoolVar(&status, "status", false, "print the run's record (status, usage, times) as JSON")
	return cmd
}

func storePath(s config.Settings) string {
	if s.Store.Path != "" {
		return s.Store.Path
	}
	p, _ := config.DefaultStorePath()
	return p
}
