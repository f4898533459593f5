package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/recheck"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

func init() { extraCommands = append(extraCommands, newRecheckCmd) }

// errNoLongerHolds is the verdict of a recheck whose report lost support
// for a claim (exit status 1).
var errNoLongerHolds = errors.New("the report no longer holds: a claim's only support changed or went")

func newRecheckCmd() *cobra.Command {
	var configFile string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "recheck RUN",
		Short: "Read a stored run's cited web pages again and say whether its report still holds",
		Long: `recheck fetches every web page a stored run's report cites again, through the
page fetcher (its SSRF guard, fetch.* limits and the domains policy), and
compares it with what the run read: the text's SHA-256 first, then each
passage the report's citations were checked against. Each source is
UNCHANGED, CHANGED (with the passages that moved or are no longer in the
page), GONE (404, 410, or a redirect to a page without the passages),
UNREACHABLE (any other failure: not known) or SKIPPED (not a web page). A
claim whose every cited source changed or went is listed: the report no
longer holds. --json prints the same as JSON. For a JSON report file, use
'deepresearch verify --refetch REPORT.json'.

Exit status: 0 the report holds, 1 it no longer holds, 2 bad input.`,
		Example: `  deepresearch recheck 3f2a9c1e
  deepresearch recheck --json 3f2a9c1e | jq '.claims'`,
		Args: runIDs("recheck", 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return readStore(cmd, configFile, func(ctx context.Context, s config.Settings, st *sqlitestore.Store) error {
				r, err := researcherOf(s)
				if err != nil {
					return err
				}
				defer r.Close()
				res, err := r.RecheckRun(ctx, st, args[0])
				if errors.Is(err, runstore.ErrNotFound) {
					return inputError(fmt.Errorf("%w in %s (see 'deepresearch runs')", err, storePath(s)))
				} else if err != nil {
					return err
				}
				return writeRecheck(cmd, res, asJSON)
			})
		},
	}
	storeFlags(cmd, &configFile)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the recheck as JSON")
	return cmd
}

// researcherOf is the Researcher of the settings, for its page fetcher,
// domain policy and tier table.
func researcherOf(s config.Settings) (*deepresearch.Researcher, error) {
	r, err := config.NewResearcher(s, nil)
	if err != nil {
		return nil, inputError(err)
	}
	return r, nil
}

// refetch is verify --refetch: the JSON report at path (or stdin, "-")
// rechecked against today's web.
func refetch(cmd *cobra.Command, vf verifyFlags, path string) error {
	if path == "" {
		return usageError{errors.New("--refetch rechecks one JSON report: name it (REPORT.json, or - for stdin)")}
	}
	text, err := readReport(cmd.InOrStdin(), path)
	if err != nil {
		return inputError(err)
	}
	var doc render.Document
	if !strings.HasPrefix(strings.TrimSpace(text), "{") {
		return inputError(fmt.Errorf("--refetch: %s is not a JSON report (deepresearch run --format json)", path))
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return inputError(fmt.Errorf("--refetch: %s: %w", path, err))
	}
	s, err := settings(cmd, "")
	if err != nil {
		return err
	}
	r, err := researcherOf(s)
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := r.Recheck(cmd.Context(), &doc)
	if errors.Is(err, deepresearch.ErrNoReport) {
		return inputError(fmt.Errorf("--refetch: %s has no report text", path))
	} else if err != nil {
		return err
	}
	return writeRecheck(cmd, res, vf.json)
}

// writeRecheck prints res as text or JSON, made safe for the terminal
// (the pages' passages are quoted, not obeyed), and turns a report that no
// longer holds into exit status 1.
func writeRecheck(cmd *cobra.Command, res *recheck.Result, asJSON bool) error {
	out := cmd.OutOrStdout()
	if asJSON {
		if err := printJSON(out, res); err != nil {
			return err
		}
	} else if err := res.WriteText(printableWriter{W: out}); err != nil {
		return err
	}
	if !res.Holds {
		return &exitError{code: 1, err: errNoLongerHolds}
	}
	return nil
}
