package extract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// zipOf writes a zip container with the given members, deflated.
func zipOf(t testing.TB, members map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	w.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	for name, body := range members {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// lyingZip writes one member whose header claims size bytes while it
// unpacks to much more: a zip bomb that hides.
func lyingZip(t testing.TB, name string, body []byte, claimed uint64) []byte {
	t.Helper()
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestSpeed)
	fw.Write(body)
	fw.Close()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, err := w.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate,
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: claimed})
	if err != nil {
		t.Fatal(err)
	}
	f.Write(comp.Bytes())
	w.Close()
	return buf.Bytes()
}

func TestBounds(t *testing.T) {
	bomb := strings.Repeat(" ", 3<<20) // 3 MiB of blanks, deflated to a few KB
	docxBomb := `<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>x</w:t></w:r></w:p>` + bomb + `</w:body></w:document>`
	small := Limits{MaxUnzipped: 1 << 20, MaxText: 1 << 10}
	encryptedXLSX := func() []byte {
		f := excelize.NewFile()
		f.SetCellValue("Sheet1", "A1", "secret")
		var buf bytes.Buffer
		if err := f.Write(&buf, excelize.Options{Password: "pw"}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}()
	xlsxBomb := func() []byte {
		f := excelize.NewFile()
		for r := 1; r <= 3000; r++ {
			f.SetSheetRow("Sheet1", "A"+strconv.Itoa(r), &[]any{"some text in a cell", r, "and more text in another cell"})
		}
		var buf bytes.Buffer
		if err := f.Write(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}()
	fixture := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(formatsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tests := []struct {
		name   string
		format Format
		data   []byte
		lim    Limits
		want   error
	}{
		{"zip bomb in a DOCX", FormatDOCX, zipOf(t, map[string]string{"word/document.xml": docxBomb}), small, ErrTooLarge},
		// archive/zip stops reading a member at its declared size.
		{"zip bomb whose header lies", FormatDOCX, lyingZip(t, "word/document.xml", []byte(docxBomb), 100), small, ErrMalformed},
		{"zip bomb in an EPUB chapter", FormatEPUB, zipOf(t, map[string]string{
			"META-INF/container.xml": `<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>`,
			"c.opf":                  `<package><manifest><item id="a" href="a.xhtml"/></manifest><spine><itemref idref="a"/></spine></package>`,
			"a.xhtml":                "<html><body><p>x</p>" + bomb + "</body></html>",
		}), small, ErrTooLarge},
		{"zip bomb in an ODT", FormatODT, zipOf(t, map[string]string{"content.xml": `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="t"><office:body><office:text><text:p>` +
			strings.Repeat("x ", 1<<20) + `</text:p></office:text></office:body></office:document-content>`}), small, ErrTooLarge},
		{"ODT with only deleted text", FormatODT, zipOf(t, map[string]string{"content.xml": `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="t"><office:body><office:text><text:tracked-changes><text:changed-region><text:deletion><text:p>gone</text:p></text:deletion></text:changed-region></text:tracked-changes></office:text></office:body></office:document-content>`}), Limits{}, ErrNoText},
		{"too many members", FormatPPTX, zipOf(t, map[string]string{"a": "", "b": "", "c": ""}), Limits{MaxMembers: 2}, ErrTooLarge},
		{"sheet past the text limit", FormatXLSX, xlsxBomb, Limits{MaxText: 1 << 10}, ErrTooLarge},
		{"sheet past the unzip limit", FormatXLSX, xlsxBomb, Limits{MaxUnzipped: 16 << 10}, ErrTooLarge},
		{"CSV past the text limit", FormatCSV, []byte("a,b\n" + strings.Repeat("xxxx,yyyy\n", 1000)), small, ErrTooLarge},
		{"encrypted XLSX", FormatXLSX, encryptedXLSX, Limits{}, ErrEncrypted},
		{"encrypted DOCX (OLE container)", FormatDOCX, append(append([]byte{}, oleMagic...), make([]byte, 512)...), Limits{}, ErrEncrypted},
		{"encrypted zip member", FormatDOCX, func() []byte {
			data := zipOf(t, map[string]string{"word/document.xml": "<w:document/>"})
			// Set the "encrypted" flag of the member, local header and
			// central directory alike.
			for _, sig := range []string{"PK\x03\x04", "PK\x01\x02"} {
				i := bytes.Index(data, []byte(sig))
				off := 6
				if sig == "PK\x01\x02" {
					off = 8
				}
				data[i+off] |= 1
			}
			return data
		}(), Limits{}, ErrEncrypted},
		{"truncated DOCX", FormatDOCX, fixture("handbook.docx")[:20000], Limits{}, ErrMalformed},
		{"truncated PPTX", FormatPPTX, fixture("deck.pptx")[:10000], Limits{}, ErrMalformed},
		{"truncated EPUB", FormatEPUB, fixture("book.epub")[:3000], Limits{}, ErrMalformed},
		{"truncated XLSX", FormatXLSX, fixture("catalog.xlsx")[:3000], Limits{}, ErrMalformed},
		{"truncated ODS", FormatODS, fixture("stock.ods")[:800], Limits{}, ErrMalformed},
		{"truncated ODT", FormatODT, fixture("guide.odt")[:1000], Limits{}, ErrMalformed},
		{"not a zip", FormatDOCX, []byte("just some text"), Limits{}, ErrMalformed},
		{"DOCX without its document", FormatDOCX, zipOf(t, map[string]string{"x.xml": "<x/>"}), Limits{}, ErrMalformed},
		{"broken XML", FormatDOCX, zipOf(t, map[string]string{"word/document.xml": "<w:document><w:p>"}), Limits{}, ErrMalformed},
		{"CSV with NUL bytes", FormatCSV, []byte("a,b\n1,\x00\n"), Limits{}, ErrMalformed},
		{"header only", FormatCSV, []byte("a,b\n"), Limits{}, ErrNoText},
		{"empty workbook", FormatXLSX, func() []byte {
			var buf bytes.Buffer
			excelize.NewFile().Write(&buf)
			return buf.Bytes()
		}(), Limits{}, ErrNoText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ExtractBytes(context.Background(), "f", tt.data, tt.format, tt.lim)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want.Error()) {
				t.Errorf("message %q does not start with %q, the skip reason's kind", err, tt.want)
			}
		})
	}
}
