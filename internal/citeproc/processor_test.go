package citeproc_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/source"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testCanonical is a stand-in canonicaliser: scheme, "www." and a trailing
// slash do not matter.
func testCanonical(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	u = strings.TrimPrefix(u, "www.")
	return strings.TrimSuffix(u, "/")
}

func testMapping(t testing.TB) *citeproc.Mapping {
	t.Helper()
	m, err := citeproc.MappingOf(map[int]citeproc.Source{
		1: {ID: "doc-a", URL: "https://example.com/a", Title: "Alpha"},
		2: {ID: "doc-b", URL: "https://example.org/b_(2)", Title: `Beta "two" & more`},
		3: {ID: "doc-c", Title: "Gamma, no URL"},
		4: {ID: "doc-d", URL: "https://example.net/d", Title: "Delta"},
		// An in-page anchor (linked), and URLs that must never become links.
		6: {ID: "doc-anchor", URL: "#ref-6", Title: "Anchor"},
		7: {ID: "doc-js", URL: "javascript:alert(document.domain)", Title: "Script"},
		8: {ID: "doc-data", URL: "data:text/html,<b>x</b>", Title: "Data"},
		// Identifiers, linked under their https form (issue 17).
		10: {ID: "doc-doi", URL: "doi:10.1000/XYZ", Title: "A DOI"},
		11: {ID: "doc-arxiv", URL: "arxiv:2401.12345v2", Title: "An arXiv paper"},
		// Two pages of one PDF (issue 22): FirstCited numbers them as one
		// reference, and every citation keeps its page.
		12: {ID: "spec.pdf", URL: "file:///c/spec.pdf", Title: "spec.pdf", Location: source.Location{Kind: source.LocPage, Value: "4"}},
		13: {ID: "spec.pdf", URL: "file:///c/spec.pdf", Title: "spec.pdf", Location: source.Location{Kind: source.LocPage, Value: "7"}},
	}, testCanonical)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cases are the golden inputs: every dialect and edge case.
var cases = []struct{ name, in string }{
	{"basic", "Go is fast [1]. It is simple [2]. Both [1]."},
	{"pinpoint", "Weights go to 100 [12]. Magic comes first [13]. Both [12, 13] and [12][13]. " +
		"Pinned [12, p. 4], [ 13 ,row 7], [1, p. 9], [12, p. 9] and [12 , slide 2]. Not pins: [12, p.], [12, pp. 4], [12, row4], [12, p. 4, 5]."},
	{"group", "A [1, 2] B [1,2] C [ 1 , 3 ] D [1;4] E [2, 2]."},
	{"adjacent", "A [1][2]. B [2] [3]. C[4]."},
	{"double", "A [[1]] and [[1, 3]] and [[2]](not a citation)."},
	{"fullwidth", "中文【1】和［2］，还有【1，3】、【2、4】。"},
	{"fullwidth_digits", "数字【１】和［２］。"},
	{"ranges", "A [2-4] B [1–3] C [1 — 2] D [4-2] E [1-100] F [1-2, 4]."},
	{"protocol", "A [[S:1]] B [[S:1,3]] C [[S:2-4]] D [S:2] E [[S:9]] F [[S:x]]."},
	{"footnote", "Claim[^1]. Another[^2] and [^9].\n\n[^1]: The note itself\n"},
	{"ref", "See [ref: https://www.example.com/a/] and [REF:example.net/d] and [ref: https://nowhere.example/x]. Not [ref:] or [ref: a b]."},
	{"fence", "Text [1].\n```go\nx := arr[1]\n```\nAfter [2].\n~~~\n[3]\n~~~\nEnd [3]."},
	{"fence_longer", "````\n```\n[1]\n```\n````\nOut [1]."},
	{"fence_indented", "- item [1]\n    ```python\n    a[1] = 2\n    ```\n- [2] done"},
	{"fence_unclosed", "A [1]\n```\n[2]\nstill code [3]"},
	{"fence_not_closed_by_info", "```\n``` not a close [1]\n```\n[1]"},
	{"inline_code", "Use `arr[1]` or ``x ` [1]`` but cite [1]."},
	{"stray_backtick", "It`s true [1].\nNext `line [2]\n`ok [3]` [4]"},
	{"links", "[text](http://x) [1](http://y) ![img [1]](p.png) [1] (see) after [2]."},
	{"link_text", "[see [1]](https://u) and [unclosed [2] here\n[a [b] c](d(e)f) [3] ![alt](x.png)[4] [x]\\] [2]"},
	{"not_citations", "[a] [1.5] [01] [0] [1a] [1,] [,1] [1234567] \\[1\\] [1 2] [-1] [1-] arr[ 1 ]x"},
	{"unknown", "Known [1], unknown [9], mixed [1, 9], range [3-5]. [9] again [99]."},
	{"definitions", "[1]: https://example.com/a\n  [2]: indented\nText [1]: mid-line colon."},
	{"remove_spacing", "A [1] b.\nC [1].\n[1] Start\nD  [1]  e\nF [1], g\nH[1] i\n(see [1])\nJ [1] [2] k\nEnd [1]"},
	{"unknown_spacing", "Before [9] after. Just [9].\n[9] start"},
	{"utf8", "Émile [1] — 日本語 [2] 🎉[3]. ／【1】"},
	{"crlf", "Line [1]\r\nNext [2]\r\n"},
	{"trailing_blanks", "Hard break  \nkept  \nend [1]  "},
	{"empty", ""},
	{"unterminated", "Ends inside a marker [1, 2"},
	// Containers (issue 6, defect 1): a fence inside a list item or a block
	// quote belongs to it.
	{"fence_in_list", "- ```\n  x[1]\n  ```\nProse [2].\n\n```\ncode [3]\n```\n"},
	{"fence_in_ordered_list", "1. ```bash\n   echo a[1]\n   ```\n2. Step [2]\n\n```\nb[3]\n```\n"},
	{"fence_in_quote", "> ```\n> arr[1] = 0\n> ```\nAfter [2].\n> ~~~\n> b[3]\n> ~~~\nEnd [4]."},
	{"fence_quote_ends", "> ```\n> a[1]\nout [2]\n\n- ```\n  b[3]\nc [4]"},
	{"fence_close_too_indented", "- ```\n  a[1]\n      ```\n  b[2]\n  ```\nc [3]\n```\n    ```\nd[4]\n```\ne [4]"},
	{"fence_nested_containers", "> - ```\n>   a[1]\n>   ```\n> - after [2]\n>\n>     b[3]\n\n1. x\n\n   > ```\n   > c[4]\n   > ```\n   y [4]"},
	{"lazy_continuation", "> quote [1]\ncontinued [2]\n\n- item [3]\nlazy [4]\n```\nx[1]\n```\n"},
	{"indented_code", "Para [1]\n    not code [2]\n\n    code[3]\n\n- item [1]\n\n      code[4]\n\n  para [2]\n\n1. x\n\n    para [3]\n\t\ttab code[4]\n"},
	{"list_markers", "2019. A year [1]\nPara [2]\n2. not a list [3]\n- - -\n    code after a break [4]\n-\n* x [1]\n10) y [2]\nSetext [3]\n---\n    code after a heading [4]\nPara [1]\n=\n    code [2]"},
	{"html_regions", "<!-- [1] -->\nText <code>a[2]</code> and <https://x.example/[3]> [4]\n<pre>\nb[1]\n</pre>\nAfter [2] <!-- multi\n[3] --> [3] <CODE>[1] x [2] <!--> [4] <mailto:a@b.example>[1] <notalink [2]>"},
	{"html_block_unclosed", "<script>\nx = a[1];\n[2]"},
	// Dialects and near misses (issue 6, defect 2): a bracket of
	// citation-like numbers is understood or neutralised, never passed
	// through with a stale number.
	{"openai_dialect", "X [2]. Y 【1†source】 Z [1,]. W 【3:1†source】 V [1†] U 【4†L10-L20】 T [2†source]."},
	{"separator_dialects", "[1,2,] [1, 2,] [2,] [,2] [1 & 2] [1 and 2] [1, 2, and 4] [S1] [Source 2] [s3, S4] [^1, 2] [^1,^2]"},
	{"dash_dialects", "[1‐3] [1‑2] [2−4] [[s:1]] [[S:2]] [1—2]"},
	{"near_misses", "[3-1] [01] [1-70] [1 2] [1234567] [-1] [1-] [[1 2]] 【01】 [1, 02] x[1.5] [a1] [1†\n] [S:] [ ]"},
	{"near_miss_in_brackets", "(see [3-1]) [a [01] b] 【[1-70]】"},
	{"zero", "Zero [0] and [0, 1] and [00]."},
	// Smaller defects (issue 6, defect 3).
	{"double_wide", "【【1】】 and ［［2］］ and 【【1，3】】 and 【【9】】."},
	{"ref_angle", "[ref: <https://www.example.com/a/>] and [ref:<https://example.net/d>] and [ref: <https://nowhere.example/>] [ref: <a b>]"},
	{"definitions_untouched", "See [Smith][1].\n\n[1]: https://smith.example/paper \"t [3]\"\n[7]: https://other.example/\n[Also][] [x][y] [z][2 [4]\n  [^2]: note [2]\n"},
	{"remove_joins", "Use `a`[1]`b` here. **bold**[1]**more** _a_[2]_b_ ~~s~~[3]~~t~~ `c` [1]`d`"},
	{"unsafe_urls", "JS [7] data [8] both [7, 1] and [8][1]. Anchor [6]."},
	// Issue 17: a marker right after '!' is a citation unless a markdown
	// link or a defined reference label makes it an image.
	{"bang_markers", "Wow![1][3] and ![^4][^2]. Grew 40%![1][2]. Remarkable![3]. Not ![1](x.png) or ![alt][3] or ![[4]][2]\n![2][9]![1]"},
	// Found by FuzzRoundTrip: a range of one number ("1-1") before a
	// separator lent its dash and end to the separator when renumbered.
	{"degenerate_range", "[2][1-1&2] and [3-3, 4]."},
	// Found by FuzzRoundTrip: in Renumber mode, a reference link's label
	// that resolves to nothing leaves an empty label, so that the link's
	// text stays a link's text.
	{"ref_label_dropped", "[[0]0][0] and [see [2]][9] but [see][1]."},
	{"bang_labels", "[x\\]y]: https://img.example/p.png\nA![1][x\\]y] B![2][long label \\] with an escape] C![3][unclosed\nD![4][ E![1]["},
	{"bang_defined", "[3]: https://img.example/x.png\n[^2]: a footnote\n\nImage ![1][3] and ![4][ 3 ] but citations ![1][2] ![4][^2].\n"},
	// Issue 17: a negative number is prose; a leading zero means nothing.
	{"negative_numbers", "Array index [-1] here. [−2] [ -3 ] [1, -2] [–1] [-1-3] a[-1]b and [1-2]."},
	// Issue 17: seed 001's usage telemetry tag is reported and, in every
	// mode but Keep, removed.
	{"usage", "Answer [1].\n\n[[USAGE:1,3,5]]\nMid [[usage: 2-4]] text [[USAGE:]], [5[[USAGE:1]]] `[[USAGE:9]]` end [[USAGE:7]]"},
	// Issue 17: a data-sids attribute on a <sup class="cite"> is a
	// citation; renumbering rewrites it.
	{"data_sids", "Fast <sup class=\"cite\" data-sids=\"1,3\">[S:1,3]</sup>. Range <sup class='note cite' data-sids='2-4'>x</sup> unknown <sup class=\"cite\" data-sids=\"9\">[9]</sup> mixed <sup class=\"cite\" data-sids=\"4, 9\">w</sup>\nOther <sup data-sids=\"1\">[1]</sup> <SUP CLASS=\"cite\" DATA-SIDS=\"1, 2\" id=r>y</SUP> bad <sup class=\"cite\" data-sids=\"x\">z</sup> `<sup class=\"cite\" data-sids=\"1\">` cut <sup class=\"cite\"\ndata-sids=\"1\">"},
	{"doi_arxiv", "A DOI [10] and an arXiv paper [11], both [10, 11]."},
	{"leading_zeros", "Padded [01] [007] [01-03] 【01】 [0001, 02] and [0000001]."},
}

type mode struct {
	name string
	cfg  func(*citeproc.Mapping) citeproc.Config
}

var modes = []mode{
	{"keep", func(m *citeproc.Mapping) citeproc.Config { return citeproc.Config{Mode: citeproc.Keep, Mapping: m} }},
	{"link markdown", func(m *citeproc.Mapping) citeproc.Config {
		return citeproc.Config{Mode: citeproc.Link, Style: citeproc.Markdown, Mapping: m}
	}},
	{"link plain", func(m *citeproc.Mapping) citeproc.Config {
		return citeproc.Config{Mode: citeproc.Link, Style: citeproc.Plain, Mapping: m}
	}},
	{"link footnote", func(m *citeproc.Mapping) citeproc.Config {
		return citeproc.Config{Mode: citeproc.Link, Style: citeproc.Footnote, Mapping: m}
	}},
	{"link html", func(m *citeproc.Mapping) citeproc.Config {
		return citeproc.Config{Mode: citeproc.Link, Style: citeproc.HTML, Mapping: m}
	}},
	{"link markdown first-cited", func(m *citeproc.Mapping) citeproc.Config {
		return citeproc.Config{Mode: citeproc.Link, Mapping: m, Numberer: citeproc.FirstCited()}
	}},
	{"remove", func(m *citeproc.Mapping) citeproc.Config { return citeproc.Config{Mode: citeproc.Remove, Mapping: m} }},
	{"renumber first-cited", func(m *citeproc.Mapping) citeproc.Config {
		return citeproc.Config{Mode: citeproc.Renumber, Mapping: m, Numberer: citeproc.FirstCited()}
	}},
}

// transcript records the processor's output as one sequence: text runs
// (adjacent writes merged, since how text is split into writes is not part
// of the contract) and facts in the order they were reported.
type transcript struct {
	b      strings.Builder
	inText bool
}

func (t *transcript) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !t.inText {
		t.b.WriteString("text: ")
		t.inText = true
	}
	t.b.Write(p)
	return len(p), nil
}

