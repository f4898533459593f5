package pdftext

import (
	"errors"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/heappeak"
	"github.com/deepresearch/deepresearch/internal/hostile"
)

// hostilePDFs are the PDFs of issue 29 that were all skipped as "no text
// layer (a scanned PDF?)": each fails with its own reason.
var hostilePDFs = []struct {
	name string
	data func() []byte
	want error
	msg  string
}{
	{"decompression bomb", func() []byte { return hostile.PDFBomb(3 << 30) }, ErrTooLarge,
		"too large for the PDF reader: page 1 needs more than the 512 MiB the reader may use"},
	{"page tree claiming 10⁹ pages", func() []byte { return hostile.PDFPageCount(1_000_000_000) }, ErrMalformed,
		"no page could be found (an empty or broken page tree)"},
	{"cyclic page tree", hostile.PDFCyclicPages, ErrMalformed,
		"none of its 2 pages could be loaded (a broken or looping page tree)"},
}

func TestHostilePDFs(t *testing.T) {
	for _, tt := range hostilePDFs {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data()
			stop := heappeak.Start()
			_, err := read(t, data)
			peak := stop()
			t.Logf("%d KB: %v; Go heap peak %.0f MiB", len(data)>>10, err, peak)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %v, want %q", err, tt.msg)
			}
			// The instance's memory is not in the Go heap (on Linux).
			if ownMemory && peak > 128 {
				t.Errorf("Go heap peaked at %.0f MiB", peak)
			}
		})
	}
	// The reader goes on reading.
	if doc, err := read(t, hostile.PDFText("After the bombs.")); err != nil || len(doc.Pages) != 1 || !strings.Contains(doc.Pages[0], "After the bombs.") {
		t.Errorf("a plain PDF after the hostile ones: %q, %v", doc.Pages, err)
	}
}

// A PDF of more pages than MaxPages is ErrTooLarge, before any page is read.
func TestMaxPages(t *testing.T) {
	r := New(Config{MaxPages: 10})
	defer r.Close()
	_, err := r.Read(t.Context(), DebianPDF(t, fontconfig))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the page tree claims 15 pages; the limit is 10") {
		t.Errorf("error %v", err)
	}
}
