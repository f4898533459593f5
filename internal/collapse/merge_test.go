package collapse_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/citeproc/citegen"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
)

func src(id, url string) source.Source {
	return source.Source{ID: id, URL: url, Title: strings.ToUpper(id)}
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name    string
		reports []collapse.Report
		texts   []string
		sources []string // "number id canonical first used,used"
		unknown []collapse.Unknown
	}{
		{
			name: "first appearance in text, not mapping order",
			reports: []collapse.Report{
				{Section: "A", Text: "Second first [2]. Then [1].", Mapping: map[int]source.Source{1: src("a", "https://a.example/1"), 2: src("b", "https://b.example/2")}},
			},
			texts:   []string{"Second first [1]. Then [2]."},
			sources: []string{"1 b https://b.example/2 A A", "2 a https://a.example/1 A A"},
		},
		{
			name: "same resource under different URLs meets once",
			reports: []collapse.Report{
				{Section: "A", Text: "x [1] y [2]", Mapping: map[int]source.Source{1: src("a", "https://www.a.example/p?utm_source=x"), 2: src("b", "https://b.example/")}},
				{Section: "B", Text: "z [1][2] w [3]", Mapping: map[int]source.Source{1: src("c", "https://c.example/q"), 2: src("a2", "http://a.example/p#frag"), 3: src("b2", "https://B.example")}},
			},
			texts:   []string{"x [1] y [2]", "z [3][1] w [2]"},
			sources: []string{"1 a https://a.example/p A A,B", "2 b https://b.example/ A A,B", "3 c https://c.example/q B B"},
		},
		{
			name: "unknown local numbers are dropped and reported",
			reports: []collapse.Report{
				{Section: "A", Text: "ok [1], bad [7], mixed [1, 7].", Mapping: map[int]source.Source{1: src("a", "https://a.example/")}},
			},
			texts:   []string{"ok [1], bad, mixed [1]."},
			sources: []string{"1 a https://a.example/ A A"},
			unknown: []collapse.Unknown{{Section: "A", Number: 7}},
		},
		{
			name: "a [ref: URL] another agent retrieved resolves to its number",
			reports: []collapse.Report{
				{Section: "A", Text: "a [1]", Mapping: map[int]source.Source{1: src("a", "https://a.example/1"), 2: src("r", "https://r.example/read")}},
				{Section: "B", Text: "b [1], as [ref: http://www.r.example/read?utm_source=x] and [ref: https://a.example/1] say; not [2]", Mapping: map[int]source.Source{1: src("b", "https://b.example/2")}},
				{Section: "C", Text: "c [ref: https://r.example/read]", Mapping: map[int]source.Source{1: src("c", "https://c.example/3")}},
			},
			texts:   []string{"a [1]", "b [2], as [3] and [1] say; not", "c [3]"},
			sources: []string{"1 a https://a.example/1 A A,B", "2 b https://b.example/2 B B", "3 r https://r.example/read B B,C"},
			unknown: []collapse.Unknown{{Section: "B", Number: 2}},
		},
		{
			name: "a [ref: URL] no report retrieved is dropped",
			reports: []collapse.Report{
				{Section: "A", Text: "a [ref: https://later.example/x]", Mapping: map[int]source.Source{1: src("a", "https://a.example/1")}},
				{Section: "B", Text: "b [1]", Mapping: map[int]source.Source{1: src("l", "https://later.example/x")}},
			},
			texts:   []string{"a", "b [1]"},
			sources: []string{"1 l https://later.example/x B B"},
			unknown: []collapse.Unknown{{Section: "A", URL: "https://later.example/x"}},
		},
		{
			name: "bracket styles are kept",
			reports: []collapse.Report{
				{Section: "A", Text: "p [1]", Mapping: map[int]source.Source{1: src("z", "https://z.example/")}},
				{Section: "B", Text: "a [[1]] b 【2】 c [1,2] d [[S:1,2]] e [^2] f [1-2] g [ref: https://www.y.example/]", Mapping: map[int]source.Source{1: src("x", "https://x.example/"), 2: src("y", "https://y.example/")}},
			},
			texts:   []string{"p [1]", "a [[2]] b 【3】 c [2,3] d [[S:2,3]] e [^3] f [2-3] g [3]"},
			sources: []string{"1 z https://z.example/ A A", "2 x https://x.example/ B B", "3 y https://y.example/ B B"},
		},
		{
			name: "a citation right after '!' is renumbered (issue 17)",
			reports: []collapse.Report{
				{Section: "A", Text: "p [1]", Mapping: map[int]source.Source{1: src("z", "https://z.example/")}},
				{Section: "B", Text: "Wow![1][3], grew 40%![^3][^1] and remarkable![3]; an image ![1](x.png); [-1] and [01] stay.", Mapping: map[int]source.Source{1: src("x", "https://x.example/"), 3: src("y", "https://y.example/")}},
			},
			texts:   []string{"p [1]", "Wow! [2][3], grew 40%! [^3][^2] and remarkable! [3]; an image ![1](x.png); [-1] and [2] stay."},
			sources: []string{"1 z https://z.example/ A A", "2 x https://x.example/ B B", "3 y https://y.example/ B B"},
		},
		{
			name: "data-sids are renumbered, usage tags removed (issue 17)",
			reports: []collapse.Report{
				{Section: "A", Text: "p [1]", Mapping: map[int]source.Source{1: src("z", "https://z.example/")}},
				{Section: "B", Text: `Fast <sup class="cite" data-sids="2,1,7">[S:2,1]</sup>.` + "\n\n[[USAGE:1,2]]\n", Mapping: map[int]source.Source{1: src("x", "https://x.example/"), 2: src("y", "https://y.example/")}},
			},
			texts:   []string{"p [1]", `Fast <sup class="cite" data-sids="2,3">[S:2,3]</sup>.` + "\n\n\n"},
			sources: []string{"1 z https://z.example/ A A", "2 y https://y.example/ B B", "3 x https://x.example/ B B"},
			unknown: []collapse.Unknown{{Section: "B", Number: 7}},
		},
		{
			name: "'![n][m]' is an image when m is defined",
			reports: []collapse.Report{
				{Section: "A", Text: "[2]: https://img.example/p.png\n\nSee ![1][2] and [1].", Mapping: map[int]source.Source{1: src("x", "https://x.example/"), 2: src("y", "https://y.example/")}},
			},
			texts:   []string{"[1]: https://img.example/p.png\n\nSee ![1][1] and [2]."},
			sources: []string{"1 y https://y.example/ A A", "2 x https://x.example/ A A"},
		},
		{
			name: "sources without URL meet by ID",
			reports: []collapse.Report{
				{Section: "A", Text: "[1]", Mapping: map[int]source.Source{1: {ID: "notes.md"}}},
				{Section: "B", Text: "[1] [2]", Mapping: map[int]source.Source{1: {ID: "other.md"}, 2: {ID: "notes.md"}}},
			},
			texts:   []string{"[1]", "[2] [1]"},
			sources: []string{"1 notes.md  A A,B", "2 other.md  B B"},
		},
		{
			name: "uncited mapping entries get no number",
			reports: []collapse.Report{
				{Section: "A", Text: "only [3]", Mapping: map[int]source.Source{1: src("a", "https://a.example/"), 2: src("b", "https://b.example/"), 3: src("c", "https://c.example/")}},
			},
			texts:   []string{"only [1]"},
			sources: []string{"1 c https://c.example/ A A"},
		},
		{
			name: "malformed URLs merge only as the same string",
			reports: []collapse.Report{
				{Section: "A", Text: "[1] [2] [3]", Mapping: map[int]source.Source{1: src("bad1", "http://exa mple.com/"), 2: src("bad2", "http://exa mple.com/"), 3: src("bad3", "http://exa mple.com")}},
				{Section: "B", Text: "[1]", Mapping: map[int]source.Source{1: src("bad1b", "http://exa mple.com/")}},
			},
			texts:   []string{"[1] [1] [2]", "[1]"},
			sources: []string{"1 bad1  A A,B", "2 bad3  A A"},
		},
		{
			name: "code is not rewritten",
			reports: []collapse.Report{
				{Section: "A", Text: "see [2]\n```\nxs[1]\n```\n`ys[2]` [1]", Mapping: map[int]source.Source{1: src("a", "https://a.example/"), 2: src("b", "https://b.example/")}},
			},
			texts:   []string{"see [1]\n```\nxs[1]\n```\n`ys[2]` [2]"},
			sources: []string{"1 b https://b.example/ A A", "2 a https://a.example/ A A"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := collapse.Merge(tt.reports)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, r := range res.Reports {
				texts = append(texts, r.Text)
			}
			if !slices.Equal(texts, tt.texts) {
				t.Errorf("texts:\n got %q\nwant %q", texts, tt.texts)
			}
			var got []string
			for _, s := range res.Sources {
				got = append(got, fmt.Sprintf("%d %s %s %s %s", s.Number, s.ID, s.CanonicalURL, s.FirstSeenSection, strings.Join(s.UsedInSections, ",")))
			}
			if !slices.Equal(got, tt.sources) {
				t.Errorf("sources:\n got %q\nwant %q", got, tt.sources)
			}
			if tt.unknown == nil {
				tt.unknown = []collapse.Unknown{}
			}
			if !slices.Equal(res.Unknown, tt.unknown) {
				t.Errorf("unknown: got %v, want %v", res.Unknown, tt.unknown)
			}
			assertResolves(t, res)
		})
	}
}