func (t *transcript) fact(s string) {
	if t.inText {
		t.b.WriteString("\n")
		t.inText = false
	}
	t.b.WriteString(s + "\n")
}

func (t *transcript) String() string {
	if t.inText {
		t.b.WriteString("\n")
		t.inText = false
	}
	return t.b.String()
}

// run feeds in through a processor in the chunks split returns and returns
// the transcript and the plain output text.
func run(t testing.TB, in string, m mode, split func(string) []string) (string, string) {
	t.Helper()
	tr := &transcript{}
	var text strings.Builder
	cfg := m.cfg(testMapping(t))
	cfg.Hooks = citeproc.Hooks{
		Citation: func(c citeproc.Citation) {
			f := fmt.Sprintf("cite: %d -> [%d] %s", c.Number, c.Display, c.Source.ID)
			if !c.Source.Location.IsZero() {
				f += " at " + c.Source.Location.String()
			}
			tr.fact(f)
		},
		Usage: func(u citeproc.Usage) {
			tr.fact(fmt.Sprintf("usage: %v at %d", u.Numbers, u.Offset))
		},
		Unknown: func(u citeproc.Unknown) {
			switch {
			case u.Marker != "":
				tr.fact(fmt.Sprintf("unknown marker: %q", u.Marker))
			case u.URL != "":
				tr.fact("unknown: " + u.URL)
			default:
				tr.fact(fmt.Sprintf("unknown: %d", u.Number))
			}
		},
	}
	p := citeproc.New(teeWriter{tr, &text}, cfg)
	for _, c := range split(in) {
		if _, err := p.WriteString(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return tr.String(), text.String()
}

type teeWriter struct {
	a *transcript
	b *strings.Builder
}

func (w teeWriter) Write(p []byte) (int, error) {
	w.b.Write(p)
	return w.a.Write(p)
}

// Splitters, after test2json's tests: bulk, one byte at a time, and two
// bytes at a time on even and odd boundaries.
var splitters = []struct {
	name  string
	split func(string) []string
}{
	{"bulk", func(s string) []string { return []string{s} }},
	{"bytes", func(s string) []string { return chunks(s, 0, 1) }},
	{"pairs-even", func(s string) []string { return chunks(s, 0, 2) }},
	{"pairs-odd", func(s string) []string { return chunks(s, 1, 2) }},
}

// chunks splits s into a first chunk of first bytes, then chunks of n.
func chunks(s string, first, n int) []string {
	var out []string
	if first > 0 && len(s) > 0 {
		first = min(first, len(s))
		out = append(out, s[:first])
		s = s[first:]
	}
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got strings.Builder
			fmt.Fprintf(&got, "input: %q\n", tc.in)
			for _, m := range modes {
				want, text := run(t, tc.in, m, splitters[0].split)
				for _, sp := range splitters[1:] {
					if tr, _ := run(t, tc.in, m, sp.split); tr != want {
						t.Errorf("%s, %s: chunking changed the output\nbulk:\n%s\n%s:\n%s", m.name, sp.name, want, sp.name, tr)
					}
				}
				if m.name == "keep" && text != tc.in {
					t.Errorf("keep mode changed the text:\n got %q\nwant %q", text, tc.in)
				}
				fmt.Fprintf(&got, "\n== %s\n%s", m.name, want)
			}
			path := filepath.Join("testdata", "golden", tc.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got.String() != string(want) {
				t.Errorf("golden mismatch for %s (run with -update after checking the diff)\ngot:\n%s\nwant:\n%s", path, got.String(), want)
			}
		})
	}
}

