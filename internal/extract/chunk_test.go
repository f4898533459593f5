package extract

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/source"
)

// plainDocument is a document with one section and the given paragraphs.
func plainDocument(paras ...string) *Document {
	d := &Document{sections: []section{{}}}
	for _, p := range paras {
		d.blocks = append(d.blocks, block{text: p})
	}
	return d
}

func sentence(i int) string {
	return strings.Repeat("word ", 5+i%7) + "ends here."
}

func TestSplitParagraphs(t *testing.T) {
	var paras []string
	for i := range 40 {
		var s []string
		for j := range 1 + i%4 {
			s = append(s, sentence(i+j))
		}
		paras = append(paras, strings.Join(s, " "))
	}
	ps := Split(plainDocument(paras...))
	if len(ps) < 3 {
		t.Fatalf("%d passages", len(ps))
	}
	n := 0
	for i, p := range ps {
		if len(p.Body) > passageMax || i < len(ps)-1 && len(p.Body) < passageMin {
			t.Errorf("passage %d has %d bytes, want %d to %d", i, len(p.Body), passageMin, passageMax)
		}
		// Whole paragraphs only.
		for _, para := range strings.Split(p.Body, "\n\n") {
			if para != paras[n] {
				t.Fatalf("passage %d: paragraph %q, want %q", i, para, paras[n])
			}
			n++
		}
	}
	if n != len(paras) {
		t.Errorf("passages hold %d paragraphs, want %d", n, len(paras))
	}
}

func TestSplitLongParagraph(t *testing.T) {
	var s []string
	for i := range 100 {
		s = append(s, sentence(i))
	}
	long := strings.Join(s, " ")
	ps := Split(plainDocument(long))
	var got []string
	for i, p := range ps {
		if len(p.Body) > passageMax || !strings.HasSuffix(p.Body, "ends here.") {
			t.Errorf("passage %d (%d bytes) does not end a sentence: …%s", i, len(p.Body), p.Body[max(0, len(p.Body)-30):])
		}
		got = append(got, p.Body)
	}
	if strings.Join(got, " ") != long {
		t.Error("passages do not add up to the paragraph")
	}
}

func TestSplitUnbreakable(t *testing.T) {
	long := strings.Repeat("日本語", 1000) // no spaces, multi-byte
	ps := Split(plainDocument(long))
	var got strings.Builder
	for i, p := range ps {
		if len(p.Body) > passageMax || !utf8.ValidString(p.Body) {
			t.Errorf("passage %d: %d bytes, valid UTF-8 %v", i, len(p.Body), utf8.ValidString(p.Body))
		}
		got.WriteString(p.Body)
	}
	if got.String() != long {
		t.Error("passages do not add up to the text")
	}
}

func TestSplitSections(t *testing.T) {
	long := strings.Repeat(sentence(3)+" ", 9) // ~ 450 bytes
	d := &Document{
		sections: []section{{}, {path: []string{"A"}}, {path: []string{"A", "Short"}}, {path: []string{"B"}}},
		blocks: []block{
			{sec: 1, text: long, first: 3, last: 5},
			{sec: 2, text: "Tiny.", first: 7, last: 7},
			{sec: 3, text: "Also small.", first: 9, last: 9},
			{sec: 3, text: long, first: 11, last: 12},
		},
	}
	want := []Passage{
		{Location: "A", Loc: source.Location{Kind: source.LocSection, Value: "A"}, Heading: "A", Body: strings.TrimSpace(long)},
		{Location: "A › Short", Loc: source.Location{Kind: source.LocSection, Value: "A › Short"}, Heading: "A › Short › B", Body: "Tiny.\n\nB\n\nAlso small.\n\n" + strings.TrimSpace(long)},
	}
	d.blocks[0].text = strings.TrimSpace(long)
	d.blocks[3].text = strings.TrimSpace(long)
	ps := Split(d)
	if len(ps) != len(want) {
		t.Fatalf("%d passages: %+v", len(ps), ps)
	}
	for i := range want {
		if ps[i] != want[i] {
			t.Errorf("passage %d = %+v\nwant %+v", i, ps[i], want[i])
		}
	}
	d.lineLocations = true
	ps = Split(d)
	if ps[0].Location != "lines 3-5" || ps[1].Location != "lines 7-12" || ps[1].Heading != "A › Short › B" {
		t.Errorf("line locations: %q, %q (heading %q)", ps[0].Location, ps[1].Location, ps[1].Heading)
	}
	if want := (source.Location{Kind: source.LocLines, Value: "7-12"}); ps[1].Loc != want {
		t.Errorf("structured line location %+v, want %+v", ps[1].Loc, want)
	}
}

