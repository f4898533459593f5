package citeproc_test

// Regression tests from the adversarial review of the citation processor.
// Each test names the invariant it protects (one the package documents or
// the product promises) and feeds it the input that once broke it.
//
// Helpers are prefixed "review" so that they do not collide with other test
// files in the package.

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/yuin/goldmark"
)

// reviewRun processes in through a fresh processor (chunk <= 0: one Write;
// otherwise chunks of that many bytes) and returns the text and the
// processor.
func reviewRun(t testing.TB, cfg citeproc.Config, in string, chunk int) (string, *citeproc.Processor) {
	t.Helper()
	var sb strings.Builder
	p := citeproc.New(&sb, cfg)
	if chunk <= 0 {
		chunk = len(in) + 1
	}
	for s := in; len(s) > 0; {
		k := min(chunk, len(s))
		if _, err := p.WriteString(s[:k]); err != nil {
			t.Fatal(err)
		}
		s = s[k:]
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return sb.String(), p
}

func reviewMapping(t testing.TB) *citeproc.Mapping {
	t.Helper()
	m, err := citeproc.MappingOf(map[int]citeproc.Source{
		1: {ID: "doc-a", URL: "https://example.com/a", Title: "Alpha"},
		2: {ID: "doc-b", URL: "https://example.com/b", Title: "Beta"},
		3: {ID: "doc-c", URL: "https://example.com/c", Title: "Gamma"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func reviewMarkdownHTML(md string) string {
	var h bytes.Buffer
	if err := goldmark.Convert([]byte(md), &h); err != nil {
		return "ERROR: " + err.Error()
	}
	return h.String()
}

// Remove mode takes the separators and parentheses of markers written as a
// sequence, which models often produce ("[1], [2], [3]", "([1], [2])"):
// no orphan punctuation is left behind.
func TestRemoveTakesSeparatorsAndParentheses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Studies agree [1], [2], [3].", "Studies agree."},
		{"Studies agree [1]; [2].", "Studies agree."},
		{"Proven ([1], [2]) twice.", "Proven twice."},
		{"Proven ([1]) once.", "Proven once."},
	} {
		for _, chunk := range []int{0, 1} {
			got, _ := reviewRun(t, citeproc.Config{Mode: citeproc.Remove, Mapping: reviewMapping(t)}, tc.in, chunk)
			if got != tc.want {
				t.Errorf("Remove(%q) (chunk %d) = %q, want %q: the separators/brackets around the removed markers are left as orphan punctuation", tc.in, chunk, got, tc.want)
			}
		}
	}
}

// Remove mode leaves no space before a closing emphasis run or quote, as
// before punctuation: "**claim [1]**" becomes "**claim**" (a closing
// delimiter run may not follow whitespace in CommonMark).
func TestRemoveLeavesNoSpaceBeforeClosingEmphasisOrQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"**Key claim [1]**.", "**Key claim**."},
		{"_Key claim [1]_ follows.", "_Key claim_ follows."},
		{"He wrote “it is fast [1]”.", "He wrote “it is fast”."},
		{"He wrote \"it is fast [1]\".", "He wrote \"it is fast\"."},
		{"He wrote ‘fast [1]’ here.", "He wrote ‘fast’ here."},
	} {
		got, _ := reviewRun(t, citeproc.Config{Mode: citeproc.Remove, Mapping: reviewMapping(t)}, tc.in, 0)
		if got != tc.want {
			t.Errorf("Remove(%q) = %q, want %q (space left before closing punctuation; rendered: %q)", tc.in, got, tc.want, reviewMarkdownHTML(got))
		}
	}
}

// "!" directly before a marker ("It works![1]") opens no image unless "("
// follows the brackets: the marker is recognised, reported and removed.
func TestBangBeforeMarkerIsStillACitation(t *testing.T) {
	in := "It works![1] Next."
	_, p := reviewRun(t, citeproc.Config{Mode: citeproc.Keep, Mapping: reviewMapping(t)}, in, 0)
	if len(p.Cited()) != 1 {
		t.Errorf("Keep(%q): Cited() = %v, want source 1 cited ('![1]' not followed by '(' is not an image)", in, p.Cited())
	}
	got, _ := reviewRun(t, citeproc.Config{Mode: citeproc.Remove, Mapping: reviewMapping(t)}, in, 0)
	if want := "It works! Next."; got != want {
		t.Errorf("Remove(%q) = %q, want %q", in, got, want)
	}
}

