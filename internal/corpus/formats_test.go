package corpus

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deepresearch/deepresearch/internal/pdftext"
	"github.com/deepresearch/deepresearch/internal/testpdf"
	"github.com/deepresearch/deepresearch/source"
)

const formatsDir = "../extract/testdata/formats"

// readFile reads a file of the test (testpdf.Read gunzips and names the
// Debian package of a missing PDF).
func readFile(t *testing.T, path string) []byte { return testpdf.Read(t, path) }

// zipBomb is a DOCX whose document unpacks to 80 MiB, past the default
// bound of 64 MiB, from a file of about 80 KB.
func zipBomb(t *testing.T) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	w.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	f, err := w.Create("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(`<w:document xmlns:w="w"><w:body>`))
	blank := bytes.Repeat([]byte(" "), 1<<20)
	for range 80 {
		f.Write(blank)
	}
	f.Write([]byte(`</w:body></w:document>`))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSyncFormats indexes real PDFs from Debian packages, office
// documents, an EPUB and a CSV catalogue, and skips, with their reasons,
// an encrypted PDF, a scan without a text layer, a truncated DOCX and a
// zip bomb. Searches find passages located by page, row, slide and
// section; a second Sync reads nothing again.
func TestSyncFormats(t *testing.T) {
	dir := t.TempDir()
	put := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("spec.pdf", readFile(t, testpdf.MIMESpec))
	put("fontconfig.pdf", readFile(t, testpdf.Fontconfig))
	for _, name := range []string{"catalog.csv", "catalog.xlsx", "handbook.docx", "deck.pptx", "book.epub", "stock.ods", "depots.tsv", "encrypted.pdf", "scan.pdf"} {
		put(name, readFile(t, filepath.Join(formatsDir, name)))
	}
	put("truncated.docx", readFile(t, filepath.Join(formatsDir, "handbook.docx"))[:20000])
	put("bomb.docx", zipBomb(t))

	var reads atomic.Int32
	readPDF = func(ctx context.Context, data []byte) (pdftext.Document, error) {
		reads.Add(1)
		return pdftext.Read(ctx, data)
	}
	t.Cleanup(func() { readPDF = pdftext.Read })

	ix := openIndex(t)
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	skips := map[string]string{}
	for _, s := range st.Skips {
		skips[s.Path] = s.Reason
	}
	for path, reason := range map[string]string{
		"encrypted.pdf":  "encrypted PDF (needs a password)",
		"scan.pdf":       "no text layer (a scanned PDF?)",
		"truncated.docx": "malformed: not a readable zip container",
		"bomb.docx":      "too large: word/document.xml unpacks to",
	} {
		if !strings.HasPrefix(skips[path], reason) {
			t.Errorf("%s: skip reason %q, want %q…", path, skips[path], reason)
		}
	}
	if st.Scanned != 13 || st.Added != 9 || st.Skipped != 4 || reads.Load() != 4 {
		t.Errorf("Sync = %+v, %d PDF reads", st, reads.Load())
	}

	for _, tt := range []struct {
		query string
		doc   string
		loc   source.Location
		label string
	}{
		{"resolving conflicts with other glob matches default weight 50", "spec.pdf", source.Location{Kind: source.LocPage, Value: "4"}, "spec.pdf, p. 4"},
		{"TechBook Air battery", "catalog.csv", source.Location{Kind: source.LocRow, Value: "3"}, "catalog.csv, row 3"},
		{"TechBook Pro price", "catalog.xlsx", source.Location{Kind: source.LocRow, Value: "2", Part: "Prices"}, "catalog.xlsx, Prices, row 2"},
		{"TAT-8 transatlantic fibre", "deck.pptx", source.Location{Kind: source.LocSlide, Value: "3"}, "deck.pptx — Fibre Optics Briefing, slide 3"},
		{"Porthcurno depot phone", "depots.tsv", source.Location{Kind: source.LocRow, Value: "2"}, "depots.tsv, row 2"},
	} {
		res, err := ix.Search(t.Context(), tt.query, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].DocID != tt.doc || res[0].Locator != tt.loc {
			t.Errorf("%q: first result %+v, want %s at %+v", tt.query, first(res), tt.doc, tt.loc)
			continue
		}
		if res[0].Location != tt.loc.String() {
			t.Errorf("%q: Location %q, Locator %+v", tt.query, res[0].Location, res[0].Locator)
		}
		src := source.Source{ID: res[0].DocID, URL: res[0].URL, Title: res[0].Title, Location: res[0].Locator}
		if got := src.Label(); got != tt.label {
			t.Errorf("%q: label %q, want %q", tt.query, got, tt.label)
		}
	}

	doc, err := ix.Fetch(t.Context(), "spec.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Text, "--- page 4 ---") || strings.Count(doc.Text, "Shared MIME-info Database\n") > 1 {
		t.Errorf("the PDF's text lacks its page marks or keeps its running header:\n%.600s", doc.Text)
	}

	again, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Unchanged != 9 || again.Skipped != 4 || again.Added+again.Updated != 0 || reads.Load() != 4 {
		t.Errorf("second Sync = %+v, %d PDF reads in all", again, reads.Load())
	}
}

func first[T any](s []T) any {
	if len(s) == 0 {
		return nil
	}
	return s[0]
}

// TestPDFReaderStartsFirst (issue 29): the PDF reader has started (PDFium
// compiled: minutes on a loaded machine) before a PDF is read under its
// own deadline, so that the first PDF of a busy process is not skipped
// as taking too long.
func TestPDFReaderStartsFirst(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "spec.pdf"), readFile(t, testpdf.MIMESpec), 0o644); err != nil {
		t.Fatal(err)
	}
	var early atomic.Bool
	readPDF = func(ctx context.Context, data []byte) (pdftext.Document, error) {
		if _, timed := ctx.Deadline(); timed && !pdfReady.Load() {
			early.Store(true)
		}
		return pdftext.Read(ctx, data)
	}
	t.Cleanup(func() { readPDF = pdftext.Read })
	st, err := openIndex(t).Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if early.Load() {
		t.Error("a PDF was read under its deadline before the reader had started")
	}
	if st.Added != 1 {
		t.Errorf("Sync = %+v", st)
	}
}

