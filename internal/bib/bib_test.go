package bib

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/golden"
	"github.com/deepresearch/deepresearch/source"
)

var refs = []Reference{
	{Number: 1, Source: source.Source{ID: "w1", URL: "https://go.dev/ref/mem", Title: "The Go Memory Model", Channel: "web"},
		Authors: []Name{{Literal: "The Go Authors"}}, Issued: Date{2022, 6, 6}, Accessed: Date{2026, 11, 22}, Publisher: "Google"},
	{Number: 2, Source: source.Source{ID: "go_mem.html", URL: "file:///usr/local/go/doc/go_mem.html", Title: "The Go Memory Model", Channel: "corpus"}},
	{Number: 3, Source: source.Source{ID: "p", URL: "https://doi.org/10.1145/1375581.1375591", Title: "Foundations of the C++ Concurrency Memory Model"},
		Authors: []Name{{Family: "Boehm", Given: "Hans-J."}, {Family: "Adve", Given: "Sarita V."}}, Issued: Date{Year: 2008}, Container: "PLDI"},
	// Hostile text: TeX specials, an unbalanced brace, a control character
	// and a javascript: URL.
	{Number: 4, Source: source.Source{ID: "x", URL: "javascript:alert(1)", Title: "50% of C# & Go_lang {users} say } \\end{document} ~^$\x1b[31m"},
		Authors: []Name{{Family: "O'Brien}", Given: "{Pat"}}},
	{Number: 5, Source: source.Source{ID: "y", URL: "https://example.com/a%20b/{x}?q=%41&r=50%25#frag", Title: ""},
		Issued: Date{2022, 1, 0}},
	{Number: 6, Source: source.Source{ID: "notes/local.md", Title: "Local notes"}},
	// Dates from the source itself: a page's publication date (a search
	// engine's or its metadata's), a local file's modification time.
	{Number: 7, Source: source.Source{ID: "https://news.example/cables", URL: "https://news.example/cables", Title: "Cables cut",
		Channel: "web", Published: "2024-03-15T23:30:00-05:00", Modified: "2024-04-01"}},
	{Number: 8, Source: source.Source{ID: "ops/faults.md", URL: "file:///srv/c/ops/faults.md", Title: "Faults", Channel: "corpus",
		Modified: "2023-02-01T12:00:00Z"}},
}

func TestGolden(t *testing.T) {
	csl, err := CSLJSON(refs)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "refs.csl.json", string(csl)+"\n")
	golden.Check(t, "refs.bib", string(BibTeX(refs)))
}

// cslTypes are the item types csl-data.json (CSL 1.0.2) allows.
var cslTypes = strings.Fields(`article article-journal article-magazine article-newspaper bill book
	broadcast chapter classic collection dataset document entry entry-dictionary entry-encyclopedia
	event figure graphic hearing interview legal_case legislation manuscript map motion_picture
	musical_score pamphlet paper-conference patent performance periodical personal_communication post
	post-weblog regulation report review review-book software song speech standard thesis treaty webpage`)

// cslFields are the item fields csl-data.json allows that this package can
// write, by JSON type ("string", "string|number", "names", "date"); the
// schema forbids any other ("additionalProperties": false).
var cslFields = map[string]string{
	"id": "string|number", "type": "string", "citation-number": "string|number", "title": "string",
	"URL": "string", "DOI": "string", "author": "names", "issued": "date", "accessed": "date",
	"publisher": "string", "container-title": "string", "archive_location": "string", "source": "string",
	"page": "string|number", "section": "string", "locator": "string|number",
}