// A closing fence line that ends in CRLF closes its block, so citations
// after it are processed.
func TestCRLFClosingFenceCloses(t *testing.T) {
	in := "Intro.\r\n```\r\nx := a[2]\r\n```\r\nSee [1].\r\n"
	for _, chunk := range []int{0, 1} {
		got, p := reviewRun(t, citeproc.Config{Mode: citeproc.Link, Mapping: reviewMapping(t)}, in, chunk)
		if !strings.Contains(got, "See [[1]](https://example.com/a).") || len(p.Cited()) != 1 {
			t.Errorf("Link(%q) (chunk %d) = %q, cited %v; want the [1] after the CRLF-closed fence linked", in, chunk, got, p.Cited())
		}
	}
}

// A line starting with ``` whose rest contains a backtick is an inline code
// span, not a fence (CommonMark: a backtick fence's info string may not
// contain backticks), so later citations are not swallowed as code.
func TestInlineTripleBacktickIsACodeSpan(t *testing.T) {
	in := "```x``` and claim [1]\nSee [2]."
	if h := reviewMarkdownHTML(in); !strings.Contains(h, "<code>x</code>") {
		t.Fatalf("premise: CommonMark reads this as inline code, got %q", h)
	}
	_, p := reviewRun(t, citeproc.Config{Mode: citeproc.Keep, Mapping: reviewMapping(t)}, in, 0)
	if len(p.Cited()) != 2 {
		t.Errorf("Keep(%q): cited %d sources, want 2 (\"```x```\" is inline code, not a fence)", in, len(p.Cited()))
	}
}

// Link mode, Markdown style: the link a renderer makes points at the
// source's URL exactly, whatever it holds (a trailing backslash, "\_", an
// entity-like "&lt;").
func TestMarkdownLinkPreservesURL(t *testing.T) {
	hrefRE := regexp.MustCompile(`<a href="([^"]*)"`)
	for _, u := range []string{
		`https://example.com/dir\`,
		`https://example.com/a\_b`,
		`https://example.com/?q=&lt;x`,
		`https://example.com/?a=1&amp;b=2`,
	} {
		m := citeproc.NewMapping(nil)
		if err := m.Add(1, citeproc.Source{ID: "x", URL: u}); err != nil {
			t.Fatal(err)
		}
		md, _ := reviewRun(t, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Markdown, Mapping: m}, "See [1].", 0)
		h := reviewMarkdownHTML(md)
		hrefs := hrefRE.FindAllStringSubmatch(h, -1)
		if len(hrefs) != 1 {
			t.Errorf("URL %q: markdown %q renders %q: want exactly one link", u, md, h)
			continue
		}
		got, err1 := url.PathUnescape(html.UnescapeString(hrefs[0][1]))
		want, err2 := url.PathUnescape(u)
		if err1 != nil || err2 != nil || got != want {
			t.Errorf("URL %q: markdown %q links to %q, want %q", u, md, got, want)
		}
	}
}

// Link mode's bracket forms ("[1]" for Plain; "[^1]" for Footnote) look at
// what follows: after 【1】 and a "(" the output must not become a markdown
// link, nor at a line start before ':' a definition. finalreport chains
// exactly this: Link/Plain, then Link/Markdown over the Plain output.
func TestLinkPlainOutputStaysACitation(t *testing.T) {
	for _, in := range []string{
		"Measured 【1】(2019) by the team.",
		"[[1]]: the cable was laid in 1858.",
		"[ref: https://example.com/a]: the cable was laid in 1858.",
	} {
		plain, p1 := reviewRun(t, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Plain, Mapping: reviewMapping(t), Numberer: citeproc.FirstCited()}, in, 0)
		if len(p1.Cited()) != 1 {
			t.Fatalf("premise: %q should cite one source, cited %v", in, p1.Cited())
		}
		published := citeproc.NewMapping(nil)
		published.Add(1, p1.Cited()[0].Source)
		styled, p2 := reviewRun(t, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Markdown, Mapping: published}, plain, 0)
		if len(p2.Cited()) != 1 {
			t.Errorf("Link/Plain(%q) = %q, which the next stage no longer reads as a citation (Link/Markdown gives %q; rendered %q)", in, plain, styled, reviewMarkdownHTML(plain))
		}
	}
}

