package verify

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/deepresearch/deepresearch/source"
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

// A quotation must be in its source (whitespace, curly quotes, the case
// of its first letter and elisions aside); a sentence copied from its
// source is supported; a copy that changes a figure or a name is not.
func TestQuotations(t *testing.T) {
	srcs := []Source{
		goSources[0],
		goSources[1],
		// As a DOCX reads: lines wrapped inside sentences, curly quotes.
		{Number: 3, URL: "file:///c/policy.docx", Title: "policy.docx",
			Text: "Refund policy\n\nCustomers may return any item within\n30 days of delivery for a full refund.\n" +
				"Items marked “final sale” cannot be returned. The Go team reviews the policy every year."},
		{Number: 4, URL: "https://go.dev/doc/gc-guide", Title: "A Guide to the Go Garbage Collector",
			Text: "The default GOGC value is 100, which means the heap may grow by 100% before a collection."},
	}
	const modify = "Programs that modify data being simultaneously accessed by multiple goroutines must serialize such access"
	tests := []struct {
		name, report string
		status       Status
		kind         ProblemKind // the problem, "" for none
		message      string      // what the problem's message holds
	}{
		{"a quotation, exact", `The memory model says "` + modify + `" [1].`, Supported, "", ""},
		{"curly quotes and the first letter's case", `“` + strings.ToLower(modify[:1]) + modify[1:] + `,” the memory model says [1].`, Supported, "", ""},
		{"an elision", `The rule: "Programs that modify data … must serialize such access" [1].`, Supported, "", ""},
		{"an elision in brackets", `The rule: "Programs that modify data [...] must serialize such access" [1].`, Supported, "", ""},
		{"wrapped lines in the source", `The policy says "customers may return any item within 30 days of delivery for a full refund" [3].`, Supported, "", ""},
		{"a quotation inside the quotation", `The policy says "Items marked "final sale" cannot be returned" [3].`, Supported, "", ""},
		{"a changed word", `The memory model says "Programs that modify data being simultaneously accessed by several goroutines must serialize such access" [1].`, Unsupported, ProblemMisquote, "quote not found in [1]: “Programs that modify data being simultaneously accessed by several goroutines must serialize such access”"},
		{"a changed number in a quotation", `The policy says "customers may return any item within 60 days of delivery" [3].`, Unsupported, ProblemMisquote, "quote not found in [3]"},
		{"a block quote", "> " + modify + ". [1]\n", Supported, "", ""},
		{"a block quote, changed", "> Programs that modify data must always serialize such access. [1]\n", Unsupported, ProblemMisquote, "quote not found in [1]"},
		{"a callout is no quotation", "> **Note.** Programs that modify shared data must serialize access to it. [1]\n", Supported, "", ""},
		{"an alert is no quotation", "> [!NOTE]\n> Programs that modify shared data must serialize access to it. [1]\n", Supported, "", ""},
		{"a short quoted term is no quotation", `Items marked "final sale" cannot be returned [3].`, Supported, "", ""},
		{"a copied sentence", "The value of an uninitialized channel is nil [2].", Supported, "", ""},
		{"a copied sentence, wrapped in the source", "Customers may return any item within 30 days of delivery for a full refund [3].", Supported, "", ""},
		{"a copy with a changed number", "Customers may return any item within 60 days of delivery for a full refund [3].", Unsupported, ProblemNumber, "number not in [3]: 60 days; the source says 30 days"},
		{"a copy with a changed setting", "The default GOGC value is 200, which means the heap may grow by 100% before a collection [4].", Unsupported, ProblemNumber, "number not in [4]: 200; the source says 100"},
		{"a copy with a changed name", "The Rust team reviews the policy every year [3].", Unsupported, ProblemUnsupported, "it names Rust, which [3] does not"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), tt.report, srcs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Citations) != 1 {
				t.Fatalf("citations %s", dump(res.Citations))
			}
			ct := res.Citations[0]
			if ct.Status != tt.status {
				t.Errorf("%s (score %.2f, %s), want %s", ct.Status, ct.Score, ct.Reason, tt.status)
			}
			if ct.Status == Supported && (ct.Evidence == nil || srcs[ct.Number-1].Text[ct.Evidence.Start:ct.Evidence.End] != ct.Evidence.Quote) {
				t.Errorf("evidence %+v is not the source's text at its offsets", ct.Evidence)
			}
			var kinds []ProblemKind
			for _, p := range res.Problems {
				kinds = append(kinds, p.Kind)
				if p.Kind == tt.kind && !strings.Contains(p.Message, tt.message) {
					t.Errorf("message %q, want it to hold %q", p.Message, tt.message)
				}
			}
			if want := fmt.Sprint([]ProblemKind{tt.kind}); tt.kind == "" && len(kinds) > 0 || tt.kind != "" && fmt.Sprint(kinds) != want {
				t.Errorf("problems %v, want %v", kinds, tt.kind)
			}
			// A misquote fails the report; a figure not in the source only
			// a strict check, as unsupported sentences do.
			if pass := res.Pass(false); pass != (tt.kind != ProblemMisquote) {
				t.Errorf("pass %v", pass)
			}
		})
	}
}