// assertResolves checks the merge invariant: every marker left in a merged
// report resolves to a merged source.
func assertResolves(t *testing.T, res *collapse.Result) {
	t.Helper()
	mp, err := collapse.Mapping(res.Sources)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Reports {
		p := citeproc.New(&strings.Builder{}, citeproc.Config{Mode: citeproc.Keep, Mapping: mp})
		p.WriteString(r.Text)
		p.Close()
		if u := p.Unknowns(); len(u) > 0 {
			t.Fatalf("merged report %q cites %v, which resolve to nothing:\n%s", r.Section, u, r.Text)
		}
	}
}

func TestMergerNumbersAreStable(t *testing.T) {
	m := collapse.NewMerger()
	r1, err := m.Add(collapse.Report{Section: "A", Text: "[1] [2]", Mapping: map[int]source.Source{1: src("a", "https://a.example/"), 2: src("b", "https://b.example/")}})
	if err != nil {
		t.Fatal(err)
	}
	before := m.Sources()
	if _, err := m.Add(collapse.Report{Section: "B", Text: "[2] [1]", Mapping: map[int]source.Source{1: src("c", "https://c.example/"), 2: src("b", "https://b.example/")}}); err != nil {
		t.Fatal(err)
	}
	after := m.Sources()
	for i, s := range before {
		if after[i].Number != s.Number || after[i].ID != s.ID {
			t.Errorf("source %d changed from %v to %v", i+1, s, after[i])
		}
	}
	if r1.Text != "[1] [2]" || len(after) != 3 || after[2].ID != "c" {
		t.Errorf("unexpected merge: %q %v", r1.Text, after)
	}
	if got := after[1].UsedInSections; !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("b used in %v", got)
	}
}

