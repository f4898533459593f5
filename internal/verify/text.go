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
	for _, e := range []struct {
		n    int
		what string
	}{
		{s.Mentions, "@-mentions of files"},
		{s.Unmatched, "DOIs, author-year references and REF identifiers no source carries"},
		{s.Uncited, "sources never cited"},
		{s.Statistics, "uncited statistics"},
		{s.UncitedClaims, "uncited sentences"},
		{s.Overclaims, "overclaims"},
	} {
		if e.n > 0 {
			fmt.Fprintf(w, "%s: %d\n", e.what, e.n)
		}
	}
	r.writeFileRefs(w)
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

// writeFileRefs writes the file references' section, as RLM tools report
// them: the counts by verdict, then each stale reference with its file's
// current hash, each unversioned one with the hash to add, and each
// missing one.
func (r *Result) writeFileRefs(w io.Writer) {
	var fresh, stale, unversioned, missing, unchecked []Citation
	for _, c := range r.Citations {
		if c.Kind != KindFile {
			continue
		}
		switch c.Status {
		case Fresh:
			fresh = append(fresh, c)
		case Stale:
			stale = append(stale, c)
		case Unversioned:
			unversioned = append(unversioned, c)
		case Missing:
			missing = append(missing, c)
		default:
			unchecked = append(unchecked, c)
		}
	}
	total := len(fresh) + len(stale) + len(unversioned) + len(missing) + len(unchecked)
	if total == 0 {
		return
	}
	fmt.Fprintf(w, "\nRLM Citations: %d total\n", total)
	fmt.Fprintf(w, "  ✓ Fresh: %d\n  ⚠ Stale: %d\n  ⚠ Un-versioned: %d\n  ✗ Missing: %d\n", len(fresh), len(stale), len(unversioned), len(missing))
	if len(unchecked) > 0 {
		fmt.Fprintf(w, "  ? Unchecked: %d (no project folder)\n", len(unchecked))
	}
	if len(stale) > 0 {
		fmt.Fprintf(w, "\nSTALE citations:\n")
		for _, c := range stale {
			fmt.Fprintf(w, "  - %s (line %d)\n    Current hash: %s\n    File modified since citation emitted\n", oneLine(c.Marker), c.Line, c.Hash)
		}
	}
	if len(unversioned) > 0 {
		fmt.Fprintf(w, "\nUN-VERSIONED citations:\n")
		for _, c := range unversioned {
			fmt.Fprintf(w, "  - %s (line %d)\n    File exists but no content hash; cite it as %s@%s\n", oneLine(c.Marker), c.Line, oneLine(c.Ref), c.Hash)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "\nMISSING citations:\n")
		for _, c := range missing {
			fmt.Fprintf(w, "  - %s (line %d)\n    %s\n", oneLine(c.Marker), c.Line, oneLine(c.Reason))
		}
	}
}
