package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/deepresearch/deepresearch/internal/golden"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/source"
)

// plantedProse checks testdata/planted/report.md against the sources and
// files beside it, with every check and the annotating fix.
func plantedProse(t *testing.T, opts Options) (string, *Result) {
	t.Helper()
	dir := "testdata/planted"
	report, err := os.ReadFile(dir + "/report.md")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dir + "/sources.json")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := ParseSources(b)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	opts.Files = root.FS()
	res, err := Check(context.Background(), string(report), srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return string(report), res
}

// annotate is the fix of `deepresearch verify --fix`.
var annotate = Fix{Fabricated: Remove, Annotate: true}

// A planted report gives each problem once, on its line: an uncited
// statistic, an overclaim, an @-mention of a missing file, a stale file
// reference, unknown REF identifiers, unmatched and malformed references.
func TestPlantedProse(t *testing.T) {
	_, res := plantedProse(t, Options{Scope: ScopeAll, Fix: annotate})
	var got []string
	for _, p := range res.Problems {
		got = append(got, fmt.Sprintf("%d %s %s %s", p.Line, p.Severity, p.Kind, p.Marker))
		if p.Message == "" || p.Fix == "" {
			t.Errorf("problem %+v: no message or no fix", p)
		}
	}
	want := []string{
		"6 warning statistic 40%",
		"8 warning overclaim proves",
		"9 error file-missing @docs/research/missing.md",
		"10 warning stale [src/retry.go@0123456789abcdef, L3-4]",
		"12 warning unmatched Kim et al., 2020",
		"13 error unknown-ref REF-9",
		"13 warning bad-doi 10.12/x",
		"14 error no-source [3, 9]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s := res.Summary
	if s.Statistics != 1 || s.Overclaims != 1 || s.Mentions != 2 || s.Missing != 1 || s.Stale != 1 || s.Errors != 3 || s.Warnings != 5 {
		t.Errorf("summary %+v", s)
	}
	var text strings.Builder
	if err := res.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "planted/result.txt", text.String())
	golden.Check(t, "planted/fixed.md", res.Fixed)

	// The fix is final: checking the fixed report finds no citation to
	// remove, and fixing it again adds no second note.
	again, err := Check(context.Background(), res.Fixed, mustSources(t), Options{Scope: ScopeAll, Fix: annotate, Files: os.DirFS("testdata/planted")})
	if err != nil {
		t.Fatal(err)
	}
	if again.Summary.Fabricated != 0 || again.Summary.Overclaims != 0 {
		t.Errorf("after the fix: %+v", again.Summary)
	}
	if again.Fixed != res.Fixed {
		t.Errorf("fixing twice adds notes:\n%s", again.Fixed)
	}
}

func mustSources(t *testing.T) []Source {
	b, err := os.ReadFile("testdata/planted/sources.json")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := ParseSources(b)
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

// Scopes: a run's check (ScopeCitations) reads no prose, mentions or REF
// identifiers; --corpus-only reads numbers, mentions and REF identifiers;
// --rlm only file references.
func TestScopes(t *testing.T) {
	tests := []struct {
		scope Scope
		kinds string
	}{
		{ScopeCitations, "number file author-year doi"},
		{ScopeCorpus, "number mention ref-id"},
		{ScopeRLM, "file"},
		{ScopeAll, "number mention file author-year ref-id doi"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.scope), func(t *testing.T) {
			_, res := plantedProse(t, Options{Scope: tt.scope})
			var kinds []string
			for _, c := range res.Citations {
				if k := string(c.Kind); !strings.Contains(strings.Join(kinds, " "), k) {
					kinds = append(kinds, k)
				}
			}
			if strings.Join(kinds, " ") != tt.kinds {
				t.Errorf("kinds %v, want %s", kinds, tt.kinds)
			}
			for _, p := range res.Problems {
				if (p.Kind == ProblemStatistic || p.Kind == ProblemOverclaim) != (tt.scope == ScopeAll) && (p.Kind == ProblemStatistic || p.Kind == ProblemOverclaim) {
					t.Errorf("%s in scope %d", p.Kind, tt.scope)
				}
			}
		})
	}
}

