package verify

import (
	"context"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

// FuzzCheck checks invariants on any report: Check does not fail or panic;
// every citation's marker is the report's bytes at its offset, on its line;
// every evidence quote is its source's text at its offsets; a report fixed
// by removing fabricated citations has none left, and removing nothing
// changes nothing.
// fuzzFiles are the project files the fuzzed reports' file references and
// @-mentions may name.
var fuzzFiles = fstest.MapFS{"a/b.md": {Data: []byte("---\ngrade: LOW\n---\n# B\n")}, "src/a.go": {Data: []byte("package a\n")}}

func FuzzCheck(f *testing.F) {
	f.Add(plantedReport)
	f.Add("A [1] B [2, 9]. C [[S:1-2]] [^3] 【1】 [ref: https://go.dev/ref/mem]\n- x [9]\n```\n[1]\n```\n")
	f.Add("Smith et al., 2020 and 10.1000/xyz [a/b.go@0123456, L1-2] [[1]](https://go.dev/ref/mem) <sup class=\"cite\"><a href=\"x\">[2]</a></sup>")
	f.Add("## References\n\n[1] x\n\n# Next\n\nclaim [3].")
	f.Add("---\ngrade: LOW\n---\nLeaks cause 40% of outages. It always proves it [1, 9]. See @a/b.md and REF-1; Jones and Lee (2018), (Brown, 2017), 10.12/x.\n[9] Starts a line.\n<!-- verify: x --> [src/a.go@0123456789abcdef, L1]")
	srcs := []Source{
		{Number: 1, URL: "https://go.dev/ref/mem", Text: "Channels carry values. Goroutines run concurrently.\n\nA data race is a bug."},
		{Number: 2, URL: "https://go.dev/ref/mem?utm_source=x", Text: "Maps are unordered."},
		{Number: 3, URL: "https://go.dev/doc/effective_go"},
	}
	f.Fuzz(func(t *testing.T, report string) {
		if !utf8.ValidString(report) || len(report) > 1<<14 {
			return
		}
		res, err := Check(context.Background(), report, srcs, Options{Fix: Fix{Fabricated: Remove, Unsupported: Flag}})
		if err != nil {
			t.Fatal(err)
		}
		li := newLineIndex(report)
		for _, c := range res.Citations {
			if c.Offset < 0 || c.Offset+c.Len > len(report) || report[c.Offset:c.Offset+c.Len] != c.Marker {
				t.Fatalf("citation %+v: marker is not the report's bytes", c)
			}
			if li.line(c.Offset) != c.Line {
				t.Fatalf("citation %+v: line %d", c, li.line(c.Offset))
			}
			if e := c.Evidence; e != nil {
				src := srcs[c.Number-1].Text
				if e.Start < 0 || e.End > len(src) || src[e.Start:e.End] != e.Quote {
					t.Fatalf("evidence %+v is not its source's text", e)
				}
			}
			if c.Score < 0 || c.Score > 1 {
				t.Fatalf("score %v", c.Score)
			}
		}
		if res.Summary.Fabricated > 0 {
			again, err := Check(context.Background(), res.Fixed, srcs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if again.Summary.Fabricated != 0 {
				t.Fatalf("fixed report still has %d fabricated citations:\n%q\nfixed:\n%q", again.Summary.Fabricated, report, res.Fixed)
			}
		}
		none, err := Check(context.Background(), report, srcs, Options{})
		if err != nil || none.Fixed != report {
			t.Fatalf("no fix changed the report: %v", err)
		}
		// Every check and the annotating fix: problems on lines of the
		// report, and a fixed report whose numbered citations all exist.
		all, err := Check(context.Background(), report, srcs, Options{Scope: ScopeAll, Uncited: true, Files: fuzzFiles,
			Fix: Fix{Fabricated: Remove, Annotate: true}})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range all.Problems {
			if p.Line < 1 || p.Line > len(li) {
				t.Fatalf("problem %+v: line %d of %d", p, p.Line, len(li))
			}
		}
		again, err := Check(context.Background(), all.Fixed, srcs, Options{Scope: ScopeAll})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range again.Citations {
			if c.Kind == KindNumber && c.Status == Fabricated {
				t.Fatalf("annotated fix left fabricated %+v:\n%q\nfixed:\n%q", c, report, all.Fixed)
			}
		}
	})
}