// validateCSL checks data against csl-data.json's rules: an array of
// objects, each with "id" and "type", "type" from the enum, only known
// fields of the right JSON types, names with only name fields, dates as
// date-parts of one or two arrays of one to three numbers. It also checks
// that ids are unique, which processors require.
func validateCSL(t *testing.T, data []byte) {
	t.Helper()
	var items []map[string]any
	if err := json.Unmarshal(data, &items); err != nil {
		t.Fatalf("not a JSON array of objects: %v", err)
	}
	ids := map[string]bool{}
	for i, it := range items {
		for _, req := range []string{"id", "type"} {
			if _, ok := it[req]; !ok {
				t.Errorf("item %d: no %q", i, req)
			}
		}
		if typ, _ := it["type"].(string); !slices.Contains(cslTypes, typ) {
			t.Errorf("item %d: type %q is not a CSL type", i, typ)
		}
		id := fmt.Sprint(it["id"])
		if ids[id] {
			t.Errorf("item %d: id %q used twice", i, id)
		}
		ids[id] = true
		for k, v := range it {
			switch kind, ok := cslFields[k]; {
			case !ok:
				t.Errorf("item %d: field %q is not in the schema", i, k)
			case kind == "string":
				if _, ok := v.(string); !ok {
					t.Errorf("item %d: %s = %v, want a string", i, k, v)
				}
			case kind == "string|number":
				switch v.(type) {
				case string, float64:
				default:
					t.Errorf("item %d: %s = %v, want a string or number", i, k, v)
				}
			case kind == "names":
				names, ok := v.([]any)
				if !ok {
					t.Errorf("item %d: %s is not an array", i, k)
				}
				for _, n := range names {
					m, ok := n.(map[string]any)
					if !ok || len(m) == 0 {
						t.Errorf("item %d: name %v is not an object", i, n)
					}
					for nk, nv := range m {
						if !slices.Contains([]string{"family", "given", "literal", "suffix", "dropping-particle", "non-dropping-particle"}, nk) {
							t.Errorf("item %d: name field %q", i, nk)
						}
						if _, ok := nv.(string); !ok {
							t.Errorf("item %d: name field %q is not a string", i, nk)
						}
					}
				}
			case kind == "date":
				m, ok := v.(map[string]any)
				if !ok || len(m) != 1 {
					t.Errorf("item %d: %s = %v, want {date-parts}", i, k, v)
					continue
				}
				parts, ok := m["date-parts"].([]any)
				if !ok || len(parts) < 1 || len(parts) > 2 {
					t.Errorf("item %d: %s date-parts %v", i, k, m["date-parts"])
					continue
				}
				for _, p := range parts {
					ps, ok := p.([]any)
					if !ok || len(ps) < 1 || len(ps) > 3 {
						t.Errorf("item %d: %s date part %v", i, k, p)
					}
					for _, x := range ps {
						if _, ok := x.(float64); !ok {
							t.Errorf("item %d: %s date part %v is not a number", i, k, x)
						}
					}
				}
			}
		}
	}
}

