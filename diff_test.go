package deepresearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/diff"
	"github.com/deepresearch/deepresearch/internal/golden"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/source"
)

// The texts of the sources of the two runs diffReports builds.
const (
	alphaText  = "Alpha widgets reduce heat loss by forty percent in cold climates, according to field trials run over three winters."
	alphaText2 = "Alpha widgets were withdrawn from sale in 2026 after a recall; the maker publishes no figures any more."
	betaText   = "Beta gadgets were invented in Lisbon in 1921 by a clockmaker who wanted a quieter escapement."
	gammaText  = "Gamma tools measure river depth with sonar pulses sent from a floating buoy every ten minutes."
	deltaText  = "Delta devices forecast floods from the river depth that gamma tools report."
)

// diffReports builds the reports of two runs of one question whose
// sources changed in between: the alpha page changed its text (and no
// longer supports what run A said of it), the beta page is gone, the
// gamma corpus document is the same, and run B found a delta page. Each
// goes through its JSON form and LoadReport, as a stored report does.
func diffReports(t *testing.T) (a, b *deepresearch.Report) {
	t.Helper()
	load := func(rep deepresearch.Report) *deepresearch.Report {
		rep.Version = render.Version
		rep.Question = "What do widgets, gadgets and tools do?"
		rep.Style = cite.Markdown
		data, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		r, err := deepresearch.LoadReport(data)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	src := func(n int, id, title, url string) cite.MergedSource {
		return cite.MergedSource{Number: n, Source: source.Source{ID: id, Title: title, URL: url}}
	}
	a = load(deepresearch.Report{RunID: "run-a",
		Draft: "## Background\n\n" +
			"Alpha widgets reduce heat loss by forty percent in cold climates [1].\n\n" +
			"Beta gadgets were invented in Lisbon in 1921 [2].\n\n" +
			"## Measurement\n\n" +
			"Gamma tools measure river depth with sonar pulses [3].\n",
		Sources: []cite.MergedSource{
			src(1, "w1", "Alpha widgets", "https://example.org/alpha"),
			src(2, "w2", "Beta gadgets", "https://example.org/beta"),
			src(3, "gamma.md", "Gamma tools", ""),
		},
		SourceTexts: map[int]string{1: alphaText, 2: betaText, 3: gammaText},
	})
	b = load(deepresearch.Report{RunID: "run-b",
		Draft: "## Background\n\n" +
			"Gamma tools measure river depth with sonar pulses [2].\n\n" +
			"Alpha widgets reduce heat loss by forty percent in cold climates [1].\n\n" +
			"## Forecasts\n\n" +
			"Delta devices forecast floods from the river depth [3].\n\n" +
			"```\n## not a heading\n```\n",
		Sources: []cite.MergedSource{
			// The same page under another spelling of its URL.
			src(1, "w7", "Alpha widgets", "https://EXAMPLE.org/alpha#top"),
			src(2, "gamma.md", "Gamma tools", ""),
			src(3, "w8", "Delta devices", "https://example.org/delta"),
		},
		SourceTexts: map[int]string{1: alphaText2, 2: gammaText, 3: deltaText},
	})
	return a, b
}

// TestDiff (issue 33): between two runs where a page changes its text,
// another disappears and a corpus document stays the same, Diff names
// each, flags the claim that lost its support and the one whose source
// went, and the sections added and removed.
func TestDiff(t *testing.T) {
	a, b := diffReports(t)
	d, err := deepresearch.Diff(context.Background(), a, b, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(ss []diff.Source) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.URL+s.ID)
		}
		return out
	}
	if got := keys(d.Sources.Added); !slices.Equal(got, []string{"https://example.org/deltaw8"}) {
		t.Errorf("added %q", got)
	}
	if got := keys(d.Sources.Dropped); !slices.Equal(got, []string{"https://example.org/betaw2"}) {
		t.Errorf("dropped %q", got)
	}
	if len(d.Sources.Changed) != 1 || d.Sources.Changed[0].NumberA != 1 || d.Sources.Changed[0].NumberB != 1 ||
		d.Sources.Changed[0].SHA256A == d.Sources.Changed[0].SHA256B {
		t.Errorf("changed %+v; want the alpha page, 1 → 1, with two hashes", d.Sources.Changed)
	}
	if d.Sources.Unchanged != 1 {
		t.Errorf("unchanged %d, want 1 (the gamma document)", d.Sources.Unchanged)
	}
	want := []diff.Claim{
		{Sentence: "Alpha widgets reduce heat loss by forty percent in cold climates.", Change: diff.LostSupport,
			InB: true, SupportedA: true, Sources: []string{d.Sources.Changed[0].Key}},
		{Sentence: "Beta gadgets were invented in Lisbon in 1921.", Change: diff.SourceChanged,
			SupportedA: true, Sources: []string{d.Sources.Dropped[0].Key}},
	}
	if !slicesEqualJSON(t, d.Claims, want) {
		t.Errorf("claims\n%+v\nwant\n%+v", d.Claims, want)
	}
	if !slices.Equal(d.Sections.Added, []string{"Forecasts"}) || !slices.Equal(d.Sections.Removed, []string{"Measurement"}) {
		t.Errorf("sections %+v; want Forecasts added, Measurement removed", d.Sections)
	}

	var text strings.Builder
	if err := d.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "golden/diff.txt", text.String())

	// The JSON form has every list, empty or not, under its name.
	same, err := deepresearch.Diff(context.Background(), a, a, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !same.Empty() || same.Sources.Unchanged != 3 {
		t.Errorf("a report against itself: %+v", same)
	}
	data, err := json.Marshal(same)
	if err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{`"run_a":"run-a"`, `"added":[]`, `"dropped":[]`, `"changed":[]`, `"unchanged":3`, `"claims":[]`, `"removed":[]`} {
		if !strings.Contains(string(data), member) {
			t.Errorf("JSON lacks %s: %s", member, data)
		}
	}
	text.Reset()
	if err := same.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Nothing changed (3 sources the same).") {
		t.Errorf("text of no change:\n%s", text.String())
	}
}