// TestOneURLPerNumber: two mapping entries for one resource share a
// display number, and that number shows one URL everywhere: in the text,
// the Cited list and the Citation facts (issue 6).
func TestOneURLPerNumber(t *testing.T) {
	m, err := citeproc.MappingOf(map[int]citeproc.Source{
		1: {ID: "x", URL: "https://example.com/x"},
		2: {ID: "x-www", URL: "http://www.example.com/x/"},
	}, testCanonical)
	if err != nil {
		t.Fatal(err)
	}
	key := func(s citeproc.Source) string { return testCanonical(s.URL) }
	for _, tc := range []struct {
		style citeproc.Style
		want  string
	}{
		{citeproc.Markdown, "P [[1]](https://example.com/x). Q [[1]](https://example.com/x)."},
		{citeproc.HTML, `P <sup class="cite" data-sids="1"><a href="https://example.com/x">[1]</a></sup>. Q <sup class="cite" data-sids="1"><a href="https://example.com/x">[1]</a></sup>.`},
	} {
		var facts []citeproc.Citation
		var sb strings.Builder
		p := citeproc.New(&sb, citeproc.Config{Mode: citeproc.Link, Style: tc.style, Mapping: m, Numberer: citeproc.FirstCitedBy(key),
			Hooks: citeproc.Hooks{Citation: func(c citeproc.Citation) { facts = append(facts, c) }}})
		p.WriteString("P [1]. Q [2].")
		p.Close()
		if sb.String() != tc.want {
			t.Errorf("style %s: got %q, want %q", tc.style, sb.String(), tc.want)
		}
		if c := p.Cited(); len(c) != 1 || c[0].Source.URL != "https://example.com/x" || len(facts) != 1 || facts[0].Source.URL != "https://example.com/x" {
			t.Errorf("style %s: cited %v, facts %v: want one citation of https://example.com/x", tc.style, c, facts)
		}
	}
}

