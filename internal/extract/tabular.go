package extract

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/deepresearch/deepresearch/internal/source"
)

// table turns rows into a document: the first non-empty row names the
// columns, every later non-empty row is a block of its own, "name: Foo;
// price: 3", in the unit of its row. Rows are numbered as a spreadsheet
// numbers them, from 1, empty rows included.
type table struct {
	b      *builder
	text   strings.Builder
	budget textBudget
	part   string // the sheet, in a workbook
	header []string
	rows   int // data rows added, all sheets
}

// sheet starts a new sheet (a part of a workbook): its first non-empty
// row will be its header.
func (t *table) sheet(name string) {
	t.part, t.header = collapseSpace(Clean(name)), nil
	if t.part != "" {
		t.text.WriteString("--- sheet " + t.part + " ---\n")
	}
}

// row adds row n (1-based) with the given cells.
func (t *table) row(n int, cells []string) error {
	for i, c := range cells {
		cells[i] = collapseSpace(Clean(c))
	}
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	if len(cells) == 0 {
		return nil
	}
	if t.header == nil {
		t.header = append([]string(nil), cells...)
		for i, h := range t.header {
			if h == "" {
				t.header[i] = "column " + strconv.Itoa(i+1)
			}
		}
		return nil
	}
	var b strings.Builder
	for i, c := range cells {
		if c == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		name := "column " + strconv.Itoa(i+1)
		if i < len(t.header) {
			name = t.header[i]
		}
		b.WriteString(name + ": " + c)
	}
	line := b.String()
	if err := t.budget.spend(line); err != nil {
		return err
	}
	t.b.unit = source.Location{Kind: source.LocRow, Value: strconv.Itoa(n), Part: t.part}
	t.b.block(line, false, 0, 0)
	t.text.WriteString(t.b.unit.String() + ": " + line + "\n")
	t.rows++
	return nil
}

func (t *table) finish(fallback string) Document {
	d := t.b.finish(fallback)
	d.Text = strings.TrimSpace(t.text.String())
	return d
}

func newTable(lim Limits) *table {
	return &table{b: &builder{}, budget: textBudget{left: lim.MaxText}}
}

// extractCSV reads comma- (or, for TSV, tab-) separated values. A CSV
// file whose first line has more semicolons than commas is read as
// semicolon-separated, as spreadsheets write it in many locales.
func extractCSV(data []byte, tsv bool, fallback string, lim Limits) (Document, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(data, 0) >= 0 {
		return Document{}, fmt.Errorf("%w: contains NUL bytes, not text", ErrMalformed)
	}
	r := csv.NewReader(strings.NewReader(validText(data)))
	r.FieldsPerRecord, r.LazyQuotes, r.ReuseRecord = -1, true, true
	switch first, _, _ := bytes.Cut(data, []byte("\n")); {
	case tsv:
		r.Comma = '\t'
	case bytes.Count(first, []byte(";")) > bytes.Count(first, []byte(",")):
		r.Comma = ';'
	}
	t := newTable(lim)
	// Rows are numbered as a spreadsheet opening the file numbers them: a
	// record is one row, however many lines it spans, and each blank line
	// that encoding/csv skips is an empty row.
	row, lastLine := 0, 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Document{}, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		line, _ := r.FieldPos(0)
		row += max(1, line-lastLine)
		endLine, _ := r.FieldPos(len(rec) - 1)
		lastLine = endLine + strings.Count(rec[len(rec)-1], "\n")
		if err := t.row(row, rec); err != nil {
			return Document{}, err
		}
	}
	return t.finish(fallback), nil
}

// extractXLSX reads every sheet of a workbook with excelize, cells as
// they are displayed (number formats applied).
func extractXLSX(data []byte, fallback string, lim Limits) (d Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = Document{}, fmt.Errorf("%w: the workbook could not be read: %v", ErrMalformed, r)
		}
	}()
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit:    lim.MaxUnzipped,
		UnzipXMLSizeLimit: lim.MaxUnzipped, // never spill to temporary files
	})
	if err != nil {
		return Document{}, xlsxError(err)
	}
	defer f.Close()
	t := newTable(lim)
	t.b.metaTitle = xlsxTitle(f)
	for _, name := range f.GetSheetList() {
		rows, err := f.Rows(name)
		if err != nil {
			return Document{}, xlsxError(err)
		}
		t.sheet(name)
		for n := 1; rows.Next(); n++ {
			cells, err := rows.Columns()
			if err != nil {
				rows.Close()
				return Document{}, xlsxError(err)
			}
			if err := t.row(n, cells); err != nil {
				rows.Close()
				return Document{}, err
			}
		}
		err = rows.Error()
		rows.Close()
		if err != nil {
			return Document{}, xlsxError(err)
		}
	}
	return t.finish(fallback), nil
}

