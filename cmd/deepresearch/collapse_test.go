package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// collapseOut is the documented output of collapse.
type collapseOut struct {
	Reports []struct {
		Section string `json:"section"`
		Text    string `json:"text"`
	} `json:"reports"`
	Sources []struct {
		Number           int      `json:"number"`
		ID               string   `json:"id"`
		URL              string   `json:"url"`
		CanonicalURL     string   `json:"canonical_url"`
		Title            string   `json:"title"`
		FirstSeenSection string   `json:"first_seen_section"`
		UsedInSections   []string `json:"used_in_sections"`
	} `json:"sources"`
	Unknown []struct {
		Section string `json:"section"`
		Number  int    `json:"number"`
		URL     string `json:"url"`
	} `json:"unknown"`
	Invalid []struct {
		Section  string `json:"section"`
		Number   int    `json:"number"`
		URL      string `json:"url"`
		Error    string `json:"error"`
		MergedAs string `json:"merged_as"`
	} `json:"invalid_urls"`
}

// collapseResult runs collapse on input and decodes its output strictly:
// a field that is not documented fails the test.
func collapseResult(t *testing.T, input string) (collapseOut, string) {
	t.Helper()
	r := cli(t, input, "collapse")
	if r.code != 0 {
		t.Fatalf("exit status %d (stderr: %q)", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}
	var out collapseOut
	strictJSON(t, "stdout", []byte(r.stdout), &out)
	return out, r.stdout
}

func TestCollapseGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "collapse", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs in testdata/collapse: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			_, got := collapseResult(t, string(data))
			golden := strings.TrimSuffix(in, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("collapse %s:\n%s\nwant (%s):\n%s", in, got, golden, want)
			}
		})
	}
}

// TestCollapseOverlap checks the facts of the golden case one by one.
func TestCollapseOverlap(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "collapse", "overlap.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := collapseResult(t, string(data))

	texts := []string{
		// [2] is cited first: it becomes 1.
		"The cable failed [1]. It was laid in 1858 [2][1], see also.",
		// The atlantic page under another URL form keeps number 2, in
		// each bracket style; the source without a URL is new (4).
		// The URL of the first report's source resolves to its number.
		"Ships grapple [3] cables [2, 4]; [2] and [[4]], not [1].",
		"Nothing cited here.",
	}
	if len(out.Reports) != len(texts) {
		t.Fatalf("%d reports, want %d", len(out.Reports), len(texts))
	}
	for i, want := range texts {
		if got := out.Reports[i]; got.Text != want {
			t.Errorf("report %d (%s) text:\n got %q\nwant %q", i, got.Section, got.Text, want)
		}
	}
	if got := []string{out.Reports[0].Section, out.Reports[1].Section, out.Reports[2].Section}; !slices.Equal(got, []string{"History", "Repair", "Empty"}) {
		t.Errorf("sections %q, not in input order", got)
	}

	type src struct {
		number         int
		id, canonical  string
		first          string
		usedInSections []string
	}
	want := []src{
		{1, "hist/faults.md", "https://faults.example.org/repair", "History", []string{"History", "Repair"}},
		{2, "hist/1858.md", "https://example.com/atlantic", "History", []string{"History", "Repair"}},
		{3, "ops/grapnel", "https://grapnel.example.net/a/b", "Repair", []string{"Repair"}},
		{4, "glossary", "", "Repair", []string{"Repair"}},
	}
	if len(out.Sources) != len(want) {
		t.Fatalf("%d sources, want %d: %+v", len(out.Sources), len(want), out.Sources)
	}
	for i, w := range want {
		s := out.Sources[i]
		got := src{s.Number, s.ID, s.CanonicalURL, s.FirstSeenSection, s.UsedInSections}
		if got.number != w.number || got.id != w.id || got.canonical != w.canonical || got.first != w.first ||
			!slices.Equal(got.usedInSections, w.usedInSections) {
			t.Errorf("source %d:\n got %+v\nwant %+v", i+1, got, w)
		}
	}
	// The first report's source wins: its URL and title are kept.
	if s := out.Sources[1]; s.URL != "https://www.example.com/atlantic?utm_source=feed" || s.Title != "The 1858 cable" {
		t.Errorf("merged source 2 is %+v, want the first report's", s)
	}
	for _, s := range out.Sources {
		if s.ID == "never/cited" {
			t.Errorf("a source no text cites is listed: %+v", s)
		}
	}

	type unk struct {
		section string
		number  int
		url     string
	}
	var unknown []unk
	for _, u := range out.Unknown {
		unknown = append(unknown, unk{u.Section, u.Number, u.URL})
	}
	wantUnknown := []unk{
		// A [ref: URL] an earlier report retrieved resolves (above); a
		// number resolves through the report's own mapping only.
		{"History", 7, ""},
		{"Empty", 9, ""},
	}
	if !slices.Equal(unknown, wantUnknown) {
		t.Errorf("unknown:\n got %+v\nwant %+v", unknown, wantUnknown)
	}
}

