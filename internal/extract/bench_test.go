package extract

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// BenchmarkFromPages repairs and splits 100 pages of 3 KB of text with a
// running header and a page number on each.
func BenchmarkFromPages(b *testing.B) {
	line := "Cables are laid by ships that pay out the cable over the stern at a controlled speed."
	pages := make([]string, 100)
	for i := range pages {
		pages[i] = "Cable Handbook\n" + strings.Repeat(line+"\n", 35) + strconv.Itoa(i+1)
	}
	b.ReportAllocs()
	for b.Loop() {
		d := FromPages("h.pdf", "", pages)
		Split(&d)
	}
}
