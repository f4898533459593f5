package pdftext

import (
	"context"
	"errors"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/hostile"
)

// FuzzRead: whatever the bytes, a read returns pages or an error wrapping
// ErrMalformed, ErrEncrypted or ErrTooLarge; it never panics, hangs or
// crashes the process (PDFium runs sandboxed). The seeds include the
// hostile shapes of issue 29: a decompression bomb (past the fuzzer's
// 64 MiB), a page tree that claims 10⁹ pages, and one that loops.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"plain.pdf", "scan.pdf", "encrypted.pdf"} {
		data, err := os.ReadFile(fixtures + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(hostile.PDFBomb(128 << 20))
	f.Add(hostile.PDFPageCount(1_000_000_000))
	f.Add(hostile.PDFCyclicPages())
	f.Add(hostile.PDFText("Some text."))
	r := New(Config{Instances: 1, MaxMemory: 64 << 20, MaxText: 1 << 20})
	f.Cleanup(func() { r.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := r.Read(context.Background(), data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEncrypted) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error %v wraps none of ErrMalformed, ErrEncrypted, ErrTooLarge", err)
			}
			return
		}
		for _, p := range doc.Pages {
			if !utf8.ValidString(p) {
				t.Fatalf("page text is not UTF-8: %q", p)
			}
		}
	})
}