// TestCollapseFieldNames pins the output's field names, exactly as the
// help documents them.
func TestCollapseFieldNames(t *testing.T) {
	input := `{"reports": [
		{"section": "S1", "text": "a [1] b [2]", "mapping": {"1": {"id": "x", "url": "https://www.example.com/a?utm_source=x", "title": "X"}}},
		{"section": "S2", "text": "c [1]", "mapping": {"1": {"id": "y", "url": "http://example.com/a", "title": "Y"}}}
	]}`
	r := cli(t, input, "collapse")
	if r.code != 0 {
		t.Fatalf("exit status %d (stderr: %q)", r.code, r.stderr)
	}
	var out map[string][]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if got, want := keysOf(out), []string{"reports", "sources", "unknown"}; !slices.Equal(got, want) {
		t.Errorf("top-level fields %q, want %q", got, want)
	}
	check := func(what string, objs []map[string]json.RawMessage, want []string) {
		t.Helper()
		if len(objs) == 0 {
			t.Errorf("%s: none", what)
		}
		for i, o := range objs {
			if got := keysOf(o); !slices.Equal(got, want) {
				t.Errorf("%s[%d] fields %q, want %q", what, i, got, want)
			}
		}
	}
	check("reports", out["reports"], []string{"section", "text"})
	check("sources", out["sources"], []string{"canonical_url", "first_seen_section", "id", "number", "title", "url", "used_in_sections"})
	check("unknown", out["unknown"], []string{"number", "section"})
	if len(out["sources"]) != 1 {
		t.Errorf("%d sources, want 1 (the same page under two URLs)", len(out["sources"]))
	}
	var used []string
	if err := json.Unmarshal(out["sources"][0]["used_in_sections"], &used); err != nil || !slices.Equal(used, []string{"S1", "S2"}) {
		t.Errorf("used_in_sections %s, want S1 and S2 (%v)", out["sources"][0]["used_in_sections"], err)
	}
	if got := string(out["unknown"][0]["number"]) + " " + string(out["unknown"][0]["section"]); got != `2 "S1"` {
		t.Errorf("unknown: %s, want number 2 of S1", got)
	}
}

