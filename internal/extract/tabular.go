package extract

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/deepresearch/deepresearch/source"
)

// table turns rows into a document: the first non-empty row names the
// columns, every later non-empty row is a block of its own, "name: Foo;
// price: 3", in the unit of its row. Rows are numbered as a spreadsheet
// numbers them, from 1, empty rows included.
type table struct {
	b      *builder
	text   strings.Builder
	bud    *budget
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

// where names row n for an error: "row 7" or "sheet Prices, row 7".
func (t *table) where(n int) string {
	if t.part == "" {
		return "row " + strconv.Itoa(n)
	}
	return "sheet " + t.part + ", row " + strconv.Itoa(n)
}

// row adds row n (1-based) with the given cells, which it may change.
// Each cell is cleaned and paid for from the budget before the next is
// looked at, and the row's text is paid for before it is built: a row
// of 16,384 references to one 64 KiB string fails after a few hundred
// cells, having built none of its text.
func (t *table) row(n int, cells []string) error {
	if err := t.bud.step(t.where(n)); err != nil {
		return err
	}
	size := unitCost
	for i, c := range cells {
		c = collapseSpace(Clean(c))
		cells[i] = c
		if size += len(c) + 1; size > t.bud.left {
			return t.bud.over(t.where(n))
		}
	}
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	if len(cells) == 0 {
		return nil
	}
	if t.header == nil {
		// The header is kept, and its names are repeated in every row.
		if !t.bud.spend(size) {
			return t.bud.over(t.where(n))
		}
		t.header = append([]string(nil), cells...)
		for i, h := range t.header {
			if h == "" {
				t.header[i] = "column " + strconv.Itoa(i+1)
			}
		}
		return nil
	}
	unit := source.Location{Kind: source.LocRow, Value: strconv.Itoa(n), Part: t.part}
	prefix := unit.String() + ": "
	// What the row costs: its "name: value" pairs, in the text and as a
	// block, besides its unit, and a byte a cell, empty ones included
	// (they cost the reading).
	size = unitCost + len(prefix) + len(cells)
	for i, c := range cells {
		if c == "" {
			continue
		}
		size += len(t.name(i)) + len(c) + 4
	}
	if !t.bud.spend(size) {
		return t.bud.over(t.where(n))
	}
	var b strings.Builder
	b.Grow(size)
	for i, c := range cells {
		if c == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(t.name(i))
		b.WriteString(": ")
		b.WriteString(c)
	}
	line := b.String()
	t.b.unit = unit
	t.b.block(line, false, 0, 0)
	t.text.WriteString(prefix)
	t.text.WriteString(line)
	t.text.WriteByte('\n')
	t.rows++
	return nil
}

// name is the name of column i: the header's, else "column i+1".
func (t *table) name(i int) string {
	if i < len(t.header) {
		return t.header[i]
	}
	return "column " + strconv.Itoa(i+1)
}

func (t *table) finish(fallback string) Document {
	d := t.b.finish(fallback)
	d.Text = strings.TrimSpace(t.text.String())
	return d
}

func newTable(bud *budget) *table {
	return &table{b: &builder{}, bud: bud}
}

// extractCSV reads comma- (or, for TSV, tab-) separated values. A CSV
// file whose first line has more semicolons than commas is read as
// semicolon-separated, as spreadsheets write it in many locales.
func extractCSV(data []byte, tsv bool, fallback string, bud *budget) (Document, error) {
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
	t := newTable(bud)
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
// they are displayed (number formats applied). excelize builds a row's
// values before the table sees them, so xlsxSize first adds up what the
// cells of every sheet reference, without building it, and a workbook
// that would pass the budget is refused before excelize reads it.
func extractXLSX(z *zipReader, data []byte, fallback string, lim Limits) (d Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = Document{}, fmt.Errorf("%w: the workbook could not be read: %v", ErrMalformed, r)
		}
	}()
	if err := xlsxSize(z); err != nil {
		return Document{}, err
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit:    lim.MaxUnzipped,
		UnzipXMLSizeLimit: lim.MaxUnzipped, // never spill to temporary files
	})
	if err != nil {
		return Document{}, xlsxError(err)
	}
	defer f.Close()
	t := newTable(z.bud)
	t.b.metaTitle = xlsxTitle(f)
	read := map[string]bool{} // a sheet listed again is read once
	for _, name := range f.GetSheetList() {
		if read[name] {
			continue
		}
		read[name] = true
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

// xlsxSize adds up the text the cells of every worksheet of a workbook
// display, as excelize would build it (a shared string as often as cells
// refer to it, a number with its number format), without building it,
// and fails with ErrTooLarge, naming the sheet and row, once the sum
// passes the budget. It spends nothing: the table pays for what it keeps.
//
// excelize also keeps whole parts of the workbook as structs (the shared
// strings, the styles, the workbook's list of sheets): each XML element
// of those parts costs elementCost, so a part of twelve million empty
// <si/> or <xf/> elements (3 and 4.5 GB in excelize) fails here too.
func xlsxSize(z *zipReader) error {
	c := &xlsxCheck{z: z, left: z.bud.left}
	workbook := relations(z, "_rels/.rels", "").of("/officeDocument", "xl/workbook.xml")
	wbRels := path.Join(path.Dir(workbook), "_rels", path.Base(workbook)+".rels")
	for _, m := range []string{"[Content_Types].xml", "_rels/.rels", "docProps/core.xml", workbook, wbRels} {
		if err := c.walk(m, nil); err != nil {
			return err
		}
	}
	rels := relations(z, wbRels, path.Dir(workbook))
	strs, err := xlsxStringSizes(c, rels.of("/sharedStrings", "xl/sharedStrings.xml"))
	if err != nil {
		return err
	}
	formats, err := xlsxFormatSizes(c, rels.of("/styles", "xl/styles.xml"))
	if err != nil {
		return err
	}
	// Each worksheet once, however often the relationships name it.
	set := map[string]bool{}
	for _, n := range rels.all("/worksheet") {
		set[n] = true
	}
	for _, n := range z.names() {
		if strings.HasPrefix(n, "xl/worksheets/") && strings.HasSuffix(n, ".xml") {
			set[n] = true
		}
	}
	sheets := slices.Sorted(maps.Keys(set))
	left := c.left
	for _, member := range sheets {
		if !z.has(member) {
			continue
		}
		data, err := z.read(member)
		if err != nil {
			return err
		}
		var (
			row           = "1"
			typ, style    string
			inV, inInline bool
			v             strings.Builder
		)
		err = xmlWalk(z.bud, data, member, func(tok xml.Token) error {
			switch e := tok.(type) {
			case xml.StartElement:
				switch e.Name.Local {
				case "row":
					if r := attr(e, "r"); r != "" {
						row = r
					}
				case "c":
					typ, style = attr(e, "t"), attr(e, "s")
					v.Reset()
				case "v":
					inV = true
				case "t":
					inInline = typ == "inlineStr"
				}
			case xml.EndElement:
				switch e.Name.Local {
				case "v":
					inV = false
				case "t":
					inInline = false
				case "c":
					n := v.Len() + 1
					switch typ {
					case "s":
						if i, err := strconv.Atoi(strings.TrimSpace(v.String())); err == nil && i >= 0 && i < len(strs) {
							n = strs[i] + 1
						}
					case "", "n", "d":
						if i, err := strconv.Atoi(style); err == nil && i >= 0 && i < len(formats) {
							n += formats[i]
						}
					}
					if left -= n; left < 0 {
						return fmt.Errorf("%w: %s, row %s: the cells display more than %d bytes of text", ErrTooLarge, member, row, z.bud.limit)
					}
				}
			case xml.CharData:
				// A value is short; past the budget it fails anyway.
				if (inV || inInline) && v.Len() <= z.bud.limit {
					v.Write(e)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// elementCost is what each tag ("<") of a part that excelize keeps whole
// costs the budget: an empty element (<xf/>) costs it once, one with
// content twice. excelize spends 250 to 400 bytes on an element, so the
// structs it keeps stay within about 200 MB however the budget is spent.
const elementCost = unitCost / 2

// xlsxCheck is the state of xlsxSize: the budget left, spent on the
// elements of the parts excelize keeps.
type xlsxCheck struct {
	z    *zipReader
	left int
}

// walk reads the member, if there is one, pays elementCost for each of
// its tags, counted in the bytes before anything is parsed, and then, if
// fn is not nil, gives fn each token.
func (c *xlsxCheck) walk(member string, fn func(xml.Token)) error {
	if !c.z.has(member) {
		return nil
	}
	data, err := c.z.read(member)
	if err != nil {
		return err
	}
	tags := bytes.Count(data, []byte("<"))
	if c.left -= tags * elementCost; c.left < 0 {
		return fmt.Errorf("%w: %s: %d XML tags, too many for the spreadsheet reader (more than %d bytes of text, each tag counted as %d)", ErrTooLarge, member, tags, c.z.bud.limit, elementCost)
	}
	if fn == nil {
		return nil
	}
	return xmlWalk(c.z.bud, data, member, func(tok xml.Token) error {
		fn(tok)
		return nil
	})
}

// xlsxStringSizes returns the length of each shared string of a
// workbook, in bytes, from its member (absent: none).
func xlsxStringSizes(c *xlsxCheck, member string) ([]int, error) {
	var sizes []int
	inT := false
	err := c.walk(member, func(tok xml.Token) {
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "si":
				sizes = append(sizes, 0)
			case "t":
				inT = len(sizes) > 0
			}
		case xml.EndElement:
			if e.Name.Local == "t" {
				inT = false
			}
		case xml.CharData:
			if inT {
				sizes[len(sizes)-1] += len(e)
			}
		}
	})
	return sizes, err
}

// xlsxFormatSizes returns, for each cell style of a workbook (the s of a
// cell), how many bytes its number format may add to a number: four
// times the length of a custom format's code ("dddd" displays
// "Wednesday"), 16 for a built-in one.
func xlsxFormatSizes(c *xlsxCheck, member string) ([]int, error) {
	custom := map[string]int{}
	var ids []string // numFmtId of each cell style
	inXfs := false
	err := c.walk(member, func(tok xml.Token) {
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "numFmt":
				custom[attr(e, "numFmtId")] = 4 * len(attr(e, "formatCode"))
			case "cellXfs":
				inXfs = true
			case "xf":
				if inXfs {
					ids = append(ids, attr(e, "numFmtId"))
				}
			}
		case xml.EndElement:
			if e.Name.Local == "cellXfs" {
				inXfs = false
			}
		}
	})
	sizes := make([]int, len(ids))
	for i, id := range ids {
		n, ok := custom[id]
		if !ok {
			n = 16
		}
		sizes[i] = n
	}
	return sizes, err
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

func extractODS(z *zipReader, fallback string) (Document, error) {
	data, err := z.read("content.xml")
	if err != nil {
		return Document{}, err
	}
	t := newTable(z.bud)
	t.b.metaTitle = odfTitle(z)
	dec := xml.NewDecoder(bytes.NewReader(data))
	var (
		row     []string
		blanks  int  // empty cells after the last of row, not yet added
		rowN    int  // rows so far in this sheet
		rowRep  int  // repetitions of the current row
		cellRep int  // repetitions of the current cell
		inCell  bool // inside a table-cell
		paras   int  // text:p elements in the cell
		cell    strings.Builder
		rowText int // bytes in the cells of row, copies counted
	)
	where := func() string { return "content.xml, " + t.where(rowN+1) }
	for {
		if err := t.bud.step("content.xml"); err != nil {
			return Document{}, err
		}
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
				row, blanks, rowText = row[:0], 0, 0
				rowRep = repeat(attr(e, "number-rows-repeated"))
			case "table-cell", "covered-table-cell":
				inCell, paras, cellRep = true, 0, repeat(attr(e, "number-columns-repeated"))
				cell.Reset()
			case "p", "h":
				if inCell {
					if paras > 0 {
						cell.WriteByte(' ')
					}
					paras++
				}
			case "s", "tab", "line-break":
				if inCell {
					cell.WriteByte(' ')
				}
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "table-cell", "covered-table-cell":
				inCell = false
				v := cell.String()
				if strings.TrimSpace(v) == "" {
					// Empty cells only move the next one along; a row
					// that ends in empty cells does not keep them.
					blanks += min(cellRep, 1<<14)
				} else {
					// The copies share v, but the row's text holds
					// each: pay for them before making them.
					cellRep = min(cellRep, odsMaxRepeat)
					if rowText += cellRep * (len(v) + 1); rowText > t.bud.left {
						return Document{}, t.bud.over(where())
					}
					for ; blanks > 0 && len(row) <= 1<<16; blanks-- {
						row = append(row, "")
					}
					for range cellRep {
						row = append(row, v)
					}
				}
				if len(row)+blanks > 1<<16 {
					return Document{}, fmt.Errorf("%w: %s: a row of more than %d cells", ErrTooLarge, where(), 1<<16)
				}
			case "table-row":
				if len(row) == 0 {
					rowN += rowRep
					continue
				}
				for range min(rowRep, odsMaxRepeat) {
					rowN++
					if err := t.row(rowN, append([]string(nil), row...)); err != nil {
						return Document{}, err
					}
				}
			}
		case xml.CharData:
			if inCell {
				if cell.Len()+len(e) > t.bud.left {
					return Document{}, t.bud.over(where())
				}
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
// local in an XML document, or "", cut to maxTitle bytes.
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
			if in && b.Len() < maxTitle {
				b.Write(e[:min(len(e), maxTitle-b.Len())])
			}
		}
	}
}
