package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/heappeak"
)

// largeInputs are issue 18's inputs to verify, made when asked: a report
// of 1e6 bare markers (3 MB: refused, more than MaxCitations), reports of
// 6 MB (prose citing a sentence each; one paragraph of markers with no
// sentence end: refused too), and a 6 MB source cited by a short report;
// and the largest accepted: MaxCitations bare markers, 16 MiB of prose.
var largeInputs = []struct {
	name  string
	input func() (string, []Source)
}{
	{"1e6 markers (3 MB)", func() (string, []Source) { return strings.Repeat("[1]", 1e6), smallSources() }},
	{"MaxCitations markers", func() (string, []Source) { return strings.Repeat("[1]", MaxCitations), smallSources() }},
	{"6 MB prose", func() (string, []Source) {
		return strings.Repeat("Cables are repaired by ships at sea [1]. ", 6<<20/41), smallSources()
	}},
	{"6 MB without a stop", func() (string, []Source) { return strings.Repeat("cable ship repair [1] ", 6<<20/22), smallSources() }},
	{"16 MiB prose", func() (string, []Source) {
		return strings.Repeat("Cables are repaired by ships at sea, and the repair takes several days [1]. ", MaxReportBytes/76), smallSources()
	}},
	{"6 MB source", func() (string, []Source) {
		long := strings.Repeat("Cables are repaired by ships at sea and the repair takes days. ", 6<<20/63)
		return strings.Repeat("Cables are repaired by ships at sea [1]. ", 100), []Source{{Number: 1, URL: "https://a.example/1", Text: long}}
	}},
}

func smallSources() []Source {
	return []Source{{Number: 1, URL: "https://a.example/1", Text: "Cables are repaired by ships at sea. The repair takes days."}}
}

// BenchmarkCheckLarge measures time and the peak live heap (the input's
// included) of Check on issue 18's inputs (go test ./internal/verify -run
// '^$' -bench CheckLarge -benchtime 1x): memory grows linearly with the
// input, and is bounded by MaxReportBytes and MaxCitations.
func BenchmarkCheckLarge(b *testing.B) {
	for _, in := range largeInputs {
		b.Run(in.name, func(b *testing.B) {
			report, sources := in.input()
			b.SetBytes(int64(len(report) + len(sources[0].Text)))
			peak := heappeak.Start()
			var res *Result
			var err error
			for b.Loop() {
				res, err = Check(context.Background(), report, sources, Options{})
			}
			mb := peak()
			if err != nil {
				b.ReportMetric(0, "citations")
			} else {
				b.ReportMetric(float64(res.Summary.Citations), "citations")
			}
			b.ReportMetric(mb, "peak-heap-MB")
		})
	}
}