func TestCollapse(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		texts   []string
		sources []string // ids, in number order
		unknown int
		invalid int
	}{
		{
			name:  "no reports",
			input: `{"reports": []}`,
		},
		{
			name:  "no reports field",
			input: `{}`,
		},
		{
			name:    "first appearance, not mapping order",
			input:   `{"reports": [{"section": "s", "text": "[3] [1] [2] [3]", "mapping": {"1": {"id": "a"}, "2": {"id": "b"}, "3": {"id": "c"}}}]}`,
			texts:   []string{"[1] [2] [3] [1]"},
			sources: []string{"c", "a", "b"},
		},
		{
			name: "duplicates by id when there is no URL",
			input: `{"reports": [
				{"section": "s", "text": "x [1]", "mapping": {"1": {"id": "doc"}}},
				{"section": "t", "text": "y [2] [1]", "mapping": {"1": {"id": "doc"}, "2": {"id": "other"}}}]}`,
			texts:   []string{"x [1]", "y [2] [1]"},
			sources: []string{"doc", "other"},
		},
		{
			name:    "mapping keys with spaces",
			input:   `{"reports": [{"section": "s", "text": "x [2]", "mapping": {" 2 ": {"id": "a"}}}]}`,
			texts:   []string{"x [1]"},
			sources: []string{"a"},
		},
		{
			name:    "unknown numbers dropped",
			input:   `{"reports": [{"section": "s", "text": "x [1][2], y [3-4].", "mapping": {"2": {"id": "a"}}}]}`,
			texts:   []string{"x [1], y."},
			sources: []string{"a"},
			unknown: 3,
		},
		{
			name:    "malformed URLs meet only as the same string",
			input:   `{"reports": [{"section": "s", "text": "x [1] [2] [3]", "mapping": {"1": {"id": "a", "url": "http://[::1"}, "2": {"id": "b", "url": "http://[::1"}, "3": {"id": "c", "url": "http://[::2"}}}, {"section": "t", "text": "y [1]", "mapping": {"1": {"id": "d", "url": "http://[::1"}}}]}`,
			texts:   []string{"x [1] [1] [2]", "y [1]"},
			sources: []string{"a", "c"},
			invalid: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, raw := collapseResult(t, tt.input)
			var texts, ids []string
			for _, r := range out.Reports {
				texts = append(texts, r.Text)
			}
			for i, s := range out.Sources {
				ids = append(ids, s.ID)
				if s.Number != i+1 {
					t.Errorf("source %d has number %d", i+1, s.Number)
				}
			}
			if !slices.Equal(texts, tt.texts) {
				t.Errorf("texts %q, want %q", texts, tt.texts)
			}
			if !slices.Equal(ids, tt.sources) {
				t.Errorf("sources %q, want %q", ids, tt.sources)
			}
			if len(out.Unknown) != tt.unknown {
				t.Errorf("%d unknown, want %d: %+v", len(out.Unknown), tt.unknown, out.Unknown)
			}
			if len(out.Invalid) != tt.invalid {
				t.Errorf("%d invalid URLs, want %d: %+v", len(out.Invalid), tt.invalid, out.Invalid)
			}
			// Lists are lists, never null.
			for _, f := range []string{`"reports": [`, `"sources": [`, `"unknown": [`} {
				if !strings.Contains(raw, f) {
					t.Errorf("output lacks %s:\n%s", f, raw)
				}
			}
		})
	}
}

func TestCollapseBadInput(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"empty stdin", "", []string{"empty input"}},
		{"blank stdin", "\n  \n", []string{"empty input"}},
		{"invalid JSON", `{"reports": [}`, []string{"line 1, column", "invalid JSON"}},
		{"truncated JSON", "{\"reports\": [\n", []string{"line 2, column", "unexpected end of input"}},
		{"reports of the wrong type", `{"reports": 3}`, []string{"line 1, column", `field "reports"`, "number"}},
		{"section of the wrong type", `{"reports": [{"section": 1}]}`, []string{"line 1, column", "section", "string", "number"}},
		{"text of the wrong type", "{\"reports\": [\n  {\"text\": [\"x\"]}]}", []string{"line 2, column", "text", "string", "array"}},
		{"mapping of the wrong type", `{"reports": [{"mapping": "x"}]}`, []string{"line 1, column", "mapping", "string"}},
		{"unknown field", `{"reports": [], "extra": true}`, []string{`unknown field "extra"`}},
		{"unknown field of a report", `{"reports": [{"text": "a", "bogus": 1}]}`, []string{`unknown field "bogus"`}},
		{"unknown field of a source", `{"reports": [{"text": "a", "mapping": {"1": {"id": "a", "uri": "x"}}}]}`, []string{`unknown field "uri"`}},
		{"mapping key not a number", `{"reports": [{"text": "a", "mapping": {"x": {"id": "a"}}}]}`, []string{"reports[0].mapping", `key "x"`, "not a citation number"}},
		{"mapping key of seven digits", `{"reports": [{"mapping": {"1": {"id": "a"}}}, {"mapping": {"1000000": {"id": "a"}}}]}`, []string{"reports[1].mapping", `key "1000000"`, "not a citation number", "999999"}},
		{"mapping key negative", `{"reports": [{"mapping": {"-1": {"id": "a"}}}]}`, []string{"reports[0].mapping", `key "-1"`}},
		{"mapping number given twice", `{"reports": [{"mapping": {"1": {"id": "a"}, "01": {"id": "b"}}}]}`, []string{"reports[0].mapping", "repeats number 1"}},
		{"trailing garbage", `{"reports": []} x`, []string{"line 1, column 17", "after the JSON object"}},
		{"two objects", "{\"reports\": []}\n{\"reports\": []}", []string{"line 2, column 1", "after the JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, tt.input, "collapse")
			wantBadInput(t, r, append([]string{"stdin"}, tt.want...)...)
		})
	}
}
