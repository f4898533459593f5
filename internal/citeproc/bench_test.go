package citeproc_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
)

var words = strings.Fields(`the cable repeater signal fibre ocean landing station
capacity latency telegraph amplifier optical route fault repair ship depth
engineers designed transatlantic laid armour insulation copper bandwidth
operators network traffic protocol measured reported increased decade first`)

// llmReport returns a deterministic report of about size bytes shaped like
// model output: headings, prose with a citation every sentence or two in
// the common dialects, lists, and now and then a fenced code block.
func llmReport(size int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < size {
		switch r.IntN(12) {
		case 0:
			fmt.Fprintf(&b, "\n## Section %d\n\n", r.IntN(50))
		case 1:
			b.WriteString("\n```go\nfor i := range xs {\n\tys[i] = xs[i] * 2 // not [1]\n}\n```\n\n")
		case 2:
			fmt.Fprintf(&b, "- %s %s `code[%d]` %s [%d]\n", words[r.IntN(len(words))], words[r.IntN(len(words))], r.IntN(9), words[r.IntN(len(words))], 1+r.IntN(40))
		default:
			for s := 0; s < 3; s++ {
				n := 8 + r.IntN(14)
				for w := 0; w < n; w++ {
					if w > 0 {
						b.WriteByte(' ')
					}
					b.WriteString(words[r.IntN(len(words))])
				}
				switch r.IntN(6) {
				case 0, 1:
					fmt.Fprintf(&b, " [%d]. ", 1+r.IntN(40))
				case 2:
					fmt.Fprintf(&b, " [%d, %d]. ", 1+r.IntN(40), 1+r.IntN(40))
				case 3:
					fmt.Fprintf(&b, " [%d][%d]. ", 1+r.IntN(40), 1+r.IntN(40))
				default:
					b.WriteString(". ")
				}
			}
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// tokenChunks splits s like a model's stream: chunks of 1 to 6 bytes.
func tokenChunks(s string) []string {
	r := rand.New(rand.NewPCG(3, 4))
	var out []string
	for len(s) > 0 {
		n := min(1+r.IntN(6), len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func benchMapping(b *testing.B) *citeproc.Mapping {
	m := citeproc.NewMapping(nil)
	for n := 1; n <= 40; n++ {
		if err := m.Add(n, citeproc.Source{ID: fmt.Sprintf("doc-%d", n), URL: fmt.Sprintf("https://example.com/doc/%d", n), Title: fmt.Sprintf("Doc %d", n)}); err != nil {
			b.Fatal(err)
		}
	}
	return m
}

func BenchmarkProcessor(b *testing.B) {
	for _, size := range []int{150 << 10, 600 << 10} {
		report := llmReport(size)
		chunks := tokenChunks(report)
		for _, mode := range []struct {
			name string
			cfg  citeproc.Config
		}{
			{"keep", citeproc.Config{Mode: citeproc.Keep}},
			{"link", citeproc.Config{Mode: citeproc.Link}},
			{"remove", citeproc.Config{Mode: citeproc.Remove}},
		} {
			b.Run(fmt.Sprintf("%s/%dKB", mode.name, size>>10), func(b *testing.B) {
				cfg := mode.cfg
				cfg.Mapping = benchMapping(b)
				b.SetBytes(int64(len(report)))
				b.ReportAllocs()
				for b.Loop() {
					cfg.Numberer = nil
					if cfg.Mode == citeproc.Link {
						cfg.Numberer = citeproc.FirstCited()
					}
					p := citeproc.New(io.Discard, cfg)
					for _, c := range chunks {
						p.WriteString(c)
					}
					p.Close()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(chunks)), "ns/chunk")
			})
		}
	}
}

// TestLargeReportChunking replays a large model-like report in bulk, in
// token-sized chunks and in 1 KB chunks (which take the in-place path) and
// requires the same transcript in every mode.
func TestLargeReportChunking(t *testing.T) {
	report := llmReport(64 << 10)
	mapping := func(t testing.TB) *citeproc.Mapping {
		m := citeproc.NewMapping(nil)
		for n := 1; n <= 30; n++ {
			m.Add(n, citeproc.Source{ID: fmt.Sprint("doc-", n), URL: fmt.Sprint("https://example.com/", n)})
		}
		return m
	}
	for _, m := range modes {
		m := m
		cfg := m.cfg
		m.cfg = func(*citeproc.Mapping) citeproc.Config { return cfg(mapping(t)) }
		want, text := run(t, report, m, splitters[0].split)
		if m.name == "keep" && text != report {
			t.Fatalf("keep mode changed the report")
		}
		for name, split := range map[string]func(string) []string{
			"tokens": tokenChunks,
			"1KB":    func(s string) []string { return chunks(s, 700, 1024) },
		} {
			if got, _ := run(t, report, m, split); got != want {
				t.Errorf("%s, %s chunks: output differs from bulk", m.name, name)
			}
		}
	}
}