func TestAuthorYearForms(t *testing.T) {
	report := "Jones and Lee (2018) agree. Smith & Wu (2019a) too. As shown (Brown, 2017; Kim et al., 2020; Diaz and Moreau 2016).\n" +
		"Not references: (March 2020), (Since 2019), (version 2, 2021) and Go (2024).\n"
	srcs := []Source{{Number: 1, Text: "Jones, A. and Lee, B. (2018). Brown 2017. Diaz and Moreau, 2016."}}
	res, err := Check(context.Background(), report, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Citations {
		got = append(got, fmt.Sprintf("%s=%s %s", c.Marker, c.Ref, c.Status))
	}
	want := "Jones and Lee (2018)=Jones & Lee 2018 matched|Smith & Wu (2019a)=Smith & Wu 2019 unmatched|" +
		"Brown, 2017=Brown 2017 matched|Kim et al., 2020=Kim 2020 unmatched|Diaz and Moreau 2016=Diaz & Moreau 2016 matched"
	if strings.Join(got, "|") != want {
		t.Errorf("author-year:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

func TestDOIForms(t *testing.T) {
	report := "See 10.12/x, doi:10.1000/182, 10.1000.10/abc and https://doi.org/10.5555/Q.1; a ratio 10.5/3, go1.10.3/x and https://a.example/v10.2/docs are none.\n"
	srcs := []Source{{Number: 1, Text: "10.1000/182"}}
	res, err := Check(context.Background(), report, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Citations {
		got = append(got, c.Ref+" "+string(c.Status))
	}
	if want := "10.12/x unmatched|10.1000/182 matched|10.1000.10/abc unmatched|10.5555/Q.1 unmatched"; strings.Join(got, "|") != want {
		t.Errorf("DOIs %s, want %s", strings.Join(got, "|"), want)
	}
	var kinds []string
	for _, p := range res.Problems {
		kinds = append(kinds, string(p.Kind))
	}
	if fmt.Sprint(kinds) != "[bad-doi unmatched unmatched]" {
		t.Errorf("problems %v", kinds)
	}
}

func TestMentions(t *testing.T) {
	tests := []struct {
		report string
		want   string // the mentions found, with their verdicts
	}{
		{"See @docs/research/notes.md.", "docs/research/notes.md matched"},
		{"Read @README.md and (@src/retry.go).", "README.md missing|src/retry.go matched"},
		{"Folders @docs/research/ and globs @docs/*/*.md, @src/*.py.", "docs/research/ matched|docs/*/*.md matched|src/*.py missing"},
		{"Not files: mail bob@example.com, @alice, @types/node, @$ROOT/x.md, `@code.md`.", ""},
		{"Escaping: @../outside.md", "../outside.md missing"},
	}
	for _, tt := range tests {
		t.Run(tt.report, func(t *testing.T) {
			res, err := Check(context.Background(), tt.report, nil, Options{Scope: ScopeCorpus, Files: os.DirFS("testdata/planted")})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range res.Citations {
				got = append(got, c.Ref+" "+string(c.Status))
			}
			if strings.Join(got, "|") != tt.want {
				t.Errorf("mentions %q, want %q", strings.Join(got, "|"), tt.want)
			}
		})
	}
}

func TestStatistics(t *testing.T) {
	tests := []struct {
		sentence string
		stats    bool
	}{
		{"Leaks cause 40% of outages.", true},
		{"Leaks cause 40 percent of outages.", true},
		{"The fix saved $3.5 million a year.", true},
		{"It costs 1,200 EUR to run.", true},
		{"Over 12,000 services were scanned.", true},
		{"About 3 million goroutines ran.", true},
		{"The new scheduler is 2.5x faster than the old one.", true},
		{"One in five services leaks.", true},
		{"Go 1.22 changed loop variables in 2024.", false},
		{"A channel holds 64 values.", false},
		{"See https://example.com/50%25/x for details of it all.", false},
		{"The value `99%` is code.", false},
		{"Leaks cause 40% of outages [1].", false}, // cited
	}
	srcs := []Source{{Number: 1, Text: "Leaks cause 40% of outages."}}
	for _, tt := range tests {
		t.Run(tt.sentence, func(t *testing.T) {
			res, err := Check(context.Background(), tt.sentence+"\n", srcs, Options{Scope: ScopeAll})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Summary.Statistics > 0; got != tt.stats {
				t.Errorf("statistic %v, want %v: %+v", got, tt.stats, res.Problems)
			}
		})
	}
}

func TestUncited(t *testing.T) {
	report := "# A heading that has many words in it\n\n" +
		"Goroutines are multiplexed onto operating system threads by the runtime.\n" +
		"What happens when a goroutine blocks forever on a channel?\n" +
		"See the memory model for the details of this.\n" +
		"Short sentence here.\n" +
		"The scheduler parks a goroutine that waits on a channel [1].\n\n" +
		"| a table row | with enough words to count as a sentence |\n"
	srcs := []Source{{Number: 1, Text: "The scheduler parks a goroutine that waits on a channel."}}
	res, err := Check(context.Background(), report, srcs, Options{Scope: ScopeAll, Uncited: true, Fix: Fix{Annotate: true}})
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, p := range res.Problems {
		if p.Kind == ProblemUncited {
			lines = append(lines, p.Line)
		}
	}
	if fmt.Sprint(lines) != "[3]" || res.Summary.UncitedClaims != 1 {
		t.Errorf("uncited on lines %v, want [3]: %+v", lines, res.Problems)
	}
	if !strings.Contains(res.Fixed, "threads by the runtime [TODO: cite a source].\n") {
		t.Errorf("no TODO marker:\n%s", res.Fixed)
	}
	// Without Uncited, nothing is reported.
	res, err = Check(context.Background(), report, srcs, Options{Scope: ScopeAll})
	if err != nil || len(res.Problems) != 0 {
		t.Errorf("problems without Uncited: %+v (%v)", res.Problems, err)
	}
}

func TestOverclaims(t *testing.T) {
	srcs := []Source{
		{Number: 1, Text: "Unbuffered channels synchronize the sender and the receiver.", Grade: "MODERATE"},
		{Number: 2, Text: "Unbuffered channels synchronize the sender and the receiver.", Type: "systematic-review"},
		{Number: 3, Text: "Unbuffered channels synchronize the sender and the receiver.", Grade: "low"},
		{Number: 4, Text: "Unbuffered channels always synchronize the sender and the receiver."},
		{Number: 5, Text: "Unbuffered channels synchronize the sender and the receiver."},
	}
	tests := []struct {
		sentence string
		why      string // "" when not an overclaim
	}{
		{"Unbuffered channels always synchronize the sender and the receiver [1].", "single source graded MODERATE"},
		{"Unbuffered channels always synchronize the sender and the receiver [2].", ""},
		{"Unbuffered channels always synchronize the sender and the receiver [1, 5].", ""},
		{"Unbuffered channels always synchronize the sender and the receiver [3, 5].", ""},
		{"This proves unbuffered channels synchronize the sender and the receiver [3].", "graded LOW"},
		{"Unbuffered channels always synchronize the sender and the receiver [4].", ""}, // the source says "always"
		{"Unbuffered channels always synchronize the sender and the receiver [5].", "single source"},
		{"Unbuffered channels definitively synchronize everything.", "cites no source"},
		{"Unbuffered channels synchronize the sender and the receiver [5].", ""},
	}
	for _, tt := range tests {
		t.Run(tt.sentence, func(t *testing.T) {
			res, err := Check(context.Background(), tt.sentence+"\n", srcs, Options{Scope: ScopeAll, Fix: Fix{Annotate: true}})
			if err != nil {
				t.Fatal(err)
			}
			var msg string
			for _, p := range res.Problems {
				if p.Kind == ProblemOverclaim {
					msg = p.Message
				}
			}
			if tt.why == "" && msg != "" || tt.why != "" && !strings.Contains(msg, tt.why) {
				t.Errorf("overclaim %q, want one saying %q", msg, tt.why)
			}
			if tt.why != "" && res.Fixed == tt.sentence+"\n" {
				t.Errorf("the fix did not hedge: %s", res.Fixed)
			}
		})
	}
}

func TestHedge(t *testing.T) {
	for in, want := range map[string]string{"proves": "suggests", "Always": "Usually", "ALL STUDIES": "The studies cited", "without  a doubt": "likely"} {
		if got := hedge(in); got != want {
			t.Errorf("hedge(%q) = %q, want %q", in, got, want)
		}
	}
}

// Sources given as the passages their citations were checked against
// (a JSON report's references) are judged against them; an edited
// passage is an error, and a source whose text lost a passage a warning.
func TestPassages(t *testing.T) {
	text := "Preamble that nobody cites. A goroutine blocked forever on a channel leaks. Trailing words."
	srcs := []Source{{Number: 1, URL: "https://go.dev/ref/mem", Text: text}}
	report := "A goroutine blocked forever on a channel leaks [1].\n"
	res, err := Check(context.Background(), report, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kept := res.Passages(srcs)
	if len(kept[1]) != 1 || kept[1][0].Text != "A goroutine blocked forever on a channel leaks." || !kept[1][0].Intact() {
		t.Fatalf("passages %+v", kept)
	}
	textHash := sourcetext.SHA256(text)
	tests := []struct {
		name  string
		src   Source
		kinds string // problem kinds
		pass  bool
	}{
		{"passages alone", Source{Number: 1, URL: srcs[0].URL, TextSHA256: textHash, Passages: kept[1]}, "", true},
		{"an edited passage", Source{Number: 1, URL: srcs[0].URL, TextSHA256: textHash, Passages: edited(kept[1])}, "unsupported altered", false},
		{"the text read", Source{Number: 1, URL: srcs[0].URL, Text: text, TextSHA256: textHash, Passages: kept[1]}, "", true},
		{"a passage moved in the text read", Source{Number: 1, URL: srcs[0].URL, Text: text, TextSHA256: textHash, Passages: moved(kept[1])}, "altered", false},
		{"a text read anew that still holds it", Source{Number: 1, URL: srcs[0].URL, Text: "A goroutine blocked  forever on a channel\nleaks.", TextSHA256: textHash, Passages: kept[1]}, "", true},
		{"a text that changed", Source{Number: 1, URL: srcs[0].URL, Text: "Goroutines never leak.", TextSHA256: textHash, Passages: kept[1]}, "unsupported changed", true},
		{"a hash and nothing kept", Source{Number: 1, URL: srcs[0].URL, TextSHA256: textHash}, "unsupported", true},
		{"nothing at all", Source{Number: 1, URL: srcs[0].URL}, "not-retrieved", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), report, []Source{tt.src}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, p := range res.Problems {
				kinds = append(kinds, string(p.Kind))
			}
			if strings.Join(kinds, " ") != tt.kinds || res.Pass(false) != tt.pass {
				t.Errorf("problems %v pass %v, want %q pass %v\n%s", kinds, res.Pass(false), tt.kinds, tt.pass, dump(res.Problems))
			}
		})
	}
	// The JSON form round-trips.
	b, err := json.Marshal(Source{Number: 1, TextSHA256: textHash, Passages: kept[1]})
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSources([]byte("[" + string(b) + "]"))
	if err != nil || len(back[0].Passages) != 1 || back[0].Passages[0] != kept[1][0] {
		t.Errorf("round trip: %s → %+v (%v)", b, back, err)
	}
}

// edited returns the passages with the first one's text changed, its hash
// kept.
func edited(ps []source.Passage) []source.Passage {
	out := slices.Clone(ps)
	out[0].Text = strings.Replace(out[0].Text, "leaks", "never leaks", 1)
	return out
}

// moved returns the passages with the first one's offsets shifted, its
// text and hash kept.
func moved(ps []source.Passage) []source.Passage {
	out := slices.Clone(ps)
	out[0].Start++
	out[0].End++
	return out
}

// BenchmarkCheckAll measures every check (ScopeAll, uncited sentences,
// the annotating fix) on the report of BenchmarkCheck with, every fifth
// sentence, a statistic, an overclaim, author-year references and
// @-mentions: the prose checks' cost over the citations' own.
func BenchmarkCheckAll(b *testing.B) {
	for _, size := range []int{150 << 10, 600 << 10} {
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			report, srcs := benchInput(b, size)
			var r strings.Builder
			for i, para := range strings.Split(report, "\n\n") {
				r.WriteString(para)
				if i%5 == 1 {
					r.WriteString(" Leaks cost $3 million a year. This always proves it [1]. Jones and Lee (2018) agree (Brown, 2017); see @docs/notes.md.")
				}
				r.WriteString("\n\n")
			}
			report = r.String()
			files := fstest.MapFS{"docs/notes.md": {Data: []byte("---\ngrade: LOW\n---\n")}}
			b.SetBytes(int64(len(report)))
			b.ReportAllocs()
			var s Summary
			for b.Loop() {
				res, err := Check(context.Background(), report, srcs, Options{Scope: ScopeAll, Uncited: true, Files: files, Fix: annotate})
				if err != nil {
					b.Fatal(err)
				}
				s = res.Summary
			}
			b.ReportMetric(float64(s.Citations), "citations")
			b.ReportMetric(float64(s.Overclaims+s.Statistics), "prose-problems")
		})
	}
}