func TestMergeRejectsBadMapping(t *testing.T) {
	// Numbers run from 0 (prompts that number sources from 0 exist) to
	// 999999 (markers hold six digits).
	_, err := collapse.Merge([]collapse.Report{{Section: "Bad", Text: "[1000000]", Mapping: map[int]source.Source{1000000: src("a", "https://a.example/")}}})
	if err == nil || !strings.Contains(err.Error(), `"Bad"`) {
		t.Fatalf("want an error naming the section, got %v", err)
	}
}

// FuzzMergeResolves: whatever the reports say, a merge never leaves a
// marker that resolves to nothing, and merging is deterministic. On
// generated reports (gen: lists, block quotes, nested fences, every
// dialect, near misses) every marker left in the merged text resolves to
// the very source its local marker meant, in order, and no code region
// changes.
func FuzzMergeResolves(f *testing.F) {
	f.Add("a [1] b [2, 9]", "c [1][3] 【2】", "[[S:1-3]] [ref: https://a.example/x]", []byte(nil))
	f.Add("```\n[1]\n``` [2]", "`[3]` [1]", "[^2] [2-3]", []byte(nil))
	f.Add("", "", "", []byte("\x05\x00\x00\x01\x02\x03\x04\x05\x01\x00\x05\x01\x03\x00\x04\x00\x0b\x01\x0e\x02"))
	f.Add("", "", "", []byte("\x03\x04\x01\x00\x1a\x00\x00\x1b\x00\x00\x1c\x00\x00\x1d\x00\x00\x1e\x01\x09\x02\x00\x00\x0a\x05"))
	pool := []source.Source{
		src("a", "https://a.example/x"), src("a2", "http://www.a.example/x?utm_medium=m"),
		src("b", "https://b.example/y"), {ID: "local.md"}, src("bad", "http://[::1"),
	}
	f.Fuzz(func(t *testing.T, t1, t2, t3 string, gen []byte) {
		texts := []string{t1, t2, t3}
		var docs []citegen.Doc
		if len(gen) > 0 {
			texts = texts[:0]
			for k := range 3 {
				d := citegen.Generate(gen[k*len(gen)/3 : (k+1)*len(gen)/3])
				docs = append(docs, d)
				texts = append(texts, d.Text)
			}
		}
		var reports []collapse.Report
		for i, text := range texts {
			mp := map[int]source.Source{}
			for n := 1; n <= 4; n++ {
				mp[n] = pool[(i+n)%len(pool)]
			}
			reports = append(reports, collapse.Report{Section: fmt.Sprint("S", i), Text: text, Mapping: mp})
		}
		res, err := collapse.Merge(reports)
		if err != nil {
			t.Fatal(err)
		}
		assertResolves(t, res)
		again, _ := collapse.Merge(reports)
		a, _ := json.Marshal(res)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("merge is not deterministic")
		}
		for i, d := range docs {
			assertMeant(t, d, reports[i], res)
		}
	})
}

