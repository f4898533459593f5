package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/events"
)

type collapseRequest struct {
	Reports []struct {
		Section string                   `json:"section"`
		Text    string                   `json:"text"`
		Mapping map[string]events.Source `json:"mapping"`
	} `json:"reports"`
}

func newCollapseCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "collapse",
		Short: "Merge agent reports onto one citation numbering (JSON on stdin)",
		Long: `collapse reads

  {"reports": [{"section": "…", "text": "…", "mapping": {"1": {"id": "…", "url": "…", "title": "…"}}}]}

and writes

  {"reports": [{"section": "…", "text": "…"}],
   "sources": [{"number": 1, "id": "…", "url": "…", "canonical_url": "…", "title": "…",
                "first_seen_section": "…", "used_in_sections": ["…"]}],
   "unknown": [{"section": "…", "number": 7}]}

Sources are de-duplicated by canonical URL (by id when a source has no URL)
and numbered by first appearance in the texts, walking reports in order.
Markers keep their bracket style. Local numbers a report cites that are not
in its mapping are dropped from its text and listed under "unknown"; sources
with malformed URLs are kept apart and listed under "invalid_urls".

Bad input exits with status 2 and says what and where on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return collapseOnce(cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
}

func collapseOnce(stdin io.Reader, stdout io.Writer) error {
	data, err := io.ReadAll(stdin)
	if err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	var req collapseRequest
	if err := decodeStrict("stdin", data, &req); err != nil {
		return inputError(err)
	}
	reports := make([]collapse.Report, 0, len(req.Reports))
	for i, r := range req.Reports {
		mp := make(map[int]events.Source, len(r.Mapping))
		keys := make([]string, 0, len(r.Mapping))
		for k := range r.Mapping {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			n, err := strconv.Atoi(strings.TrimSpace(k))
			if err != nil || n < 1 {
				return inputError(fmt.Errorf("stdin: reports[%d].mapping: key %q is not a citation number (want a whole number from 1)", i, k))
			}
			if _, dup := mp[n]; dup {
				return inputError(fmt.Errorf("stdin: reports[%d].mapping: key %q repeats number %d", i, k, n))
			}
			mp[n] = r.Mapping[k]
		}
		reports = append(reports, collapse.Report{Section: r.Section, Text: r.Text, Mapping: mp})
	}
	res, err := collapse.Merge(reports)
	if err != nil {
		return inputError(err)
	}
	return writeJSON(stdout, res)
}
