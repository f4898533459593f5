package source

import (
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

func TestLabel(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  Source
		want string
	}{
		{"title", Source{ID: "w1", URL: "https://e.org/a", Title: "  Spaced\n title "}, "Spaced title"},
		{"no title", Source{ID: "corpus/a.md"}, "corpus/a.md"},
		{"no url names the id", Source{ID: "corpus/notes.md", Title: "Field notes"}, "corpus/notes.md — Field notes"},
		{"corpus document by folder and file", Source{ID: "docs/faq.md", URL: "file:///srv/c/docs/faq.md", Title: "FAQ", Channel: "corpus"}, "docs/faq.md — FAQ"},
		{"file URL without an id", Source{URL: "file:///srv/c/notes.txt", Title: "Notes"}, "/srv/c/notes.txt — Notes"},
		{"title is the file name", Source{ID: "data/catalog.csv", URL: "file:///c/data/catalog.csv", Title: "catalog.csv"}, "data/catalog.csv"},
		{"web page keeps its title", Source{ID: "https://e.org/a", URL: "https://e.org/a", Title: "A page", Channel: "web", Published: "2024-03-15"}, "A page"},
		{"title equals id", Source{ID: "notes", Title: "notes"}, "notes"},
		{"escape sequences", Source{ID: "x", URL: "https://e.org", Title: "Red\x1b[31m text\u009b"}, "Red[31m text"},
		{"page", Source{ID: "spec.pdf", URL: "file:///c/spec.pdf", Title: "spec.pdf", Location: Location{Kind: LocPage, Value: "7"}}, "spec.pdf, p. 7"},
		{"section", Source{ID: "faq.md", URL: "file:///c/faq.md", Title: "faq.md", Location: Location{Kind: LocSection, Value: "Returns"}}, "faq.md › Returns"},
		{"row", Source{ID: "catalog.csv", URL: "file:///c/catalog.csv", Title: "catalog.csv", Location: Location{Kind: LocRow, Value: "12"}}, "catalog.csv, row 12"},
		{"row of a sheet", Source{ID: "b.xlsx", URL: "file:///c/b.xlsx", Title: "b.xlsx", Location: Location{Kind: LocRow, Value: "3", Part: "Prices"}}, "b.xlsx, Prices, row 3"},
		{"slide", Source{ID: "d.pptx", URL: "file:///c/d.pptx", Title: "Deck", Location: Location{Kind: LocSlide, Value: "4"}}, "d.pptx — Deck, slide 4"},
		{"lines", Source{ID: "n.txt", URL: "file:///c/n.txt", Title: "n", Location: Location{Kind: LocLines, Value: "45-49"}}, "n.txt — n, lines 45-49"},
		{"one line", Source{ID: "n.txt", URL: "file:///c/n.txt", Title: "n", Location: Location{Kind: LocLines, Value: "4"}}, "n.txt — n, line 4"},
		{"after the id", Source{ID: "corpus/notes.md", Title: "Field notes", Location: Location{Kind: LocSection, Value: "A › B"}}, "corpus/notes.md — Field notes › A › B"},
		{"location without title", Source{ID: "x.pdf", Location: Location{Kind: LocPage, Value: "2"}}, "x.pdf, p. 2"},
		{"control characters in a location", Source{ID: "x", URL: "https://e.org", Title: "T", Location: Location{Kind: LocSection, Value: "A\x1b[2J\nB"}}, "T › A[2J B"},
	} {
		if got := tc.src.Label(); got != tc.want {
			t.Errorf("%s: Label() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLocationString(t *testing.T) {
	for _, tc := range []struct {
		loc  Location
		want string
	}{
		{Location{}, ""},
		{Location{Kind: LocPage, Value: "12"}, "p. 12"},
		{Location{Kind: LocRow, Value: "2", Part: "Sheet1"}, "Sheet1, row 2"},
		{Location{Kind: "paragraph", Value: "3"}, "paragraph 3"},
		{Location{Kind: LocLines, Value: "1–3"}, "lines 1–3"},
	} {
		if got := tc.loc.String(); got != tc.want {
			t.Errorf("%+v: String() = %q, want %q", tc.loc, got, tc.want)
		}
		if tc.loc.IsZero() != (tc.want == "") {
			t.Errorf("%+v: IsZero() = %v", tc.loc, tc.loc.IsZero())
		}
	}
}

func TestLocationKey(t *testing.T) {
	for _, tc := range []struct {
		loc  Location
		want string
	}{
		{Location{}, ""},
		{Location{Kind: LocPage, Value: "7"}, "#page::7"},
		{Location{Kind: LocRow, Value: "3", Part: "Prices"}, "#row:Prices:3"},
		{Location{Kind: LocSlide, Value: "2"}, "#slide::2"},
		{Location{Kind: LocSection, Value: "A › B"}, ""},
		{Location{Kind: LocLines, Value: "4-9"}, ""},
		{Location{Kind: LocPage}, ""},
	} {
		if got := tc.loc.Key(); got != tc.want {
			t.Errorf("%+v: Key() = %q, want %q", tc.loc, got, tc.want)
		}
		if tc.loc.Unit() != (tc.want != "") {
			t.Errorf("%+v: Unit() = %v", tc.loc, tc.loc.Unit())
		}
	}
}

func TestDated(t *testing.T) {
	web := Source{ID: "https://e.org", URL: "https://e.org", Title: "E", Channel: "web"}
	local := Source{ID: "docs/a.md", URL: "file:///c/docs/a.md", Title: "A", Channel: "corpus"}
	for _, tc := range []struct {
		name string
		src  Source
		want string
	}{
		{"published", with(web, "2024-03-15T10:00:00Z", "2024-05-01"), "2024-03-15"},
		{"modified only", with(web, "", "2024-05-01T08:00:00+02:00"), "updated 2024-05-01"},
		{"none", web, ""},
		{"garbage", with(web, "soon", "later"), ""},
		{"local modified is not shown", with(local, "", "2026-11-20T10:00:00Z"), ""},
		{"local published is", with(local, "2020-01-02", ""), "2020-01-02"},
	} {
		if got := tc.src.Dated(); got != tc.want {
			t.Errorf("%s: Dated() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func with(s Source, published, modified string) Source {
	s.Published, s.Modified = published, modified
	return s
}

func TestKindAndCollection(t *testing.T) {
	for _, tc := range []struct {
		name             string
		src              Source
		kind, path, coll string
	}{
		{"web", Source{ID: "https://e.org/a", URL: "https://e.org/a", Channel: "web"}, KindWeb, "", "web_search"},
		{"search backend with a URL", Source{ID: "d1", URL: "https://e.org/a", Channel: "search"}, KindWeb, "", "web_search"},
		{"corpus, in a folder", Source{ID: "docs/api/io.md", URL: "file:///c/docs/api/io.md", Channel: "corpus"}, KindLocal, "docs/api/io.md", "docs/api"},
		{"corpus, at the top", Source{ID: "glossary.org", URL: "file:///c/glossary.org", Channel: "corpus"}, KindLocal, "glossary.org", "corpus"},
		{"file URL", Source{URL: "FILE:///c/notes/n.txt"}, KindLocal, "/c/notes/n.txt", "c/notes"},
		{"no URL", Source{ID: "n.txt", Channel: "search"}, KindLocal, "n.txt", "search"},
		{"a Chroma record of a source", Source{ID: "chroma:catalog/techmart_catalog.csv", Channel: "chroma"}, KindLocal, "chroma:catalog/techmart_catalog.csv", "catalog"},
		{"a Chroma record without a source", Source{ID: "chroma:faq#note_1", Channel: "chroma"}, KindLocal, "chroma:faq#note_1", "faq"},
		{"another channel's prefix", Source{ID: "chroma:faq/x.csv", Channel: "search"}, KindLocal, "chroma:faq/x.csv", "chroma:faq"},
	} {
		if k, p, c := tc.src.Kind(), tc.src.Path(), tc.src.Collection(); k != tc.kind || p != tc.path || c != tc.coll {
			t.Errorf("%s: Kind, Path, Collection = %q, %q, %q; want %q, %q, %q", tc.name, k, p, c, tc.kind, tc.path, tc.coll)
		}
		if want := map[bool]string{true: TypeChroma, false: tc.kind}[tc.src.Channel == "chroma"]; tc.src.Type() != want {
			t.Errorf("%s: Type = %q, want %q", tc.name, tc.src.Type(), want)
		}
	}
}

// Seed 003's names of a source: its document (sources), its collection's
// display name (formatted_citations) and how an answer names it.
func TestNameAndCollectionTitle(t *testing.T) {
	for _, tc := range []struct {
		name        string
		src         Source
		doc, title  string
		attribution string
		record      bool
	}{
		{"web", Source{ID: "w1", URL: "https://techradar.com/best-laptops", Channel: "web"}, "https://techradar.com/best-laptops", "Web Search", "According to our web search", false},
		{"catalog row", Source{ID: "chroma:catalog/techmart_catalog.csv", Channel: "chroma", Location: Location{Kind: LocRow, Value: "3"}}, "techmart_catalog.csv", "Product Catalog", "According to our product catalog", true},
		{"faq row", Source{ID: "chroma:faq/techmart_faq.csv", Channel: "chroma"}, "techmart_faq.csv", "FAQ", "According to our FAQ", true},
		{"troubleshooting", Source{ID: "chroma:troubleshooting/fixes.csv", Channel: "chroma"}, "fixes.csv", "Troubleshooting Guide", "From our troubleshooting guide", true},
		{"record of no file", Source{ID: "chroma:return_policy#r7", Channel: "chroma"}, "return_policy#r7", "Return Policy", "According to our return policy", true},
		{"hostile collection", Source{ID: "chroma:x\n[y](z)/f.csv", Channel: "chroma"}, "f.csv", "X [y](z)", "According to our X [y](z)", true},
		{"corpus", Source{ID: "docs/faq.md", URL: "file:///c/docs/faq.md", Channel: "corpus"}, "docs/faq.md", "Docs", "According to our docs", false},
		{"another channel's prefix", Source{ID: "chroma:faq/x.csv", Channel: "search"}, "chroma:faq/x.csv", "Chroma:faq", "According to our chroma:faq", false},
	} {
		if got := tc.src.Name(); got != tc.doc {
			t.Errorf("%s: Name() = %q, want %q", tc.name, got, tc.doc)
		}
		if got := sourcetext.CollectionTitle(tc.src.Collection()); got != tc.title {
			t.Errorf("%s: sourcetext.CollectionTitle(%q) = %q, want %q", tc.name, tc.src.Collection(), got, tc.title)
		}
		if got := sourcetext.Attribution(tc.src.Collection()); got != tc.attribution {
			t.Errorf("%s: sourcetext.Attribution(%q) = %q, want %q", tc.name, tc.src.Collection(), got, tc.attribution)
		}
		if got := tc.src.Record(); got != tc.record {
			t.Errorf("%s: Record() = %v, want %v", tc.name, got, tc.record)
		}
	}
	if got := sourcetext.CollectionTitle("  \x1b[31mtips\t and\n tricks "); got != "[31mtips And Tricks" {
		t.Errorf("CollectionTitle of control characters = %q", got)
	}
}

func TestAuthors(t *testing.T) {
	long := strings.Repeat("é", 80) // 160 bytes
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{" Jane  Doe ", "John Roe", "Jane Doe", ""}, "Jane Doe; John Roe"},
		{[]string{"Eve\x1b[31m; Mallory\nSmith"}, "Eve[31m, Mallory Smith"},
		{[]string{long}, strings.Repeat("é", 50)},
		{[]string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11"}, "a1; a2; a3; a4; a5; a6; a7; a8; a9; a10"},
	} {
		if got := sourcetext.JoinAuthors(tc.in...); got != tc.want {
			t.Errorf("sourcetext.JoinAuthors(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := sourcetext.ParseAuthors("Curie, Marie;Curie, Pierre; "); got != "Curie, Marie; Curie, Pierre" {
		t.Errorf("ParseAuthors = %q", got)
	}
	if got := (Source{Author: "Curie, Marie; Curie, Pierre"}).Authors(); len(got) != 2 || got[1] != "Curie, Pierre" {
		t.Errorf("Authors = %q", got)
	}
	if got := (Source{}).Authors(); got != nil {
		t.Errorf("no author: %q", got)
	}
}
