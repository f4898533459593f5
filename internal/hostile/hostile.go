// Package hostile makes the hostile documents of the readers' tests and
// fuzz seeds: small files (kilobytes) that a reader without bounds turns
// into gigabytes or minutes. They are generated, not stored, so no test
// needs a large fixture. Each function returns the file's bytes; the doc
// comment says what the file claims and what a naive reader did with it
// (issue 29).
//
// The package is for tests; nothing in the program imports it.
package hostile

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
)

// Zip writes a zip container of the members, deflated at the best
// compression, in the order given (name, body, name, body, …).
func Zip(members ...string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	w.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for i := 0; i+1 < len(members); i += 2 {
		f, err := w.Create(members[i])
		if err != nil {
			panic(err) // only a bad name fails, and the names are ours
		}
		io.WriteString(f, members[i+1])
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// XLSXSharedString is a workbook (about 45 KB) whose one shared string of
// 64 KiB is referenced by all 16,384 cells of its second row: 1 GiB of
// cell text. Building the row before counting it peaked at 5.2 GB.
func XLSXSharedString() []byte {
	return XLSXSharedStringOf(64<<10, 1<<14)
}

// XLSXSharedStringOf is XLSXSharedString with a shared string of size
// bytes referenced by cells cells.
func XLSXSharedStringOf(size, cells int) []byte {
	var sheet strings.Builder
	sheet.WriteString(`<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`)
	sheet.WriteString(`<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c></row><row r="2">`)
	for range cells {
		sheet.WriteString(`<c t="s"><v>0</v></c>`)
	}
	sheet.WriteString(`</row></sheetData></worksheet>`)
	return Zip(
		"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`+
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>`+
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>`+
			`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`+
			`<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
		"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">`+
			`<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>`+
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml", sheet.String(),
		"xl/sharedStrings.xml", `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>`+
			strings.Repeat("word ", size/5)+`</t></si></sst>`,
	)
}

// XLSX writes a workbook of one sheet from its parts (XML documents).
func XLSX(workbook, sheet, sharedStrings, styles string) []byte {
	const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
	return Zip(
		"_rels/.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="`+rel+`officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml", workbook,
		"xl/_rels/workbook.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="`+rel+`worksheet" Target="worksheets/sheet1.xml"/>`+
			`<Relationship Id="rId2" Type="`+rel+`styles" Target="styles.xml"/><Relationship Id="rId3" Type="`+rel+`sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
		"xl/styles.xml", styles,
		"xl/sharedStrings.xml", sharedStrings,
		"xl/worksheets/sheet1.xml", sheet,
	)
}

// XLSXManyElements is a workbook (a few KB) one of whose parts that
// excelize keeps whole holds n empty elements: part "sharedStrings"
// (<si/>), "styles" (<xf/>) or "workbook" (<sheet/>, the one sheet listed
// n times). With 12 million, excelize took 3 GB for the shared strings
// and 4.5 GB for the styles.
func XLSXManyElements(part string, n int) []byte {
	const ns = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
	workbook := `<workbook ` + ns + ` xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`
	sheet := `<worksheet ` + ns + `><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" s="1" t="s"><v>0</v></c></row></sheetData></worksheet>`
	sst := `<sst ` + ns + `><si><t>a</t></si></sst>`
	styles := `<styleSheet ` + ns + `><cellXfs><xf numFmtId="0"/><xf numFmtId="0"/></cellXfs></styleSheet>`
	switch part {
	case "sharedStrings":
		sst = `<sst ` + ns + `><si><t>a</t></si>` + strings.Repeat("<si/>", n) + `</sst>`
	case "styles":
		styles = `<styleSheet ` + ns + `><cellXfs>` + strings.Repeat("<xf/>", n) + `</cellXfs></styleSheet>`
	case "workbook":
		workbook = `<workbook ` + ns + ` xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>` +
			strings.Repeat(`<sheet name="S" sheetId="1" r:id="rId1"/>`, n) + `</sheets></workbook>`
	default:
		panic("hostile: no XLSX part " + part)
	}
	return XLSX(workbook, sheet, sst, styles)
}

// ODSRepeated is a spreadsheet (about 3 KB) of four 256 KiB cells, each
// number-columns-repeated 1,024 times: a row of 1 GiB. Capping the count
// of copies but not their size peaked at 5.5 GB.
func ODSRepeated() []byte {
	var c strings.Builder
	c.WriteString(`<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="S">`)
	c.WriteString(`<table:table-row><table:table-cell><text:p>name</text:p></table:table-cell></table:table-row><table:table-row>`)
	for i := range 4 {
		fmt.Fprintf(&c, `<table:table-cell table:number-columns-repeated="1024"><text:p>%s</text:p></table:table-cell>`, strings.Repeat(string(rune('a'+i)), 256<<10))
	}
	c.WriteString(`</table:table-row></table:table></office:spreadsheet></office:body></office:document-content>`)
	return Zip("mimetype", "application/vnd.oasis.opendocument.spreadsheet", "content.xml", c.String())
}

// EPUBTitle is an EPUB (about 6 KB) whose title is split by comments into
// pieces pieces (400,000 in the issue): joined one piece at a time, it
// took 49 s.
func EPUBTitle(pieces int) []byte {
	var opf strings.Builder
	opf.WriteString(`<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>`)
	for range pieces {
		opf.WriteString("T<!---->")
	}
	opf.WriteString(`</dc:title></metadata><manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>`)
	return Zip(
		"mimetype", "application/epub+zip",
		"META-INF/container.xml", `<?xml version="1.0"?><container><rootfiles><rootfile full-path="p.opf"/></rootfiles></container>`,
		"p.opf", opf.String(),
		"c.xhtml", `<html><body><h1>Chapter</h1><p>Some text of the chapter.</p></body></html>`,
	)
}

// PPTXRepeatedSlide is a presentation (about 76 KB) that lists its one
// slide times times (a million in the issue): read once per listing, it
// took 10 s and 390 MB.
func PPTXRepeatedSlide(times int) []byte {
	var p strings.Builder
	p.WriteString(`<?xml version="1.0"?><p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst>`)
	p.WriteString(strings.Repeat(`<p:sldId id="256" r:id="rId1"/>`, times))
	p.WriteString(`</p:sldIdLst></p:presentation>`)
	return Zip(
		"ppt/presentation.xml", p.String(),
		"ppt/_rels/presentation.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>`,
		"ppt/slides/slide1.xml", `<?xml version="1.0"?><p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree>`+
			`<p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>The one slide</a:t></a:r></a:p></p:txBody></p:sp>`+
			`<p:sp><p:txBody><a:p><a:r><a:t>Its only paragraph.</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
	)
}

// CSVShortRows is a CSV file of size bytes of two-column rows of a few
// bytes each (8 MiB in the issue: 1.28 GB and 7 s before it was skipped
// as too large).
func CSVShortRows(size int) []byte {
	var b bytes.Buffer
	b.WriteString("a,b\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%d,x\n", i%10)
	}
	return b.Bytes()
}

// PDF writes a PDF of the objects (object i+1 is objs[i], a dictionary,
// or a dictionary and its stream's raw bytes separated by "\nstream\n"),
// with a correct cross-reference table; object 1 is the catalog.
func PDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s", i+1, o)
		if strings.Contains(o, "\nstream\n") {
			b.WriteString("\nendstream")
		}
		b.WriteString("\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// pdfPage is a page object (object 3) under the page tree 2 whose
// contents are object 4.
const pdfPage = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"

const pdfFont = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

// pdfText is a content stream that shows text.
func pdfText(s string) string {
	c := "BT /F1 12 Tf 72 720 Td (" + s + ") Tj ET"
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s", len(c), c)
}

// PDFText is a one-page PDF that shows s.
func PDFText(s string) []byte {
	return PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", pdfPage, pdfText(s), pdfFont)
}

// PDFBomb is a PDF (about 3 MB for 3 GiB) whose one page's content
// stream inflates to size bytes of zeros (3 GiB in the issue: it peaked
// at 1.5 GB and was skipped as a scan). The stream is made without
// compressing size bytes: one deflate block of 1 MiB of zeros, flushed to
// a byte boundary, repeated.
func PDFBomb(size int) []byte {
	const mib = 1 << 20
	var blk bytes.Buffer
	fw, _ := flate.NewWriter(&blk, flate.BestCompression)
	fw.Write(make([]byte, mib))
	fw.Flush()
	block := blk.Bytes()
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda}) // zlib header
	n := size / mib
	for range n {
		z.Write(block)
	}
	z.Write([]byte{0x03, 0x00}) // a final, empty, fixed-Huffman block
	// Adler-32 of n MiB of zeros: a = 1, b = the length, modulo 65521.
	b := uint32(n*mib) % 65521
	z.Write([]byte{byte(b >> 8), byte(b), 0, 1})
	stream := fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s", z.Len(), z.Bytes())
	return PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", pdfPage, stream, pdfFont)
}

// PDFPageCount is a PDF whose page tree claims count pages (10⁹ in the
// issue: skipped as a scan) in two page-tree nodes that claim a million
// each and hold none.
func PDFPageCount(count int) []byte {
	return PDF("<< /Type /Catalog /Pages 2 0 R >>", fmt.Sprintf("<< /Type /Pages /Kids [3 0 R 3 0 R] /Count %d >>", count),
		"<< /Type /Pages /Parent 2 0 R /Count 1000000 >>")
}

// PDFCyclicPages is a PDF whose page tree contains itself (skipped as a
// scan in the issue).
func PDFCyclicPages() []byte {
	return PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [6 0 R 3 0 R] /Count 2 >>", pdfPage, pdfText("A page in a loop."), pdfFont,
		"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>")
}

// Gzip compresses data as one gzip member.
func Gzip(data []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

// GzipBomb is size zero bytes gzipped at the best compression, in
// members of at most 64 MiB: about a thousandth of size (256 KiB for 256
// MiB). A reader that unpacks it whole holds size bytes.
func GzipBomb(size int64) []byte {
	var buf bytes.Buffer
	zeros := make([]byte, 1<<20)
	for size > 0 {
		n := min(size, 64<<20)
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		for left := n; left > 0; left -= int64(len(zeros)) {
			w.Write(zeros[:min(left, int64(len(zeros)))])
		}
		w.Close()
		size -= n
	}
	return buf.Bytes()
}
