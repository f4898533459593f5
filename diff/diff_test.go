package diff_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/deepresearch/deepresearch/diff"
)

// Two runs of one question: page a changed its text, page b went, doc c
// is the same, page d is new; a sentence lost its support, one gained
// it, and one that cited the page that went is no longer said.
func ExampleRuns() {
	a := diff.Run{ID: "run-a", Question: "What do widgets do?",
		Sources: []diff.RunSource{
			{Key: "example.org/a", Title: "Alpha", URL: "https://example.org/a", Number: 1, SHA256: "aaaa1111"},
			{Key: "example.org/b", Title: "Beta", URL: "https://example.org/b", Number: 2, SHA256: "bbbb"},
			{Key: "id:c.md", Title: "Gamma", ID: "c.md", Number: 3, SHA256: "cccc"},
		},
		Citations: []diff.Citation{
			{Sentence: "Widgets save heat.", Source: "example.org/a", Supported: true},
			{Sentence: "Beta gadgets came first.", Source: "example.org/b", Supported: true},
			{Sentence: "Gamma tools  measure depth.", Source: "id:c.md", Supported: false},
		},
		Headings: []string{"Background", "History"},
	}
	b := diff.Run{ID: "run-b", Question: "What do widgets do?",
		Sources: []diff.RunSource{
			{Key: "example.org/a", Title: "Alpha", URL: "https://example.org/a", Number: 1, SHA256: "aaaa2222"},
			{Key: "id:c.md", Title: "Gamma", ID: "c.md", Number: 2, SHA256: "cccc"},
			{Key: "example.org/d", Title: "Delta", URL: "https://example.org/d", Number: 3, SHA256: "dddd"},
		},
		Citations: []diff.Citation{
			{Sentence: "Widgets save heat.", Source: "example.org/a", Supported: false},
			{Sentence: "gamma tools measure depth.", Source: "id:c.md", Supported: true},
		},
		Headings: []string{"Background", "Forecasts"},
	}
	if err := diff.Runs(a, b).WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// A: run-a  What do widgets do?
	// B: run-b  What do widgets do?
	//
	// Sources: 1 added, 1 dropped, 1 changed, 1 unchanged
	//   + [→3] Delta (https://example.org/d)
	//   - [2] Beta (https://example.org/b)
	//   ~ [1→1] Alpha (https://example.org/a): text aaaa1111 → aaaa2222
	//
	// Claims whose support changed: 3
	//   lost support: Widgets save heat.
	//       its source changed or was dropped: example.org/a
	//   source changed: Beta gadgets came first.
	//       its source changed or was dropped: example.org/b
	//   gained support: Gamma tools measure depth.
	//
	// Sections: 1 added, 1 removed
	//   + Forecasts
	//   - History
}

