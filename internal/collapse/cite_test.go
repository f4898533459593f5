package collapse

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/source"
)

// TestCiteIsOneCitationReport: Cite numbers a source, records its section
// and keeps the same sources, dropped citations and malformed URLs as
// Add of a one-citation report of it — for the same resource under other
// URL forms, sources without a URL, malformed and repaired URLs, pages of
// one document, and the empty section.
func TestCiteIsOneCitationReport(t *testing.T) {
	srcs := []struct {
		section string
		src     source.Source
	}{
		{"A", source.Source{URL: "https://example.com/a", Title: "A"}},
		{"B", source.Source{URL: "http://EXAMPLE.com/a/", Title: "A again"}},
		{"B", source.Source{ID: "doc-1", Title: "no URL"}},
		{"", source.Source{ID: "doc-1"}},
		{"C", source.Source{Title: "nothing to compare by"}},
		{"C", source.Source{URL: "https:/example.com/b", Title: "repaired"}},
		{"D", source.Source{URL: "https://example.com/b"}},
		{"D", source.Source{URL: "http://[::1", Title: "malformed"}},
		{"A", source.Source{URL: "https://example.com/doc.pdf", Location: source.Location{Kind: source.LocPage, Value: "2"}}},
		{"E", source.Source{URL: "https://example.com/doc.pdf", Location: source.Location{Kind: source.LocPage, Value: "3"}}},
		{"E", source.Source{URL: "https://example.com/doc.pdf", Location: source.Location{Kind: source.LocPage, Value: "2"}, Author: "late author"}},
	}
	byReport, byCite := NewMerger(), NewMerger()
	var got, want []int
	for _, s := range srcs {
		mr, err := byReport.Add(Report{Section: s.section, Text: "[1]", Mapping: map[int]source.Source{1: s.src}})
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(strings.Trim(mr.Text, "[]"))
		if err != nil {
			t.Fatalf("merged %q: %v", mr.Text, err)
		}
		want = append(want, n)
		got = append(got, byCite.Cite(s.section, s.src))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("numbers: Cite gave %v, a one-citation report %v", got, want)
	}
	if !reflect.DeepEqual(byCite.Sources(), byReport.Sources()) {
		t.Errorf("sources:\n%+v\nwant\n%+v", byCite.Sources(), byReport.Sources())
	}
	if !reflect.DeepEqual(byCite.Invalid(), byReport.Invalid()) || len(byCite.Invalid()) == 0 {
		t.Errorf("invalid URLs: %+v, want %+v (not none)", byCite.Invalid(), byReport.Invalid())
	}
	if len(byCite.Sources()) < 6 || got[0] != got[1] || got[8] == got[9] || got[8] != got[10] {
		t.Errorf("numbers %v: want one number per resource and per page", got)
	}
}
