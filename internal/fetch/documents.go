package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"

	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/internal/pdftext"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// documentFormats are the media types of documents (not pages) the
// fetcher reads: PDF, and the zip-based office and e-book formats.
var documentFormats = map[string]extract.Format{
	"application/pdf": extract.FormatPDF,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   extract.FormatDOCX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": extract.FormatPPTX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         extract.FormatXLSX,
	"application/vnd.oasis.opendocument.spreadsheet":                            extract.FormatODS,
	"application/epub+zip": extract.FormatEPUB,
}

// readPDF reads a PDF's pages; a variable so that tests can count reads.
var readPDF = pdftext.Read

// documentText reads a document of format f: a PDF page by page (its
// text marks each page, "--- page 7 ---", so that the agent can say
// where it read something), the others as the corpus reads them, within
// the bounds of extract.Limits and pdftext.Config and until ctx (the
// fetch's Timeout, or the agent's time) ends: then it returns
// context.Cause(ctx). A document that is encrypted, malformed, over a
// bound or without text is an ErrNoText that says which.
func documentText(ctx context.Context, body []byte, f extract.Format, pageURL string) (doc extract.Document, err error) {
	name := "document"
	if u, err := url.Parse(pageURL); err == nil && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
		name = path.Base(u.Path)
	}
	if f == extract.FormatPDF {
		pdf, err := readPDF(ctx, body)
		switch {
		case ctx.Err() != nil:
			return extract.Document{}, context.Cause(ctx)
		case errors.Is(err, pdftext.ErrUnavailable):
			return extract.Document{}, fmt.Errorf("%w: application/pdf (%w)", ErrContentType, err)
		case err != nil:
			return extract.Document{}, fmt.Errorf("%w: %w", ErrNoText, err)
		}
		doc = extract.FromPages(name, pdf.Title, pdf.Pages)
		doc.Author = sourcetext.ParseAuthors(pdf.Author)
		if doc.Text == "" {
			return extract.Document{}, fmt.Errorf("%w: the PDF has no text layer (a scan?)", ErrNoText)
		}
	} else if doc, err = extract.ExtractBytes(ctx, name, body, f, extract.Limits{}); err != nil {
		if ctx.Err() != nil {
			return extract.Document{}, context.Cause(ctx)
		}
		return extract.Document{}, fmt.Errorf("%w: %w", ErrNoText, err)
	}
	return doc, nil
}
