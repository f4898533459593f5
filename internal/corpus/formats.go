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
	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// fileTimeout bounds the reading of one file of a binary format (a PDF,
// an office document, a spreadsheet): a file that takes longer is
// skipped with that reason.
const fileTimeout = 60 * time.Second

// fileDeadline gives the reading of one binary file its deadline, whose
// cause is errFileTimeout; a variable so that tests can make it pass.
var fileDeadline = func(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, fileTimeout, errFileTimeout)
}

// readPDF reads a PDF's pages; a variable so that tests can count reads.
var readPDF = pdftext.Read

// extractDocument turns a file's bytes into a document. It returns the
// reason to skip the file instead ("encrypted PDF (needs a password)",
// "malformed: …", "no text layer (a scanned PDF?)", "reading the file
// took longer than 1m0s"), or an error only when ctx ends. A binary file
// is read under its own deadline (fileTimeout) and within the bounds of
// extract.Limits and pdftext.Config.
func extractDocument(ctx context.Context, id string, data []byte, f extract.Format) (extract.Document, string, error) {
	if !f.Binary() {
		switch {
		case bytes.IndexByte(data, 0) >= 0:
			return extract.Document{}, "contains NUL bytes", nil
		case !utf8.Valid(data):
			return extract.Document{}, "not valid UTF-8", nil
		}
		doc := extract.Extract(id, string(data), f)
		if f == extract.FormatHTML {
			doc.Author = extract.HeadAuthor(string(data))
		}
		return doc, "", nil
	}
	rctx, cancel := fileDeadline(ctx)
	defer cancel()
	var doc extract.Document
	var err error
	if f == extract.FormatPDF {
		var pdf pdftext.Document
		if pdf, err = readPDF(rctx, data); err == nil {
			doc = extract.FromPages(id, pdf.Title, pdf.Pages)
			doc.Author = sourcetext.ParseAuthors(pdf.Author)
			if doc.Text == "" {
				return extract.Document{}, "no text layer (a scanned PDF?)", nil
			}
		}
	} else {
		doc, err = extract.ExtractBytes(rctx, id, data, f, extract.Limits{})
	}
	switch {
	case ctx.Err() != nil:
		return extract.Document{}, "", context.Cause(ctx)
	case errors.Is(err, errFileTimeout):
		return extract.Document{}, fmt.Sprintf("reading the file took longer than %v", fileTimeout), nil
	case err != nil:
		return extract.Document{}, err.Error(), nil
	}
	return doc, "", nil
}

var errFileTimeout = errors.New("reading the file timed out")
