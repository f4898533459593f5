package extract

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deepresearch/deepresearch/internal/hostile"
)

// hostileCase is a small file that, read without bounds, built gigabytes
// or took minutes (issue 29).
type hostileCase struct {
	name   string
	format Format
	data   func() []byte
	// want: the error the file must fail with, nil for a document.
	want error
	// msg: what the error must say (where).
	msg string
	// check: what the document must be, when want is nil.
	check func(t *testing.T, d Document)
	// alloc: the most bytes the read may allocate in all, in MiB (the
	// naive readers allocated gigabytes, or squared the input).
	alloc uint64
}

// hostileCases returns the cases, each file made once per test binary.
var hostileCases = sync.OnceValue(func() []hostileCase {
	cases := []hostileCase{
		{name: "XLSX shared string in 16384 cells", format: FormatXLSX, data: hostile.XLSXSharedString,
			want: ErrTooLarge, msg: "xl/worksheets/sheet1.xml, row 2", alloc: 160},
		{name: "XLSX number format in many cells", format: FormatXLSX, data: xlsxLongFormat,
			want: ErrTooLarge, msg: "xl/worksheets/sheet1.xml, row 2", alloc: 160},
		{name: "XLSX of 2M shared strings", format: FormatXLSX, data: func() []byte { return hostile.XLSXManyElements("sharedStrings", 2<<20) },
			want: ErrTooLarge, msg: "xl/sharedStrings.xml: 2097158 XML tags, too many", alloc: 64},
		{name: "XLSX of 2M cell styles", format: FormatXLSX, data: func() []byte { return hostile.XLSXManyElements("styles", 2<<20) },
			want: ErrTooLarge, msg: "xl/styles.xml: 2097156 XML tags, too many", alloc: 64},
		{name: "XLSX listing its sheet 1M times", format: FormatXLSX, data: func() []byte { return hostile.XLSXManyElements("workbook", 1<<20) },
			want: ErrTooLarge, msg: "xl/workbook.xml: 1048580 XML tags, too many", alloc: 64},
		{name: "ODS cells repeated 1024 times", format: FormatODS, data: hostile.ODSRepeated,
			want: ErrTooLarge, msg: "content.xml, sheet S, row 2", alloc: 160},
		{name: "EPUB title in 400k pieces", format: FormatEPUB, data: func() []byte { return hostile.EPUBTitle(400_000) },
			check: func(t *testing.T, d Document) {
				if len(d.Title) > maxTitle || !strings.HasPrefix(d.Title, "TTTT") {
					t.Errorf("title of %d bytes: %.20q…", len(d.Title), d.Title)
				}
			}, alloc: 200},
		{name: "PPTX slide listed a million times", format: FormatPPTX, data: func() []byte { return hostile.PPTXRepeatedSlide(1_000_000) },
			want: ErrMalformed, msg: "ppt/presentation.xml lists more slides than the file's 3 members", alloc: 80},
		{name: "PPTX slide listed twice", format: FormatPPTX, data: func() []byte { return hostile.PPTXRepeatedSlide(2) },
			check: func(t *testing.T, d Document) {
				if n := strings.Count(d.Text, "--- slide "); n != 1 || !strings.Contains(d.Text, "Its only paragraph.") {
					t.Errorf("%d slides, want the one slide once:\n%.300s", n, d.Text)
				}
			}, alloc: 10},
		{name: "CSV of 8 MiB of short rows", format: FormatCSV, data: func() []byte { return hostile.CSVShortRows(8 << 20) },
			want: ErrTooLarge, msg: "row ", alloc: 200},
		{name: "DOCX table cell of 200k paragraphs", format: FormatDOCX, data: docxLongCell,
			check: func(t *testing.T, d Document) {
				if !strings.Contains(d.Text, "x x x") {
					t.Errorf("the cell's text is missing: %.100q", d.Text)
				}
			}, alloc: 400},
	}
	for i := range cases {
		cases[i].data = sync.OnceValue(cases[i].data)
	}
	return cases
})

