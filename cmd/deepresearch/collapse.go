package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/source"
)

type collapseRequest struct {
	Reports []struct {
		Section string                   `json:"section"`
		Text    string                   `json:"text"`
		Mapping map[string]source.Source `json:"mapping"`
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
in its mapping are dropped from its text and listed under "unknown"; a
[ref: URL] resolves through the report's mapping, else to a source an earlier
report's mapping holds, else it is dropped and listed too. A malformed URL a
browser reads as a resource's ("https:/host/x") merges with that resource and
is listed under "invalid_urls" with "merged_as"; other malformed URLs are kept
apart and listed there.

Mapping keys are citation numbers from 0 to 999999. Brackets of
citation-like numbers in no understood form (such as "[3-1]") are dropped and
listed under "unknown" with their "marker". The input must be valid UTF-8 and
at most 16 MiB.

Bad input exits with status 2 and says what and where on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return collapseOnce(cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
}

func collapseOnce(stdin io.Reader, stdout io.Writer) error {
	data, err := readInput(stdin, "deepresearch collapse")
	if err != nil {
		return err
	}
	var req collapseRequest
	if err := decodeStrict("stdin", data, &req); err != nil {
		return inputError(err)
	}
	reports := make([]cite.Report, 0, len(req.Reports))
	for i, r := range req.Reports {
		mp, err := parseMapping(fmt.Sprintf("stdin: reports[%d].mapping", i), r.Mapping)
		if err != nil {
			return inputError(err)
		}
		reports = append(reports, cite.Report{Section: r.Section, Text: r.Text, Mapping: mp})
	}
	res, err := cite.Collapse(reports)
	if err != nil {
		return inputError(err)
	}
	return writeJSON(stdout, res)
}