// Renumber's round trip: its output, re-parsed in Keep mode with the
// renumbered mapping, resolves fully, also where a marker lands at a line
// start before ':' (a [ref: URL], or a marker a dropped unknown shielded)
// and where the renumbered list is long.
func TestRenumberOutputRoundTrips(t *testing.T) {
	big := citeproc.NewMapping(nil)
	for n := 1; n <= 64; n++ {
		big.Add(n, citeproc.Source{ID: fmt.Sprint("doc-", n), URL: fmt.Sprint("https://example.com/", n)})
	}
	spread := citeproc.NumbererFunc(func(n int, _ citeproc.Source) int { return 1000 + 2*n })
	for _, tc := range []struct {
		name string
		in   string
		m    *citeproc.Mapping
		num  citeproc.Numberer
	}{
		{"ref at line start before colon", "[ref: https://example.com/a]: the first cable.", reviewMapping(t), citeproc.FirstCited()},
		{"dropped unknown shields a marker before colon", "[9][1]: the first cable.", reviewMapping(t), citeproc.FirstCited()},
		{"dropped unknown shields a footnote before colon", "[^1][9]: the first cable.", reviewMapping(t), citeproc.FirstCited()},
		{"renumbered range longer than 256 bytes", "All of them [1-64].", big, spread},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cited []citeproc.Citation
			out, _ := reviewRun(t, citeproc.Config{Mode: citeproc.Renumber, Mapping: tc.m, Numberer: tc.num,
				Hooks: citeproc.Hooks{Citation: func(c citeproc.Citation) { cited = append(cited, c) }}}, tc.in, 0)
			renum := citeproc.NewMapping(nil)
			for _, c := range cited {
				renum.Add(c.Display, c.Source)
			}
			_, p := reviewRun(t, citeproc.Config{Mode: citeproc.Keep, Mapping: renum}, out, 0)
			if len(p.Cited()) != len(cited) || len(p.Unknowns()) != 0 {
				t.Errorf("Renumber(%q) = %q (%d bytes): re-parsed in Keep mode it cites %d of %d sources, unknowns %v", tc.in, out, len(out), len(p.Cited()), len(cited), p.Unknowns())
			}
		})
	}
}

// A hook that calls back into the processor (Write or Close) is refused
// with ErrReentrant; the held input and the output stay intact.
func TestHookReentrancyIsRefused(t *testing.T) {
	for _, reenter := range []string{"Write", "Close"} {
		t.Run(reenter, func(t *testing.T) {
			var sb strings.Builder
			var p *citeproc.Processor
			var innerErr error
			p = citeproc.New(&sb, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Plain, Mapping: reviewMapping(t),
				Hooks: citeproc.Hooks{Citation: func(c citeproc.Citation) {
					if c.Number != 1 {
						return
					}
					if reenter == "Write" {
						_, innerErr = p.WriteString(" (hook) ")
					} else {
						innerErr = p.Close()
					}
				}}})
			var panicked any
			func() {
				defer func() { panicked = recover() }()
				p.WriteString("a [1] b [2] c")
				p.Close()
			}()
			if panicked != nil {
				t.Fatalf("%s from a Citation hook panicked: %v (output so far %q)", reenter, panicked, sb.String())
			}
			if innerErr == nil || strings.Count(sb.String(), "a ") > 1 {
				t.Errorf("%s from a hook: inner error %v, output %q; want the re-entrant call refused with an error and the output intact", reenter, innerErr, sb.String())
			}
		})
	}
}