// TestSyncAuthors: a document's authors, as its metadata names them, are
// kept by Sync and come back with its search results and when it is
// fetched: an HTML page's meta author and JSON-LD author, a DOCX's
// creator. A file that names none has none.
func TestSyncAuthors(t *testing.T) {
	dir := t.TempDir()
	put := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("repeaters.html", []byte(`<html><head><title>Submarine repeaters</title>
<script type="application/ld+json">{"@type":"Article","author":[{"@type":"Person","name":"Jane Doe"},{"name":"John Roe"}]}</script>
</head><body><h1>Submarine repeaters</h1><p>Erbium-doped fibre amplifiers boost the signal every eighty kilometres.</p></body></html>`))
	put("splices.html", []byte(`<html><head><meta name="author" content="Ann Lee"><title>Cable splices</title></head>
<body><p>A splice joins two cable ends on the repair ship.</p></body></html>`))
	put("handbook.docx", readFile(t, filepath.Join(formatsDir, "handbook.docx")))
	put("notes.md", []byte("# Notes\n\nRepeaters and splices, unsigned.\n"))
	ix := openIndex(t)
	if _, err := ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"repeaters.html": "Jane Doe; John Roe", "splices.html": "Ann Lee", "handbook.docx": "python-docx", "notes.md": ""}
	for id, author := range want {
		doc, err := ix.Fetch(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Author != author {
			t.Errorf("Fetch(%s).Author = %q, want %q", id, doc.Author, author)
		}
	}
	res, err := ix.Search(t.Context(), "repeaters splices", 5)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range res {
		if a, ok := want[r.DocID]; ok {
			seen++
			if r.Author != a {
				t.Errorf("search result %s: Author %q, want %q", r.DocID, r.Author, a)
			}
		}
	}
	if seen < 3 {
		t.Errorf("search found %d of the documents, want the three on repeaters and splices: %v", seen, res)
	}
}