// TestMappingNumbers: numbers run from 0 to MaxNumber, the most a marker
// holds, and a larger one is refused with the reason.
func TestMappingNumbers(t *testing.T) {
	m := citeproc.NewMapping(nil)
	for _, n := range []int{0, 1, citeproc.MaxNumber} {
		if err := m.Add(n, citeproc.Source{ID: fmt.Sprint(n)}); err != nil {
			t.Errorf("Add(%d): %v", n, err)
		}
	}
	for _, n := range []int{-1, citeproc.MaxNumber + 1} {
		if err := m.Add(n, citeproc.Source{ID: "x"}); err == nil || !strings.Contains(err.Error(), "from 0 to 999999") {
			t.Errorf("Add(%d): %v, want an error naming the range", n, err)
		}
	}
	var sb strings.Builder
	p := citeproc.New(&sb, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Plain, Mapping: m, Numberer: citeproc.FirstCited()})
	p.WriteString("[0] [999999] [1234567]")
	p.Close()
	if sb.String() != "[1] [2]" || len(p.Cited()) != 2 {
		t.Errorf("got %q, cited %v", sb.String(), p.Cited())
	}
}

// TestInvalidUTF8BeforeMarker: a byte that starts a three-byte character
// (as 【 and ［ do) but is followed by no continuation bytes must not
// swallow a marker after it; found by finalreport's FuzzWrite, where the
// whole text and the same text in chunks came out differently.
func TestInvalidUTF8BeforeMarker(t *testing.T) {
	mp := citeproc.NewMapping(nil)
	if err := mp.Add(1, citeproc.Source{ID: "a", URL: "https://a.example/"}); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"x\xe3 [1]":    "x\xe3 [[1]](https://a.example/)",
		"x\xef[1]":     "x\xef[[1]](https://a.example/)",
		"0\xe30[0]":    "0\xe30",
		"x\xe3\x80[1]": "x\xe3\x80[[1]](https://a.example/)",
	} {
		for cut := 0; cut <= len(in); cut++ {
			var b strings.Builder
			p := citeproc.New(&b, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Markdown, Mapping: mp, Numberer: citeproc.FirstCitedNumbers()})
			p.WriteString(in[:cut])
			p.WriteString(in[cut:])
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if b.String() != want {
				t.Errorf("%q cut at %d = %q, want %q", in, cut, b.String(), want)
			}
		}
	}
}
