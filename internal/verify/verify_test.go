package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// Sources of the planted report: short passages of the Go memory model and
// the Go specification.
var plantedSources = []Source{
	{Number: 1, Title: "The Go Memory Model", URL: "https://go.dev/ref/mem",
		Text: "The Go memory model specifies the conditions under which reads of a variable in one goroutine can be guaranteed to observe values produced by writes to the same variable in a different goroutine. " +
			"Programs that modify data being simultaneously accessed by multiple goroutines must serialize such access. " +
			"To serialize access, protect the data with channel operations or other synchronization primitives such as those in the sync and sync/atomic packages."},
	{Number: 2, Title: "The Go Programming Language Specification", URL: "https://go.dev/ref/spec#Channel_types",
		Text: "A channel provides a mechanism for concurrently executing functions to communicate by sending and receiving values of a specified element type. " +
			"The value of an uninitialized channel is nil. " +
			"A new, initialized channel value can be made using the built-in function make, which takes the channel type and an optional capacity as arguments."},
	// Listed, never retrieved.
	{Number: 3, Title: "Effective Go", URL: "https://go.dev/doc/effective_go"},
	// The same resource as [1], under another URL form.
	{Number: 4, Title: "Go memory model", URL: "https://go.dev/ref/mem?utm_source=newsletter",
		Text: "The Go memory model specifies the conditions under which reads of a variable in one goroutine can be guaranteed to observe values produced by writes to the same variable in a different goroutine."},
}

const plantedReport = `# Go concurrency

Programs that modify data accessed by multiple goroutines must serialize such access [1].
The value of an uninitialized channel is nil [2].

A channel is created with the built-in function make, which takes an optional capacity [2].
Goroutines are scheduled preemptively every 10 milliseconds by the runtime [9].
Effective Go recommends sharing memory by communicating [3].
Channels in Go are always buffered and hold exactly 64 values [2].
The memory model says when a read in one goroutine observes a write in a different goroutine [4].

## References

[1] The Go Memory Model. https://go.dev/ref/mem
[2] The Go Programming Language Specification.
`