// identity is what makes two sources one: the canonical URL, else the URL
// as written, else the ID.
func identity(s source.Source) string {
	switch {
	case s.URL == "":
		return "id:" + s.ID
	case canon.Key(s.URL) != "":
		return "url:" + canon.Key(s.URL)
	}
	return "raw:" + s.URL
}

// assertMeant requires every marker of the merged text of r to resolve, in
// the merged sources, to the source its local marker meant, in order, and
// the code regions of d unchanged.
func assertMeant(t *testing.T, d citegen.Doc, r collapse.Report, res *collapse.Result) {
	t.Helper()
	var merged string
	for _, m := range res.Reports {
		if m.Section == r.Section {
			merged = m.Text
		}
	}
	var want, prev []string
	for k, nums := range d.Cites {
		var ids []string
		for _, n := range nums {
			if id := identity(r.Mapping[n]); !slices.Contains(ids, id) {
				ids = append(ids, id) // one resource shows once in a marker
			}
		}
		if d.Adjacent[k] && !slices.ContainsFunc(ids, func(id string) bool { return !slices.Contains(prev, id) }) {
			continue // "[1][2]" for one resource shows once
		}
		want = append(want, ids...)
		prev = ids
	}
	mp, err := collapse.Mapping(res.Sources)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	p := citeproc.New(io.Discard, citeproc.Config{Mode: citeproc.Renumber, Mapping: mp,
		Numberer: citeproc.NumbererFunc(func(n int, s source.Source) int {
			got = append(got, identity(s))
			return n
		})})
	p.WriteString(merged)
	p.Close()
	if !slices.Equal(got, want) {
		t.Fatalf("section %s: merged text cites\n%v\nwant\n%v\nin:  %q\nout: %q", r.Section, got, want, r.Text, merged)
	}
	rest := merged
	for _, c := range d.Code {
		i := strings.Index(rest, c)
		if i < 0 {
			t.Fatalf("section %s: code region %q changed\nout: %q", r.Section, c, merged)
		}
		rest = rest[i+len(c):]
	}
}

