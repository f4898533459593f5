package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"unicode/utf8"
)

// Sentinels the errors of ExtractBytes wrap; test with errors.Is. Their
// messages, with the detail the error adds, are skip reasons for people.
var (
	// ErrEncrypted: the file is password-protected.
	ErrEncrypted = errors.New("encrypted")
	// ErrMalformed: the file is not what its extension says, or is
	// truncated or corrupt.
	ErrMalformed = errors.New("malformed")
	// ErrTooLarge: reading the file would pass a Limits bound (a zip bomb,
	// a sheet of a million rows).
	ErrTooLarge = errors.New("too large")
	// ErrNoText: the file has no text to index.
	ErrNoText = errors.New("no text")
)

// Limits bound the work of reading one file. The zero value means the
// defaults.
type Limits struct {
	// MaxUnzipped caps the bytes decompressed from a zip container
	// (DOCX, ODT, PPTX, XLSX, ODS, EPUB), all members together. Default 64 MiB.
	MaxUnzipped int64
	// MaxText caps what a reader produces, in bytes: the text, each
	// block, heading, header row or slide counted besides as 64 bytes
	// (the bookkeeping that keeps it). It is spent as each cell, row,
	// paragraph, title or slide is built, before it is kept, so neither
	// a string referenced by thousands of cells nor a million tiny rows
	// builds more than about this much. Default 16 MiB.
	MaxText int
	// MaxMembers caps the zip members read. Default 10000.
	MaxMembers int
}

// Defaults of Limits.
const (
	DefaultMaxUnzipped = 64 << 20
	DefaultMaxText     = 16 << 20
	DefaultMaxMembers  = 10000
)

func (l Limits) withDefaults() Limits {
	if l.MaxUnzipped <= 0 {
		l.MaxUnzipped = DefaultMaxUnzipped
	}
	if l.MaxText <= 0 {
		l.MaxText = DefaultMaxText
	}
	if l.MaxMembers <= 0 {
		l.MaxMembers = DefaultMaxMembers
	}
	return l
}

// Binary reports whether files of format f are read from bytes by
// ExtractBytes (or, for PDF, from page texts by FromPages) rather than as
// UTF-8 text by Extract.
func (f Format) Binary() bool {
	switch f {
	case FormatPDF, FormatDOCX, FormatODT, FormatPPTX, FormatEPUB, FormatXLSX, FormatODS, FormatCSV, FormatTSV:
		return true
	}
	return false
}

// oleMagic starts an OLE compound file: what an encrypted Office
// document (or a legacy .doc/.xls) is instead of a zip.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// ExtractBytes reads a document of a binary format: DOCX (paragraphs,
// headings from heading styles), ODT (paragraphs, headings by outline
// level), PPTX (one unit per slide, its title as
// heading), EPUB (the spine's chapters, headings from HTML), XLSX and ODS
// (each sheet's rows), CSV and TSV (rows). In a spreadsheet or a CSV file
// the first non-empty row holds the column names and every later row is
// a passage of its own, "name: Foo; price: 3", located by its row as a
// spreadsheet numbers it (the header is row 1; source.LocRow, with the
// sheet as Part in a workbook). PDF is not read here: see FromPages.
//
// A file that is encrypted, malformed or truncated, or that would pass a
// bound of lim, is an error wrapping ErrEncrypted, ErrMalformed or
// ErrTooLarge, naming what and where; one without text wraps ErrNoText.
// Nothing in data can make ExtractBytes panic, loop or allocate much
// more than the bounds (fuzzed; each hostile file of issue 29 is read in
// a process whose data segment may grow by 256 MiB: see
// TestHostileUnderMemoryLimit).
//
// The readers look at ctx as they go (every few hundred XML tokens or
// rows, and before each zip member): when it is done, ExtractBytes stops
// and returns an error wrapping context.Cause(ctx) that says where it
// stopped. A caller bounds the time of one document with a deadline on
// ctx (context.WithTimeoutCause), and tells its own cause from the
// caller's.
func ExtractBytes(ctx context.Context, name string, data []byte, f Format, lim Limits) (Document, error) {
	lim = lim.withDefaults()
	if err := context.Cause(ctx); err != nil {
		return Document{}, err
	}
	bud := newBudget(ctx, lim.MaxText)
	fallback := filepath.Base(Clean(name))
	var d Document
	var err error
	switch f {
	case FormatCSV, FormatTSV:
		d, err = extractCSV(data, f == FormatTSV, fallback, bud)
	case FormatDOCX, FormatODT, FormatPPTX, FormatEPUB, FormatXLSX, FormatODS:
		if bytes.HasPrefix(data, oleMagic) {
			return Document{}, fmt.Errorf("%w: a password-protected Office file (or a legacy binary one), not a zip", ErrEncrypted)
		}
		var z *zipReader
		if z, err = openZip(data, lim, bud); err != nil {
			return Document{}, err
		}
		switch f {
		case FormatDOCX:
			d, err = extractDOCX(z, fallback)
		case FormatODT:
			d, err = extractODT(z, fallback)
		case FormatPPTX:
			d, err = extractPPTX(z, fallback)
		case FormatEPUB:
			d, err = extractEPUB(z, fallback)
		case FormatXLSX:
			d, err = extractXLSX(z, data, fallback, lim)
		case FormatODS:
			d, err = extractODS(z, fallback)
		}
	default:
		return Document{}, fmt.Errorf("%w: not a binary format", ErrMalformed)
	}
	if err != nil {
		return Document{}, err
	}
	if len(d.blocks) == 0 {
		return Document{}, fmt.Errorf("%w: the file has no text", ErrNoText)
	}
	if len(d.Text) > lim.MaxText {
		return Document{}, fmt.Errorf("%w: more than %d bytes of text", ErrTooLarge, lim.MaxText)
	}
	return d, nil
}

// validText turns bytes that should be UTF-8 into a string, replacing
// what is not.
func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}
