package fetch

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/heappeak"
	"github.com/deepresearch/deepresearch/internal/hostile"
)

// TestFetchHostileDocuments serves the hostile documents of issue 29 to
// the fetcher: each is refused with its reason (an ErrNoText at the
// extract step) within the readers' bounds, and the fetcher reads the
// next page as usual. Before, one search result pointing at the ODS file
// took a whole run down.
func TestFetchHostileDocuments(t *testing.T) {
	docs := map[string]struct {
		mediaType string
		data      []byte
		want      string // in the error; "" for a page
	}{
		"/shared.xlsx":  {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", hostile.XLSXSharedString(), "too large: xl/worksheets/sheet1.xml, row 2"},
		"/repeated.ods": {"application/vnd.oasis.opendocument.spreadsheet", hostile.ODSRepeated(), "too large: content.xml, sheet S, row 2"},
		"/slides.pptx":  {"application/vnd.openxmlformats-officedocument.presentationml.presentation", hostile.PPTXRepeatedSlide(1_000_000), "malformed: ppt/presentation.xml lists more slides"},
		"/bomb.pdf":     {"application/pdf", hostile.PDFBomb(3 << 30), "too large for the PDF reader: page 1 needs more than the 512 MiB"},
		"/cyclic.pdf":   {"application/pdf", hostile.PDFCyclicPages(), "malformed or truncated PDF: none of its 2 pages could be loaded"},
		"/title.epub":   {"application/epub+zip", hostile.EPUBTitle(400_000), ""},
		"/page.html":    {"text/html", []byte(articleHTML), ""},
	}
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		d, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d.mediaType)
		w.Write(d.data)
	})
	f := newFetcher(t, Config{Allow: []string{s.hostPort()}})
	for _, path := range []string{"/shared.xlsx", "/repeated.ods", "/slides.pptx", "/bomb.pdf", "/cyclic.pdf", "/title.epub", "/page.html"} {
		t.Run(path, func(t *testing.T) {
			stop := heappeak.Start()
			page, err := f.Fetch(context.Background(), s.URL+path)
			peak := stop()
			t.Logf("Go heap peak %.0f MiB; %v", peak, err)
			want := docs[path].want
			var fe *Error
			switch {
			case want == "" && err != nil:
				t.Fatal(err)
			case want == "" && page.Text == "":
				t.Fatal("no text")
			case want != "" && (!errors.Is(err, ErrNoText) || !errors.As(err, &fe) || fe.Step != "extract" || !strings.Contains(err.Error(), want)):
				t.Fatalf("error %v, want an ErrNoText at the extract step saying %q", err, want)
			}
			if peak > 256 {
				t.Errorf("the Go heap peaked at %.0f MiB", peak)
			}
		})
	}
}