// benchReports builds n reports of about 10 KB citing 50 sources each,
// drawn from a shared pool so that sources recur under different URL forms.
func benchReports(n int) []collapse.Report {
	r := rand.New(rand.NewPCG(5, 6))
	reports := make([]collapse.Report, n)
	for i := range reports {
		mp := map[int]source.Source{}
		for k := 1; k <= 50; k++ {
			id := r.IntN(600)
			u := fmt.Sprintf("https://site%d.example/article/%d", id%40, id)
			if r.IntN(3) == 0 {
				u = strings.Replace(u, "https://", "http://www.", 1) + "?utm_source=feed"
			}
			mp[k] = source.Source{ID: fmt.Sprint("doc", id), URL: u, Title: fmt.Sprint("Article ", id)}
		}
		var b strings.Builder
		for b.Len() < 10<<10 {
			b.WriteString("Undersea cables carry most intercontinental traffic and were first laid in the nineteenth century")
			fmt.Fprintf(&b, " [%d]. Repeaters amplify the signal every fifty to a hundred kilometres [%d, %d].\n", 1+r.IntN(50), 1+r.IntN(50), 1+r.IntN(50))
		}
		reports[i] = collapse.Report{Section: fmt.Sprint("Section ", i), Text: b.String(), Mapping: mp}
	}
	return reports
}

func BenchmarkMerge64(b *testing.B) {
	reports := benchReports(64)
	total := 0
	for _, r := range reports {
		total += len(r.Text)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := collapse.Merge(reports); err != nil {
			b.Fatal(err)
		}
	}
}