// Numbers, amounts, percentages, dates and units are compared with the
// source's after normalising: seed 003's "$1,499" against "price:
// 1499.0" is supported, and "$2,999" is not.
func TestQuantities(t *testing.T) {
	srcs := []Source{
		{Number: 1, URL: "file:///kb/techmart_catalog.csv", Title: "Product Catalog", Text: "product_id: SKU001 | price: 1499.0 | name: TechBook Pro"},
		{Number: 2, URL: "https://example.com/report", Title: "Quarterly report",
			Text: "Error rates fell by 15% after the change. Version 2 was released on 2024-03-05. Each node has 64 GB of memory. Revenue reached $1.2 million. " +
				"Settings are kept for two years. The server speaks HTTP/2 to its clients."},
	}
	tests := []struct {
		name, sentence string
		supported      bool
		message        string // the number problem's message, when not supported
	}{
		{"an amount as a bare number", "The TechBook Pro costs $1,499 [1].", true, ""},
		{"an amount with a code", "The TechBook Pro costs USD 1,499 [1].", true, ""},
		{"an amount in thousands", "The TechBook Pro costs 1.499k dollars [1].", true, ""},
		{"an amount hedged", "The TechBook Pro price is about $1,500 [1].", true, ""},
		{"a wrong amount", "The TechBook Pro costs $2,999 [1].", false, "number not in [1]: 2,999; the source says 1499.0"},
		{"an amount rounded without a hedge", "The TechBook Pro costs $1,500 [1].", false, "number not in [1]: 1,500; the source says 1499.0"},
		{"a percentage in words", "Error rates fell by 15 percent after the change [2].", true, ""},
		{"a wrong percentage", "Error rates fell by 25% after the change [2].", false, "number not in [2]: 25%; the source says 15%"},
		{"a written date", "Version 2 was released on March 5, 2024 [2].", true, ""},
		{"a date day first", "Version 2 was released on 5 March 2024 [2].", true, ""},
		{"a wrong date", "Version 2 was released on March 6, 2024 [2].", false, "number not in [2]: March 6, 2024; the source says 2024-03-05"},
		{"a unit written apart", "Each node has 64GB of memory [2].", true, ""},
		{"a unit in words", "Each node has 64 gigabytes of memory [2].", true, ""},
		{"a wrong unit figure", "Each node has 128 GB of memory [2].", false, "number not in [2]: 128 GB; the source says 64 GB"},
		{"millions", "Revenue reached $1,200,000 [2].", true, ""},
		{"a number the source writes in words", "Settings are kept for 2 years [2].", true, ""},
		{"a wrong number the source writes in words", "Settings are kept for 3 years [2].", false, "number not in [2]: 3 years; the source says two"},
		{"a version is no figure", "The server speaks HTTP/3 to its clients [2].", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), tt.sentence+"\n", srcs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ct := res.Citations[0]
			if got := ct.Status == Supported; got != tt.supported {
				t.Errorf("%s (score %.2f, %s)", ct.Status, ct.Score, ct.Reason)
			}
			if tt.message == "" {
				return
			}
			if len(res.Problems) != 1 || res.Problems[0].Kind != ProblemNumber || res.Problems[0].Message != tt.message {
				t.Errorf("problems %s, want one number problem %q", dump(res.Problems), tt.message)
			}
		})
	}
}

