// Package recheck is the vocabulary of a report checked against today's
// web: each cited web source read again and compared with what was read
// when the report was written, and the claims that lost their support.
//
// deepresearch.Researcher.Recheck and RecheckRun make a Result;
// deepresearch.Runs.Recheck makes one and keeps it with its run, as the
// scheduled re-checks (RunsOptions.RecheckEvery) do. The package does no
// I/O: it holds the types, their text form and their summary.
package recheck

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Status is what re-reading a cited web source found (Source.Status).
type Status string

// The statuses of a re-read source.
const (
	// Unchanged: the page's text is the text that was read (same
	// SHA-256), or every passage the report's citations were checked
	// against is still where it was.
	Unchanged Status = "unchanged"
	// Changed: a passage checked moved in the page or is no longer
	// in it (Source.Passages names each), or the text changed
	// and no passage was kept to compare.
	Changed Status = "changed"
	// Gone: the page answers 404 or 410, or redirects to another
	// URL whose text no longer holds the passages checked.
	Gone Status = "gone"
	// Unreachable: the page could not be read (a network error, a
	// timeout, another status, a refusal of the SSRF guard or the domain
	// policy): whether it still holds is not known.
	Unreachable Status = "unreachable"
	// Skipped: not a web page (a corpus document, a file), or no
	// hash of the text read was kept to compare with.
	Skipped Status = "skipped"
)

// PassageStatus says where a checked passage is in a re-read page.
type PassageStatus string

// The places of a passage.
const (
	PassageMoved PassageStatus = "moved" // still in the page, elsewhere (or with other spacing)
	PassageGone  PassageStatus = "gone"  // no longer in the page
)

// Passage is a passage a citation was checked against that is
// not where it was when the report was written.
type Passage struct {
	Status PassageStatus `json:"status"`
	// Text and SHA256 are the passage as it was read; Start and End its
	// byte offsets in the text then read.
	Text   string `json:"text"`
	SHA256 string `json:"sha256"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	// NewStart is the passage's offset in the page's text now (-1 when
	// gone, or found only with other spacing).
	NewStart int `json:"new_start"`
}

// Source is one cited web source, read again.
type Source struct {
	// Number is its number in the report; Title and URL are as the report
	// gives them.
	Number int    `json:"number"`
	Title  string `json:"title,omitempty"`
	URL    string `json:"url,omitempty"`
	Status Status `json:"status"`
	// Detail says why, in a phrase ("410 Gone", "redirects to …", "2 of 3
	// passages are no longer in the page").
	Detail string `json:"detail"`
	// FinalURL is where the page was read from now, after redirects.
	FinalURL string `json:"final_url,omitempty"`
	// SHA256 is the hash of the text read when the report was written,
	// NewSHA256 of the text read now ("" when none was read).
	SHA256    string `json:"text_sha256,omitempty"`
	NewSHA256 string `json:"new_text_sha256,omitempty"`
	// Passages are the passages checked that moved or went.
	Passages []Passage `json:"passages,omitempty"`
}

// Claim is a cited sentence of the report whose every cited web
// source changed (its supporting passage moved out of the page) or went.
type Claim struct {
	// Line is the report line it is on (1-based).
	Line     int    `json:"line"`
	Sentence string `json:"sentence"`
	// Cites are the numbers it cites, in order.
	Cites []int `json:"cites"`
}

// Summary counts a recheck's sources by status, and its flagged
// claims.
type Summary struct {
	Unchanged   int `json:"unchanged"`
	Changed     int `json:"changed"`
	Gone        int `json:"gone"`
	Unreachable int `json:"unreachable"`
	Skipped     int `json:"skipped"`
	Claims      int `json:"claims_flagged"`
}

// Result is a report checked against today's web: each cited web
// source read again and compared with what was read when the report was
// written, and the claims that lost their support. Its JSON form is that
// of `deepresearch recheck --json` and GET /v1/research/{id}/recheck;
// WriteText writes it for people.
type Result struct {
	RunID    string    `json:"run_id,omitempty"`
	Question string    `json:"question,omitempty"`
	Checked  time.Time `json:"checked"`
	// Holds is false when a claim lost its support (Claims).
	Holds   bool     `json:"holds"`
	Summary Summary  `json:"summary"`
	Sources []Source `json:"sources"`
	Claims  []Claim  `json:"claims"`
}

// Tally sets res.Summary from res.Sources and res.Claims (a status
// other than those named counts as Skipped), and res.Holds: the report
// holds when no claim lost its support.
func (res *Result) Tally() {
	sum := Summary{Claims: len(res.Claims)}
	for _, s := range res.Sources {
		switch s.Status {
		case Unchanged:
			sum.Unchanged++
		case Changed:
			sum.Changed++
		case Gone:
			sum.Gone++
		case Unreachable:
			sum.Unreachable++
		default:
			sum.Skipped++
		}
	}
	res.Summary, res.Holds = sum, len(res.Claims) == 0
}

// ReadWeb reports whether the re-check read a web page: false when every
// source was Skipped (a report that cites no web page has nothing to
// re-check).
func (res *Result) ReadWeb() bool {
	return slices.ContainsFunc(res.Sources, func(s Source) bool { return s.Status != Skipped })
}

// WriteText writes the recheck for people: each source's status with its
// detail and the passages that moved or went, the claims that lost their
// support, and whether the report still holds. Passages and sentences are
// quoted on one line each; the caller makes them safe for its terminal.
func (res *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	if res.RunID != "" {
		fmt.Fprintf(&b, "Run %s", res.RunID)
		if res.Question != "" {
			fmt.Fprintf(&b, ": %s", oneLine(res.Question))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Sources read again %s\n\n", res.Checked.UTC().Format(time.RFC3339))
	for _, s := range res.Sources {
		fmt.Fprintf(&b, "[%d] %-11s %s", s.Number, strings.ToUpper(string(s.Status)), oneLine(s.Title))
		if s.URL != "" {
			fmt.Fprintf(&b, " <%s>", s.URL)
		}
		fmt.Fprintf(&b, "\n      %s\n", oneLine(s.Detail))
		for _, p := range s.Passages {
			fmt.Fprintf(&b, "      %s: %q\n", p.Status, clip(oneLine(p.Text), 200))
		}
	}
	sum := res.Summary
	fmt.Fprintf(&b, "\n%d unchanged, %d changed, %d gone, %d unreachable, %d skipped\n", sum.Unchanged, sum.Changed, sum.Gone, sum.Unreachable, sum.Skipped)
	if n := len(res.Claims); n > 0 {
		noun := "claims"
		if n == 1 {
			noun = "claim"
		}
		fmt.Fprintf(&b, "\n%d %s lost their support:\n", n, noun)
		for _, c := range res.Claims {
			fmt.Fprintf(&b, "  line %d %v: %s\n", c.Line, c.Cites, clip(oneLine(c.Sentence), 300))
		}
	}
	if res.Holds {
		b.WriteString("\nHOLDS: every claim still has its support.\n")
	} else {
		b.WriteString("\nNO LONGER HOLDS: a claim's only support changed or went.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine is s on one line, its runs of spaces and newlines made one
// space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n bytes, at a word boundary in its second half
// when there is one, and never inside a character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = strings.ToValidUTF8(s[:n], "")
	if sp := strings.LastIndexByte(s, ' '); sp > n/2 {
		s = s[:sp]
	}
	return s
}
