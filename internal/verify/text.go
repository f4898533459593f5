package verify

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the result for people: a summary table, each problem
// with its line and a suggested fix, and the verdict, PASS or FAIL (under
// strict, warnings fail too).
func (r *Result) WriteText(w io.Writer, strict bool) error {
	s := r.Summary
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "citations\tsupported\tunsupported\tfabricated\tmissing\tduplicates\tscore\t")
	fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t\n", s.Citations, s.Supported, s.Unsupported, s.Fabricated, s.Missing, s.Duplicates, s.Score)
	if err := tw.Flush(); err != nil {
		return err
	}
	var extra []string
	if n := s.Fresh + s.Stale + s.Unversioned + s.Missing; n > 0 {
		extra = append(extra, fmt.Sprintf("file references: %d fresh, %d stale, %d unversioned, %d missing", s.Fresh, s.Stale, s.Unversioned, s.Missing))
	}
	if s.Unmatched > 0 {
		extra = append(extra, fmt.Sprintf("DOIs and author-year references no source carries: %d", s.Unmatched))
	}
	if s.Uncited > 0 {
		extra = append(extra, fmt.Sprintf("sources never cited: %d", s.Uncited))
	}
	for _, e := range extra {
		fmt.Fprintln(w, e)
	}
	if len(r.Problems) > 0 {
		fmt.Fprintf(w, "\nproblems:\n")
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  line %d: %s %s: %s\n    fix: %s\n", p.Line, p.Severity, p.Kind, oneLine(p.Message), oneLine(p.Fix))
		}
	}
	verdict := "PASS"
	if !r.Pass(strict) {
		verdict = "FAIL"
	}
	var why []string
	if s.Errors > 0 {
		why = append(why, plural(s.Errors, "error"))
	}
	if s.Warnings > 0 {
		w := plural(s.Warnings, "warning")
		if strict {
			w += " (strict)"
		}
		why = append(why, w)
	}
	if len(why) > 0 {
		verdict += " (" + strings.Join(why, ", ") + ")"
	}
	_, err := fmt.Fprintf(w, "\n%s\n", verdict)
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
