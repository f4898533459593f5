package verify

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// Issue 28, "Defects in verify": one test per defect.

var goSources = []Source{
	{Number: 1, URL: "https://go.dev/ref/mem", Title: "The Go Memory Model",
		Text: "Programs that modify data being simultaneously accessed by multiple goroutines must serialize such access. " +
			"To serialize access, protect the data with channel operations or other synchronization primitives such as those in the sync and sync/atomic packages."},
	{Number: 2, URL: "https://go.dev/ref/spec", Title: "The Go Programming Language Specification",
		Text: "The value of an uninitialized channel is nil. A new, initialized channel value can be made using the built-in function make."},
}

// Only a trailing reference section is a reference list: a report whose
// title is "Notes" (or "Sources", …) is prose, and its fabricated
// citation fails.
func TestOnlyTrailingReferenceSectionIsAList(t *testing.T) {
	const claim = "Goroutines are scheduled preemptively every 10 milliseconds [9].\n"
	tests := []struct {
		name   string
		report string
		// fabricated is the number of fabricated citations; pass the
		// verdict.
		fabricated int
		pass       bool
	}{
		{"title Notes", "# Notes\n\n" + claim, 1, false},
		{"title Sources", "# Sources\n\n" + claim, 1, false},
		{"title References", "# References\n\n" + claim, 1, false},
		{"title Citations", "# Citations\n\n" + claim, 1, false},
		{"title after front matter", "---\ntitle: x\n---\n# Notes\n\n" + claim, 1, false},
		{"title after a comment", "<!-- draft -->\n# Sources\n\n" + claim, 1, false},
		{"a section in the middle", "# Report\n\nThe value of an uninitialized channel is nil [2].\n\n## Notes\n\n" + claim + "\n## Conclusion\n\nDone.\n", 1, false},
		{"a trailing list", "# Report\n\nThe value of an uninitialized channel is nil [2].\n\n## References\n\n[1] The Go Memory Model.\n[9] Listed, never cited.\n", 0, true},
		{"two trailing lists", "# Report\n\nThe value of an uninitialized channel is nil [2].\n\n## Notes\n\n[9] A note.\n\n## Sources\n\n[8] Listed.\n", 0, true},
		{"a trailing list under the title", "# Notes\n\nThe value of an uninitialized channel is nil [2].\n\n## References\n\n[9] Listed.\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), tt.report, goSources, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Summary.Fabricated != tt.fabricated || res.Pass(false) != tt.pass {
				t.Errorf("fabricated %d, pass %v; want %d, %v\n%s", res.Summary.Fabricated, res.Pass(false), tt.fabricated, tt.pass, dump(res.Problems))
			}
		})
	}
}

// Every citation form the cite command reads is stripped from the
// sentence before it is judged: each scores as "[1]" does.
func TestEveryCitationFormJudgedAlike(t *testing.T) {
	const sentence = "Programs that modify data accessed by multiple goroutines must serialize such access"
	base, err := Check(context.Background(), sentence+" [1].\n", goSources, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := base.Citations[0]
	if want.Status != Supported {
		t.Fatalf("the plain form is %s (%.2f)", want.Status, want.Score)
	}
	for _, form := range []struct{ name, marker string }{
		{"double brackets", "[[1]]"},
		{"S", "[S:1]"},
		{"double S", "[[S:1]]"},
		{"footnote", "[^1]"},
		{"wide", "【1】"},
		{"fullwidth", "［1］"},
		{"dagger", "【1†source】"},
		{"pinpoint", "[1, p. 1]"},
		{"ref", "[ref: https://go.dev/ref/mem]"},
		{"seed HTML", `<sup class="cite" data-sids="1">[S:1]</sup>`},
		{"seed HTML, two numbers", `<sup class="cite" data-sids="1,2">[S:1,2]</sup>`},
		{"our HTML", `<sup class="cite" data-sids="1"><a href="https://go.dev/ref/mem" title="M">[1]</a></sup>`},
		{"our markdown", "[[1]](https://go.dev/ref/mem)"},
		{"with a usage tag", "[1] [[USAGE:1,2]]"},
	} {
		t.Run(form.name, func(t *testing.T) {
			res, err := Check(context.Background(), sentence+" "+form.marker+".\n", goSources, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Citations) == 0 {
				t.Fatalf("no citation found in %q", form.marker)
			}
			got := res.Citations[0]
			if got.Number != 1 || got.Sentence != want.Sentence || got.Score != want.Score || got.Status != Supported {
				t.Errorf("[%d] %q scores %.2f (%s); [1] gives %q %.2f", got.Number, got.Sentence, got.Score, got.Status, want.Sentence, want.Score)
			}
		})
	}
}

// "Jones et al. (2019)" is read whole, and a fix's note goes after it.
func TestAuthorYearParenthesisWhole(t *testing.T) {
	tests := []struct {
		name, report, marker, fixed string
	}{
		{"parenthesised year", "Jones et al. (2019) found it.\n", "Jones et al. (2019)", "Jones et al. (2019) [TODO: verify source] found it.\n"},
		{"parenthesised year with a letter", "As Jones et al. (2019a) found.\n", "Jones et al. (2019a)", "As Jones et al. (2019a) [TODO: verify source] found.\n"},
		{"comma and year", "Jones et al., 2019 found it.\n", "Jones et al., 2019", "Jones et al., 2019 [TODO: verify source] found it.\n"},
		{"inside a parenthesis", "It holds (Jones et al. 2019).\n", "Jones et al. 2019", "It holds (Jones et al. 2019 [TODO: verify source]).\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), tt.report, goSources, Options{Fix: Fix{Annotate: true}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Citations) != 1 || res.Citations[0].Marker != tt.marker || res.Citations[0].Ref != "Jones 2019" {
				t.Fatalf("citations %s, want one %q", dump(res.Citations), tt.marker)
			}
			if res.Fixed != tt.fixed {
				t.Errorf("fixed %q, want %q", res.Fixed, tt.fixed)
			}
		})
	}
}

