package corpus

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/deepresearch/deepresearch/internal/extract"
)

// goDoc returns the Go distribution's doc folder and the bytes of the
// files Sync reads there, or skips.
func goDoc(b *testing.B) (string, int64) {
	dir, err := goDocFolder(b.Context())
	if err != nil {
		b.Skip("no Go documentation folder:", err)
	}
	var n int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && extract.FormatOf(d.Name()) != extract.FormatNone {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return dir, n
}

// BenchmarkSync indexes the Go documentation into a new database:
// Open (creating the schema), Sync, Close.
func BenchmarkSync(b *testing.B) {
	dir, size := goDoc(b)
	tmp := b.TempDir()
	b.SetBytes(size)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		ix, err := Open(b.Context(), filepath.Join(tmp, fmt.Sprintf("%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Sync(b.Context(), dir); err != nil {
			b.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSyncUnchanged re-syncs an up-to-date index of the Go
// documentation: a walk and a stat per file.
func BenchmarkSyncUnchanged(b *testing.B) {
	dir, _ := goDoc(b)
	ix := openIndex(b)
	if _, err := ix.Sync(b.Context(), dir); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.Sync(b.Context(), dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch searches an index of the Go documentation for 10
// passages, cycling through a few typical queries.
func BenchmarkSearch(b *testing.B) {
	dir, _ := goDoc(b)
	ix := openIndex(b)
	if _, err := ix.Sync(b.Context(), dir); err != nil {
		b.Fatal(err)
	}
	queries := []string{
		"happens before",
		"What are the rules for slice expressions and capacity?",
		"GODEBUG http2client default",
		"type parameters constraints interface",
		"assembler frame pointer SB pseudo-register",
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := ix.Search(b.Context(), queries[i%len(queries)], 10); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSearchParallel is BenchmarkSearch from GOMAXPROCS goroutines.
func BenchmarkSearchParallel(b *testing.B) {
	dir, _ := goDoc(b)
	ix := openIndex(b)
	if _, err := ix.Sync(b.Context(), dir); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := ix.Search(b.Context(), "type parameters constraints interface", 10); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
