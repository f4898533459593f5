package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/internal/pdftext"
)

// fileTimeout bounds the reading of one file of a binary format (a PDF,
// an office document): a file that takes longer is skipped.
const fileTimeout = 60 * time.Second

// readPDF reads a PDF's pages; a variable so that tests can count reads.
var readPDF = pdftext.Read

// extractDocument turns a file's bytes into a document. It returns the
// reason to skip the file instead ("encrypted PDF (needs a password)",
// "malformed: …", "no text layer (a scanned PDF?)"), or an error only when
// ctx ends.
func extractDocument(ctx context.Context, id string, data []byte, f extract.Format) (extract.Document, string, error) {
	if !f.Binary() {
		switch {
		case bytes.IndexByte(data, 0) >= 0:
			return extract.Document{}, "contains NUL bytes", nil
		case !utf8.Valid(data):
			return extract.Document{}, "not valid UTF-8", nil
		}
		return extract.Extract(id, string(data), f), "", nil
	}
	if f != extract.FormatPDF {
		doc, err := extract.ExtractBytes(id, data, f, extract.Limits{})
		if err != nil {
			return extract.Document{}, err.Error(), nil
		}
		return doc, "", nil
	}
	rctx, cancel := context.WithTimeoutCause(ctx, fileTimeout, errPDFTimeout)
	defer cancel()
	pdf, err := readPDF(rctx, data)
	switch {
	case ctx.Err() != nil:
		return extract.Document{}, "", context.Cause(ctx)
	case errors.Is(err, errPDFTimeout):
		return extract.Document{}, fmt.Sprintf("reading the PDF took longer than %v", fileTimeout), nil
	case err != nil:
		return extract.Document{}, err.Error(), nil
	}
	doc := extract.FromPages(id, pdf.Title, pdf.Pages)
	if doc.Text == "" {
		return extract.Document{}, "no text layer (a scanned PDF?)", nil
	}
	return doc, "", nil
}

var errPDFTimeout = errors.New("PDF read timed out")
