package main

import (
	"fmt"
	"strings"

	"github.com/deepresearch/deepresearch/domains"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newDomainsCmd) }

func newDomainsCmd() *cobra.Command {
	var configFile string
	var asJSON, builtin bool
	cmd := &cobra.Command{
		Use:   "domains [URL...]",
		Short: "Say whether the domain policy allows each URL, and its source tier",
		Long: `domains applies the settings' domain policy (domains.allow, domains.deny) and
table of source tiers (the built-in one, domains.tiers_file, domains.tiers) to
each URL, as research does, and prints ALLOWED or DENIED (with the pattern
that denied it) and the tier: primary, news, forum, content-farm, or unrated.
--builtin prints the built-in tier table, the file to start a
domains.tiers_file from. --json prints the verdicts as JSON.

Exit status: 0 every URL allowed, 1 one denied, 2 bad input.`,
		Example: `  deepresearch domains https://www.rfc-editor.org/rfc/rfc9110 https://stackoverflow.com/q/1
  DEEPRESEARCH_DOMAINS_DENY='*.example.com' deepresearch domains https://www.example.com/
  deepresearch domains --builtin > tiers.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if builtin {
				if len(args) > 0 {
					return usageError{fmt.Errorf("--builtin prints the built-in table; it takes no URL")}
				}
				_, err := out.Write(domains.BuiltinYAML())
				return err
			}
			if len(args) == 0 {
				return usageError{fmt.Errorf("name a URL to judge (or --builtin for the built-in tier table)")}
			}
			s, err := settings(cmd, configFile)
			if err != nil {
				return err
			}
			r, err := researcherOf(s)
			if err != nil {
				return err
			}
			defer r.Close()
			verdicts := make([]domains.Verdict, 0, len(args))
			denied := false
			for _, u := range args {
				v, err := r.Domain(u, nil)
				if err != nil {
					return inputError(err)
				}
				denied = denied || !v.Allowed
				verdicts = append(verdicts, v)
			}
			if asJSON {
				if err := printJSON(out, verdicts); err != nil {
					return err
				}
			} else {
				var b strings.Builder
				for _, v := range verdicts {
					verdict, tier := "ALLOWED", v.Tier
					if !v.Allowed {
						verdict = "DENIED "
					}
					if tier == "" {
						tier = "unrated"
					}
					fmt.Fprintf(&b, "%s %-12s %s\n", verdict, tier, v.URL)
					if v.Reason != "" {
						fmt.Fprintf(&b, "        %s\n", v.Reason)
					}
				}
				if _, err := (printableWriter{W: out}).Write([]byte(b.String())); err != nil {
					return err
				}
			}
			if denied {
				return &exitError{code: 1, err: fmt.Errorf("a URL is denied by the domain policy")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration `FILE`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the verdicts as JSON")
	cmd.Flags().BoolVar(&builtin, "builtin", false, "print the built-in table of source tiers (YAML)")
	return cmd
}