// xlsxLongFormat is a workbook whose cells are numbers with a number
// format of 16 KiB of literal text: each number displays as 16 KiB.
func xlsxLongFormat() []byte {
	var sheet strings.Builder
	sheet.WriteString(`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row><row r="2">`)
	for range 4096 {
		sheet.WriteString(`<c s="1"><v>1</v></c>`)
	}
	sheet.WriteString(`</row></sheetData></worksheet>`)
	return hostile.Zip(
		"_rels/.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml", `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
		"xl/styles.xml", `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="&quot;`+strings.Repeat("y", 16<<10)+`&quot;0"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs></styleSheet>`,
		"xl/worksheets/sheet1.xml", sheet.String(),
	)
}

// docxLongCell is a DOCX whose one table cell holds 200,000 paragraphs:
// joined one paragraph at a time, the cell is copied 200,000 times.
func docxLongCell() []byte {
	var b strings.Builder
	b.WriteString(`<w:document xmlns:w="w"><w:body><w:tbl><w:tr><w:tc>`)
	for range 200_000 {
		b.WriteString(`<w:p><w:r><w:t>x</w:t></w:r></w:p>`)
	}
	b.WriteString(`</w:tc></w:tr></w:tbl></w:body></w:document>`)
	return hostile.Zip("word/document.xml", b.String())
}

// TestHostileDocuments reads each hostile file: it fails with the reason
// and the place, or gives its document, having allocated a bounded amount
// in all (counted by the runtime, not timed).
func TestHostileDocuments(t *testing.T) {
	for _, tt := range hostileCases() {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			d, err := ExtractBytes(t.Context(), "hostile", data, tt.format, Limits{})
			runtime.ReadMemStats(&after)
			alloc := (after.TotalAlloc - before.TotalAlloc) >> 20
			t.Logf("%d KB file: %d MiB allocated in all; %v", len(data)>>10, alloc, err)
			switch {
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("error %v, want %v", err, tt.want)
			case tt.want != nil && !strings.Contains(err.Error(), tt.msg):
				t.Errorf("error %q does not say %q", err, tt.msg)
			case tt.want == nil && err != nil:
				t.Fatal(err)
			case tt.want == nil:
				tt.check(t, d)
			}
			if alloc > tt.alloc {
				t.Errorf("%d MiB allocated, more than %d", alloc, tt.alloc)
			}
		})
	}
}

// doneAfter is a context that is done from its n-th call of Err on, with
// the cause errTimeUp: a clock that runs out while a reader works, without
// waiting on a real one.
type doneAfter struct {
	context.Context
	n    atomic.Int64
	done chan struct{}
	once sync.Once
}

var errTimeUp = errors.New("the file's time is up")

func newDoneAfter(n int64) *doneAfter {
	c := &doneAfter{Context: context.Background(), done: make(chan struct{})}
	c.n.Store(n)
	return c
}

func (c *doneAfter) Err() error {
	if c.n.Add(-1) > 0 {
		return nil
	}
	c.once.Do(func() { close(c.done) })
	return context.DeadlineExceeded
}

func (c *doneAfter) Done() <-chan struct{} { return c.done }

// TestExtractStops: a reader whose context ends while it works stops
// there, with an error that wraps the context's error and says where;
// one whose context has ended reads nothing.
func TestExtractStops(t *testing.T) {
	big := func() []byte { return hostile.CSVShortRows(1 << 20) }
	tests := []struct {
		name   string
		format Format
		data   []byte
		where  string
	}{
		{"CSV", FormatCSV, big(), "stopped reading row "},
		{"ODS", FormatODS, hostile.Zip("content.xml", `<table:table table:name="S">`+strings.Repeat(`<table:table-row><table:table-cell><text:p>x</text:p></table:table-cell></table:table-row>`, 5000)+`</table:table>`), "stopped reading content.xml"},
		{"XLSX", FormatXLSX, hostile.XLSXSharedStringOf(10, 5000), "stopped reading [Content_Types].xml"},
		{"EPUB", FormatEPUB, hostile.EPUBTitle(5000), "stopped reading p.opf"},
		{"PPTX", FormatPPTX, hostile.PPTXRepeatedSlide(2), "stopped reading ppt/"},
		{"DOCX", FormatDOCX, docxLongCell(), "stopped reading word/document.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Done after a few looks: in the middle of the work.
			_, err := ExtractBytes(newDoneAfter(3), "f", tt.data, tt.format, Limits{})
			if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), tt.where) {
				t.Errorf("error %v, want %q… wrapping the context's error", err, tt.where)
			}
			ctx, cancel := context.WithCancelCause(t.Context())
			cancel(errTimeUp)
			if _, err := ExtractBytes(ctx, "f", tt.data, tt.format, Limits{}); err != errTimeUp {
				t.Errorf("with a done context: %v, want its cause", err)
			}
		})
	}
}