// Issue 6 through the merger: code inside containers keeps its brackets,
// the dialects models write are renumbered, near misses and unknown
// numbers never pass through with a local number, and 0 is a number.
func TestMergeNeverLeavesAStaleNumber(t *testing.T) {
	a, b, c := src("a", "https://a.example/"), src("b", "https://b.example/"), src("c", "https://c.example/")
	for _, tc := range []struct {
		name, in, want string
		mapping        map[int]source.Source
		ids            []string
		unknown        []collapse.Unknown
	}{
		{"fence in a list item", "- ```\n  x[1]\n  ```\nProse [2].\n\n```\ncode [3]\n```\n", "- ```\n  x[1]\n  ```\nProse [1].\n\n```\ncode [3]\n```\n",
			map[int]source.Source{1: a, 2: b, 3: c}, []string{"b"}, nil},
		{"fence in a block quote", "> ```\n> arr[1] = 0\n> ```\nSee [2].", "> ```\n> arr[1] = 0\n> ```\nSee [1].",
			map[int]source.Source{1: a, 2: b}, []string{"b"}, nil},
		{"OpenAI dialect", "X [2]. Y 【1†source】 Z [1,].", "X [1]. Y 【2】 Z [2].",
			map[int]source.Source{1: a, 2: b}, []string{"b", "a"}, nil},
		{"near miss", "A [1]. B [3-1]. C [1-70]. D [01] is 1.", "A [1]. B. C. D [1] is 1.",
			map[int]source.Source{1: a, 3: c}, []string{"a"}, []collapse.Unknown{{Section: "S", Marker: "[3-1]"}, {Section: "S", Marker: "[1-70]"}}},
		{"zero", "Zero [0] and [0, 1].", "Zero [1] and [1, 2].",
			map[int]source.Source{0: a, 1: b}, []string{"a", "b"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := collapse.Merge([]collapse.Report{{Section: "S", Text: tc.in, Mapping: tc.mapping}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Reports[0].Text; got != tc.want {
				t.Errorf("text:\n got %q\nwant %q", got, tc.want)
			}
			var ids []string
			for _, s := range res.Sources {
				ids = append(ids, s.ID)
			}
			if !slices.Equal(ids, tc.ids) {
				t.Errorf("sources %v, want %v", ids, tc.ids)
			}
			if tc.unknown == nil {
				tc.unknown = []collapse.Unknown{}
			}
			if !slices.Equal(res.Unknown, tc.unknown) {
				t.Errorf("unknown %+v, want %+v", res.Unknown, tc.unknown)
			}
		})
	}
}

// TestMergeFillsDates: a source merged without dates takes them from a
// later report that knows them (an agent that opened the page), and a
// date it has is never replaced.
func TestMergeFillsDates(t *testing.T) {
	m := collapse.NewMerger()
	dated := func(s source.Source, published, modified string) source.Source {
		s.Published, s.Modified = published, modified
		return s
	}
	a, b := src("a", "https://a.example/"), src("b", "https://b.example/")
	for _, r := range []collapse.Report{
		{Section: "A", Text: "[1] [2]", Mapping: map[int]source.Source{1: a, 2: dated(b, "2020-01-01", "")}},
		{Section: "B", Text: "[1] [2]", Mapping: map[int]source.Source{1: dated(a, "2024-03-15", "2024-04-01T00:00:00Z"), 2: dated(b, "2024-03-15", "")}},
	} {
		if _, err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	got := m.Sources()
	if got[0].Published != "2024-03-15" || got[0].Modified != "2024-04-01T00:00:00Z" || got[1].Published != "2020-01-01" {
		t.Errorf("dates = %+v", got)
	}
}

// TestMergeRepairsMalformedURL: a malformed URL that a browser reads as
// the URL of a resource another agent cited merges with it, and is logged
// with the key they met under (seed 000: "log it and merge"); one no
// repair reads keeps a number of its own.
func TestMergeRepairsMalformedURL(t *testing.T) {
	res, err := collapse.Merge([]collapse.Report{
		{Section: "A", Text: "good [1]", Mapping: map[int]source.Source{1: src("good", "https://docs.example/guide")}},
		{Section: "B", Text: "slash [1], backslash [2], broken [3]", Mapping: map[int]source.Source{
			1: src("slash", "https:/docs.example/guide?utm_source=x"),
			2: src("back", `http:\\www.docs.example\guide`),
			3: src("broken", "https://docs .example/guide"),
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Reports[1].Text; got != "slash [1], backslash [1], broken [2]" {
		t.Errorf("merged text %q", got)
	}
	if len(res.Sources) != 2 || res.Sources[0].ID != "good" || !slices.Equal(res.Sources[0].UsedInSections, []string{"A", "B"}) {
		t.Fatalf("sources %+v; want the good URL once, used in A and B, and the broken one", res.Sources)
	}
	want := []collapse.InvalidURL{
		{Section: "B", Number: 1, URL: "https:/docs.example/guide?utm_source=x", MergedAs: "https://docs.example/guide"},
		{Section: "B", Number: 2, URL: `http:\\www.docs.example\guide`, MergedAs: "https://docs.example/guide"},
		{Section: "B", Number: 3, URL: "https://docs .example/guide"},
	}
	if len(res.Invalid) != len(want) {
		t.Fatalf("invalid %+v, want %+v", res.Invalid, want)
	}
	for i, w := range want {
		g := res.Invalid[i]
		if g.Section != w.Section || g.Number != w.Number || g.URL != w.URL || g.MergedAs != w.MergedAs || !strings.Contains(g.Err, "canon:") {
			t.Errorf("invalid[%d] = %+v, want %+v", i, g, w)
		}
	}
}