// FirstCited gives two mapping entries for the same URL (a search hit and
// an open_url of the same page) one number: the "same URL cited as [3] and
// [17]" bug the citation index exists to prevent.
func TestFirstCitedSameURLOneNumber(t *testing.T) {
	m := citeproc.NewMapping(nil)
	m.Add(1, citeproc.Source{ID: "search-7", URL: "https://example.com/a"})
	m.Add(2, citeproc.Source{ID: "page-a", URL: "https://example.com/a"})
	var displays []int
	out, _ := reviewRun(t, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Plain, Mapping: m, Numberer: citeproc.FirstCited(),
		Hooks: citeproc.Hooks{Citation: func(c citeproc.Citation) { displays = append(displays, c.Display) }}}, "One [1]. Two [2].", 0)
	if len(displays) != 1 {
		t.Errorf("FirstCited gave one URL %d display numbers %v (output %q); want one", len(displays), displays, out)
	}
}

// Work stays linear on adversarial input (runs of backticks or tildes
// cut by chunk boundaries, long runs of spaces in Remove mode, code-span
// openers of many lengths, floods and runs of '['). Benchmarks measure it —
// tests do not assert wall-clock time: compare ns/B between the two sizes
// of each case.
//
//	go test ./internal/citeproc -run XXX -bench Adversarial
func BenchmarkAdversarial(b *testing.B) {
	for _, c := range []struct {
		name  string
		gen   func(int) string
		mode  citeproc.Mode
		chunk int
	}{
		{"backticks-1B", func(n int) string { return "x " + strings.Repeat("`", n) }, citeproc.Keep, 1},
		{"spaces-remove-1B", func(n int) string { return "x" + strings.Repeat(" ", n) + "y" }, citeproc.Remove, 1},
		{"lbracket-flood", func(n int) string { return strings.Repeat("[a ", n/3) }, citeproc.Keep, 0},
		// A run of '[' (issue 7): each may open a link, and pairing them
		// is one pass however many are held.
		{"lbracket-run", func(n int) string { return strings.Repeat("[", n) }, citeproc.Link, 0},
		{"lbracket-run-1B", func(n int) string { return strings.Repeat("[", n) }, citeproc.Link, 1},
		// Container prefixes held at line starts and re-read as bytes
		// arrive: deep block quotes, nested list markers that might be a
		// thematic break, fences inside them.
		{"nested-containers-1B", func(n int) string {
			return strings.Repeat(strings.Repeat("> ", 40)+strings.Repeat("- ", 40)+"x [1]\n", n/100+1)[:n]
		}, citeproc.Link, 1},
		{"fence-in-quotes-1B", func(n int) string {
			return strings.Repeat("> > - ```\n> >   a[1]\n> >   ```\n", n/20+1)[:n]
		}, citeproc.Renumber, 1},
		{"lbracket-nested-links", func(n int) string { return strings.Repeat("[", n/2) + strings.Repeat("](x)", n/8) }, citeproc.Link, 0},
		// "![1][" before a long label (issue 17): the label decides whether
		// the marker is an image's alt text.
		{"bang-label-1B", func(n int) string {
			return strings.Repeat("![1]["+strings.Repeat("a", 1000)+"] ", n/1006+1)[:n]
		}, citeproc.Link, 1},
		{"tildes-at-line-start-1B", func(n int) string { return strings.Repeat("~", n) }, citeproc.Keep, 1},
		{"distinct-code-span-openers", func(n int) string {
			var b strings.Builder
			b.WriteString("x ")
			for k := 1; b.Len() < n; k++ {
				b.WriteString(strings.Repeat("`", k%64+1))
				b.WriteString(" y ")
			}
			return b.String()
		}, citeproc.Keep, 0},
	} {
		for _, size := range []int{5 << 10, 40 << 10} {
			in := c.gen(size)
			b.Run(fmt.Sprintf("%s/%dKB", c.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					p := citeproc.New(io.Discard, citeproc.Config{Mode: c.mode})
					if c.chunk == 0 {
						p.WriteString(in)
					} else {
						for s := in; len(s) > 0; {
							k := min(c.chunk, len(s))
							p.WriteString(s[:k])
							s = s[k:]
						}
					}
					p.Close()
				}
			})
		}
	}
}