// TestRuns holds Runs to its rules, one case a rule.
func TestRuns(t *testing.T) {
	src := func(key string, n int, sha string) diff.RunSource {
		return diff.RunSource{Key: key, URL: "https://" + key, Number: n, SHA256: sha}
	}
	tests := []struct {
		name     string
		a, b     diff.Run
		sources  string // the keys added, dropped and changed, and the unchanged count
		claims   []diff.Claim
		sections diff.Sections
	}{
		{name: "nothing changed",
			a:       diff.Run{Sources: []diff.RunSource{src("x", 1, "h")}, Citations: []diff.Citation{{Sentence: "S.", Source: "x", Supported: true}}, Headings: []string{"H"}},
			b:       diff.Run{Sources: []diff.RunSource{src("x", 4, "h")}, Citations: []diff.Citation{{Sentence: "S.", Source: "x", Supported: true}}, Headings: []string{"H"}},
			sources: "+[] -[] ~[] =1", claims: []diff.Claim{}, sections: diff.Sections{Added: []string{}, Removed: []string{}}},
		{name: "a source listed twice counts once, as the first",
			a:       diff.Run{Sources: []diff.RunSource{src("x", 1, "h"), src("x", 2, "other")}},
			b:       diff.Run{Sources: []diff.RunSource{src("x", 1, "h")}},
			sources: "+[] -[] ~[] =1", claims: []diff.Claim{}, sections: diff.Sections{Added: []string{}, Removed: []string{}}},
		{name: "a text unknown in either run is not a change",
			a:       diff.Run{Sources: []diff.RunSource{src("x", 1, ""), src("y", 2, "h")}},
			b:       diff.Run{Sources: []diff.RunSource{src("x", 1, "h"), src("y", 2, "")}},
			sources: "+[] -[] ~[] =2", claims: []diff.Claim{}, sections: diff.Sections{Added: []string{}, Removed: []string{}}},
		{name: "a sentence is its words, whatever their case and spacing",
			a:        diff.Run{Citations: []diff.Citation{{Sentence: "Tanks  hold\nwater.", Source: "x", Supported: true}}},
			b:        diff.Run{Citations: []diff.Citation{{Sentence: "tanks hold water.", Source: "x", Supported: false}}},
			sources:  "+[] -[] ~[] =0",
			claims:   []diff.Claim{{Sentence: "Tanks hold water.", Change: diff.LostSupport, InB: true, SupportedA: true}},
			sections: diff.Sections{Added: []string{}, Removed: []string{}}},
		{name: "one supported citation of a sentence supports it",
			a:        diff.Run{Citations: []diff.Citation{{Sentence: "S.", Source: "y", Supported: true}, {Sentence: "S.", Source: "x"}}},
			b:        diff.Run{Citations: []diff.Citation{{Sentence: "S.", Source: "x"}}},
			sources:  "+[] -[] ~[] =0",
			claims:   []diff.Claim{{Sentence: "S.", Change: diff.LostSupport, InB: true, SupportedA: true}},
			sections: diff.Sections{Added: []string{}, Removed: []string{}}},
		{name: "a sentence B drops is listed only when a source it cited moved",
			a: diff.Run{Sources: []diff.RunSource{src("x", 1, "h"), src("y", 2, "h1")},
				Citations: []diff.Citation{{Sentence: "Kept source.", Source: "x", Supported: true}, {Sentence: "Moved source.", Source: "y", Supported: true},
					{Sentence: "Moved source.", Source: "", Supported: true}}},
			b:        diff.Run{Sources: []diff.RunSource{src("x", 1, "h"), src("y", 2, "h2")}},
			sources:  "+[] -[] ~[y] =1",
			claims:   []diff.Claim{{Sentence: "Moved source.", Change: diff.SourceChanged, SupportedA: true, Sources: []string{"y"}}},
			sections: diff.Sections{Added: []string{}, Removed: []string{}}},
		{name: "sections by their text",
			a:       diff.Run{Headings: []string{"One", "Two"}},
			b:       diff.Run{Headings: []string{"Three", "One"}},
			sources: "+[] -[] ~[] =0", claims: []diff.Claim{}, sections: diff.Sections{Added: []string{"Three"}, Removed: []string{"Two"}}},
	}
	keys := func(ss []diff.Source) []string {
		out := []string{}
		for _, s := range ss {
			out = append(out, s.Key)
		}
		return out
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := diff.Runs(tc.a, tc.b)
			s := d.Sources
			if got := fmt.Sprintf("+%v -%v ~%v =%d", keys(s.Added), keys(s.Dropped), keys(s.Changed), s.Unchanged); got != tc.sources {
				t.Errorf("sources: %s, want %s", got, tc.sources)
			}
			if !reflect.DeepEqual(d.Claims, tc.claims) {
				t.Errorf("claims:\n got %+v\nwant %+v", d.Claims, tc.claims)
			}
			if !reflect.DeepEqual(d.Sections, tc.sections) {
				t.Errorf("sections: got %+v, want %+v", d.Sections, tc.sections)
			}
			if want := len(tc.claims) == 0 && len(s.Added)+len(s.Dropped)+len(s.Changed)+len(tc.sections.Added)+len(tc.sections.Removed) == 0; d.Empty() != want {
				t.Errorf("Empty() = %v, want %v", d.Empty(), want)
			}
		})
	}
}

// TestWireFormat: the JSON of a Result is the wire format of `diff
// --json` and the HTTP endpoint: its names, and every list present when
// empty.
func TestWireFormat(t *testing.T) {
	d := diff.Runs(diff.Run{ID: "a", Question: "q"}, diff.Run{ID: "b", Question: "q"})
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"run_a":"a","run_b":"b","question_a":"q","question_b":"q","sources":{"added":[],"dropped":[],"changed":[],"unchanged":0},"claims":[],"sections":{"added":[],"removed":[]}}`
	if string(b) != want {
		t.Errorf("JSON:\n got %s\nwant %s", b, want)
	}
	src, _ := json.Marshal(diff.Source{Key: "k", NumberA: 1, NumberB: 2, SHA256A: "x", SHA256B: "y"})
	if want := `{"key":"k","number_a":1,"number_b":2,"text_sha256_a":"x","text_sha256_b":"y"}`; string(src) != want {
		t.Errorf("a source's JSON:\n got %s\nwant %s", src, want)
	}
}
