package pdftext

import (
	"context"
	"errors"
	"os"
	"testing"
	"unicode/utf8"
)

// FuzzRead: whatever the bytes, a read returns pages or an error wrapping
// ErrMalformed or ErrEncrypted; it never panics, hangs or crashes the
// process (PDFium runs sandboxed).
func FuzzRead(f *testing.F) {
	for _, name := range []string{"plain.pdf", "scan.pdf", "encrypted.pdf"} {
		data, err := os.ReadFile(fixtures + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	r := New(Config{Instances: 1, MaxMemory: 64 << 20, MaxText: 1 << 20})
	f.Cleanup(func() { r.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := r.Read(context.Background(), data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEncrypted) {
				t.Fatalf("error %v wraps neither ErrMalformed nor ErrEncrypted", err)
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