// Invariants the review checked that held (kept as regressions): chunking,
// group deduplication, unknowns inside ranges, HTML escaping, write after
// close, a mapping that grows while streaming.
func TestReviewedInvariants(t *testing.T) {
	chunkInvariant := []string{
		"A [1, 2] B [[1]](https://x) C [1] (see) D ![i [1]](p.png) E \\[1\\] F [[S:1,3]] G 【1，3】 H ［２］ I [2–3] J [ref: https://example.com/b]",
		"| a [1] | b [2] |\n> quote [3]\n# Head [1]\n- item [2]\n\t[1] tab\r\nCRLF [3]\r\n",
		"[see [1]] [[1]] [^1]: def\n[1]: def\n  [2]: def\nmid [1]: colon",
		"`code [1]` ``a ` [2]`` [3] ```\n[1]\n```\n[2]",
	}
	for _, in := range chunkInvariant {
		for _, mode := range []citeproc.Mode{citeproc.Keep, citeproc.Link, citeproc.Remove, citeproc.Renumber} {
			cfg := func() citeproc.Config {
				return citeproc.Config{Mode: mode, Mapping: reviewMapping(t), Numberer: citeproc.FirstCited()}
			}
			want, _ := reviewRun(t, cfg(), in, 0)
			for _, chunk := range []int{1, 2, 3} {
				if got, _ := reviewRun(t, cfg(), in, chunk); got != want {
					t.Errorf("mode %d chunk %d: %q != bulk %q", mode, chunk, got, want)
				}
			}
			if mode == citeproc.Keep && want != in {
				t.Errorf("Keep changed %q to %q", in, want)
			}
		}
	}
	// Duplicates in a group and two locals onto one display collapse to one.
	m := reviewMapping(t)
	one := citeproc.NumbererFunc(func(int, citeproc.Source) int { return 7 })
	if got, _ := reviewRun(t, citeproc.Config{Mode: citeproc.Renumber, Mapping: m, Numberer: one}, "x [1, 2] y [2, 2]", 0); got != "x [7] y [7]" {
		t.Errorf("group dedup: got %q", got)
	}
	// Unknown numbers are never resolved, even inside ranges.
	got, p := reviewRun(t, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Plain, Mapping: reviewMapping(t)}, "r [2-5] u [9]", 0)
	if got != "r [2, 3] u" || len(p.Unknowns()) != 3 {
		t.Errorf("unknown in range: %q %v", got, p.Unknowns())
	}
	// HTML attributes are escaped.
	hm := citeproc.NewMapping(nil)
	hm.Add(1, citeproc.Source{ID: "h", URL: `https://e.example/"><script>`, Title: `a"b'<c>&`})
	got, _ = reviewRun(t, citeproc.Config{Mode: citeproc.Link, Style: citeproc.HTML, Mapping: hm}, "[1]", 0)
	if strings.Contains(got, "<script>") || strings.Count(got, `"`) != 8 {
		t.Errorf("HTML escaping: %q", got)
	}
	// Write after Close and a failing destination.
	q := citeproc.New(io.Discard, citeproc.Config{})
	q.Close()
	if _, err := q.WriteString("x"); !errors.Is(err, citeproc.ErrClosed) {
		t.Errorf("write after close: %v", err)
	}
	// The renumbered mapping grows while streaming (finalreport does this).
	grow := citeproc.NewMapping(nil)
	var sb strings.Builder
	g := citeproc.New(&sb, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Plain, Mapping: grow})
	g.WriteString("a [1")
	grow.Add(1, citeproc.Source{ID: "late"})
	g.WriteString("] b")
	g.Close()
	if sb.String() != "a [1] b" || len(g.Cited()) != 1 {
		t.Errorf("growing mapping: %q %v", sb.String(), g.Cited())
	}
}