func slicesEqualJSON(t *testing.T, got, want any) bool {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	return string(g) == string(w)
}

// TestDiffRuns: over a store, a run it does not hold is runstore.ErrNotFound
// and a run without a report ErrNoReport, each naming the run; the
// documents the store kept stand in for texts a report lacks.
func TestDiffRuns(t *testing.T) {
	ctx := context.Background()
	st := deepresearchtest.NewStore(nil)
	a, b := diffReports(t)
	b.SourceTexts = nil // B's texts are the store's
	for _, rep := range []*deepresearch.Report{a, b} {
		if err := st.Create(ctx, runstore.Run{ID: rep.RunID, Question: rep.Question}); err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutReport(ctx, rep.RunID, data); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []runstore.Source{
		{RunID: "run-b", ID: "w7", URL: "https://EXAMPLE.org/alpha#top", Text: alphaText2},
		{RunID: "run-b", ID: "gamma.md", Text: gammaText},
		{RunID: "run-b", ID: "w8", URL: "https://example.org/delta", Text: deltaText},
	} {
		if err := st.PutSource(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	d, err := deepresearch.DiffRuns(ctx, st, "run-a", "run-b")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Sources.Changed) != 1 || d.Sources.Unchanged != 1 || len(d.Claims) != 2 || d.Claims[0].Change != diff.LostSupport {
		t.Errorf("diff over the store's texts: %+v", d)
	}

	if err := st.Create(ctx, runstore.Run{ID: "run-c", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		want error
		run  string
	}{
		{"run-a", "nope", runstore.ErrNotFound, "nope"},
		{"nope", "run-b", runstore.ErrNotFound, "nope"},
		{"run-a", "run-c", deepresearch.ErrNoReport, "run-c"},
	} {
		_, err := deepresearch.DiffRuns(ctx, st, c.a, c.b)
		var re *deepresearch.RunsError
		if !errors.Is(err, c.want) || !errors.As(err, &re) || re.Run != c.run || !strings.Contains(err.Error(), c.run) {
			t.Errorf("DiffRuns(%s, %s) = %v; want %v naming %s", c.a, c.b, err, c.want, c.run)
		}
	}
}
