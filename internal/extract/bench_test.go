package extract

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkExtractSpec extracts and splits the Go specification, the
// largest document of the default corpus.
func BenchmarkExtractSpec(b *testing.B) {
	out, err := exec.CommandContext(b.Context(), "go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go command:", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "doc", "go_spec.html"))
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		d := Extract("go_spec.html", string(src), FormatHTML)
		Split(&d)
	}
}