// Short blocks of different units (pages, rows, slides) are never merged
// into one passage, however small; a long one is split within its unit.
func TestSplitUnits(t *testing.T) {
	page := func(n string) source.Location { return source.Location{Kind: source.LocPage, Value: n} }
	long := strings.TrimSpace(strings.Repeat(sentence(3)+" ", 40)) // ~ 2 KB
	d := &Document{
		sections: []section{{}},
		blocks: []block{
			{unit: page("1"), text: "One."},
			{unit: page("1"), text: "Still one."},
			{unit: page("2"), text: "Two."},
			{unit: page("3"), text: long},
		},
	}
	var got []string
	for _, p := range Split(d) {
		if p.Location != p.Loc.String() {
			t.Errorf("Location %q is not Loc.String() %q", p.Location, p.Loc.String())
		}
		got = append(got, p.Location+": "+p.Body[:min(len(p.Body), 12)])
	}
	want := []string{"p. 1: One.\n\nStill ", "p. 2: Two.", "p. 3: " + long[:12], "p. 3: " + sentence(3)[:12]}
	if !slices.Equal(got, want) {
		t.Errorf("passages:\n%q\nwant\n%q", got, want)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		text       string
		room       int
		pre        bool
		head, rest string
	}{
		{"One. Two. Three.", 10, false, "One. Two.", "Three."},
		{`He said "stop." Then left.`, 17, false, `He said "stop."`, "Then left."},
		{"No sentence end here at all", 12, false, "No sentence", "end here at all"},
		{"line one\nline two. more", 15, true, "line one", "line two. more"},
		{"abcdefghij", 5, false, "", "abcdefghij"},
		{"fits", 10, false, "fits", ""},
	}
	for _, tt := range tests {
		head, rest := cut(tt.text, tt.room, tt.pre)
		if head != tt.head || rest != tt.rest {
			t.Errorf("cut(%q, %d, %v) = %q, %q; want %q, %q", tt.text, tt.room, tt.pre, head, rest, tt.head, tt.rest)
		}
	}
}

// FuzzSplit checks that passages keep all the text, in order, stay
// within passageMax (plus any headings merged in), and are valid UTF-8.
func FuzzSplit(f *testing.F) {
	// Seeds just over passageMax: the fuzzer minimises what it finds, and
	// that is slow for long inputs.
	f.Add("# T\n\nA short paragraph.\n\n## S\n\n" + strings.Repeat("More words. ", 110))
	f.Add(strings.Repeat("x", 1300))
	f.Add("Title\n=====\n\n```\n" + strings.Repeat("code line\n", 130) + "```\n")
	f.Add(strings.Repeat("é ", 700))
	f.Add("# A\n\nx\n\n## B\n\ny\n\n## C\n\n" + strings.Repeat("z ", 650))
	f.Fuzz(func(t *testing.T, src string) {
		if !utf8.ValidString(src) {
			return
		}
		d := Extract("fuzz.md", src, FormatMarkdown)
		ps := Split(&d)
		var want, got strings.Builder
		for _, b := range d.blocks {
			want.WriteString(noSpace(b.text))
		}
		for i, p := range ps {
			if !utf8.ValidString(p.Body) {
				t.Fatalf("passage %d is not valid UTF-8", i)
			}
			merged := 0
			if p.Heading != "" {
				merged = len(p.Heading) + 2*strings.Count(p.Heading, " › ") + 2
			}
			if len(p.Body) > passageMax+merged {
				t.Fatalf("passage %d has %d bytes", i, len(p.Body))
			}
			got.WriteString(noSpace(p.Body))
		}
		// Merged headings add text; all of the blocks' text must be there.
		if !isSubsequence(want.String(), got.String()) {
			t.Fatalf("passages lost text")
		}
	})
}

func noSpace(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func isSubsequence(sub, s string) bool {
	for _, r := range sub {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+utf8.RuneLen(r):]
	}
	return true
}