// A page, row or slide its source does not have is a problem of its own:
// an error, as a number with no source is.
func TestPinpointsOutsideTheirSource(t *testing.T) {
	csv := "name,price\nTechBook Pro,1499.0\nTechBook Air,999.0\nTechBook Mini,599.0\n"
	marked := "row 2: name: TechBook Pro; price: 1499.0\nrow 3: name: TechBook Air; price: 999.0\nrow 4: name: TechBook Mini; price: 599.0"
	pages := "--- page 1 ---\nThe TechBook Pro costs 1499 dollars.\n--- page 2 ---\nThe TechBook Air costs 999 dollars."
	row := func(n string) source.Location { return source.Location{Kind: source.LocRow, Value: n} }
	tests := []struct {
		name   string
		src    Source
		report string
		want   string // status, and the bad-locator message when there is one
	}{
		{"a row beyond a CSV file", Source{Number: 2, URL: "file:///kb/catalog.csv", Text: csv}, "The TechBook Pro costs 1499.0 [2, row 99].",
			"fabricated: [2, row 99]: source [2] (file:///kb/catalog.csv) has no row 99: it has 4 rows, the header being row 1"},
		{"a row of a CSV file", Source{Number: 2, URL: "file:///kb/catalog.csv", Text: csv}, "The TechBook Air costs 999.0 [2, row 3].", "supported"},
		{"a row beyond marked rows", Source{Number: 2, URL: "file:///kb/catalog.xlsx", Text: marked}, "The TechBook Pro costs 1499.0 [2, row 99].",
			"fabricated: [2, row 99]: source [2] (file:///kb/catalog.xlsx) has no row 99: its text marks no such row"},
		{"a marked row, judged alone", Source{Number: 2, URL: "file:///kb/catalog.xlsx", Text: marked}, "The TechBook Air costs 999.0 [2, row 2].", "unsupported"},
		{"the right marked row", Source{Number: 2, URL: "file:///kb/catalog.xlsx", Text: marked}, "The TechBook Air costs 999.0 [2, row 3].", "supported"},
		{"a page beyond marked pages", Source{Number: 2, URL: "file:///kb/catalog.pdf", Text: pages}, "The TechBook Pro costs 1499 dollars [2, p. 7].",
			"fabricated: [2, p. 7]: source [2] (file:///kb/catalog.pdf) has no p. 7: its text marks no such page"},
		{"a source read at one row", Source{Number: 2, URL: "file:///kb/catalog.csv", Location: row("2"), Text: "row 2: name: TechBook Pro; price: 1499.0"}, "The TechBook Pro costs 1499.0 [2, row 99].",
			"fabricated: [2, row 99]: source [2] (file:///kb/catalog.csv) has no row 99: it was read at row 2"},
		{"a text that marks no units", Source{Number: 2, URL: "https://example.com/a", Text: "The TechBook Pro costs 1499 dollars."}, "The TechBook Pro costs 1499 dollars [2, p. 7].", "supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(context.Background(), tt.report+"\n", []Source{tt.src}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := string(res.Citations[0].Status)
			for _, p := range res.Problems {
				if p.Kind == ProblemBadLocator {
					got += ": " + p.Message
					if p.Severity != Error {
						t.Errorf("severity %s", p.Severity)
					}
				}
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// A copy of the source's words is a whole sentence or clause of it.
func TestClause(t *testing.T) {
	text := normalizeText("It is not the case that the function is invoked immediately. The function is invoked later, when it returns.")
	tests := []struct {
		s  string
		ok bool
	}{
		{"The function is invoked later, when it returns", true},
		{"the function is invoked later", true},
		{"the function is invoked immediately", false},  // after "that": the middle of a sentence
		{"It is not the case that the function", false}, // cut short
		{"The function is invoked", false},
	}
	for _, tt := range tests {
		if _, _, ok := text.clause(tt.s); ok != tt.ok {
			t.Errorf("clause(%q) = %v, want %v", tt.s, ok, tt.ok)
		}
	}
}

// What names something must be named by the source; the first word of a
// sentence or of a part of it, words that name nothing and quantities'
// words need not.
func TestMissingNames(t *testing.T) {
	lowered := strings.ToLower("The Go team reviews the policy every year. Customers may return items.")
	tests := []struct{ sentence, want string }{
		{"The Rust team reviews the policy every year.", "it names Rust, which [1] does not"},
		{"The Go team reviews the policy every year.", ""},
		{"Returns: However you buy, customers may return items.", ""},
		{"Returns; Whatever you buy, customers may return items.", ""},
		{"The team (Reviewers included) reviews it.", ""},
		{"The team reviews it on March 5, 2024 and charges USD 12.", ""},
		{"The Go team and the Zig team review it.", "it names Zig, which [1] does not"},
	}
	for _, tt := range tests {
		if got := missingNames(tt.sentence, 1, lowered); got != tt.want {
			t.Errorf("missingNames(%q) = %q, want %q", tt.sentence, got, tt.want)
		}
	}
}