func xlsxTitle(f *excelize.File) string {
	if p, err := f.GetDocProps(); err == nil && p != nil {
		return collapseSpace(Clean(p.Title))
	}
	return ""
}

func xlsxError(err error) error {
	switch {
	case errors.Is(err, excelize.ErrWorkbookFileFormat):
		return fmt.Errorf("%w: not a workbook: %w", ErrMalformed, err)
	case strings.Contains(err.Error(), "size exceeds"): // excelize has no sentinel for it
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

// ODS: OpenDocument spreadsheets keep their sheets in content.xml.
const (
	odsMaxRepeat = 1024 // most copies of a repeated non-empty cell or row
)

func extractODS(z *zipReader, fallback string, lim Limits) (Document, error) {
	data, err := z.read("content.xml")
	if err != nil {
		return Document{}, err
	}
	t := newTable(lim)
	t.b.metaTitle = odfTitle(z)
	dec := xml.NewDecoder(bytes.NewReader(data))
	var (
		row      []string
		rowN     int  // rows so far in this sheet
		rowRep   int  // repetitions of the current row
		cellRep  int  // repetitions of the current cell
		inCell   bool // inside a table-cell
		paras    int  // text:p elements in the cell
		cell     strings.Builder
		depthTxt int
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Document{}, fmt.Errorf("%w: content.xml: %w", ErrMalformed, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "table":
				t.sheet(attr(e, "name"))
				rowN = 0
			case "table-row":
				row, rowRep = row[:0], repeat(attr(e, "number-rows-repeated"))
			case "table-cell", "covered-table-cell":
				inCell, paras, cellRep = true, 0, repeat(attr(e, "number-columns-repeated"))
				cell.Reset()
			case "p", "h":
				if inCell {
					if paras > 0 {
						cell.WriteByte(' ')
					}
					paras++
					depthTxt++
				}
			case "s":
				cell.WriteByte(' ')
			case "tab", "line-break":
				cell.WriteByte(' ')
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "table-cell", "covered-table-cell":
				inCell = false
				v := cell.String()
				if strings.TrimSpace(v) == "" {
					// Empty cells only move the next one along; a row
					// that ends in empty cells loses them in row().
					cellRep = min(cellRep, 1<<14)
				} else {
					cellRep = min(cellRep, odsMaxRepeat)
				}
				for range cellRep {
					row = append(row, v)
				}
				if len(row) > 1<<16 {
					return Document{}, fmt.Errorf("%w: a row of more than %d cells", ErrTooLarge, 1<<16)
				}
			case "table-row":
				empty := true
				for _, c := range row {
					if strings.TrimSpace(c) != "" {
						empty = false
						break
					}
				}
				if empty {
					rowN += rowRep
					continue
				}
				for range min(rowRep, odsMaxRepeat) {
					rowN++
					if err := t.row(rowN, append([]string(nil), row...)); err != nil {
						return Document{}, err
					}
				}
			case "p", "h":
				if depthTxt > 0 {
					depthTxt--
				}
			}
		case xml.CharData:
			if inCell {
				cell.Write(e)
			}
		}
	}
	return t.finish(fallback), nil
}

// repeat reads a number-*-repeated attribute: at least 1.
func repeat(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// attr returns the value of e's attribute with the local name local.
func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// odfTitle reads the title of an OpenDocument file's meta.xml.
func odfTitle(z *zipReader) string {
	if !z.has("meta.xml") {
		return ""
	}
	data, err := z.read("meta.xml")
	if err != nil {
		return ""
	}
	return firstText(data, "title")
}

// firstText returns the text of the first element with the local name
// local in an XML document, or "".
func firstText(data []byte, local string) string {
	dec := xml.NewDecoder(bytes.NewReader(data))
	in := false
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch e := tok.(type) {
		case xml.StartElement:
			in = in || e.Name.Local == local
		case xml.EndElement:
			if in && e.Name.Local == local {
				return collapseSpace(Clean(b.String()))
			}
		case xml.CharData:
			if in {
				b.Write(e)
			}
		}
	}
}
