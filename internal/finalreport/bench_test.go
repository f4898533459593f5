package finalreport

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
)

// BenchmarkStructured renders a 150 KB report citing 50 sources as the
// JSON document (blocks, sidecar, sources_used), as a Word document, as
// the HTML page and as YAML.
func BenchmarkStructured(b *testing.B) {
	var sources []collapse.Source
	texts := map[int]string{}
	for n := 1; n <= 50; n++ {
		sources = append(sources, collapse.Source{Number: n, Source: source.Source{ID: fmt.Sprint(n),
			URL: fmt.Sprintf("https://example.org/%d", n), Title: fmt.Sprintf("Source %d", n), Channel: "web", Published: "2024-03-15"}})
		texts[n] = strings.Repeat("Repeaters amplify the signal every seventy kilometres. ", 20)
	}
	var draft strings.Builder
	for i := 0; draft.Len() < 150_000; i++ {
		fmt.Fprintf(&draft, "Paragraph %d says cables break [%d] and are repaired by ships [%d][%d].\nIt goes on: \"yes\" - 12: #x\n\n", i, i%50+1, (i*7)%50+1, (i*13)%50+1)
	}
	rep, err := Publish(draft.String(), sources, citeproc.Markdown)
	if err != nil {
		b.Fatal(err)
	}
	x := Extra{Texts: texts, Rounds: 2, Validated: ValidatedPassed}
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(draft.Len()))
		b.ReportAllocs()
		for b.Loop() {
			doc, err := JSON("Q", rep, x)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.MarshalIndent(doc, "", "  "); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("docx", func(b *testing.B) {
		b.SetBytes(int64(draft.Len()))
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			var err error
			if out, err = DOCX("Q", rep, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(out)), "docx-bytes")
	})
	b.Run("html", func(b *testing.B) {
		b.SetBytes(int64(draft.Len()))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := HTML("Q", rep); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("yaml", func(b *testing.B) {
		b.SetBytes(int64(draft.Len()))
		b.ReportAllocs()
		for b.Loop() {
			doc, err := JSON("Q", rep, x)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := YAML(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