func TestPlantedProblems(t *testing.T) {
	res, err := Check(context.Background(), plantedReport, plantedSources, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		line   int
		kind   ProblemKind
		number int
	}
	wants := []want{
		{7, ProblemNoSource, 9},     // a number with no source
		{8, ProblemNotRetrieved, 3}, // a source never retrieved
		{9, ProblemNumber, 2},       // the source says something else, and states no 64
		{10, ProblemDuplicate, 4},   // one resource under two numbers
	}
	var got []want
	for _, p := range res.Problems {
		got = append(got, want{p.line(), p.Kind, p.Number})
		if p.Message == "" || p.Fix == "" {
			t.Errorf("problem %+v: no message or no fix", p)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(wants) {
		t.Errorf("problems:\n got %v\nwant %v\n%s", got, wants, dump(res))
	}
	s := res.Summary
	if s.Citations != 7 || s.Supported != 4 || s.Unsupported != 1 || s.Fabricated != 2 || s.Duplicates != 1 || s.Errors != 2 || s.Warnings != 2 {
		t.Errorf("summary %+v", s)
	}
	if res.Pass(false) {
		t.Error("a report with fabricated citations passed")
	}
	// Every supported citation carries its evidence, at its offsets.
	for _, c := range res.Citations {
		if c.Status != Supported {
			continue
		}
		src := plantedSources[c.Number-1]
		if c.Evidence == nil || src.Text[c.Evidence.Start:c.Evidence.End] != c.Evidence.Quote {
			t.Errorf("line %d: evidence %+v does not match the source's text", c.Line, c.Evidence)
		}
	}
}

func (p Problem) line() int { return p.Line }

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name, report string
		want         []string
	}{
		{"marker before the stop", "First claim here [1]. Second claim there [2].", []string{"First claim here.", "Second claim there."}},
		{"marker after the stop", "First claim here. [1] Second claim there. [2]", []string{"First claim here.", "Second claim there."}},
		{"list items", "- Alpha is first [1]\n- Beta is second [2]\n", []string{"Alpha is first", "Beta is second"}},
		{"wrapped paragraph", "A claim that runs\nover two lines [1].", []string{"A claim that runs over two lines."}},
		{"abbreviation", "Channels, e.g. buffered ones, hold values [1].", []string{"Channels, e.g. buffered ones, hold values."}},
		{"group", "Both say so [1, 2].", []string{"Both say so.", "Both say so."}},
		{"link text kept", "See [the spec](https://go.dev/ref/spec) on **channels** [1].", []string{"See the spec on channels."}},
		{"heading", "## Channels [1]\n", []string{"Channels"}},
	}
	srcs := []Source{{Number: 1, Text: "x"}, {Number: 2, Text: "y"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), tt.report, srcs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range res.Citations {
				got = append(got, c.Sentence)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCitationForms(t *testing.T) {
	files := fstest.MapFS{
		"src/auth.go":   {Data: []byte("package auth\n\nfunc Login() {}\n")},
		"src/legacy.py": {Data: []byte("def f():\n    pass\n")},
	}
	fresh := ContentHash(files["src/auth.go"].Data)
	report := "Markers [1] and [[2]] and 【1】 and [[S:1,2]] and [^2] and [ref: https://go.dev/ref/mem].\n" +
		"Login lives in auth [src/auth.go@" + fresh + ", L3].\n" +
		"It changed [src/auth.go@0123456789abcdef, L1-2].\n" +
		"Unversioned [src/legacy.py, L1-2] and gone [src/gone.go, L4] and far [src/legacy.py, L9-12].\n" +
		"Smith et al., 2020 found it, and Doe et al. (2019) did not; see doi:10.1000/xyz123 and 10.5555/unknown.\n" +
		"In code `[7]` and `10.1000/incode` nothing counts.\n" +
		"```\n[8] 10.1000/fenced Smith et al., 2020 [src/a.go, L1]\n```\n"
	srcs := []Source{
		{Number: 1, URL: "https://go.dev/ref/mem", Text: "Markers say things."},
		{Number: 2, URL: "https://doi.org/10.1000/XYZ123", Title: "A study", Text: "Smith, J. and others. 2020. Markers and more."},
	}
	res, err := Check(context.Background(), report, srcs, Options{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Citations {
		got = append(got, fmt.Sprintf("%d %s %s n=%d %s", c.Line, c.Kind, c.Marker, c.Number, c.Status))
	}
	want := []string{
		"1 number [1] n=1 supported",
		"1 number [[2]] n=2 supported",
		"1 number 【1】 n=1 supported",
		"1 number [[S:1,2]] n=1 supported",
		"1 number [[S:1,2]] n=2 supported",
		"1 number [^2] n=2 supported",
		"1 ref [ref: https://go.dev/ref/mem] n=1 supported",
		"2 file [src/auth.go@" + fresh + ", L3] n=0 fresh",
		"3 file [src/auth.go@0123456789abcdef, L1-2] n=0 stale",
		"4 file [src/legacy.py, L1-2] n=0 unversioned",
		"4 file [src/gone.go, L4] n=0 missing",
		"4 file [src/legacy.py, L9-12] n=0 unversioned",
		"5 author-year Smith et al., 2020 n=0 matched",
		"5 author-year Doe et al. (2019) n=0 unmatched",
		"5 doi 10.1000/xyz123 n=0 matched",
		"5 doi 10.5555/unknown n=0 unmatched",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("citations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s := res.Summary
	if s.Fresh != 1 || s.Stale != 1 || s.Unversioned != 2 || s.Missing != 1 || s.Unmatched != 2 {
		t.Errorf("summary %+v", s)
	}
	// Missing files fail; stale, unversioned and unmatched only warn.
	if res.Pass(false) || s.Errors != 1 {
		t.Errorf("errors %d, pass %v", s.Errors, res.Pass(false))
	}
	kinds := map[ProblemKind]int{}
	for _, p := range res.Problems {
		kinds[p.Kind]++
	}
	if kinds[ProblemBadLines] != 1 || kinds[ProblemStale] != 1 || kinds[ProblemFileMissing] != 1 {
		t.Errorf("problem kinds %v", kinds)
	}

	// Without files, file references are unchecked warnings.
	res, err = Check(context.Background(), report, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pass(false) || res.Pass(true) {
		t.Errorf("unchecked files: pass %v strict %v: %+v", res.Pass(false), res.Pass(true), res.Summary)
	}
}

func TestFix(t *testing.T) {
	srcs := []Source{
		{Number: 1, URL: "https://a.example/1", Text: "Channels carry values between goroutines."},
		{Number: 2, URL: "https://a.example/2"}, // never retrieved
		{Number: 3, URL: "https://a.example/3", Text: "Maps are hash tables."},
	}
	report := "Channels carry values between goroutines [1, 9].\n" +
		"Channels carry values [2]. Goroutines are cheap [3].\n" +
		"Alone [9], here.\n"
	tests := []struct {
		name string
		fix  Fix
		want string
	}{
		{"none", Fix{}, report},
		{"remove fabricated", Fix{Fabricated: Remove},
			"Channels carry values between goroutines [1].\nChannels carry values. Goroutines are cheap [3].\nAlone, here.\n"},
		{"remove both", Fix{Fabricated: Remove, Unsupported: Remove},
			"Channels carry values between goroutines [1].\nChannels carry values. Goroutines are cheap.\nAlone, here.\n"},
		{"flag", Fix{Fabricated: Flag, Unsupported: Flag},
			"Channels carry values between goroutines [1, 9] [no source: 9].\nChannels carry values [2] [not retrieved: 2]. Goroutines are cheap [3] [unsupported: 3].\nAlone [9] [no source: 9], here.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), report, srcs, Options{Fix: tt.fix})
			if err != nil {
				t.Fatal(err)
			}
			if res.Fixed != tt.want {
				t.Errorf("fixed:\n%s\nwant:\n%s", res.Fixed, tt.want)
			}
			// A fixed report has nothing left to fix.
			if tt.fix.Fabricated == Remove {
				again, err := Check(context.Background(), res.Fixed, srcs, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if again.Summary.Fabricated != 0 {
					t.Errorf("fabricated after fix: %+v", again.Summary)
				}
			}
		})
	}
}

// Removing a marker never joins its neighbours into a new one.
func TestFixNeverJoins(t *testing.T) {
	srcs := []Source{{Number: 1, Text: "x"}, {Number: 10, Text: "x"}}
	res, err := Check(context.Background(), "See [1[9]0] and [[9]1].", srcs, Options{Fix: Fix{Fabricated: Remove}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `See [1\[9\]0] and [\[9\]1].`; res.Fixed != want {
		t.Errorf("fixed %q, want %q", res.Fixed, want)
	}
	again, err := Check(context.Background(), res.Fixed, srcs, Options{})
	if err != nil || len(again.Citations) != 0 {
		t.Errorf("the fixed report cites %+v (%v)", again.Citations, err)
	}
}

func TestRewriteMarker(t *testing.T) {
	tests := []struct {
		marker string
		keep   []int
		want   string
	}{
		{"[1, 2, 3]", []int{1, 3}, "[1, 3]"},
		{"[[S:1,3]]", []int{3}, "[[S:3]]"},
		{"[2-4]", []int{2, 4}, "[2, 4]"},
		{"【1、2】", []int{2}, "【2】"},
		{"[[1, 2]]", []int{1}, "[[1]]"},
	}
	for _, tt := range tests {
		if got := rewriteMarker(tt.marker, tt.keep); got != tt.want {
			t.Errorf("rewriteMarker(%q, %v) = %q, want %q", tt.marker, tt.keep, got, tt.want)
		}
	}
}

func TestBadSources(t *testing.T) {
	for name, srcs := range map[string][]Source{
		"zero":      {{Number: 0, Text: "x"}},
		"duplicate": {{Number: 1, URL: "https://a.example/"}, {Number: 1, URL: "https://b.example/"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Check(context.Background(), "x [1].", srcs, Options{})
			if !errors.Is(err, ErrSources) {
				t.Errorf("err = %v, want ErrSources", err)
			}
		})
	}
}

// failingJudge fails like a model whose service is down.
type failingJudge struct{}

func (failingJudge) Judge(context.Context, []Claim) ([]Verdict, error) {
	return nil, errors.New("connection refused")
}

func TestJudgeFailure(t *testing.T) {
	_, err := Check(context.Background(), plantedReport, plantedSources, Options{Judge: failingJudge{}})
	var je *JudgeError
	if !errors.Is(err, ErrJudge) || !errors.As(err, &je) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("err = %v", err)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Check(ctx, plantedReport, plantedSources, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// Rendered citations (our markdown and HTML styles) are citations too, and
// their links must go to their sources.
func TestRenderedCitations(t *testing.T) {
	srcs := []Source{
		{Number: 1, URL: "https://go.dev/ref/mem", Text: "Channels carry values between goroutines."},
		{Number: 2, URL: "https://go.dev/ref/spec", Text: "A map is an unordered group of elements."},
	}
	report := "Channels carry values between goroutines [[1]](https://go.dev/ref/mem).\n" +
		"A map is an unordered group of elements [[2]](https://evil.example/).\n" +
		`Channels carry values <sup class="cite"><a href="https://go.dev/ref/mem?utm_source=x" title="M">[1]</a></sup>.` + "\n" +
		`A map is an unordered group <sup class="cite" data-sids="2"><a href="https://go.dev/ref/spec">[2]</a></sup>.` + "\n" +
		"See [the memory model](https://go.dev/ref/mem) and `[[7]](x)`.\n"
	res, err := Check(context.Background(), report, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Citations {
		got = append(got, fmt.Sprintf("%d %d %s", c.Line, c.Number, c.Status))
	}
	if want := "[1 1 supported 2 2 supported 3 1 supported 4 2 supported]"; fmt.Sprint(got) != want {
		t.Errorf("citations %v, want %s", got, want)
	}
	if len(res.Problems) != 1 || res.Problems[0].Kind != ProblemWrongLink || res.Problems[0].Line != 2 {
		t.Errorf("problems %+v", res.Problems)
	}
}

// The citation protocol's HTML form, <sup class="cite" data-sids="1">[S:1]</sup>,
// is one citation per number, not one for the attribute and one for the
// marker inside (issue 17).
func TestSeedHTMLCitationsCountOnce(t *testing.T) {
	srcs := []Source{
		{Number: 1, URL: "https://go.dev/ref/mem", Text: "Channels carry values between goroutines."},
		{Number: 3, URL: "https://go.dev/ref/spec", Text: "A map is an unordered group of elements."},
	}
	report := `Channels carry values <sup class="cite" data-sids="1,3">[S:1,3]</sup>.` + "\n"
	res, err := Check(context.Background(), report, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, c := range res.Citations {
		got = append(got, c.Number)
	}
	if fmt.Sprint(got) != "[1 3]" {
		t.Errorf("citations of numbers %v, want [1 3]", got)
	}
}

// The words that name one's own knowledge base ("According to our FAQ,
// …", seed 003's answers) claim nothing: the source need not hold them,
// while what follows them must still be in it.
func TestAttributionLeadIn(t *testing.T) {
	srcs := []Source{{Number: 1, ID: "chroma:faq/techmart_faq.csv",
		Text: "question: Can I return a laptop? | answer: Laptops can be returned within 30 days of delivery."}}
	for _, tc := range []struct {
		sentence string
		want     Status
	}{
		{"According to our FAQ, question: Can I return a laptop? [1]", Supported},
		{"From our troubleshooting guide, laptops can be returned within 30 days of delivery. [1]", Supported},
		{"Based on our product catalog, laptops can be returned within 90 days of delivery. [1]", Unsupported},
		{"According to our FAQ, [1]", Unsupported},
	} {
		res, err := Check(context.Background(), tc.sentence, srcs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Citations) != 1 || res.Citations[0].Status != tc.want {
			t.Errorf("%q: %+v, want %s", tc.sentence, res.Citations, tc.want)
		}
	}
	// A web page is not "ours": the lead-in is part of what its sentence
	// claims, and the page does not hold it.
	web := []Source{{Number: 1, URL: "https://shop.example.com/faq", Text: srcs[0].Text}}
	for _, s := range []string{"According to our FAQ, question: Can I return a laptop? [1]", "From our troubleshooting guide, laptops can be returned within 30 days of delivery. [1]"} {
		res, err := Check(context.Background(), s, web, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Citations) != 1 || res.Citations[0].Status == Supported && res.Citations[0].Score == 1 {
			t.Errorf("%q citing a web page: %+v; want its lead-in checked, not dropped", s, res.Citations)
		}
	}
	if got := unattributed("According to our product catalog, the TechBook Air costs $999."); got != "the TechBook Air costs $999." {
		t.Errorf("unattributed = %q", got)
	}
	// A lead-in with a figure in it is a claim: it is kept.
	for _, s := range []string{"According to our survey of 5,000 users, most agree.", "According to our survey of 5 users, most agree."} {
		if unattributed(s) != s {
			t.Errorf("unattributed(%q) = %q", s, unattributed(s))
		}
	}
}