// Path-only file references, "[src/legacy/auth.py]", are file references;
// bracketed words that are no paths are not.
func TestPathOnlyFileReferences(t *testing.T) {
	files := fstest.MapFS{"src/legacy/auth.py": {Data: []byte("def f():\n    pass\n")}}
	tests := []struct {
		name, report string
		want         string // "status ref", or "" for no file reference
	}{
		{"path only", "Auth lives here [src/legacy/auth.py].", "unversioned src/legacy/auth.py"},
		{"missing file", "Gone [src/legacy/gone.py].", "missing src/legacy/gone.py"},
		{"dot slash", "Auth [./src/legacy/auth.py].", "unversioned ./src/legacy/auth.py"},
		{"no folder", "Built on [Node.js] here.", ""},
		{"no extension", "Over [TCP/IP] here.", ""},
		{"a URL", "See [https://go.dev/doc/x.html] here.", ""},
		{"a link", "See [docs/x.md](docs/x.md) here.", ""},
		{"a link definition", "[docs/x.md]: https://example.com/x", ""},
		{"absolute path", "See [/etc/passwd.conf] here.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), tt.report, nil, Options{Files: files, Scope: ScopeRLM})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range res.Citations {
				got = append(got, fmt.Sprintf("%s %s", c.Status, c.Ref))
			}
			if strings.Join(got, "; ") != tt.want {
				t.Errorf("file references %q, want %q", got, tt.want)
			}
		})
	}
}

// Lines beyond a file's end are told in good English, once, in the
// bad-lines problem; the stale or unversioned problem says only that.
func TestLinesBeyondMessages(t *testing.T) {
	two := []byte("line one\nline two\n")
	files := fstest.MapFS{"a.py": {Data: two}, "one.txt": {Data: []byte("only")}}
	h := ContentHash(two)
	tests := []struct {
		name, report string
		want         map[ProblemKind]string // each problem's message
	}{
		{"one line beyond", "Here [a.py, L88].", map[ProblemKind]string{
			ProblemUnversioned: "[a.py, L88]: the file exists but the reference has no content hash",
			ProblemBadLines:    "[a.py, L88]: line 88 is beyond its 2 lines"}},
		{"a range beyond", "Here [a.py@" + h + ", L9-12].", map[ProblemKind]string{
			ProblemBadLines: "[a.py@" + h + ", L9-12]: lines 9-12 are beyond its 2 lines"}},
		{"a one-line file", "Here [one.txt@" + ContentHash([]byte("only")) + ", L3].", map[ProblemKind]string{
			ProblemBadLines: "[one.txt@" + ContentHash([]byte("only")) + ", L3]: line 3 is beyond its 1 line"}},
		{"stale and beyond", "Here [a.py@0123456789abcdef, L5-6].", map[ProblemKind]string{
			ProblemStale:    "[a.py@0123456789abcdef, L5-6]: the file changed since it was cited (current hash " + h + ")",
			ProblemBadLines: "[a.py@0123456789abcdef, L5-6]: lines 5-6 are beyond its 2 lines"}},
		{"backwards", "Here [a.py@" + h + ", L2-1].", map[ProblemKind]string{
			ProblemBadLines: "[a.py@" + h + ", L2-1]: lines 2-1 run backwards"}},
		{"within", "Here [a.py@" + h + ", L1-2].", map[ProblemKind]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), tt.report, nil, Options{Files: files, Scope: ScopeRLM})
			if err != nil {
				t.Fatal(err)
			}
			got := map[ProblemKind]string{}
			for _, p := range res.Problems {
				got[p.Kind] = p.Message
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("problems:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
