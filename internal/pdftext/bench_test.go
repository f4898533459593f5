package pdftext

import (
	"context"
	"testing"
)

// BenchmarkRead reads the 17 pages of the shared-mime-info specification
// (137 KB) with a started Reader: a fresh instance of the module and the
// text of every page.
func BenchmarkRead(b *testing.B) {
	data := DebianPDF(b, mimeSpec)
	r := New(Config{})
	defer r.Close()
	if _, err := r.Read(context.Background(), data); err != nil { // compile outside the loop
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Read(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStart is the first read of a Reader: the module compiled, or
// loaded from the compilation cache (CacheDir "off": compiled).
func BenchmarkStart(b *testing.B) {
	data := DebianPDF(b, fixtures+"plain.pdf")
	for _, dir := range []string{"", "off"} {
		name := map[string]string{"": "cached", "off": "compiled"}[dir]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				r := New(Config{CacheDir: dir})
				if _, err := r.Read(context.Background(), data); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}
