package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/hostile"
)

// fuzzLimits keeps each fuzz input's work small.
var fuzzLimits = Limits{MaxUnzipped: 4 << 20, MaxText: 1 << 20, MaxMembers: 200}

// checkExtracted is what every reader promises whatever its input: an
// error that wraps one of the sentinels, or a document with text within
// the bounds whose passages are valid UTF-8 free of control characters,
// each located.
func checkExtracted(t *testing.T, f Format, data []byte) {
	d, err := ExtractBytes(context.Background(), "fuzz", data, f, fuzzLimits)
	if err != nil {
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEncrypted) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrNoText) {
			t.Fatalf("error %v wraps no sentinel", err)
		}
		return
	}
	if len(d.Text) > fuzzLimits.MaxText {
		t.Fatalf("%d bytes of text, past the limit", len(d.Text))
	}
	for _, s := range []string{d.Title, d.Text} {
		if !utf8.ValidString(s) || Clean(s) != s {
			t.Fatalf("title or text not clean: %q", s[:min(len(s), 80)])
		}
	}
	for _, p := range Split(&d) {
		for _, s := range []string{p.Location, p.Heading, p.Body, p.Loc.Value, p.Loc.Part} {
			if !utf8.ValidString(s) || Clean(s) != s {
				t.Fatalf("passage not clean: %q", s)
			}
		}
		if p.Location != p.Loc.String() {
			t.Fatalf("Location %q is not Loc.String() %q", p.Location, p.Loc.String())
		}
	}
}

// seedFuzz adds the fixtures of the format to the corpus.
func seedFuzz(f *testing.F, names ...string) {
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(formatsDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzDOCX(f *testing.F) {
	seedFuzz(f, "handbook.docx")
	f.Add(zipOf(f, map[string]string{"word/document.xml": `<w:document><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:t>H</w:t></w:p><w:tbl><w:tr><w:tc><w:p><w:t>a</w:t></w:p></w:tc></w:tr></w:tbl></w:document>`}))
	f.Fuzz(func(t *testing.T, data []byte) { checkExtracted(t, FormatDOCX, data) })
}

func FuzzODT(f *testing.F) {
	seedFuzz(f, "guide.odt")
	f.Add(zipOf(f, map[string]string{"content.xml": `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="t"><office:body><office:text><text:h text:outline-level="9">H</text:h><text:p>a<draw:frame><draw:text-box><text:p>b</text:p></draw:text-box></draw:frame><text:note><text:note-body><text:p>n</text:p></text:note-body></text:note></text:p><table:table-row><table:table-cell><text:p>c</text:p></table:table-cell></table:table-row></office:text></office:body></office:document-content>`}))
	f.Fuzz(func(t *testing.T, data []byte) { checkExtracted(t, FormatODT, data) })
}

// The amplification shapes of issue 29 seed the fuzzers of their formats:
// one string referenced by many cells, cells repeated, a title in many
// pieces, a slide listed many times, many short rows.

func FuzzPPTX(f *testing.F) {
	seedFuzz(f, "deck.pptx")
	f.Add(hostile.PPTXRepeatedSlide(2))
	f.Add(hostile.PPTXRepeatedSlide(100_000))
	f.Fuzz(func(t *testing.T, data []byte) { checkExtracted(t, FormatPPTX, data) })
}

func FuzzEPUB(f *testing.F) {
	seedFuzz(f, "book.epub")
	f.Add(hostile.EPUBTitle(50_000))
	f.Fuzz(func(t *testing.T, data []byte) { checkExtracted(t, FormatEPUB, data) })
}

func FuzzXLSX(f *testing.F) {
	seedFuzz(f, "catalog.xlsx")
	f.Add(hostile.XLSXSharedString())
	f.Add(hostile.XLSXSharedStringOf(10, 3))
	f.Add(xlsxLongFormat())
	f.Add(hostile.XLSXManyElements("styles", 1<<16))
	f.Fuzz(func(t *testing.T, data []byte) { checkExtracted(t, FormatXLSX, data) })
}

func FuzzODS(f *testing.F) {
	seedFuzz(f, "stock.ods")
	f.Add(hostile.ODSRepeated())
	f.Add(zipOf(f, map[string]string{"content.xml": `<table:table table:name="S"><table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="16384"><text:p>x</text:p></table:table-cell></table:table-row></table:table>`}))
	f.Fuzz(func(t *testing.T, data []byte) { checkExtracted(t, FormatODS, data) })
}

func FuzzCSV(f *testing.F) {
	seedFuzz(f, "catalog.csv", "depots.tsv")
	f.Add([]byte("a;b;c\n1;\"2\n3\";4\n\n\n5"))
	f.Add(hostile.CSVShortRows(256 << 10))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkExtracted(t, FormatCSV, data)
		checkExtracted(t, FormatTSV, data)
	})
}

// FuzzFromPages: whatever the pages, the document is clean, every passage
// is located on a page that exists, and no page's words are lost but
// furniture (headers, footers, page numbers) and hyphens.
func FuzzFromPages(f *testing.F) {
	f.Add("Header\nThe ﬁrst page.\n1", "Header\nimprov\x02ing the sec-\nond.\n2", "Header\nthird\n3")
	f.Add("", "\u00ad\n", "- 3 -")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		pages := []string{a, b, c}
		d := FromPages("f.pdf", a, pages)
		if !utf8.ValidString(d.Text) || Clean(d.Text) != d.Text || Clean(d.Title) != d.Title {
			t.Fatalf("text not clean: %q", d.Text)
		}
		for _, p := range Split(&d) {
			if p.Loc.Kind != "page" || !strings.Contains("123", p.Loc.Value) || len(p.Loc.Value) != 1 {
				t.Fatalf("passage located at %+v", p.Loc)
			}
			if !utf8.ValidString(p.Body) || Clean(p.Body) != p.Body {
				t.Fatalf("passage not clean: %q", p.Body)
			}
		}
	})
}
