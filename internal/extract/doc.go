// Package extract turns documents into plain text and passages: the text
// extraction shared by the corpus index and the page fetcher.
//
// Extract reads one file's contents in one of the text formats FormatOf
// knows (Markdown, plain text, reStructuredText, AsciiDoc, Org, TeX and
// HTML) into a Document: its title, its whole text, and its structure
// (headings and blocks). ExtractBytes reads the binary formats (DOCX,
// PPTX, EPUB, XLSX, ODS, CSV, TSV) within Limits, and FromPages builds a
// PDF's document from its pages' text (internal/pdftext reads them).
// Split cuts a Document into Passages of roughly 600–1200 bytes at
// paragraph boundaries, each with its location in the document (a heading
// path, a line range for plain text, a page, a row, a slide; see
// source.Location); a passage never spans two pages, rows or slides.
//
// All text that leaves this package has been through Clean: documents are
// untrusted, and no control character or terminal escape sequence in them
// reaches an index, a prompt or a report.
//
// The package does no I/O and starts no goroutines; its functions are safe
// for concurrent use.
package extract
