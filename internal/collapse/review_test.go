package collapse_test

// Adversarial review tests for merging and publishing. Run:
//
//	go test ./internal/collapse/ -run Review -v

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/yuin/goldmark"
)

// BUG C1. Link reference definitions ("[1]: URL", "[^1]: note") are left
// verbatim, so they keep the agent's LOCAL numbers inside text that now
// uses GLOBAL numbers. Once reports are joined, a markdown renderer links
// global [1] (report A's source) to report B's local [1] definition: the
// reader is sent to the wrong source.
func TestReviewMergeDefinitionsKeepLocalNumbers(t *testing.T) {
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

// BUG C2. A source with neither URL nor ID gets the identity "id:" and so
// meets every other such source: two different documents share a number
// and one of them disappears from Sources.
func TestReviewMergeAnonymousSourcesMerged(t *testing.T) {
	res, err := collapse.Merge([]collapse.Report{{Section: "A", Text: "X [1]. Y [2].",
		Mapping: map[int]source.Source{1: {Title: "Report X"}, 2: {Title: "Report Y"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sources) != 2 || res.Reports[0].Text != "X [1]. Y [2]." {
		t.Errorf("two distinct sources without ID or URL: got text %q, sources %+v; want 2 sources, \"X [1]. Y [2].\"", res.Reports[0].Text, res.Sources)
	}
}

// BUG C3. The merger keeps malformed URLs apart ("never merged"), but
// Publish (and finalreport) number with citeproc.FirstCited, which keys on
// (ID, URL): two global sources with the same malformed URL and ID are
// folded into one reference.
func TestReviewPublishMergesMalformedSourcesTheMergerKeptApart(t *testing.T) {
	bad := source.Source{ID: "doc", URL: "http://exa mple.com/x"}
	res, err := collapse.Merge([]collapse.Report{
		{Section: "A", Text: "One [1].", Mapping: map[int]source.Source{1: bad}},
		{Section: "B", Text: "Two [1].", Mapping: map[int]source.Source{1: bad}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sources) != 2 {
		t.Fatalf("premise: merger keeps malformed URLs apart, got %d sources", len(res.Sources))
	}
	pub, err := collapse.Publish(res.Reports[0].Text+" "+res.Reports[1].Text, res.Sources)
	if err != nil {
		t.Fatal(err)
	}
	if len(pub.References) != 2 || pub.Text != "One [1]. Two [2]." {
		t.Errorf("Publish = %q with %d references; want \"One [1]. Two [2].\" and 2 references (the merger's sources 1 and 2)", pub.Text, len(pub.References))
	}
}

// BUG C4. A renumbered marker can grow past citeproc's maxMarkerLen (256
// bytes): the merged text then holds a "[133, 101, 134, ...]" that no later
// stage reads as a citation. Publish leaves it raw with GLOBAL numbers while
// renumbering everything else 1..K, so it points at the wrong sources, and
// the sources cited only there vanish from the references.
func TestReviewMergeLongRenumberedMarkerLostDownstream(t *testing.T) {
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
	pub, err := collapse.Publish(res.Reports[0].Text+"\n\n"+res.Reports[1].Text, res.Sources)
	if err != nil {
		t.Fatal(err)
	}
	if len(pub.References) != len(res.Sources) {
		last := res.Reports[1].Text[strings.LastIndex(res.Reports[1].Text, "and all"):]
		t.Errorf("every merged source is cited, but Publish references %d of %d: the merged marker %q (%d bytes) is not a marker any more", len(pub.References), len(res.Sources), last[:min(60, len(last))]+"...", len(last)-len("and all of them ."))
	}
}

// BUG C5 (minor). Two local numbers for one resource (different URL strings,
// same canonical form) written as adjacent markers render as a duplicate
// citation "[1][1]". The grouped form "[1, 2]" is handled ("[1]").
func TestReviewMergeAdjacentMarkersOneResourceDuplicated(t *testing.T) {
	res, err := collapse.Merge([]collapse.Report{{Section: "A", Text: "x [1, 2] y [1][2].", Mapping: map[int]source.Source{
		1: {ID: "a", URL: "https://a.example/p"}, 2: {ID: "a2", URL: "http://www.a.example/p/"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Reports[0].Text, "x [1] y [1]."; got != want {
		t.Errorf("merged = %q, want %q", got, want)
	}
}

// Checks that held up (kept as regressions).
func TestReviewMergeHeldUp(t *testing.T) {
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
