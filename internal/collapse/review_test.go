package collapse_test

// Regression tests from the adversarial review of merging and publishing.
// Each test names the invariant it protects and feeds it the input that
// once broke it.

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
	"github.com/yuin/goldmark"
)

// Merging relabels link reference definitions ("[1]: URL", "[^1]: note")
// with the global numbers, so that once reports are joined a markdown
// renderer never links global [1] (report A's source) to report B's local
// [1] definition.
func TestMergeRelabelsDefinitions(t *testing.T) {
	res, err := collapse.Merge([]collapse.Report{
		{Section: "A", Text: "Alpha [1].", Mapping: map[int]source.Source{1: {ID: "a", URL: "https://a.example/"}}},
		{Section: "B", Text: "Beta [1].\n\n[1]: https://b.example/", Mapping: map[int]source.Source{1: {ID: "b", URL: "https://b.example/"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Reports[1].Text, "Beta [2].\n\n[2]: https://b.example/"; got != want {
		t.Errorf("merged B = %q, want %q (definition label still the local number)", got, want)
	}
	joined := res.Reports[0].Text + "\n\n" + res.Reports[1].Text
	var h bytes.Buffer
	goldmark.Convert([]byte(joined), &h)
	if strings.Contains(h.String(), `Alpha <a href="https://b.example/"`) {
		t.Errorf("joined merged text %q renders %q: report A's citation [1] (a.example) links to b.example", joined, h.String())
	}
}

// Sources with neither URL nor ID are kept apart: two different documents
// never share a number.
func TestMergeKeepsAnonymousSourcesApart(t *testing.T) {
	res, err := collapse.Merge([]collapse.Report{{Section: "A", Text: "X [1]. Y [2].",
		Mapping: map[int]source.Source{1: {Title: "Report X"}, 2: {Title: "Report Y"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sources) != 2 || res.Reports[0].Text != "X [1]. Y [2]." {
		t.Errorf("two distinct sources without ID or URL: got text %q, sources %+v; want 2 sources, \"X [1]. Y [2].\"", res.Reports[0].Text, res.Sources)
	}
}

// The final report keeps apart the global sources the merger kept apart:
// it numbers by global number, so two sources are never folded into one
// reference.
func TestDownstreamKeepsMergedSourcesApart(t *testing.T) {
	res, err := collapse.Merge([]collapse.Report{
		{Section: "A", Text: "One [1].", Mapping: map[int]source.Source{1: {ID: "doc", URL: "http://exa mple.com/x"}}},
		{Section: "B", Text: "Two [1].", Mapping: map[int]source.Source{1: {ID: "doc", URL: "http://exa mple.com/y"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sources) != 2 {
		t.Fatalf("premise: merger keeps malformed URLs apart, got %d sources", len(res.Sources))
	}
	text, refs := publish(t, res.Reports[0].Text+" "+res.Reports[1].Text, res.Sources)
	if len(refs) != 2 || text != "One [1]. Two [2]." {
		t.Errorf("published %q with %d references; want \"One [1]. Two [2].\" and 2 references (the merger's sources 1 and 2)", text, len(refs))
	}
}

// A renumbered marker that grows long ("[133, 101, 134, ...]") is still
// read as a citation by later stages: the final report references every
// merged source it cites.
func TestMergeLongRenumberedMarkerReadDownstream(t *testing.T) {
	a := collapse.Report{Section: "A", Mapping: map[int]source.Source{}}
	var at strings.Builder
	for n := 1; n <= 100; n++ {
		a.Mapping[n] = source.Source{ID: fmt.Sprint("a", n), URL: fmt.Sprintf("https://a.example/%d", n)}
		fmt.Fprintf(&at, "[%d] ", n)
	}
	a.Text = at.String()
	b := collapse.Report{Section: "B", Mapping: map[int]source.Source{}}
	var bt strings.Builder
	for n := 1; n <= 64; n++ {
		b.Mapping[n] = source.Source{ID: fmt.Sprint("b", n), URL: fmt.Sprintf("https://b.example/%d", n)}
		if n%2 == 0 {
			fmt.Fprintf(&bt, "[%d] ", n)
		}
	}
	bt.WriteString("and all of them [1-64].")
	b.Text = bt.String()
	res, err := collapse.Merge([]collapse.Report{a, b})
	if err != nil {
		t.Fatal(err)
	}
	_, refs := publish(t, res.Reports[0].Text+"\n\n"+res.Reports[1].Text, res.Sources)
	if len(refs) != len(res.Sources) {
		last := res.Reports[1].Text[strings.LastIndex(res.Reports[1].Text, "and all"):]
		t.Errorf("every merged source is cited, but the final report references %d of %d: the merged marker %q (%d bytes) is not a marker any more", len(refs), len(res.Sources), last[:min(60, len(last))]+"...", len(last)-len("and all of them ."))
	}
}

// Two local numbers for one resource (different URL strings, same
// canonical form) written as adjacent markers render once ("[1]"), as the
// grouped form "[1, 2]" does.
func TestMergeAdjacentMarkersOneResourceShownOnce(t *testing.T) {
	res, err := collapse.Merge([]collapse.Report{{Section: "A", Text: "x [1, 2] y [1][2].", Mapping: map[int]source.Source{
		1: {ID: "a", URL: "https://a.example/p"}, 2: {ID: "a2", URL: "http://www.a.example/p/"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Reports[0].Text, "x [1] y [1]."; got != want {
		t.Errorf("merged = %q, want %q", got, want)
	}
}

// Invariants the review checked that held (kept as regressions): numbers
// never change as later reports arrive, first appearance decides, unknown
// locals are dropped and reported, every merged marker resolves.
func TestMergeReviewedInvariants(t *testing.T) {
	// Numbers never change as later reports arrive; first appearance in
	// text order decides; unknown locals are dropped and reported; ranges
	// across a same-canonical pair collapse correctly.
	m := collapse.NewMerger()
	r1, err := m.Add(collapse.Report{Section: "A", Text: "b [2] then a [1], z [7]", Mapping: map[int]source.Source{
		1: {ID: "a", URL: "https://a.example/"}, 2: {ID: "b", URL: "https://b.example/"}}})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := m.Add(collapse.Report{Section: "B", Text: "[1-3] and [ref: https://www.b.example]", Mapping: map[int]source.Source{
		1: {ID: "c", URL: "https://c.example/"}, 2: {ID: "a", URL: "http://a.example"}, 3: {ID: "b2", URL: "https://B.example/"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Text != "b [1] then a [2], z" || r2.Text != "[3, 2, 1] and [1]" {
		t.Errorf("texts %q %q", r1.Text, r2.Text)
	}
	if u := m.Unknown(); len(u) != 1 || u[0].Number != 7 || u[0].Section != "A" {
		t.Errorf("unknown %v", u)
	}
	// Every marker of the merged text resolves in the global mapping.
	mp, err := collapse.Mapping(m.Sources())
	if err != nil {
		t.Fatal(err)
	}
	p := citeproc.New(&strings.Builder{}, citeproc.Config{Mapping: mp})
	p.WriteString(r1.Text + "\n" + r2.Text)
	p.Close()
	if len(p.Unknowns()) != 0 || len(p.Cited()) != 3 {
		t.Errorf("re-parse: cited %v unknown %v", p.Cited(), p.Unknowns())
	}
}

// publish reads a merged text as the final report does (finalreport's
// plain body): every merged number resolved through collapse.Mapping and
// renumbered 1..K in order of first citation. It returns the text and the
// global numbers cited, in reference order.
func publish(t *testing.T, text string, sources []collapse.Source) (string, []int) {
	t.Helper()
	mp, err := collapse.Mapping(sources)
	if err != nil {
		t.Fatal(err)
	}
	var refs []int
	var sb strings.Builder
	p := citeproc.New(&sb, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Plain, Mapping: mp, Numberer: citeproc.FirstCitedNumbers(),
		Hooks: citeproc.Hooks{Citation: func(c citeproc.Citation) { refs = append(refs, c.Number) }}})
	p.WriteString(text)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return sb.String(), refs
}