func TestCSLJSON(t *testing.T) {
	data, err := CSLJSON(refs)
	if err != nil {
		t.Fatal(err)
	}
	validateCSL(t, data)
	var items []cslItem
	if err := json.Unmarshal(data, &items); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"web page type", items[0].Type, "webpage"},
		{"issued", items[0].Issued.DateParts, [][]int{{2022, 6, 6}}},
		{"local document type", items[1].Type, "document"},
		{"local path", items[1].ArchiveLocation, "/usr/local/go/doc/go_mem.html"},
		{"doi from URL", items[2].DOI, "10.1145/1375581.1375591"},
		{"authors", items[2].Author, []Name{{Family: "Boehm", Given: "Hans-J."}, {Family: "Adve", Given: "Sarita V."}}},
		{"javascript URL dropped", items[3].URL, ""},
		{"control character dropped", strings.ContainsRune(items[3].Title, 0x1b), false},
		{"title stands in", items[4].Title, "https://example.com/a%20b/{x}?q=%41&r=50%25#frag"},
		{"year-month", items[4].Issued.DateParts, [][]int{{2022, 1}}},
		{"id only: local", items[5].Type, "document"},
		{"citation number", items[5].CitationNumber, 6},
	}
	for _, tt := range tests {
		if fmt.Sprint(tt.got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	located, err := CSLJSON([]Reference{
		{Number: 1, Source: source.Source{ID: "spec.pdf", Title: "Spec", Location: source.Location{Kind: source.LocPage, Value: "7"}}},
		{Number: 2, Source: source.Source{ID: "faq.md", Title: "FAQ", Location: source.Location{Kind: source.LocSection, Value: "Returns › Refunds"}}},
		{Number: 3, Source: source.Source{ID: "b.xlsx", Title: "Book", Location: source.Location{Kind: source.LocRow, Value: "12", Part: "Prices"}}},
		{Number: 4, Source: source.Source{ID: "n.txt", Title: "Notes", Location: source.Location{Kind: source.LocLines, Value: "4-9"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	validateCSL(t, located)
	var loc []cslItem
	if err := json.Unmarshal(located, &loc); err != nil {
		t.Fatal(err)
	}
	for i, want := range []cslItem{
		{Page: "7", Locator: "7"},
		{Section: "Returns › Refunds"},
		{Section: "Prices, row 12"},
		{Section: "lines 4-9"},
	} {
		got := cslItem{Page: loc[i].Page, Section: loc[i].Section, Locator: loc[i].Locator}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("item %d: where %+v, want %+v", i+1, got, want)
		}
	}
	if _, err := CSLJSON([]Reference{{Number: 1}, {Number: 1}}); err == nil {
		t.Error("two references under one number: no error")
	}
	if data, err := CSLJSON(nil); err != nil || string(data) != "[]" {
		t.Errorf("empty list: %s, %v", data, err)
	}
}

// bibEntry is one entry read back from BibTeX text.
type bibEntry struct {
	typ, key string
	fields   map[string]string
}

// parseBibTeX reads entries the way BibTeX does: @type{key, name = {value},
// …}, a value ending at the brace that balances its opening one, where a
// backslash-escaped brace does not count. It fails on unbalanced text.
func parseBibTeX(t *testing.T, s string) []bibEntry {
	t.Helper()
	head := regexp.MustCompile(`^@(\w+)\{([^,\s]+),\n`)
	fieldRe := regexp.MustCompile(`^  ([a-z]+) = \{`)
	var out []bibEntry
	for s = strings.TrimLeft(s, "\n"); s != ""; s = strings.TrimLeft(s, "\n") {
		m := head.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no entry head at %q", clip(s))
		}
		e := bibEntry{typ: m[1], key: m[2], fields: map[string]string{}}
		s = s[len(m[0]):]
		for !strings.HasPrefix(s, "}\n") {
			fm := fieldRe.FindStringSubmatch(s)
			if fm == nil {
				t.Fatalf("entry %s: no field at %q", e.key, clip(s))
			}
			s = s[len(fm[0]):]
			depth, i := 1, 0
			for ; i < len(s) && depth > 0; i++ {
				switch s[i] {
				case '\\':
					i++
				case '{':
					depth++
				case '}':
					depth--
				}
			}
			if depth != 0 {
				t.Fatalf("entry %s field %s: unbalanced braces", e.key, fm[1])
			}
			e.fields[fm[1]] = s[:i-1]
			s = s[i:]
			if !strings.HasPrefix(s, ",\n") {
				t.Fatalf("entry %s field %s: value ends early, before %q", e.key, fm[1], clip(s))
			}
			s = s[2:]
		}
		s = s[2:]
		out = append(out, e)
	}
	return out
}

func clip(s string) string { return s[:min(len(s), 40)] }

var texUnescape = strings.NewReplacer(`\textbackslash{}`, `\`, `\{`, `{`, `\}`, `}`, `\$`, `$`, `\&`, `&`,
	`\%`, `%`, `\#`, `#`, `\_`, `_`, `\textasciicircum{}`, `^`, `\textasciitilde{}`, `~`)

func TestBibTeX(t *testing.T) {
	entries := parseBibTeX(t, string(BibTeX(refs)))
	if len(entries) != len(refs) {
		t.Fatalf("%d entries for %d references", len(entries), len(refs))
	}
	var keys []string
	for _, e := range entries {
		keys = append(keys, e.key)
		if e.typ != "misc" {
			t.Errorf("%s: type %s", e.key, e.typ)
		}
		// Outside escapes, no TeX special character is left bare.
		for name, v := range e.fields {
			if name == "url" || name == "howpublished" || name == "doi" {
				if strings.ContainsAny(v[strings.Index(v, "{")+1:], " {}\\") && name != "howpublished" {
					t.Errorf("%s: %s %q holds a brace, backslash or blank", e.key, name, v)
				}
				continue
			}
			bare := regexp.MustCompile(`(^|[^\\])[$&%#_^~]`)
			if bare.MatchString(v) {
				t.Errorf("%s: %s %q has a bare TeX special", e.key, name, v)
			}
		}
	}
	if want := []string{"thegoauthors2022", "gomem", "boehm2008", "obrien", "examplecom2022", "local", "newsexample2024", "faults2023"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	// The hostile title reads back as written, less its control character.
	title := texUnescape.Replace(strings.TrimSuffix(strings.TrimPrefix(entries[3].fields["title"], "{"), "}"))
	if want := "50% of C# & Go_lang {users} say } \\end{document} ~^$[31m"; title != want {
		t.Errorf("title reads back as %q, want %q", title, want)
	}
	if got := entries[3].fields["author"]; texUnescape.Replace(got) != "O'Brien}, {Pat" {
		t.Errorf("author %q", got)
	}
	if _, ok := entries[3].fields["url"]; ok {
		t.Error("a javascript: URL was exported")
	}
	if got := entries[4].fields["url"]; got != "https://example.com/a%20b/%7Bx%7D?q=%41&r=50%25#frag" {
		t.Errorf("url %q", got)
	}
	if got := entries[1].fields["note"]; got != `Local document /usr/local/go/doc/go\_mem.html; reference [2]` {
		t.Errorf("local note %q", got)
	}
	if got := entries[0].fields["month"]; got != "jun" {
		t.Errorf("month %q", got)
	}
	if got := entries[2].fields["doi"]; got != "10.1145/1375581.1375591" {
		t.Errorf("doi %q", got)
	}
}

func TestSuffix(t *testing.T) {
	for n, want := range map[int]string{0: "a", 25: "z", 26: "aa", 27: "ab", 701: "zz", 702: "aaa"} {
		if got := suffix(n); got != want {
			t.Errorf("suffix(%d) = %q, want %q", n, got, want)
		}
	}
}

// A source's own author (a page's meta author, Exa's author, a PDF's
// Author) is the reference's when it gives no Authors: a person's name
// splits into family and given names, anything else stays whole.
func TestSourceAuthor(t *testing.T) {
	for _, tc := range []struct {
		author string
		want   []Name
	}{
		{"Jane Doe", []Name{{Family: "Doe", Given: "Jane"}}},
		{"Curie, Marie; Jean-Luc O'Neil", []Name{{Family: "Curie", Given: "Marie"}, {Family: "O'Neil", Given: "Jean-Luc"}}},
		{"J. R. Tolkien", []Name{{Family: "Tolkien", Given: "J. R."}}},
		{"The Go Authors; Acme Inc.; staff@example.org; Plato", []Name{{Literal: "The Go Authors"}, {Literal: "Acme Inc."}, {Literal: "staff@example.org"}, {Literal: "Plato"}}},
		{"", nil},
	} {
		if got := NamesOf(tc.author); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("NamesOf(%q) = %+v, want %+v", tc.author, got, tc.want)
		}
	}
	r := []Reference{{Number: 1, Source: source.Source{ID: "w", URL: "https://e.org/a", Title: "A", Author: "Jane Doe; The Go Authors"}}}
	data, err := CSLJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	var items []cslItem
	if err := json.Unmarshal(data, &items); err != nil || len(items) != 1 ||
		!reflect.DeepEqual(items[0].Author, []Name{{Family: "Doe", Given: "Jane"}, {Literal: "The Go Authors"}}) {
		t.Errorf("CSL-JSON: %s", data)
	}
	if b := string(BibTeX(r)); !strings.Contains(b, "author = {Doe, Jane and {The Go Authors}},") || !strings.HasPrefix(b, "@misc{doe") {
		t.Errorf("BibTeX:\n%s", b)
	}
	r[0].Authors = []Name{{Literal: "Given Instead"}}
	if b := string(BibTeX(r)); !strings.Contains(b, "author = {{Given Instead}},") {
		t.Errorf("Authors given win over the source's:\n%s", b)
	}
}

// TestBibTeXNameAnd: an author's name from untrusted metadata that holds
// the word "and" or a comma stays one BibTeX name: the part that holds it
// is braced, so BibTeX neither splits the author list there nor reads
// another "Last, First".
func TestBibTeXNameAnd(t *testing.T) {
	r := []Reference{{Number: 1, Source: source.Source{ID: "w", URL: "https://e.org/a", Title: "A", Author: "Doe, Jane and Evil Person"}},
		{Number: 2, Source: source.Source{ID: "v", URL: "https://e.org/b", Title: "B"}, Authors: []Name{{Family: "Roe, Jr", Given: "John AND Mallory"}}}}
	b := string(BibTeX(r))
	for _, want := range []string{"author = {Doe, {Jane and Evil Person}},", "author = {{Roe, Jr}, {John AND Mallory}},"} {
		if !strings.Contains(b, want) {
			t.Errorf("want %q in:\n%s", want, b)
		}
	}
}

// TestNamesOfCommaList: metadata that lists people with commas ("Jane
// Doe, John Roe", a PDF's Author, a page's meta author) names each of
// them; "Family, Given" stays one name.
func TestNamesOfCommaList(t *testing.T) {
	for _, tc := range []struct {
		author string
		want   []Name
	}{
		{"Jane Doe, John Roe", []Name{{Family: "Doe", Given: "Jane"}, {Family: "Roe", Given: "John"}}},
		{"Jane Doe, J. R. Tolkien, Marie Curie", []Name{{Family: "Doe", Given: "Jane"}, {Family: "Tolkien", Given: "J. R."}, {Family: "Curie", Given: "Marie"}}},
		{"Curie, Marie", []Name{{Family: "Curie", Given: "Marie"}}},
		{"van der Berg, Jan", []Name{{Family: "van der Berg", Given: "Jan"}}},
		{"Curie, Marie Salomea", []Name{{Family: "Curie", Given: "Marie Salomea"}}},
	} {
		if got := NamesOf(tc.author); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("NamesOf(%q) = %+v, want %+v", tc.author, got, tc.want)
		}
	}
}
