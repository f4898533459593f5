package verify

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestInputBounded (issue 18, #10): verify reads a bounded input — a
// report of at most 16 MiB with at most MaxCitations markers, cited
// sources of at most 16 MiB — and what it returns for each citation is
// bounded too: a "sentence" that never stops, cited again and again, is
// not repeated whole in every citation (a 6 MB report once took 9.8 GB).
func TestInputBounded(t *testing.T) {
	src := []Source{{Number: 1, URL: "https://a.example/1", Text: "Cables are repaired by ships at sea."}}
	for _, tc := range []struct {
		name    string
		report  string
		sources []Source
		want    string
	}{
		{"a report over 16 MiB", strings.Repeat("x", MaxReportBytes+1), src, "16 MiB"},
		{"too many markers", strings.Repeat("[1]", MaxCitations+1), src, "more than 250000 citations"},
		{"too many DOIs", strings.Repeat("10.1000/x ", MaxCitations+1), src, "more than 250000 citations"},
		{"cited sources over 16 MiB", "Cables are repaired [1].", []Source{{Number: 1, URL: "https://a.example/1", Text: strings.Repeat("cable ", MaxSourceBytes/6+1)}}, "16 MiB"},
	} {
		_, err := Check(context.Background(), tc.report, tc.sources, Options{})
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrTooLarge saying %q", tc.name, err, tc.want)
		}
	}
	// A paragraph of 300 KB with no stop, citing all along; a source with
	// no stop either.
	report := strings.Repeat("cable ship repair at sea [1] ", 10_000)
	long := []Source{{Number: 1, URL: "https://a.example/1", Text: strings.Repeat("cable ship repair at sea ", 10_000)}}
	res, err := Check(context.Background(), report, long, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Citations) != 10_000 {
		t.Fatalf("%d citations", len(res.Citations))
	}
	for _, c := range res.Citations {
		if len(c.Sentence) > maxSentence || c.Evidence != nil && len(c.Evidence.Quote) > 2*maxSentence+1 {
			t.Fatalf("a citation holds a sentence of %d bytes and evidence of %d", len(c.Sentence), len(c.Evidence.Quote))
		}
	}
}
